"""Publishing a person's App Home tab (``views.publish``) as it is now: after they open it, and after
anything that changes what it shows (Home's forms and round, `/papers` subcommands declared to change
it, Save clicks)."""

from __future__ import annotations

import http.client
import logging

from slack_sdk import WebClient
from slack_sdk.errors import SlackClientError

from bot.slack.views.home_view import home_view
from bot.slack.views.messages import escape
from bot.state.context import Context
from bot.usecases.home import home_data
from storage import StorageError

log = logging.getLogger(__name__)

SLACK_FAILURES = (SlackClientError, OSError, http.client.HTTPException)


def refresh_home(ctx: Context, client: WebClient, user_id: str, notice: str | None = None) -> bool:
    """Publish the person's Home tab as it is now (with ``notice``, escaped, first); False (logged) when
    Slack would not take it, or the database could not be read: Home is published again the next time
    they open it, and whatever called this (a command that worked) is not reported as failed."""
    try:
        view = home_view(home_data(ctx, user_id), escape(notice) if notice else None)
    except StorageError as exc:
        log.warning("could not read the Home tab of %s: %s", user_id, exc)
        return False
    try:
        client.views_publish(user_id=user_id, view=view)
    except SLACK_FAILURES as exc:
        log.warning("could not publish the Home tab of %s: %s", user_id, exc)
        return False
    return True
