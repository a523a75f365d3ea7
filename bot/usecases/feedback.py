"""Likes and dislikes."""

from __future__ import annotations

from bot.errors import NotFound
from bot.state.context import Context

LIKE, DISLIKE = 1, -1


def record_feedback(ctx: Context, user_id: str, paper_id: str, value: int) -> None:
    """Record that a person liked (+1) or disliked (-1) a paper. Raises NotFound for an unknown paper."""
    if value not in (LIKE, DISLIKE):
        raise ValueError("feedback is +1 or -1")
    if ctx.store.get_paper(paper_id) is None:
        raise NotFound(f"I don't know a paper with id {paper_id}")
    with ctx.store.transaction():
        ctx.store.ensure_person(user_id)
        ctx.store.set_feedback(user_id, paper_id, value)
        if value == LIKE:  # a like of its own: unsaving the paper (bot.usecases.saved) leaves it
            ctx.store.keep_saved_like(user_id, paper_id)


def withdraw_feedback(ctx: Context, user_id: str, paper_id: str, value: int | None = None) -> bool:
    """Take back a like or dislike (only that one, when ``value`` is given). True if one was removed."""
    with ctx.store.transaction():
        return ctx.store.remove_feedback(user_id, paper_id, value)
