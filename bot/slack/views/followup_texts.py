"""The words of follow-ups (issue 42): what became of papers a person or a channel saved or liked, as a
short block under a digest's header, or as a short message of its own on a day without a digest."""

from __future__ import annotations

from collections.abc import Sequence

from bot.presentation.paper_view import doi_url, shown_text, title_url
from bot.slack.manifest import COMMAND
from bot.slack.views.messages import fit, link, title_of
from bot.usecases.followups import Followup

TITLE_LIMIT = 100
DETAIL_LIMIT = 60
#: At most this many papers are listed, the rest counted: the block stays within a section's 3,000 characters
#: (a compact digest's header is one), however long its titles and links.
MOST_LISTED = 6
BLOCK_LIMIT = 2400


def event_text(kind: str, detail: str) -> str:
    """One event as said after its paper's title (mrkdwn)."""
    if kind == "accepted":
        return f"accepted at {fit(shown_text(detail), DETAIL_LIMIT)}" if detail else "published"
    if kind == "doi":
        return f"DOI {link(doi_url(detail), fit(detail, DETAIL_LIMIT))}"
    if kind == "code":
        return f"code: {link(detail, fit(detail.split('://', 1)[-1], DETAIL_LIMIT))}"
    if kind == "withdrawn":
        return "withdrawn by its authors"
    if kind == "version":
        which = f" ({detail})" if detail.startswith("v") else ""
        return f"new version{which}: the abstract changed"
    return fit(kind, DETAIL_LIMIT)


def followup_line(followup: Followup) -> str:
    """One paper and what became of it."""
    title = link(title_url(followup.paper), fit(title_of(followup.paper), TITLE_LIMIT))
    return f"• {title}: " + "; ".join(event_text(kind, detail) for kind, detail in followup.events)


def followup_block(followups: Sequence[Followup], channel: bool = False) -> str:
    """The block (mrkdwn): "2 papers you saved moved on:" and a line a paper."""
    n = len(followups)
    whose = "this channel liked" if channel else "you saved"  # a channel saves nothing: it likes (👍)
    papers = "1 paper" if n == 1 else f"{n} papers"
    lines = [f"*{papers} {whose} moved on:*"]
    for followup in followups[:MOST_LISTED]:
        line = followup_line(followup)
        if sum(len(s) + 1 for s in lines) + len(line) > BLOCK_LIMIT and len(lines) > 1:
            break
        lines.append(line)
    if n > len(lines) - 1:
        lines.append(f"…and {n - (len(lines) - 1)} more.")
    return "\n".join(lines)


def followup_message(followups: Sequence[Followup]) -> str:
    """A follow-up message of its own (a day without a digest): the block, and how to stop them."""
    return followup_block(followups) + f"\n_`{COMMAND} followups off` stops these._"
