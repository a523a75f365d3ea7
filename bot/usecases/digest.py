"""Building a person's digest."""

from __future__ import annotations

from dataclasses import dataclass

from bot.context import Context
from bot.usecases.recommend import Recommendation, recommend


@dataclass
class Digest:
    """The papers chosen for one person's digest."""

    user_id: str
    recommendations: list[Recommendation]


def build_digest(ctx: Context, user_id: str, remember: bool = True) -> Digest:
    """Choose the day's papers for a person: the best ``digest_size`` they have not seen."""
    return Digest(user_id, recommend(ctx, user_id, ctx.digest_size, remember=remember))
