"""Posting papers into a person's DM: a short header, then one message per paper.

Through the same courier as digests (:func:`bot.slack.digests.slack_courier`): each paper message
carries its paper id as metadata, so a post whose answer never came (a timeout) can be looked for in
the DM before anything is sent again.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError, SlackClientError

from bot.context import Context
from bot.errors import Outage, PaperbotError
from bot.slack.digests import slack_courier
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

    A paper counts as shown only once Slack confirmed its message, or once it is found in the DM after
    a post that timed out (see :func:`bot.usecases.delivery.deliver`).
    """
    channel = open_dm(client, user_id)
    courier = slack_courier(ctx, client, header_event=None)  # not a digest's header
    since = datetime.now(UTC)
    try:
        courier.post_text(channel, header)
    except Outage as exc:
        if not exc.maybe_delivered:  # Slack is down: posting the papers now would only fail too
            log.warning("Slack unavailable for the header to %s: %s", user_id, exc)
            return channel, Delivery(failed=list(recommendations), outage=str(exc))
        log.warning("the header to %s got no answer (%s); posting the papers anyway", user_id, exc)
    except Exception:
        log.exception("could not post the header for %s; posting the papers anyway", user_id)

    def post(rec: Recommendation) -> tuple[str, str]:
        return courier.post_paper(channel, rec)

    def find():
        return courier.find_posted(channel, since)

    return channel, deliver(ctx, user_id, recommendations, post, find)
