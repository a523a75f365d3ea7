"""arxiv.org links unfurled into the paper's card (``link_shared`` → ``chat.unfurl``); and every paper link
posted in a channel (arXiv, doi.org, OpenReview, bioRxiv, medRxiv: the app's unfurl domains) counted as the
poster's interest (:mod:`bot.usecases.shares`).

The card (:mod:`bot.slack.views.unfurl_card`) is a paper message's blocks (title linked, authors and
venue, start of the abstract) with Save, 👍 and More like this; its clicks are
:mod:`bot.slack.listeners.unfurl_clicks`'s. A paper not held yet is fetched from the arXiv API first; a
link whose paper can't be had is left as Slack shows it, and nobody is told anything.
"""

from __future__ import annotations

import http.client
import logging

from slack_bolt import App
from slack_sdk import WebClient
from slack_sdk.errors import SlackClientError

from bot.slack.runtime import Runtime
from bot.slack.views.unfurl_card import unfurl_blocks
from bot.sources.arxiv_ids import MAX_IDS, arxiv_id_of_url
from bot.usecases.lookup import LookupFailed, held_by_arxiv_id, papers_by_arxiv_id
from bot.usecases.shares import record_shared_links

log = logging.getLogger(__name__)


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
            # A link in a message posted (not one being typed: the composer's) by a person, in a channel.
            user, channel = event.get("user"), event.get("channel")
            if event.get("source") != "composer" and isinstance(user, str) and isinstance(channel, str):
                record_shared_links(rt.ctx, user, links, channel)
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
