"""Weekly recaps in Slack: the poster the scheduler uses (:mod:`bot.usecases.recap` decides what and
when; :mod:`bot.slack.views.recap` words it)."""

from __future__ import annotations

import http.client

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError, SlackClientError

from bot.slack.client import classified
from bot.slack.views.recap import recap_message
from bot.usecases.recap import Poster, Recap


def recap_poster(client: WebClient) -> Poster:
    """Posting recaps with ``client``; failures classified as a digest's are
    (:func:`bot.slack.client.classified`: Unreachable when the bot is not in the channel, Outage when
    Slack is down)."""

    def post(channel: str, recap: Recap) -> str:
        try:
            return client.chat_postMessage(channel=channel, unfurl_links=False, unfurl_media=False,
                                           **recap_message(recap))["ts"]
        except (SlackApiError, SlackClientError, OSError, http.client.HTTPException) as exc:
            raise classified(exc) from exc

    return post
