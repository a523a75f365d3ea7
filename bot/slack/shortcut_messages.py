"""What a message shortcut (*Save paper*, *Who should read this?*) reads of the message it was used on,
and how it answers the person who used it: privately, in that channel, else in paperbot's DM."""

from __future__ import annotations

import http.client
import logging
from collections.abc import Iterator

from slack_sdk import WebClient
from slack_sdk.errors import SlackClientError

log = logging.getLogger(__name__)

TEXT_FIELDS = ("text", "fallback", "pretext", "title", "title_link", "from_url", "original_url",
               "app_unfurl_url", "url")
MAX_TEXT = 40_000  # characters of a message read for links (Slack's own limit for a message's text)


def message_text(message: dict) -> str:
    """Everything of a message where a link or an id can be: its text, its attachments (link
    previews, unfurls) and the text of its blocks, one piece per line."""
    return "\n".join(_texts(message))[:MAX_TEXT]


def _texts(node: object, depth: int = 0) -> Iterator[str]:
    if depth > 20:  # Slack's blocks nest a few levels; a deeper payload is not worth reading
        return
    if isinstance(node, dict):
        for key, value in node.items():
            if isinstance(value, str) and key in TEXT_FIELDS:
                yield value
            elif isinstance(value, dict | list):
                yield from _texts(value, depth + 1)
    elif isinstance(node, list):
        for item in node:
            yield from _texts(item, depth + 1)


def tell_privately(client: WebClient, channel: str | None, user: str, text: str,
                   blocks: list[dict] | None = None) -> bool:
    """Post ``text`` (and ``blocks``, when given) to ``user`` only: ephemeral in ``channel``, else in
    paperbot's DM with them. False (logged) when neither could be posted."""
    message: dict = {"text": text, **({"blocks": blocks} if blocks else {})}
    if channel:
        try:
            client.chat_postEphemeral(channel=channel, user=user, **message)
            return True
        except (SlackClientError, OSError, http.client.HTTPException) as exc:
            log.info("no ephemeral answer in %s (%s); answering in the DM", channel, exc)
    try:
        dm = client.conversations_open(users=user)["channel"]["id"]
        client.chat_postMessage(channel=dm, unfurl_links=False, unfurl_media=False, **message)
        return True
    except (SlackClientError, OSError, http.client.HTTPException, KeyError, TypeError) as exc:
        log.warning("could not answer %s's shortcut: %s", user, exc)
        return False
