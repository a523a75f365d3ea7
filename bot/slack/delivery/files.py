"""Files into a person's DM, through Slack's current upload (``files_upload_v2``: an upload URL, the
bytes, then completing the upload into the channel; scope ``files:write``)."""

from __future__ import annotations

import http.client
import logging

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError, SlackClientError

from bot.errors import Outage, PaperbotError, Unreachable
from bot.slack.delivery.digests import slack_courier
from bot.state.context import Context
from bot.usecases.export import ExportFile

log = logging.getLogger(__name__)


class UploadFailed(PaperbotError):
    """Slack would not take the file (or open the DM for it); the message is for the person."""


def upload_to_dm(ctx: Context, client: WebClient, user_id: str, file: ExportFile, title: str,
                 comment: str) -> str:
    """Upload ``file`` into the person's DM, titled ``title``, with ``comment`` (mrkdwn, escaped by the
    caller); returns the DM channel. Raises UploadFailed (one line for the person; the details are logged)."""
    try:
        channel = slack_courier(ctx, client, header_event=None).open(user_id)
    except Unreachable as exc:
        raise UploadFailed(f"I couldn't open a DM with you: {exc}.") from exc
    except Outage as exc:
        raise UploadFailed("Slack isn't answering right now, so I couldn't send the file. "
                           "Please try again in a few minutes.") from exc
    except SlackApiError as exc:
        error = exc.response.get("error") if exc.response is not None else None
        raise UploadFailed(f"I couldn't open a DM with you (Slack said: {error}).") from exc
    try:
        client.files_upload_v2(channel=channel, filename=file.filename, content=file.content,
                               title=title, initial_comment=comment)
    except SlackApiError as exc:
        error = exc.response.get("error") if exc.response is not None else None
        log.warning("uploading %s to %s failed: %s", file.filename, user_id, error)
        raise UploadFailed(f"Slack didn't take the file ({error or 'no reason given'}). "
                           "Please try again in a minute.") from exc
    except (SlackClientError, OSError, http.client.HTTPException) as exc:
        log.warning("uploading %s to %s failed: %s", file.filename, user_id, exc)
        raise UploadFailed("Slack didn't take the file. Please try again in a minute.") from exc
    return channel
