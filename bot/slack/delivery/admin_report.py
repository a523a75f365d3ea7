"""The admin channel's daily post in Slack (PAPERBOT_ADMIN_CHANNEL): the message, and the poster
:func:`bot.usecases.admin_report.report_problems` calls. What counts as a problem, and once a day, are that
module's."""

from __future__ import annotations

import http.client
from collections.abc import Callable

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError, SlackClientError

from bot.slack.client import classified
from bot.slack.views.admin_problems import todo, what
from bot.slack.views.messages import FALLBACK_LIMIT, escape
from bot.usecases.admin_report import Problem

HEADER = "*paperbot: something needs an admin's look today*"
#: Slack's answer when the channel is not in the workspace whose token posted: with OAuth, the admin
#: channel is one workspace's, and every other workspace finds it so.
ELSEWHERE = "channel_not_found"


def report_text(found: list[Problem]) -> str:
    """The post: a header line, then each problem and what to do (error texts escaped)."""
    lines = [HEADER, *(f"• {escape(what(p))}: {todo(p)}." for p in found)]
    return "\n".join(lines)[:FALLBACK_LIMIT]


def admin_poster(client: WebClient, channel: str, elsewhere_ok: bool) -> Callable[[list[Problem]], None]:
    """Posts a report into ``channel`` with ``client``; raises Outage for Slack's trouble, the API's error
    for a post refused. ``elsewhere_ok``: paperbot serves several workspaces, so a channel not found is
    another workspace's, and nothing to say."""

    def post(found: list[Problem]) -> None:
        try:
            client.chat_postMessage(channel=channel, text=report_text(found), unfurl_links=False,
                                    unfurl_media=False)
        except SlackApiError as exc:
            if elsewhere_ok and exc.response.get("error") == ELSEWHERE:
                return
            raise classified(exc) from exc
        except (SlackClientError, OSError, http.client.HTTPException) as exc:
            raise classified(exc) from exc

    return post
