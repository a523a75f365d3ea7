"""One line on why a paper was picked, in words a reader finds convincing, and true.

A reason claims an interest only when the pick says the paper covers it (its ``topics``, checked
against the paper by :func:`recommender.surface.worded`); an interest the paper only touches is named
with the words it shares. It speaks of whoever the interests are: the reader's own, a channel's, or
one of the reader's named feeds (:class:`Whose`).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from bot.presentation.paper_view import shown_title
from recommender import Pick
from storage import Paper

MAX_TITLE = 80
#: Words a reason quotes as shared with an interest it does not claim.
MAX_SHARED = 3

# The reasons of picks that weren't ranked for an interest. The ``shown`` table keeps each, and some are
# recognised by how they start (a day's alert papers are counted, a colleague's suggestion is looked up),
# so their words must not change.
#: A paper of the first round of ratings (Home's "get started").
ONBOARDING = "Rated to get started"
#: A paper a colleague sent with "Who should read this?".
SUGGESTED = "Suggested by a colleague"
#: What every alert paper's reason starts with.
ALERT_START = "Matches your alert “"


def alert(phrase: str) -> str:
    """Why an alert's paper was picked (escaped where it is shown, like every reason)."""
    return f"{ALERT_START}{phrase}”"


def followed_author(author: str) -> str:
    """Why a followed author's paper was picked."""
    return f"New from {author}, whom you follow"


def suggested(reason: str) -> str:
    """A suggested paper's reason: the colleague's own reason after who suggested it."""
    return f"{SUGGESTED} · {reason}" if reason else SUGGESTED


def more_like(title: str, in_channel: bool) -> str:
    """Why a More like this paper was picked: the paper asked about (its title shortened)."""
    who = "someone here" if in_channel else "you"
    return f"Like “{title}”, which {who} asked for more of"


@dataclass(frozen=True)
class Whose:
    """Whose interests a pick was ranked for: the reader's (the default), a channel's (``channel``),
    and within those one named feed (``feed``; None for the main feed or no named feeds)."""

    channel: bool = False
    feed: str | None = None

    @property
    def owner(self) -> str:
        """'your' or "this channel's"."""
        return "this channel's" if self.channel else "your"

    def interests(self, named: list[str]) -> str:
        """The quoted interests as theirs: 'your interest “X”', '“X” in your feed “robots”'."""
        which = named[0] if len(named) == 1 else ", ".join(named[:-1]) + " and " + named[-1]
        if self.feed:
            return f"{which} in {self.owner} feed “{self.feed}”"
        return f"{self.owner} interest{'s' if len(named) > 1 else ''} {which}"

    @property
    def whole(self) -> str:
        """All of their interests: 'your interests', 'your feed “robots”'."""
        return f"{self.owner} feed “{self.feed}”" if self.feed else f"{self.owner} interests"


YOURS = Whose()


def reason_text(pick: Pick, liked_papers: dict[str, Paper], whose: Whose = YOURS,
                saved: Collection[str] = frozenset()) -> str:
    """'Like “<a paper you liked>”' (or saved: those in ``saved``) when that drove the pick (or 'People
    who liked …' when colleagues' likes did), otherwise the interests it covers, otherwise one it shares
    words with, otherwise the matching terms. ``whose``: whose interests they are."""
    liked = liked_papers.get(pick.similar_to) if pick.similar_to else None
    if liked is not None:
        title = shorten(shown_title(liked), MAX_TITLE)
        if pick.liked_by_others:
            return f"People who liked “{title}” also liked this"
        verb = "saved" if pick.similar_to in saved else "liked"
        return f"Like “{title}”, which {'this channel' if whose.channel else 'you'} {verb}"
    also = "; also " + ", ".join(pick.terms) if pick.terms else ""
    if pick.topics:
        return "Matches " + whose.interests([_quoted(t) for t in pick.topics]) + also
    if pick.partial:
        topic, shared = pick.partial[0]
        words = [f"“{w}”" for w in shared[:MAX_SHARED]]
        said = words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]
        return f"Shares {said} with " + whose.interests([_quoted(topic)]) + also
    if pick.terms:
        return f"Matches {whose.whole}: " + ", ".join(pick.terms)
    return f"Close to {whose.whole} overall"


def _quoted(topic: str) -> str:
    return f"“{shorten(topic, MAX_TITLE)}”"


def shorten(text: str, limit: int) -> str:
    """Text cut at a word boundary to at most ``limit`` characters, with an ellipsis when cut."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[: limit - 1].rsplit(" ", 1)[0].rstrip(",;:.-")
    return cut + "…"
