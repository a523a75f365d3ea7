"""A person's timezone, taken at once when Slack says a profile changed (the ``user_change`` event);
otherwise it is read from Slack when needed (:func:`bot.slack.timezones.refresh_timezone`). What is
kept, and for how long, is :mod:`bot.usecases.timezones`'s."""

from __future__ import annotations

from slack_bolt import App

from bot.slack.runtime import Runtime
from bot.state.context import Context
from bot.usecases import timezones
from bot.usecases.timezones import valid_timezone

__all__ = ["register", "timezone_changed", "valid_timezone"]


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
