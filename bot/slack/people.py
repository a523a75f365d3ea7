"""A person's timezone, read from Slack (``users.info``) and kept in the store, refreshed at most daily."""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from slack_sdk import WebClient
from slack_sdk.errors import SlackClientError

from bot.context import Context

log = logging.getLogger(__name__)

MAX_AGE = timedelta(days=1)


def refresh_timezone(ctx: Context, client: WebClient, user_id: str,
                     now: datetime | None = None) -> str | None:
    """The person's IANA timezone; asks Slack when the stored one is unknown or more than a day old.

    When Slack can't be asked, the stored timezone (possibly None) is kept and returned.
    """
    now = now or datetime.now(UTC)
    person = ctx.store.get_person(user_id)
    stored = person.tz if person else None
    checked = ctx.store.timezone_checked_at(user_id)
    if checked and now - datetime.fromisoformat(checked) < MAX_AGE:
        return stored
    try:
        user = client.users_info(user=user_id)["user"]
    except (SlackClientError, OSError):
        log.warning("could not read the timezone of %s; keeping %s", user_id, stored, exc_info=True)
        return stored
    tz = valid_timezone(user.get("tz"))
    with ctx.store.transaction():
        ctx.store.record_timezone(user_id, tz)
    return tz


def valid_timezone(name: str | None) -> str | None:
    """``name`` if it is a known IANA timezone, else None."""
    if not name:
        return None
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return None
    return name
