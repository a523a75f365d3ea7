"""A channel's weekly recap as a Slack message (:mod:`bot.usecases.recap`): the workspace's most liked and
saved papers of the week, each with its counts and never who, then the channel's best papers nobody in
the workspace was shown or rated; and how a count of likes and saves reads (the trending post's too)."""

from __future__ import annotations

from bot.presentation.paper_view import title_url
from bot.slack.manifest import COMMAND
from bot.slack.views.messages import (
    FALLBACK_LIMIT,
    REASON_LIMIT,
    SECTION_LIMIT,
    TITLE_LIMIT,
    byline,
    fit,
    header_block,
    link,
    title_of,
)
from bot.usecases.recap import Recap
from bot.usecases.trending import DAYS, TrendingPaper

HEADER = "The lab's week"
LIKED = f"*What the workspace liked and saved in the past {DAYS} days*"
NOTHING_LIKED = f"Nobody here liked or saved a paper in the past {DAYS} days."
UNCLAIMED = "*Unclaimed:* among this channel's best papers, and nobody here was shown or rated them yet"
NOTHING_UNCLAIMED = "Nothing unclaimed: everyone's digests already reached this channel's best papers."
NO_TOPICS = (f"This channel follows no topics, so there is nothing unclaimed to find: `{COMMAND} channel "
             "follow TOPICS` gives it some.")
FOOTNOTE = ("Counted from the :+1: and saves of people in this workspace, one per person (their like, else "
            f"their save); who liked or saved what stays private. `{COMMAND} channel recap off` stops these "
            "posts.")


def counts_text(item: TrendingPaper) -> str:
    """A paper's counts as "4 likes · 2 saves", a count of none left out."""
    counts = ((item.likes, "like"), (item.saves, "save"))
    return " · ".join(f"{n} {word}{'' if n == 1 else 's'}" for n, word in counts if n)


def _section(text: str) -> dict:
    return {"type": "section", "text": {"type": "mrkdwn", "text": text[:SECTION_LIMIT]}}


def recap_message(recap: Recap) -> dict:
    """The keyword arguments of ``chat.postMessage`` for a recap: ``text`` and ``blocks``."""
    blocks: list[dict] = [header_block(HEADER), _section(LIKED if recap.liked else NOTHING_LIKED)]
    lines = [HEADER, LIKED.strip("*") + ":" if recap.liked else NOTHING_LIKED]
    for rank, item in enumerate(recap.liked, 1):
        paper = item.paper
        title = f"*{rank}. {link(title_url(paper), fit(title_of(paper), TITLE_LIMIT))}*"
        by = byline(paper)
        mark = ":+1:" if item.likes else ":bookmark:"
        blocks.append(_section(f"{title}\n{by + ' · ' if by else ''}{mark} {counts_text(item)}"))
        lines.append(f"{rank}. {fit(title_of(paper), 200)} ({counts_text(item)})")
    blocks.append({"type": "divider"})
    if not recap.follows_topics:
        blocks.append(_section(NO_TOPICS))
        lines.append(NO_TOPICS)
    elif not recap.unclaimed:
        blocks.append(_section(NOTHING_UNCLAIMED))
        lines.append(NOTHING_UNCLAIMED)
    else:
        blocks.append(_section(UNCLAIMED))
        lines.append(UNCLAIMED.replace("*", "") + ":")
        for rec in recap.unclaimed:
            paper = rec.paper
            parts = [f"• *{link(title_url(paper), fit(title_of(paper), TITLE_LIMIT))}*"]
            by = byline(paper)
            if by:
                parts.append(by)
            if rec.reason:
                parts.append("*Why:* " + fit(rec.reason, REASON_LIMIT))
            blocks.append(_section("\n".join(parts)))
            lines.append(f"• {fit(title_of(paper), 200)}")
    blocks.append({"type": "context", "elements": [{"type": "mrkdwn", "text": FOOTNOTE}]})
    return {"text": "\n".join(lines)[:FALLBACK_LIMIT], "blocks": blocks}
