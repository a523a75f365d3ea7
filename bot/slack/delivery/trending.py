"""Trending posts in Slack: the message (each paper with how many people liked and saved it, never
who), the poster the weekly run and ``/papers channel trending now`` use, and whether the bot is in a channel.
The rules of the weekly post are :mod:`bot.usecases.trending`'s."""

from __future__ import annotations

import http.client
import logging

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError, SlackClientError

from bot.presentation.paper_view import title_url
from bot.slack.client import classified
from bot.slack.views.messages import (
    FALLBACK_LIMIT,
    SECTION_LIMIT,
    TITLE_LIMIT,
    byline,
    fit,
    header_block,
    link,
    title_of,
)
from bot.slack.views.recap import counts_text
from bot.usecases.trending import DAYS, Poster, TrendingPaper

log = logging.getLogger(__name__)

HEADER = f"Trending in this workspace: the most-liked papers of the past {DAYS} days"
NOTHING = (f":zzz: Nobody here liked or saved a paper in the past {DAYS} days, so nothing is trending. "
           "React :+1: to papers paperbot sends you (or save them) and the most-liked show up here.")
FOOTNOTE = ("Counted from the :+1: and saves of people in this workspace, one per person (their like, else "
            "their save); who liked or saved what stays private. `/papers channel trending off` stops these "
            "posts.")


def trending_message(papers: list[TrendingPaper]) -> dict:
    """The keyword arguments of ``chat.postMessage`` for a trending post: ``text`` and ``blocks``."""
    if not papers:
        return {"text": NOTHING, "blocks": [{"type": "section", "text": {"type": "mrkdwn", "text": NOTHING}}]}
    blocks: list[dict] = [header_block(HEADER)]
    lines = []
    for rank, item in enumerate(papers, 1):
        paper = item.paper
        title = f"*{rank}. {link(title_url(paper), fit(title_of(paper), TITLE_LIMIT))}*"
        by = byline(paper)
        mark = ":+1:" if item.likes else ":bookmark:"
        text = f"{title}\n{by + ' · ' if by else ''}{mark} {counts_text(item)}"
        blocks.append({"type": "section", "text": {"type": "mrkdwn", "text": text[:SECTION_LIMIT]}})
        lines.append(f"{rank}. {fit(title_of(paper), 200)} ({counts_text(item)})")
    blocks.append({"type": "context", "elements": [{"type": "mrkdwn", "text": FOOTNOTE}]})
    text = f"{HEADER}:\n" + "\n".join(lines)
    return {"text": text[:FALLBACK_LIMIT], "blocks": blocks}


def trending_poster(client: WebClient) -> Poster:
    """Posting trending messages with ``client``; failures classified as a digest's are
    (:func:`bot.slack.client.classified`: Unreachable when the bot is not in the channel)."""

    def post(channel: str, papers: list[TrendingPaper]) -> str:
        try:
            return client.chat_postMessage(channel=channel, unfurl_links=False, unfurl_media=False,
                                           **trending_message(papers))["ts"]
        except (SlackApiError, SlackClientError, OSError, http.client.HTTPException) as exc:
            raise classified(exc) from exc

    return post


def is_member(client: WebClient, channel: str) -> bool | None:
    """Whether the bot is in ``channel`` (``conversations.info``'s ``is_member``): False when Slack says
    it is not, None when Slack can't say (a private channel: ``channels:read`` covers public ones only;
    an outage): the command goes on, and a post would tell."""
    try:
        found = client.conversations_info(channel=channel).get("channel") or {}
    except SlackApiError as exc:
        error = exc.response.get("error") if exc.response is not None else None
        log.warning("could not tell whether the bot is in %s: %s", channel, error)
        return None
    except (SlackClientError, OSError, http.client.HTTPException) as exc:
        log.warning("could not tell whether the bot is in %s: %s", channel, exc)
        return None
    member = found.get("is_member")
    return bool(member) if member is not None else None
