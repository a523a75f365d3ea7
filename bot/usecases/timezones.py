"""A person's timezone: the one their chat profile says, kept in the store and refreshed at most daily.

Slack-free: the caller passes ``ask() -> name or None`` (the profile's timezone), which raises
:class:`~bot.errors.Outage` when the profile can't be read right now. Whatever the answer, it never
creates a person: one that arrives after they asked to be forgotten writes nothing.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from bot.errors import Outage
from bot.state.context import Context

log = logging.getLogger(__name__)

MAX_AGE = timedelta(days=1)  # how long a timezone read from the profile is trusted

Ask = Callable[[], str | None]


def valid_timezone(name: str | None) -> str | None:
    """``name`` if it is a known IANA timezone, else None."""
    if not name:
        return None
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):  # OSError: "Europe" (a folder), a name too long
        return None
    return name


def refresh_timezone(ctx: Context, user_id: str, ask: Ask, now: datetime | None = None,
                     fresh: bool = False) -> str | None:
    """The person's IANA timezone; asks (``ask``) when the stored one is unknown or more than a day
    old, or always with ``fresh`` (someone setting a local time right now: it must be their zone now).

    When the profile can't be read (``ask`` raised Outage), the stored timezone (possibly None) is
    kept and returned. An answer is recorded only for someone paperbot knows, and returned either way.
    """
    now = now or datetime.now(UTC)
    person = ctx.store.get_person(user_id)
    stored = person.tz if person else None
    checked = ctx.store.timezone_checked_at(user_id)
    if not fresh and checked and now - datetime.fromisoformat(checked) < MAX_AGE:
        return stored
    try:
        tz = valid_timezone(ask())
    except Outage:
        log.warning("could not read the timezone of %s; keeping %s", user_id, stored, exc_info=True)
        return stored
    with ctx.store.transaction():
        ctx.store.record_timezone(user_id, tz)  # updates only: never creates the person
    return tz


def timezone_changed(ctx: Context, user_id: str, name: str | None) -> bool:
    """A changed profile says the person's timezone is now ``name``: record it for someone paperbot
    knows (True if recorded). A name that is no timezone, and everyone else's changes, write nothing."""
    tz = valid_timezone(name)
    if not user_id or tz is None:
        return False
    with ctx.store.transaction():
        return ctx.store.record_timezone(user_id, tz)
