"""The message shortcut *Save paper* (``save_paper``): save the papers a message names for the person
who used it (:mod:`bot.usecases.save_named`), and tell them privately what was saved.

The answer is an ephemeral message in that channel; where paperbot can't post one (a channel it is
not in, a DM between two people), it comes in paperbot's DM instead.
"""

from __future__ import annotations

import logging

from slack_bolt import App
from slack_sdk import WebClient

from bot.slack.manifest import COMMAND, SAVE_SHORTCUT
from bot.slack.runtime import Runtime
from bot.slack.shortcut_messages import message_text, tell_privately
from bot.slack.views.messages import fit, title_of
from bot.usecases.save_named import NamedSave, find_named_papers, save_named_papers

log = logging.getLogger(__name__)

TITLES_LISTED = 10


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
