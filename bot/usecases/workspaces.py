"""The workspaces one paperbot serves: settling old rows into one, listing them, removing one."""

from __future__ import annotations

import logging

from bot.state.context import Context
from storage import WorkspaceSummary

log = logging.getLogger(__name__)


def settle_workspace(ctx: Context, ws: str) -> int:
    """Make the rows stored before workspaces existed (a database of an older paperbot, which served
    one workspace) workspace ``ws``'s: the one SLACK_BOT_TOKEN serves, or the one the operator names with
    `paperbot workspaces adopt` (never an OAuth install: the first to install may be anyone). Safe to
    call at every start, from several processes at once; returns how many rows moved."""
    moved = ctx.store.adopt_workspace(ws)
    if moved:
        log.info("moved %d rows stored before workspaces into workspace %s", moved, ws)
    return moved


def list_workspaces(ctx: Context) -> list[WorkspaceSummary]:
    """Every workspace with an installation or people, with its people and its latest digest."""
    return ctx.store.workspaces()


def remove_workspace(ctx: Context, ws: str) -> int:
    """Delete workspace ``ws``'s installation and every row about its people (what an uninstall
    does). Returns how many rows went; 0 for a workspace paperbot doesn't know."""
    if not ws:
        raise ValueError("a workspace key is needed: the rows not assigned yet are no one workspace's")
    return sum(ctx.store.delete_workspace(ws).values())
