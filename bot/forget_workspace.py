"""Forgetting a whole workspace: what uninstalling paperbot from it means.

A use case like :func:`bot.usecases.forget.forget` (kept beside them until it moves in with them).
"""

from __future__ import annotations

from bot.context import Context


def forget_workspace(ctx: Context, ws: str) -> dict[str, int]:
    """Delete the installation and every row of workspace key ``ws`` (people, topics, feedback, digests,
    ...); returns the rows deleted per table. Deleting a workspace already gone deletes nothing."""
    if not ws:
        raise ValueError("a workspace key is needed: the unassigned rows are not one workspace's")
    return ctx.store.delete_workspace(ws)
