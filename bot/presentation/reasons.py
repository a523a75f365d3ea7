"""One line on why a paper was picked, in words a reader finds convincing."""

from __future__ import annotations

from collections.abc import Collection

from bot.presentation.paper_view import shown_title
from recommender import Pick
from storage import Paper

MAX_TITLE = 80


def reason_text(pick: Pick, liked_papers: dict[str, Paper], saved: Collection[str] = frozenset()) -> str:
    """'Like “<a paper you liked>”' (or saved: those in ``saved``) when that drove the pick (or 'People
    who liked …' when colleagues' likes did), otherwise the topics it matches, otherwise the matching
    terms."""
    liked = liked_papers.get(pick.similar_to) if pick.similar_to else None
    if liked is not None:
        title = shorten(shown_title(liked), MAX_TITLE)
        if pick.liked_by_others:
            return f"People who liked “{title}” also liked this"
        return f"Like “{title}”, which you {'saved' if pick.similar_to in saved else 'liked'}"
    if pick.topics:
        named = [f"“{shorten(t, MAX_TITLE)}”" for t in pick.topics]
        which = named[0] if len(named) == 1 else ", ".join(named[:-1]) + " and " + named[-1]
        reason = f"Matches your interest{'s' if len(named) > 1 else ''} {which}"
        return reason + ("; also " + ", ".join(pick.terms) if pick.terms else "")
    if pick.terms:
        return "Matches your interests: " + ", ".join(pick.terms)
    return "Close to your interests overall"


def shorten(text: str, limit: int) -> str:
    """Text cut at a word boundary to at most ``limit`` characters, with an ellipsis when cut."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[: limit - 1].rsplit(" ", 1)[0].rstrip(",;:.-")
    return cut + "…"
