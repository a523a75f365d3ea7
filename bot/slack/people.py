"""A person's timezone, read from Slack (``users.info``) and kept in the store, refreshed at most daily,
and at once when Slack says a profile changed (the ``user_change`` event)."""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from slack_bolt import App
from slack_sdk import WebClient
from slack_sdk.errors import SlackClientError

from bot.context import Context
from bot.slack.runtime import Runtime

log = logging.getLogger(__name__)

MAX_AGE = timedelta(days=1)


def refresh_timezone(ctx: Context, client: WebClient, user_id: str,
                     now: datetime | None = None, fresh: bool = False) -> str | None:
    """The person's IANA timezone; asks Slack when the stored one is unknown or more than a day old,
    or always with ``fresh`` (someone setting a local time right now: it must be their zone now).

    When Slack can't be asked, the stored timezone (possibly None) is kept and returned.
    """
    now = now or datetime.now(UTC)
    person = ctx.store.get_person(user_id)
    stored = person.tz if person else None
    checked = ctx.store.timezone_checked_at(user_id)
    if not fresh and checked and now - datetime.fromisoformat(checked) < MAX_AGE:
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
    except (ZoneInfoNotFoundError, ValueError, OSError):  # OSError: "Europe" (a folder), a name too long
        return None
    return name


def timezone_changed(ctx: Context, user: dict) -> bool:
    """Take the timezone from a changed Slack profile (a ``user_change`` event's ``user``), for someone
    paperbot knows; True if it was recorded. Everyone else's profile changes are none of its business."""
    user_id, tz = user.get("id"), valid_timezone(user.get("tz"))
    if not isinstance(user_id, str) or not user_id or tz is None:
        return False
    with ctx.store.transaction():
        return ctx.store.record_timezone(user_id, tz)  # only for someone paperbot knows


def register(app: App, rt: Runtime) -> None:
    """Listen for profile changes (someone who travels gets digests at their new local time)."""

    @app.event("user_change")
    def on_user_change(event: dict, body: dict) -> None:
        user = event.get("user") if isinstance(event.get("user"), dict) else {}
        rt.background.submit(lambda: timezone_changed(rt.ctx, user), body)
