"""Papers asked for now (``/papers recommend``), posted into the person's DM.

Through the same courier as digests (:func:`bot.slack.delivery.digests.slack_courier`) and the same use case
as an extra digest (:func:`bot.usecases.delivery.send_papers`): each paper message carries its paper
id as metadata, so a post whose answer never came (a timeout) can be looked for in the DM before
anything is sent again. Only the header differs: it carries no digest metadata, so a digest taken
over after a crash never mistakes it for its own.
"""

from __future__ import annotations

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from bot.errors import PaperbotError, Unreachable
from bot.slack.delivery.digests import slack_courier
from bot.state.context import Context
from bot.usecases import delivery
from bot.usecases.delivery import Delivery
from bot.usecases.recommend import Recommendation


class SlackUnavailable(PaperbotError):
    """Slack refused a call the reply depends on (opening the DM)."""


def send_papers(ctx: Context, client: WebClient, user_id: str, recommendations: list[Recommendation],
                header: str) -> Delivery:
    """Post ``header`` (mrkdwn, already escaped) then each paper; returns what arrived.

    A paper counts as shown only once Slack confirmed its message, or once it is found in the DM after
    a post that timed out (see :func:`bot.usecases.delivery.deliver`). Raises SlackUnavailable (its
    message is for the person) when Slack won't open a DM with them.
    """
    courier = slack_courier(ctx, client, header_event=None)  # not a digest's header
    try:
        return delivery.send_papers(ctx, user_id, recommendations, courier, header)
    except Unreachable as exc:
        raise SlackUnavailable(f"I couldn't open a DM with you: {exc}.") from exc
    except SlackApiError as exc:  # opening the DM was refused for a reason the courier leaves as is
        raise SlackUnavailable(f"I couldn't open a DM with you (Slack said: {exc.response.get('error')}). "
                               "Try again in a minute.") from exc
