"""The direct-message channel last opened with each person, kept so a courier need not open it again
for every digest (opening one is rate-limited more tightly than posting)."""

from __future__ import annotations

from bot.state.context import Context


def known_dm_channel(ctx: Context, user_id: str) -> str | None:
    """The DM channel last opened with this person, or None."""
    return ctx.store.dm_channel(user_id)


def remember_dm_channel(ctx: Context, user_id: str, channel: str) -> None:
    """Keep the DM channel just opened with a person paperbot knows (nobody else gets a row)."""
    ctx.store.remember_dm_channel(user_id, channel)  # one statement, atomic alone


def drop_dm_channel(ctx: Context, channel: str) -> None:
    """Stop using a DM channel that no longer accepts messages: it is opened again next time."""
    with ctx.store.transaction():
        ctx.store.forget_dm_channel(channel)
