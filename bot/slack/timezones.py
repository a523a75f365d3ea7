"""A person's timezone as Slack has it (``users.info``), asked only when the stored one is unknown or
old: what is kept, and for how long, is :mod:`bot.usecases.timezones`'s. Subcommands, Home's forms
and the people listener all read it through here."""

from __future__ import annotations

from datetime import datetime

from slack_sdk import WebClient
from slack_sdk.errors import SlackClientError

from bot.errors import Outage
from bot.state.context import Context
from bot.usecases import timezones


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
