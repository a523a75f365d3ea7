"""Choosing a person's digest: recent papers first, then good older ones, never filler.

For a run of many digests, :class:`Chooser` scores people in batches (one matrix product for a batch
of profiles costs about what one profile costs alone), then explains each person's picks when their
digest is sent, against a small index of just those papers and the person's liked and disliked ones:
the same reasons as against the whole corpus (a test holds them to it) without scoring it again.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

import numpy as np

from bot.context import Context
from bot.errors import NoInterests, NoPapers
from bot.usecases.recommend import (
    DIVERSITY,
    NO_INTERESTS,
    NO_PAPERS,
    Recommendation,
    community,
    never_again,
    profile_for,
    remember_shown,
    with_papers,
)
from recommender import Community, PaperIndex, Profile, best_of_rows, diversify, explain_picks, score_matrix

#: Papers published (or, without a date, added) this many days before the digest's day count as new.
RECENT_DAYS = 4
#: A paper must score at least this share of the person's best match in the corpus: on a day
#: without new papers a digest sends the good ones left, or nothing, never weak filler.
FLOOR = 0.2
#: People scored in one matrix product.
BATCH = 32

#: What scoring found for one person: the (paper id, score) pairs chosen and the profile they were for.
Choice = tuple[list[tuple[str, float]], Profile] | Exception



@dataclass
class Digest:
    """The papers chosen for one person's digest."""

    user_id: str
    recommendations: list[Recommendation]


def choose_papers(ctx: Context, user_id: str, n: int | None = None,
                  today: date | None = None) -> list[Recommendation]:
    """The best ``n`` (default: digest size) papers for a person that they have not seen: those of the
    last :data:`RECENT_DAYS` days first, then older ones; each scoring at least :data:`FLOOR` of their
    best match. Raises NoInterests / NoPapers."""
    today = today or datetime.now(UTC).date()
    return Chooser(ctx, [(user_id, today)], n).choose(user_id, today)


class Chooser:
    """Chooses the digests of the people in ``plan`` ((user, local day) pairs, in the order they will
    be asked for), scoring them :data:`BATCH` at a time. Thread-safe; anyone not in the plan is scored
    alone when asked for."""

    def __init__(self, ctx: Context, plan: Sequence[tuple[str, date]] = (), n: int | None = None):
        self.ctx = ctx
        self.n = ctx.digest_size if n is None else n
        self._plan = list(plan)
        self._position = {user: i for i, (user, _) in enumerate(self._plan)}
        self._chosen: dict[tuple[str, date], Choice] = {}
        self._taken: set[tuple[str, date]] = set()  # chosen and handed out: never scored again in a batch
        self._lock = threading.Lock()
        self._likes: Community | None = None

    def _community(self) -> Community:
        """Everyone's likes, read once for the whole run."""
        if self._likes is None:
            self._likes = community(self.ctx)
        return self._likes

    def choose(self, user_id: str, today: date) -> list[Recommendation]:
        """The person's digest for local day ``today``, explained. Raises NoInterests / NoPapers."""
        with self._lock:
            chosen = self._chosen.pop((user_id, today), None)
            if chosen is None:
                start = self._position.get(user_id)
                batch = [(user_id, today)]
                if start is not None and self._plan[start][1] == today:
                    batch = [item for item in self._plan[start:start + BATCH]
                             if item not in self._chosen and (item not in self._taken or item[0] == user_id)]
                self._chosen.update(self._score(batch))
                chosen = self._chosen.pop((user_id, today))
            self._taken.add((user_id, today))
        if isinstance(chosen, Exception):
            raise chosen
        chosen, profile = chosen
        shown = self.ctx.store.shown_among(user_id, [pid for pid, _ in chosen])  # since scored: not again
        chosen = [(pid, score) for pid, score in chosen if pid not in shown]
        if not chosen:
            return []
        with self.ctx.engine.index() as index:
            if index is None:
                raise NoPapers(NO_PAPERS)
            small = _small_index(index, [pid for pid, _ in chosen], profile)
        known = [(pid, score) for pid, score in chosen if pid in small.row_of]
        return with_papers(self.ctx, explain_picks(small, profile, known))

    def _score(self, batch: list[tuple[str, date]]) -> dict[tuple[str, date], Choice]:
        out: dict[tuple[str, date], Choice] = {}
        people = []
        for user_id, today in batch:
            profile = profile_for(self.ctx, user_id)
            if profile.is_empty:
                out[(user_id, today)] = NoInterests(NO_INTERESTS)
            else:
                people.append((user_id, today, profile, never_again(self.ctx, user_id)))
        if not people:
            return out
        recent = {today: _recent(self.ctx, (today - timedelta(days=RECENT_DAYS)).isoformat())
                  for today in {today for _, today, _, _ in people}}  # once a day, not once a person
        with self.ctx.engine.index() as index:
            if index is None:
                return {**out, **{(u, d): NoPapers(NO_PAPERS) for u, d, _, _ in people}}
            profiles = [profile for _, _, profile, _ in people]
            scores = score_matrix(index, profiles, community=self._community())
            for row, (user_id, today, profile, shown) in enumerate(people):
                mask = _rows_of(index, recent[today])
                picked = select(index, scores[row], profile, self.n, shown, mask)
                out[(user_id, today)] = ([(pid, float(scores[row][index.row_of[pid]])) for pid in picked],
                                         profile)
        return out


def _small_index(index: PaperIndex, chosen: list[str], profile: Profile) -> PaperIndex:
    """The chosen papers plus those the profile likes and dislikes (the reasons refer to them), on the
    index's own model: explaining picks here costs a few rows, not the corpus."""
    keep = index.known(dict.fromkeys([*chosen, *profile.liked, *profile.disliked]))
    return PaperIndex(index.model, keep, index.rows(keep), index.fitted_on)


def select(index: PaperIndex, scores: np.ndarray, profile: Profile, n: int, shown: set[str],
           recent: np.ndarray) -> list[str]:
    """From one person's scores: recent unseen papers (``recent``: a mask over the index's rows) first,
    then older unseen ones, all scoring at least :data:`FLOOR` of the person's best match."""
    allowed = index.alive.copy()
    allowed[_rows(index, [*profile.liked, *profile.disliked])] = False
    candidates = np.where(allowed, scores, -np.inf)
    best = float(candidates.max()) if len(candidates) else 0.0
    if not best > 0:
        return []
    allowed[_rows(index, shown)] = False
    allowed &= candidates > FLOOR * best
    pool = max(3 * n, 20)  # MMR chooses n among the best few, so a digest isn't n copies of one idea
    fresh = []
    if recent.any():
        fresh = diversify(index, best_of_rows(index, scores, np.flatnonzero(allowed & recent), pool), n,
                          DIVERSITY)
    rest = []
    if len(fresh) < n:
        allowed[_rows(index, [pid for pid, _ in fresh])] = False
        rest = diversify(index, best_of_rows(index, scores, np.flatnonzero(allowed), pool), n - len(fresh),
                         DIVERSITY)
    return [pid for pid, _ in fresh + rest]


def _rows(index: PaperIndex, ids) -> list[int]:
    return [row for pid in ids if (row := index.row_of.get(pid)) is not None]


# Which papers are recent changes only with the day and with new papers: worked out once for a run of
# digests, not per person (a set of ids from the store, then a mask over the index's rows).
_lock = threading.Lock()
_recent_ids: dict[tuple, frozenset[str]] = {}
_recent_rows: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _recent(ctx: Context, since: str) -> frozenset[str]:
    key = (ctx.store.path, since, ctx.store.max_paper_seq())
    with _lock:
        found = _recent_ids.get(key)
    if found is None:
        found = frozenset(ctx.store.recent_paper_ids(since))
        with _lock:
            if len(_recent_ids) > 8:
                _recent_ids.clear()
            _recent_ids[key] = found
    return found


def _rows_of(index: PaperIndex, ids: frozenset[str]) -> np.ndarray:
    """A boolean mask over the index's rows: those whose paper is in ``ids``."""
    with _lock:
        cached = _recent_rows.get(index, {}).get(id(ids))
        if cached is not None and cached[0] is ids and len(cached[1]) == len(index.ids):
            return cached[1]
    mask = np.fromiter((pid in ids for pid in index.ids), dtype=bool, count=len(index.ids))
    with _lock:
        masks = _recent_rows.setdefault(index, {})
        if len(masks) > 4:
            masks.clear()
        masks[id(ids)] = (ids, mask)
    return mask


def build_digest(ctx: Context, user_id: str, remember: bool = True, today: date | None = None) -> Digest:
    """Choose the day's papers for a person (see :func:`choose_papers`); with ``remember`` they are
    recorded as shown at once (callers that deliver them elsewhere pass False)."""
    recommendations = choose_papers(ctx, user_id, today=today)
    if remember:
        with ctx.store.transaction():
            for rec in recommendations:
                remember_shown(ctx, user_id, rec)
    return Digest(user_id, recommendations)
