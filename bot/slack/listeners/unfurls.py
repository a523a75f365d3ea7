"""arxiv.org links unfurled into the paper's card (``link_shared`` → ``chat.unfurl``).

The card is a paper message's blocks (title linked, authors and venue, start of the abstract) with
Save, 👍 and More like this. Their action ids are the paper messages' own, so the same listeners take
the clicks; the paper id rides in each button's value (:func:`unfurled_paper`), since the message is
the poster's, not one paperbot recorded. A paper not held yet is fetched from the arXiv API first; a
link whose paper can't be had is left as Slack shows it, and nobody is told anything.
"""

from __future__ import annotations

import http.client
import logging

from slack_bolt import App
from slack_sdk import WebClient
from slack_sdk.errors import SlackClientError

from bot.slack.runtime import Runtime
from bot.slack.views.messages import LIKE_ACTION, MORE_ACTION, SAVE_ACTION, paper_blocks
from bot.sources.arxiv_ids import MAX_IDS, arxiv_id_of_url
from bot.usecases.lookup import LookupFailed, held_by_arxiv_id, papers_by_arxiv_id
from bot.usecases.recommend import Recommendation
from storage import Paper

log = logging.getLogger(__name__)

UNFURL_ACTIONS = "paper_unfurl_actions"  # the block of an unfurl's buttons
VALUE_PREFIX = "paper:"  # a button value naming its paper (a paper message's buttons name none)
VALUE_LIMIT = 2000  # characters of a button's value
BUTTONS = ((SAVE_ACTION, "🔖 Save"), (LIKE_ACTION, "👍"), (MORE_ACTION, "More like this"))


def unfurl_blocks(paper: Paper) -> list[dict]:
    """The card of an unfurled link: the paper as a paper message shows it (no reason: nobody was
    recommended it), and Save, 👍 and More like this naming the paper."""
    blocks = paper_blocks(Recommendation(paper, 0.0, ""), buttons=False)
    value = VALUE_PREFIX + paper.id
    if len(value) <= VALUE_LIMIT:
        blocks.append({"type": "actions", "block_id": UNFURL_ACTIONS, "elements": [
            {"type": "button", "action_id": action, "value": value,
             "text": {"type": "plain_text", "text": label, "emoji": True}} for action, label in BUTTONS]})
    return blocks


def unfurled_paper(body: dict) -> str | None:
    """The paper id a click names when it is on an unfurl's button, else None (a paper message's
    button: its paper is the one recorded as shown in that message)."""
    container = body.get("container") or {}
    if container.get("type") != "message_attachment" and not container.get("is_app_unfurl"):
        return None
    for action in body.get("actions") or []:
        value = action.get("value") if isinstance(action, dict) else None
        if isinstance(value, str) and value.startswith(VALUE_PREFIX) and len(value) > len(VALUE_PREFIX):
            return value[len(VALUE_PREFIX):]
    return None


def unfurls_for(rt: Runtime, links: list[str]) -> dict[str, dict]:
    """``chat.unfurl``'s ``unfurls`` for the arxiv.org ``links`` whose papers are held or could be
    fetched: {url: {"blocks": card}}. A failed lookup leaves out the papers it would have brought."""
    ids = {url: base for url in links[:MAX_IDS] if (base := arxiv_id_of_url(url))}
    if not ids:
        return {}
    try:
        papers = papers_by_arxiv_id(rt.ctx, ids.values())
    except LookupFailed as exc:
        log.warning("%s: those links are not unfurled", exc)
        papers = held_by_arxiv_id(rt.ctx, ids.values())
    return {url: {"blocks": unfurl_blocks(papers[base])} for url, base in ids.items() if base in papers}


def register(app: App, runtime: Runtime) -> None:
    """Register the ``link_shared`` listener."""

    @app.event("link_shared")
    def on_link_shared(event: dict, body: dict, client: WebClient, context) -> None:
        links = [link.get("url") for link in event.get("links") or [] if isinstance(link, dict)]
        links = [url for url in links if isinstance(url, str) and url]
        if not links:
            return

        def work(rt: Runtime) -> None:
            unfurls = unfurls_for(rt, links)
            if not unfurls:
                return
            if event.get("source") == "composer" and event.get("unfurl_id"):
                where = {"unfurl_id": event["unfurl_id"], "source": "composer"}  # not posted yet
            else:
                where = {"channel": event.get("channel"), "ts": event.get("message_ts")}
            try:
                client.chat_unfurl(unfurls=unfurls, **where)
            except (SlackClientError, OSError, http.client.HTTPException) as exc:
                log.warning("could not unfurl %d link(s): %s", len(unfurls), exc)

        # Claimed by the event's id: a redelivered link_shared unfurls once.
        runtime.after_ack(context, body, work)
