"""Posting papers into a person's DM: a short header, then one message per paper.

The digest job can use :func:`send_papers` just as ``/papers recommend`` does.
"""

from __future__ import annotations

import logging

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError, SlackClientError

from bot.context import Context
from bot.errors import PaperbotError
from bot.slack.messages import paper_blocks, paper_text
from bot.usecases.delivery import Delivery, deliver
from bot.usecases.recommend import Recommendation

log = logging.getLogger(__name__)


class SlackUnavailable(PaperbotError):
    """Slack refused or could not be reached for a call the reply depends on."""


def open_dm(client: WebClient, user_id: str) -> str:
    """The id of the DM channel between the bot and this person."""
    try:
        return client.conversations_open(users=user_id)["channel"]["id"]
    except SlackApiError as exc:
        raise SlackUnavailable(f"I couldn't open a DM with you (Slack said: {exc.response.get('error')}). "
                               "Try again in a minute.") from exc
    except (SlackClientError, OSError) as exc:
        raise SlackUnavailable("I couldn't reach Slack to open a DM with you. "
                               "Try again in a minute.") from exc


def send_papers(ctx: Context, client: WebClient, user_id: str, recommendations: list[Recommendation],
                header: str) -> tuple[str, Delivery]:
    """Post ``header`` (mrkdwn, already escaped) then each paper; returns the DM channel and what arrived.

    A paper counts as shown only once Slack confirmed its message; a failed one is logged and skipped.
    """
    channel = open_dm(client, user_id)
    try:
        client.chat_postMessage(channel=channel, text=header, unfurl_links=False, unfurl_media=False)
    except (SlackClientError, OSError):
        log.exception("could not post the header for %s; posting the papers anyway", user_id)

    def post(rec: Recommendation) -> tuple[str, str]:
        response = client.chat_postMessage(channel=channel, text=paper_text(rec.paper),
                                           blocks=paper_blocks(rec), unfurl_links=False, unfurl_media=False)
        return response["channel"], response["ts"]

    return channel, deliver(ctx, user_id, recommendations, post)
