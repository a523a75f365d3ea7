"""`/papers why`'s answer in words (:class:`bot.usecases.why.Why`): the paper and since when paperbot
holds it, from which source, then when it was sent to the person or what kept it out of their digest."""

from __future__ import annotations

from datetime import date

from bot.presentation.markup import escape
from bot.presentation.paper_view import title_url
from bot.slack.manifest import COMMAND
from bot.slack.views.messages import fit, link, title_of
from bot.usecases.picking import Fate
from bot.usecases.why import Why
from storage import Paper

_MONTHS = "Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec".split()
#: Where a paper came from, as a person reads it (bot.usecases.why's source names).
SOURCES = {"arxiv": "arXiv", "openreview": "OpenReview", "pubmed": "PubMed", "acl": "the ACL Anthology",
           "biorxiv": "bioRxiv", "medrxiv": "medRxiv", "doi": "its DOI's record", "other": "a feed"}


def day(text: str) -> str:
    """An ISO date or moment as "5 Dec 2026" (the text itself when it is none)."""
    try:
        when = date.fromisoformat(text[:10])
    except ValueError:
        return text
    return f"{when.day} {_MONTHS[when.month - 1]} {when.year}"


def nth(n: int) -> str:
    """1st, 2nd, 3rd, 4th, 11th, 21st, …"""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _title(paper: Paper) -> str:
    return link(title_url(paper), fit(title_of(paper), 150))


def _feed(fate: Fate) -> str:
    return f" in your feed “{escape(fate.feed)}”" if fate.feed else ""


def fate_text(fate: Fate) -> str:
    """What kept the paper out of the person's digest, or what brings it, in one sentence."""
    kind = fate.kind
    if kind in ("picked", "below_cut", "too_similar"):
        among = f"Today it ranks {nth(fate.rank or 0)} of your {fate.candidates} candidates{_feed(fate)}"
        if kind == "picked":  # MMR may take it from below the first places: it is among those taken
            return (f"{among}, and is among the {fate.cut} your digest takes: your next digest should bring "
                    "it.")
        if kind == "too_similar":
            return (f"{among}, within the top {fate.cut} your digest takes, but it is left out for papers "
                    "too close to it ranked above it (a digest isn't several copies of one idea).")
        return f"{among}: below the cut, your digest takes the top {fate.cut}."
    word = escape(fate.word or "")
    texts = {
        "saved": "You saved it, so digests leave it out (it is in your reading list).",
        "liked": "You rated it 👍, so digests leave it out (and bring more like it).",
        "disliked": "You rated it 👎, so digests leave it out.",
        "shared": "You posted its link in a channel, so you know it: digests leave it out.",
        "muted": f"It holds your muted word “{word}”, so it is never sent to you "
                 f"(`{COMMAND} unmute {word}` takes that back).",
        "no_interests": f"You follow nothing yet, so no digest picks papers for you: try `{COMMAND} follow "
                        "diffusion models`.",
        "alert": f"Your alert “{word}” puts it first in your next digest.",
        "author": f"It is a new paper by {word}, whom you follow: it comes first in your next digest.",
        "outside": "It is outside your feeds: it scores too far below your best matches to be a candidate.",
        "not_new": "Your weekly digest takes only the past week's papers, and it is older.",
        "not_indexed": "It isn't ranked yet (it has just come, or was merged with another record): try again "
                       "in a few minutes.",
    }
    return texts.get(kind, "")


def why_reply(answer: Why) -> dict:
    """The answer: the paper (the best of several a title matched, and the others), since when it is
    held and from where, then when it was sent or what kept it out, that the person gets no digest, the
    days their digest was empty or failed, and a followed author's too-old paper."""
    paper = answer.paper
    lines = []
    if answer.also:
        others = ", ".join(_title(p) for p in answer.also)
        lines.append(f"The best match of those words is {_title(paper)} (also matching: {others}).")
    else:
        lines.append(f"{_title(paper)}")
    sources = [SOURCES.get(s, s) for s in answer.sources]
    came = " and ".join(sources) if len(sources) <= 2 else f"{', '.join(sources[:-1])} and {sources[-1]}"
    since = f" since {day(answer.held_since)}" if answer.held_since else ""
    lines.append(f"I hold it{since}, from {came}.")
    shown = answer.shown
    if answer.fate.kind == "shown" and shown is not None:
        if shown.in_digest:
            lines.append(f"It was sent to you in your digest of {day(shown.on)}.")
        else:
            lines.append(f"It was already shown to you on {day(shown.on)}, so digests don't send it again.")
    elif answer.fate.kind == "shown":
        lines.append("It was already shown to you, so digests don't send it again.")
    else:
        lines.append(fate_text(answer.fate))
        if not answer.digest_on and answer.fate.kind != "no_interests":
            lines.append(f"You get no digest now (`{COMMAND} digest 08:30` starts one): papers come only "
                         f"when you ask, e.g. `{COMMAND} recommend`.")
        if answer.followed_author:
            lines.append(f"It is by {escape(answer.followed_author)}, whom you follow, but followed authors' "
                         "papers come first only while new, and it isn't.")
        quiet = [f"{day(d.local_date)} was {'empty' if d.status == 'empty' else 'not delivered'}"
                 for d in answer.quiet_days]
        if quiet:
            lines.append("Your digest of " + "; of ".join(quiet) + ".")
    text = "\n".join(lines)
    return {"text": text, "blocks": [{"type": "section", "text": {"type": "mrkdwn", "text": text}}]}
