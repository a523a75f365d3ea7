"""What a person cares about, as the recommender sees it: no Slack ids, no SQL rows."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Profile:
    """Free-text topics, liked papers and disliked papers (ids), each pushing the ranking its own way."""

    topics: list[str] = field(default_factory=list)
    liked: list[str] = field(default_factory=list)
    disliked: list[str] = field(default_factory=list)

    @property
    def is_empty(self) -> bool:
        """True when there is nothing to rank by."""
        return not (self.topics or self.liked)


@dataclass
class Pick:
    """One ranked paper and why it was picked.

    ``similar_to`` is the liked paper it most resembles when that is the main reason; otherwise
    ``topics`` are the followed topics it matches, best first, and ``terms`` the other words it shares
    with the person's interests.
    """

    paper_id: str
    score: float
    terms: list[str] = field(default_factory=list)
    similar_to: str | None = None
    topics: list[str] = field(default_factory=list)
