"""Publishing a person's App Home tab (``views.publish``) as it is now: after they open it, and after
anything that changes what it shows (Home's forms and round, `/papers` subcommands declared to change
it, Save clicks). After a subcommand or a Save click, only for people who have opened Home at least once
(:func:`refresh_opened_home`): for anyone else the publish would be work for nothing, since Home is
published whenever it is opened."""

from __future__ import annotations

import http.client
import logging

from slack_sdk import WebClient
from slack_sdk.errors import SlackClientError

from bot.slack.views.home_view import home_view
from bot.slack.views.messages import escape
from bot.state.context import Context
from bot.usecases.home import home_data, opened_home
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


def refresh_opened_home(ctx: Context, client: WebClient, user_id: str) -> bool:
    """:func:`refresh_home`, for a person who has opened Home at least once (one cheap read); False for
    anyone else (what they see first is published when they open it), and when it could not be read."""
    try:
        if not opened_home(ctx, user_id):
            return False
    except StorageError as exc:
        log.warning("could not read whether %s opened the Home tab: %s", user_id, exc)
        return False
    return refresh_home(ctx, client, user_id)
