"""What a person cares about, as the recommender sees it: no Slack ids, no SQL rows."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

#: How much a save teaches, next to a like (1): it says "worth keeping", less than "more like this".
SAVE_WEIGHT = 0.5


@dataclass
class Profile:
    """Free-text topics, liked papers and disliked papers (ids), each pushing the ranking its own way.

    ``liked_age_days`` and ``disliked_age_days`` are optional and, when given, run parallel to
    ``liked`` and ``disliked``: how many days ago each like or dislike was given (e.g. from the
    feedback's ``created_at``; fractions are fine, negative ages count as 0). Older feedback then
    counts less, halving every ``Weights.half_life_days``. ``None`` (the default) treats all feedback
    as new. A list of the wrong length raises ValueError when the profile is ranked.

    ``saved`` names those of ``liked`` that are saves rather than likes: they pull the same way with
    :data:`SAVE_WEIGHT` of a like's weight (a paper both saved and rated is only its like or dislike).
    """

    topics: list[str] = field(default_factory=list)
    liked: list[str] = field(default_factory=list)
    disliked: list[str] = field(default_factory=list)
    liked_age_days: list[float] | None = None
    disliked_age_days: list[float] | None = None
    saved: frozenset[str] = frozenset()

    @property
    def is_empty(self) -> bool:
        """True when there is nothing to rank by."""
        return not (self.topics or self.liked)

    def liked_weights(self, half_life_days: float) -> list[float]:
        """One weight per liked paper, in ``(0, 1]``: ``0.5 ** (age / half_life_days)``, times
        :data:`SAVE_WEIGHT` for a save."""
        weights = fading(self.liked, self.liked_age_days, half_life_days, "liked_age_days")
        if not self.saved:
            return weights
        return [w * SAVE_WEIGHT if pid in self.saved else w
                for pid, w in zip(self.liked, weights, strict=True)]

    def disliked_weights(self, half_life_days: float) -> list[float]:
        """One weight per disliked paper, as :meth:`liked_weights`."""
        return fading(self.disliked, self.disliked_age_days, half_life_days, "disliked_age_days")


def fading(ids: Sequence[str], ages: Sequence[float] | None, half_life_days: float,
           name: str = "ages") -> list[float]:
    """``0.5 ** (age / half_life_days)`` per item; all 1 without ages or without a (finite, positive)
    half-life. Never exactly 0, so very old feedback still counts when it is all there is."""
    if ages is None:
        return [1.0] * len(ids)
    if len(ages) != len(ids):
        raise ValueError(f"{name} has {len(ages)} ages for {len(ids)} papers")
    if not half_life_days or not np.isfinite(half_life_days) or half_life_days <= 0:
        return [1.0] * len(ids)
    age = np.maximum(np.asarray(ages, dtype=np.float64), 0.0)
    return np.maximum(0.5 ** (age / half_life_days), 1e-9).tolist()


@dataclass
class Pick:
    """One ranked paper and why it was picked.

    ``similar_to`` is the liked paper it most resembles when that is the main reason; otherwise
    ``topics`` are the followed topics it matches, best first, and ``terms`` the other words it shares
    with the person's interests. ``liked_by_others`` is True when the pick comes mostly from other
    people's likes: people who liked ``similar_to`` also liked this paper.

    The ranker sees stems, not the paper's text: its ``topics`` are those the paper shares a content
    word with, its ``terms`` the model's words for its best terms. It records what checking them
    against the text needs: ``term_stems``, more candidate terms than shown, best first, as stems
    ("robot model"); ``topic_stems``, each named topic's content words as stems (stop words and words
    too common to be a reason left out). :func:`recommender.surface.worded` then keeps in ``topics``
    only those the paper covers, moves the others to ``partial`` as (topic, the paper's words it
    shares with it), and turns ``terms`` into the paper's own words. ``exact``: what a search found
    word for word (its quoted phrases, a rare name), said before the terms and left as it is.
    """

    paper_id: str
    score: float
    terms: list[str] = field(default_factory=list)
    similar_to: str | None = None
    topics: list[str] = field(default_factory=list)
    liked_by_others: bool = False
    term_stems: list[str] = field(default_factory=list)
    topic_stems: dict[str, list[str]] = field(default_factory=dict)
    partial: list[tuple[str, list[str]]] = field(default_factory=list)
    exact: list[str] = field(default_factory=list)
