"""A person's timezone, read from Slack (``users.info``) and at once when Slack says a profile changed
(the ``user_change`` event). What is kept, and for how long, is :mod:`bot.usecases.timezones`'s."""

from __future__ import annotations

from datetime import datetime

from slack_bolt import App
from slack_sdk import WebClient
from slack_sdk.errors import SlackClientError

from bot.errors import Outage
from bot.slack.runtime import Runtime
from bot.state.context import Context
from bot.usecases import timezones
from bot.usecases.timezones import valid_timezone

__all__ = ["refresh_timezone", "register", "timezone_changed", "valid_timezone"]


def refresh_timezone(ctx: Context, client: WebClient, user_id: str,
                     now: datetime | None = None, fresh: bool = False) -> str | None:
    """The person's IANA timezone, asking Slack when the stored one is unknown or a day old, or always
    with ``fresh`` (see :func:`bot.usecases.timezones.refresh_timezone`). When Slack can't be asked,
    the stored one (possibly None) is returned."""

    def ask() -> str | None:
        try:
            return client.users_info(user=user_id)["user"].get("tz")
        except (SlackClientError, OSError) as exc:
            raise Outage(f"users.info failed: {type(exc).__name__}: {exc}") from exc

    return timezones.refresh_timezone(ctx, user_id, ask, now, fresh)


def timezone_changed(ctx: Context, user: dict) -> bool:
    """Take the timezone from a changed Slack profile (a ``user_change`` event's ``user``), for someone
    paperbot knows; True if it was recorded. Everyone else's profile changes are none of its business."""
    user_id = user.get("id")
    if not isinstance(user_id, str):
        return False
    return timezones.timezone_changed(ctx, user_id, user.get("tz"))


def register(app: App, runtime: Runtime) -> None:
    """Listen for profile changes (someone who travels gets digests at their new local time)."""

    @app.event("user_change")
    def on_user_change(event: dict, body: dict, context) -> None:
        user = event.get("user") if isinstance(event.get("user"), dict) else {}
        runtime.after_ack(context, body, lambda rt: timezone_changed(rt.ctx, user))
