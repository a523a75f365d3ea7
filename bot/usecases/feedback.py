"""Likes and dislikes: the person's own 👍 and 👎, apart from saves (:mod:`bot.usecases.saved`), which
neither make nor take away either."""

from __future__ import annotations

from bot.errors import UnknownPaper
from bot.state.context import Context

LIKE, DISLIKE = 1, -1


def record_feedback(ctx: Context, user_id: str, paper_id: str, value: int) -> None:
    """Record that a person liked (+1) or disliked (-1) a paper. Raises NotFound for an unknown paper."""
    if value not in (LIKE, DISLIKE):
        raise ValueError("feedback is +1 or -1")
    if ctx.store.get_paper(paper_id) is None:
        raise UnknownPaper(paper_id)
    with ctx.store.transaction():
        ctx.store.ensure_person(user_id)
        ctx.store.set_feedback(user_id, paper_id, value)


def withdraw_feedback(ctx: Context, user_id: str, paper_id: str, value: int | None = None) -> bool:
    """Take back a like or dislike (only that one, when ``value`` is given). True if one was removed."""
    with ctx.store.transaction():
        return ctx.store.remove_feedback(user_id, paper_id, value)
