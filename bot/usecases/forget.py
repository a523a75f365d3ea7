"""Forgetting a person entirely."""

from __future__ import annotations

from bot.state.context import Context


def forget(ctx: Context, user_id: str) -> int:
    """Delete everything stored about a person, from every table. Returns how many rows went."""
    return sum(ctx.store.forget_person(user_id).values())
