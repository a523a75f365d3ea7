"""Posting scoop watch alerts (issue 43) with a workspace's Web API client: each in its owner's DM (or in the
channel whose watch it is), with metadata naming the watch and the paper, so that a process taking over an
alert whose sender died can see in the conversation whether it landed
(:func:`bot.usecases.watches.send_watch_alerts` decides, once, in the database)."""

from __future__ import annotations

import http.client
import itertools
import logging
from datetime import datetime

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError, SlackClientError

from bot.errors import Unreachable
from bot.slack.client import classified
from bot.slack.views.watch import ALERT_EVENT, alert_blocks, alert_metadata, alert_text
from bot.state.context import Context
from bot.state.owner import owner_id
from bot.usecases.channels import drop_dm_channel, known_dm_channel, remember_dm_channel
from bot.usecases.subjects import is_channel
from bot.usecases.watches import WatchNews, send_watch_alerts
from storage.models import WatchAlert

log = logging.getLogger(__name__)

HISTORY_PAGE = 100
HISTORY_PAGES = 3


def send_alerts(ctx: Context, client: WebClient, now: datetime) -> int:
    """Post this workspace's due watch alerts; returns how many went out."""

    def open_dm(owner: str) -> str:
        """The owner's DM with paperbot (kept, as the digests keep it), or the channel whose watch it is."""
        if is_channel(owner):
            return owner
        channel = known_dm_channel(ctx, owner)
        if not channel:
            try:
                channel = client.conversations_open(users=owner)["channel"]["id"]
            except (SlackApiError, SlackClientError, OSError, http.client.HTTPException) as exc:
                raise classified(exc) from exc
            remember_dm_channel(ctx, owner, channel)
        return channel

    def post(news: WatchNews) -> tuple[str, str]:
        channel = open_dm(news.alert.user_id)
        try:
            response = client.chat_postMessage(channel=channel, text=alert_text(news),
                                               blocks=alert_blocks(news), metadata=alert_metadata(news),
                                               unfurl_links=False, unfurl_media=False)
        except (SlackApiError, SlackClientError, OSError, http.client.HTTPException) as exc:
            error = classified(exc)
            if isinstance(error, Unreachable) and not is_channel(channel):
                drop_dm_channel(ctx, channel)  # opened again next time, as the digests do
            raise error from exc
        return response["channel"], response["ts"]

    def find(alert: WatchAlert) -> tuple[str, str] | None:
        channel = open_dm(alert.user_id)
        since = datetime.fromisoformat(alert.found_at).timestamp() - 1
        try:
            pages = client.conversations_history(channel=channel, oldest=f"{since:.6f}", limit=HISTORY_PAGE,
                                                 include_all_metadata=True)
            for page in itertools.islice(pages, HISTORY_PAGES):
                for message in page.get("messages") or []:
                    metadata = message.get("metadata") or {}
                    payload = metadata.get("event_payload") or {}
                    named = (metadata.get("event_type"), payload.get("watch_id"), payload.get("paper_id"))
                    if named == (ALERT_EVENT, alert.watch_id, alert.paper_id):
                        return channel, message["ts"]
        except SlackApiError as exc:
            if is_channel(channel):  # a channel's history needs a scope the app does not ask for: post it
                log.warning("could not look for a watch alert in %s (%s); posting it", channel,
                            exc.response.get("error"))
                return None
            raise classified(exc) from exc
        except (SlackClientError, OSError, http.client.HTTPException) as exc:
            raise classified(exc) from exc
        return None

    return send_watch_alerts(ctx, now, post, find, owner_id())
