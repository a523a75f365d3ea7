"""Ranking: a profile against every indexed paper, best first, with a reason for each pick.

One code path serves the bot (one person) and ``paperbot eval`` (thousands): :func:`score_matrix`
scores a batch of profiles; the single-person calls are a batch of one.
"""

from __future__ import annotations

import weakref
from collections.abc import Collection, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import sparse
from sklearn.preprocessing import normalize

from recommender.index import PaperIndex
from recommender.profile import Pick, Profile


@dataclass(frozen=True)
class Weights:
    """How much each part of a profile counts. Dislikes count against.

    Each paper's similarity to the profile is then scaled by a positive factor that never flips its
    sign (see :func:`paper_prior`): ``length`` favours papers with more distinct terms, against cosine's
    bias towards very short texts (pivoted length normalisation); ``generic`` damps papers close to
    the corpus's average, which otherwise surface for everyone (hubness). 0 and 0 is plain cosine.
    """

    topics: float = 1.0
    liked: float = 1.0
    disliked: float = 0.5
    length: float = 0.15
    generic: float = 4.0


DEFAULT_WEIGHTS = Weights()
MAX_TOPICS_NAMED = 3  # in one pick's reason


def profile_vectors(index: PaperIndex, profiles: Sequence[Profile],
                    weights: Weights = DEFAULT_WEIGHTS) -> sparse.csr_matrix:
    """One query row per profile: unit topic vector + unit liked centroid - unit disliked centroid."""
    topic_rows = _unit_rows(index, [" ; ".join(p.topics) for p in profiles], from_text=True)
    liked_rows = _unit_rows(index, [index.known(p.liked) for p in profiles])
    disliked_rows = _unit_rows(index, [index.known(p.disliked) for p in profiles])
    return sparse.csr_matrix(
        weights.topics * topic_rows + weights.liked * liked_rows - weights.disliked * disliked_rows
    )


def _unit_rows(index: PaperIndex, items: list, from_text: bool = False) -> sparse.csr_matrix:
    n_terms = index.matrix.shape[1]
    if from_text:
        rows = index.model.transform(items) if items else sparse.csr_matrix((0, n_terms))
    else:
        data, cols, ptr = [], [], [0]
        for ids in items:
            if ids:
                centroid = sparse.csr_matrix(index.rows(ids).sum(axis=0))
                data.append(centroid.data)
                cols.append(centroid.indices)
            ptr.append(ptr[-1] + (len(data[-1]) if ids else 0))
        rows = sparse.csr_matrix(
            (np.concatenate(data) if data else np.zeros(0, np.float32),
             np.concatenate(cols) if cols else np.zeros(0, np.int32), ptr),
            shape=(len(items), n_terms),
        )
    return normalize(rows, norm="l2", copy=False).astype(np.float32)


def score_matrix(index: PaperIndex, profiles: Sequence[Profile],
                 weights: Weights = DEFAULT_WEIGHTS) -> np.ndarray:
    """Scores of every indexed row for each profile: shape (profiles, rows)."""
    return _scores(index, profile_vectors(index, profiles, weights), weights)


def _scores(index: PaperIndex, queries: sparse.csr_matrix, weights: Weights) -> np.ndarray:
    scores = np.asarray((queries @ index.matrix.T).todense(), dtype=np.float32)
    if weights.length or weights.generic:
        scores *= paper_prior(index, weights)[None, :]
    return scores


_priors: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def paper_prior(index: PaperIndex, weights: Weights = DEFAULT_WEIGHTS) -> np.ndarray:
    """A positive factor per row: ``(terms / mean terms) ** length / (1 + generic * cos(row, mean row))``.

    Profile-independent, so it is computed once per index state and reused.
    """
    matrix = index.matrix
    key = (id(matrix), matrix.shape, matrix.nnz, weights.length, weights.generic)
    cached = _priors.get(index)
    if cached is not None and cached[0] == key:
        return cached[1]
    n_terms = np.diff(matrix.indptr).astype(np.float32)
    mean_terms = float(n_terms.mean()) if len(n_terms) else 1.0
    prior = (np.maximum(n_terms, 1.0) / max(mean_terms, 1.0)) ** weights.length
    centroid = np.asarray(matrix.mean(axis=0), dtype=np.float32).ravel()
    norm = float(np.linalg.norm(centroid))
    if weights.generic and norm > 0:
        prior = prior / (1.0 + weights.generic * np.maximum(matrix @ (centroid / norm), 0.0))
    prior = prior.astype(np.float32)
    _priors[index] = (key, prior)
    return prior


def top_k(index: PaperIndex, scores: np.ndarray, k: int, exclude: Collection[str] = (),
          candidates: Collection[str] | None = None,
          min_score: float | None = 0.0) -> list[tuple[str, float]]:
    """The ``k`` best (paper id, score) of one score row.

    Never returns an excluded id, a replaced row, or (with ``candidates``) anything outside them.
    With ``min_score`` set, only papers scoring above it: no filler.
    """
    allowed = index.alive.copy()
    if candidates is not None:
        mask = np.zeros_like(allowed)
        mask[[index.row_of[c] for c in candidates if c in index.row_of]] = True
        allowed &= mask
    for pid in exclude:
        row = index.row_of.get(pid)
        if row is not None:
            allowed[row] = False
    masked = np.where(allowed, scores, -np.inf)
    if min_score is not None:
        masked = np.where(masked > min_score, masked, -np.inf)
    k = min(k, int(np.isfinite(masked).sum()))
    if k <= 0:
        return []
    best = np.argpartition(-masked, k - 1)[:k]
    best = best[np.argsort(-masked[best], kind="stable")]
    return [(index.ids[i], float(masked[i])) for i in best]


def rank(index: PaperIndex, profile: Profile, k: int, exclude: Collection[str] = (),
         candidates: Collection[str] | None = None, weights: Weights = DEFAULT_WEIGHTS,
         name_topics: bool = True) -> list[Pick]:
    """The ``k`` best papers for one person, each with its reason. Liked and disliked papers never return.

    With ``name_topics`` a pick's reason names the person's topics it matches; without, it lists the
    matching words (as a search result should).
    """
    if profile.is_empty or len(index) == 0:
        return []
    context = _ExplainContext(index, profile, weights, name_topics)
    scores = _scores(index, context.query, weights)[0]
    excluded = set(exclude) | set(profile.liked) | set(profile.disliked)
    best = top_k(index, scores, k, excluded, candidates)
    return [context.explain(pid, score) for pid, score in best]


def explain(index: PaperIndex, profile: Profile, paper_id: str, score: float,
            weights: Weights = DEFAULT_WEIGHTS, n_terms: int = 3) -> Pick:
    """Why a paper ranks for a profile: the liked paper it most resembles, if that drives the score,
    otherwise the words that contributed most."""
    return _ExplainContext(index, profile, weights).explain(paper_id, score, n_terms)


class _ExplainContext:
    """What explaining any paper to one profile needs, computed once for all of its picks."""

    def __init__(self, index: PaperIndex, profile: Profile, weights: Weights, name_topics: bool = True):
        self.index = index
        self.weights = weights
        self.topic_vec = (_unit_rows(index, [" ; ".join(profile.topics)], from_text=True)
                          if profile.topics else None)
        self.topics = list(profile.topics)
        self.each_topic = (_unit_rows(index, self.topics, from_text=True)
                           if self.topics and name_topics else None)
        self.liked = index.known(profile.liked)
        self.liked_rows = index.rows(self.liked) if self.liked else None
        self.query = profile_vectors(index, [profile], weights)

    def explain(self, paper_id: str, score: float, n_terms: int = 3) -> Pick:
        index, weights = self.index, self.weights
        row = index.rows([paper_id])
        topic_part = 0.0
        if self.topic_vec is not None:
            topic_part = weights.topics * float((self.topic_vec @ row.T).toarray()[0, 0])
        similar_to = None
        if self.liked_rows is not None:
            sims = (self.liked_rows @ row.T).toarray().ravel()
            best = int(np.argmax(sims))
            if sims[best] > 0 and weights.liked * sims[best] >= topic_part:
                similar_to = self.liked[best]
        topics: list[str] = []
        if similar_to is None and self.each_topic is not None and topic_part > 0:
            topic_sims = (self.each_topic @ row.T).toarray().ravel()
            # A topic sharing only a common word ("model") with the paper is no reason to name it.
            floor = max(float(topic_sims.max()) * 0.5, 1e-9)
            topics = [self.topics[i] for i in np.argsort(-topic_sims, kind="stable")[:MAX_TOPICS_NAMED]
                      if topic_sims[i] >= floor]
        # Say why in the terms of the reason given: the topics' words for a topic match.
        contribution = row.multiply(self.topic_vec if topics else self.query).tocsr()
        if topics:
            # The named topics' own words go without saying.
            said = set().union(*(index.model.stems(t) for t in topics))
            keep = [j for j, col in enumerate(contribution.indices)
                    if not set(index.model.stem_terms[col].split(" ")) <= said]
            contribution = sparse.csr_matrix((contribution.data[keep], contribution.indices[keep],
                                              [0, len(keep)]), shape=contribution.shape)
        names = [str(index.model.terms[i]) for i in contribution.indices]
        # Two-word terms are down-weighted for ranking; for saying why, a shared phrase is the better
        # reason, so undo that (once for the paper's row, once for the query's).
        undo = 1.0 / getattr(index.model, "phrase_weight", 1.0) ** 2
        values = contribution.data * np.array([undo if " " in n else 1.0 for n in names], dtype=np.float32)
        terms = [names[i] for i in np.argsort(-values, kind="stable") if values[i] > 0]
        return Pick(paper_id, score, _distinct_terms(terms, n_terms), similar_to, topics)


def _distinct_terms(terms: list[str], n: int) -> list[str]:
    """Top terms, skipping a word already said inside a chosen phrase (no 'diffusion, diffusion model')."""
    chosen: list[str] = []
    for term in terms:
        words = set(term.split())
        if any(words & set(c.split()) for c in chosen):
            continue
        chosen.append(term)
        if len(chosen) == n:
            break
    return chosen


def search(index: PaperIndex, query: str, k: int) -> list[Pick]:
    """Papers best matching a free-text query."""
    return rank(index, Profile(topics=[query]), k, name_topics=False)
