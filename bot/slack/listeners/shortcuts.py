"""The message shortcut *Save paper* (``save_paper``): save the papers a message names for the person
who used it (:mod:`bot.usecases.save_named`), and tell them privately what was saved.

The answer is an ephemeral message in that channel; where paperbot can't post one (a channel it is
not in, a DM between two people), it comes in paperbot's DM instead.
"""

from __future__ import annotations

import http.client
import logging
from collections.abc import Iterator

from slack_bolt import App
from slack_sdk import WebClient
from slack_sdk.errors import SlackClientError

from bot.slack.manifest import COMMAND, SAVE_SHORTCUT
from bot.slack.runtime import Runtime
from bot.slack.views.messages import fit, title_of
from bot.usecases.save_named import NamedSave, find_named_papers, save_named_papers

log = logging.getLogger(__name__)

TEXT_FIELDS = ("text", "fallback", "pretext", "title", "title_link", "from_url", "original_url",
               "app_unfurl_url", "url")
MAX_TEXT = 40_000  # characters of a message read for links (Slack's own limit for a message's text)
TITLES_LISTED = 10


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


def saved_reply(result: NamedSave) -> str:
    """What the person is told after the shortcut."""
    if not result.named:
        return ("I found no arXiv link, arXiv id or DOI in that message, so nothing was saved. "
                "Use *Save paper* on a message that links to a paper.")
    lines = []
    if result.saved:
        lines.append(f":bookmark: Saved {_papers(len(result.saved))}: {_titles(result.saved)}. "
                     f"`{COMMAND} saved` lists your saved papers.")
    if result.already:
        lines.append(f"Already in your saved papers: {_titles(result.already)}.")
    if result.missing:
        names = ", ".join(f"`{fit(name, 100)}`" for name in result.missing[:TITLES_LISTED])
        why = (" (arXiv isn't answering right now; try again in a few minutes)" if result.unreachable
               else "")
        lines.append(f"I couldn't find {names}{why}.")
    return "\n".join(lines)


def _titles(papers: list) -> str:
    shown = ", ".join(f"“{fit(title_of(p), 120)}”" for p in papers[:TITLES_LISTED])
    return shown + (f" and {len(papers) - TITLES_LISTED} more" if len(papers) > TITLES_LISTED else "")


def _papers(n: int) -> str:
    return f"{n} paper" if n == 1 else f"{n} papers"


def tell_privately(client: WebClient, channel: str | None, user: str, text: str) -> bool:
    """Post ``text`` to ``user`` only: ephemeral in ``channel``, else in paperbot's DM with them.
    False (logged) when neither could be posted."""
    if channel:
        try:
            client.chat_postEphemeral(channel=channel, user=user, text=text)
            return True
        except (SlackClientError, OSError, http.client.HTTPException) as exc:
            log.info("no ephemeral answer in %s (%s); answering in the DM", channel, exc)
    try:
        dm = client.conversations_open(users=user)["channel"]["id"]
        client.chat_postMessage(channel=dm, text=text, unfurl_links=False, unfurl_media=False)
        return True
    except (SlackClientError, OSError, http.client.HTTPException, KeyError, TypeError) as exc:
        log.warning("could not tell %s what the shortcut saved: %s", user, exc)
        return False


def register(app: App, runtime: Runtime) -> None:
    """Register the Save paper shortcut."""

    @app.shortcut(SAVE_SHORTCUT)
    def on_save_paper(ack, body: dict, respond, client: WebClient, context) -> None:
        ack()
        user = body["user"]["id"]
        channel = (body.get("channel") or {}).get("id")
        text = message_text(body.get("message") or {})

        def work(rt: Runtime) -> None:
            named = find_named_papers(rt.ctx, text)  # the arXiv API, when asked, outside the lock
            with rt.locks.hold(user):
                result = save_named_papers(rt.ctx, user, named)
            tell_privately(client, channel, user, saved_reply(result))

        runtime.after_ack(context, body, work, respond)  # by the trigger id: a replayed request saves once
