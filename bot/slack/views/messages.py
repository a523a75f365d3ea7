"""Block Kit for paper messages and replies, within Slack's limits, with every outside text escaped.

Slack treats ``&``, ``<`` and ``>`` as control characters in message text; escaping those three (and only
those) means no paper title, abstract or echoed command can form a mention, a channel ping or a link.
"""

from __future__ import annotations

import re

from bot.presentation.markup import escape, mrkdwn
from bot.presentation.paper_view import (
    SHOWN_KEPT,
    keep_cleared,
    paper_links,
    published_on,
    shown_abstract,
    shown_highlights,
    shown_text,
    shown_title,
    title_url,
)
from bot.presentation.reasons import shorten
from bot.usecases.recommend import Recommendation
from storage import Paper

SECTION_LIMIT = 3000  # characters of a section's text
HEADER_LIMIT = 150  # characters of a header block's text
CONTEXT_ELEMENTS = 10  # elements of one context block
MESSAGE_BLOCKS = 50  # blocks of one message (100 in App Home and modals)
HOME_BLOCKS = 100
FALLBACK_LIMIT = 3000  # our own cap for a message's plain `text`

TITLE_LIMIT = 300
AUTHORS_SHOWN = 6
AUTHORS_LIMIT = 400
VENUE_LIMIT = 120
REASON_LIMIT = 300
ABSTRACT_LIMIT = 600
HIGHLIGHT_LIMIT = 350  # characters of each highlight (cut at a word, with "…")
QUOTED_LABEL = "_Quoted from the abstract:_"
SUMMARY_LIMIT = 300  # a summary is at most 280 characters (the check refuses longer ones), escaped
URL_LIMIT = 1000

LIKE_ACTION = "paper_like"
DISLIKE_ACTION = "paper_dislike"
SAVE_ACTION = "paper_save"
MORE_ACTION = "paper_more_like_this"
WHO_ACTION = "paper_who"  # "Who should read this?": its value is the paper's id (bot.slack.listeners.who)
WHO_LABEL = "Who should read this?"
BUTTON_VALUE_LIMIT = 2000  # characters of a button's value
ACTIONS_BLOCK = "paper_actions"  # the block of the buttons (bot.slack.views.marks finds it by this id)

_URL = re.compile(r"https?://[^\s<>|\"]+")


def unescape(text: str) -> str:
    """Undo :func:`escape` (Slack may send command text escaped)."""
    return text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")


def fit(text: str, limit: int) -> str:
    """``text`` shortened at a word boundary and escaped (formatting characters too, :func:`mrkdwn`) so
    that the escaped result fits ``limit``."""
    budget = limit
    while True:
        escaped = mrkdwn(shorten(text, budget))
        if len(escaped) <= limit:
            return escaped
        budget -= len(escaped) - limit


def link(url: str | None, label: str) -> str:
    """``label`` (already escaped) linked to ``url`` when that is a plain http(s) URL, else just the label."""
    if url and len(url) <= URL_LIMIT and _URL.fullmatch(url):
        return f"<{escape(url)}|{label}>"
    return label


def title_of(paper: Paper) -> str:
    """A paper's title as shown (TeX rendered; for an untitled paper, a title-like line from its abstract)."""
    return shown_title(paper)


def byline(paper: Paper) -> str:
    """Authors and venue, escaped, or '' when neither is known."""
    parts = []
    if paper.authors:
        names = ", ".join(shown_text(name) for name in paper.authors[:AUTHORS_SHOWN])
        if len(paper.authors) > AUTHORS_SHOWN:
            names += " et al."
        parts.append(fit(names, AUTHORS_LIMIT))
    if paper.venue:
        parts.append(fit(shown_text(paper.venue), VENUE_LIMIT))
    return " · ".join(parts)


def dateline(paper: Paper) -> str:
    """The publication date and, for arXiv, links to its abstract page and PDF; '' when neither is known.
    (Any other paper's one link is its title's.)"""
    parts = [published_on(paper)] if published_on(paper) else []
    if paper.arxiv_id:
        parts += [link(each.url, escape(each.label)) for each in paper_links(paper)]
    return " · ".join(parts)


def paper_text(paper: Paper) -> str:
    """The plain `text` of a paper message: its title (what notifications and screen readers show)."""
    return fit(title_of(paper), FALLBACK_LIMIT)


def saved_by_text(rec: Recommendation) -> str:
    """"Saved by N people here" when the message may say it (``rec.saved_by``), else ""."""
    return f"🔖 Saved by {rec.saved_by} people here" if rec.saved_by else ""


def why_line(rec: Recommendation) -> str:
    """The line under a paper's head: the feed it came from, why it was picked, and how many people here
    saved it, each when known; "" when none is."""
    why = "*Why:* " + fit(rec.reason, REASON_LIMIT) if rec.reason else ""
    feed = f"*Feed:* {fit(rec.feed, 60)}" if rec.feed else ""
    return " · ".join(part for part in (feed, why, saved_by_text(rec)) if part)


def quoted(rec: Recommendation) -> str:
    """What the paper does (mrkdwn), labelled with where it comes from: the lab's model's summary
    ("Summary by MODEL, checked against the abstract"), else its highlights, in its abstract's own words
    and marked as quoted from it; "" when it has neither or the person hid them."""
    if not rec.highlights:
        return ""
    if rec.summary is not None:
        return (f"_Summary by {fit(rec.summary.model, 80)}, checked against the abstract:_\n"
                f"{fit(rec.summary.text, SUMMARY_LIMIT)}")
    return _paper_texts(rec.paper)[2]


def paper_blocks(rec: Recommendation, buttons: bool = True) -> list[dict]:
    """One paper as a message: linked title, authors and venue, why it was picked (and how many people
    here saved it), then what it does and finds quoted from its abstract (its highlights), or the start
    of the abstract when it has none or the person hid them."""
    head, abstract, _ = _paper_texts(rec.paper)
    blocks: list[dict] = [
        {"type": "section", "text": {"type": "mrkdwn", "text": head}},
    ]
    line = why_line(rec)
    if line:
        blocks.append({"type": "context", "elements": [{"type": "mrkdwn", "text": line}]})
    body = quoted(rec) or abstract
    if body:
        blocks.append({"type": "section", "text": {"type": "mrkdwn", "text": body}})
    if buttons:
        blocks.append({"type": "actions", "block_id": ACTIONS_BLOCK, "elements": [
            {"type": "button", "action_id": SAVE_ACTION, "value": "save",
             "text": {"type": "plain_text", "text": "🔖 Save", "emoji": True}},
            {"type": "button", "action_id": LIKE_ACTION, "value": "like",
             "text": {"type": "plain_text", "text": "👍", "emoji": True}},
            {"type": "button", "action_id": DISLIKE_ACTION, "value": "dislike",
             "text": {"type": "plain_text", "text": "👎 Not for me", "emoji": True}},
            {"type": "button", "action_id": MORE_ACTION, "value": "more",
             "text": {"type": "plain_text", "text": "More like this", "emoji": True}},
            *who_button(rec.paper.id),
        ]})
    return blocks


def who_button(paper_id: str, value: str | None = None) -> list[dict]:
    """The "Who should read this?" button of a paper (its ``value``: the paper id by default), or none
    when the value would not fit in a button."""
    value = paper_id if value is None else value
    if len(value) > BUTTON_VALUE_LIMIT:
        return []
    return [{"type": "button", "action_id": WHO_ACTION, "value": value,
             "text": {"type": "plain_text", "text": WHO_LABEL, "emoji": True}}]


def _paper_texts(paper: Paper) -> tuple[str, str, str]:
    """A paper message's texts that depend on the paper alone: the head (linked title, byline,
    dateline), the start of the abstract ("" without one) and its highlights quoted ("" without them),
    escaped and fitted."""
    key = (paper.id, paper.title, paper.abstract, tuple(paper.authors), paper.url, paper.venue,
           paper.published, paper.arxiv_id, paper.arxiv_version, paper.doi, paper.highlight, paper.result)
    return _texts_of(key, paper)


# Kept per paper, not worked out per message: a morning's digests post the same few hundred papers to
# thousands of people, and fitting an abstract costs more than the rest of the message. Keyed by every
# field the texts read, so an edited paper is worked out afresh.
_kept: dict[tuple, tuple[str, str, str]] = {}


def _texts_of(key: tuple, paper: Paper) -> tuple[str, str, str]:
    found = _kept.get(key)
    if found is None:
        head = f"*{link(title_url(paper), fit(title_of(paper), TITLE_LIMIT))}*"
        for line in (byline(paper), dateline(paper)):
            if line:
                head += "\n" + line
        abstract = shown_abstract(paper)
        lines = [f"> {fit(line, HIGHLIGHT_LIMIT)}" for line in shown_highlights(paper) if line]
        found = (head, fit(abstract, ABSTRACT_LIMIT) if abstract else "",
                 "\n".join([QUOTED_LABEL, *lines]) if lines else "")
        if len(_kept) >= SHOWN_KEPT:
            _kept.clear()
        _kept[key] = found
    return found


keep_cleared(_kept.clear)


def results_blocks(intro: str, recs: list[Recommendation]) -> list[dict]:
    """A list of papers in one reply (search results): ``intro`` (mrkdwn, escaped by the caller, short),
    then each paper without buttons, as many as fit in one message."""
    blocks: list[dict] = [{"type": "section", "text": {"type": "mrkdwn", "text": intro}}]
    for rec in recs:
        if len(blocks) + 4 > MESSAGE_BLOCKS:
            break
        blocks.append({"type": "divider"})
        blocks.extend(paper_blocks(rec, buttons=False))
    return blocks


def header_block(text: str) -> dict:
    """A header block; ``text`` is plain text (no escaping needed), cut to Slack's limit."""
    return {"type": "header",
            "text": {"type": "plain_text", "text": shorten(text, HEADER_LIMIT), "emoji": True}}
