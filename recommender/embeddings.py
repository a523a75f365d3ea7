"""Sentence embeddings blended into the ranking (the optional extra ``paperbot[embeddings]``): numpy only.

Paper vectors are computed elsewhere, once per paper (the bot stores them; see
``bot/state/embedding_option.py``), and handed in as unit rows by paper id. A profile's embedding query
is built like its TF-IDF query::

    topics' · unit(topics' embedding) + unit(liked mean) − disliked · unit(disliked mean)

(the same fading weights and topic share as :mod:`recommender.ranker`), and each paper's cosine with it
is blended into the TF-IDF score::

    score + weight · (σ(score) / σ(cosine)) · (cosine − mean cosine)

per profile, the spreads taken over the papers that have a vector (σ(score) at least
:data:`SPREAD_FLOOR`): the embedding part moves a paper by as much as the TF-IDF part does at ``weight``
1, whatever the two scales are, and a paper of average cosine is left where TF-IDF put it. A paper
without a vector yet (just ingested) keeps its TF-IDF score.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from recommender.index import PaperIndex
from recommender.profile import Profile

#: The TF-IDF spread assumed when a profile's words match (almost) nothing, so that its meaning still
#: counts: about the spread of a one-topic profile's scores over a corpus that has its words.
SPREAD_FLOOR = 0.01
#: Texts (topics) to unit rows: the same model that made the paper vectors.
Encode = Callable[[list[str]], np.ndarray]


def unit(matrix: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (zero rows stay zero)."""
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.where(norms > 0, norms, 1.0)


class PaperVectors:
    """Unit vectors by paper id, and their rows lined up with an index's rows. Thread-safe; only grows
    (a paper merged away just stops being asked for)."""

    def __init__(self, dimensions: int):
        self.dimensions = dimensions
        self._lock = threading.Lock()
        self._row_of: dict[str, int] = {}
        self._matrix = np.zeros((0, dimensions), dtype=np.float32)
        self._aligned: tuple[tuple, np.ndarray, np.ndarray] | None = None

    def __len__(self) -> int:
        return len(self._row_of)

    def __contains__(self, paper_id: str) -> bool:
        return paper_id in self._row_of

    def put(self, ids: Sequence[str], vectors: np.ndarray) -> None:
        """Know (or replace) the vectors of ``ids``, one row each."""
        vectors = unit(np.asarray(vectors, dtype=np.float32).reshape(len(ids), self.dimensions))
        with self._lock:
            new = [pid for pid in dict.fromkeys(ids) if pid not in self._row_of]
            start = len(self._matrix)
            if new:
                grown = np.zeros((start + len(new), self.dimensions), dtype=np.float32)
                grown[:start] = self._matrix
                self._matrix = grown
                for i, pid in enumerate(new):
                    self._row_of[pid] = start + i
            for pid, vector in zip(ids, vectors, strict=True):
                self._matrix[self._row_of[pid]] = vector
            self._aligned = None

    def missing(self, ids: Iterable[str]) -> list[str]:
        """The ids among ``ids`` that have no vector here."""
        return [pid for pid in ids if pid not in self._row_of]

    def aligned(self, index: PaperIndex) -> tuple[np.ndarray, np.ndarray]:
        """(one vector per index row, zero where unknown; which rows have one), kept until the index or
        the vectors change (ids are only appended to an index, so its length names its state)."""
        with self._lock:
            key = (id(index), len(index.ids), len(self._row_of))
            if self._aligned is not None and self._aligned[0] == key:
                return self._aligned[1], self._aligned[2]
            rows = np.array([self._row_of.get(pid, -1) for pid in index.ids], dtype=np.int64)
            has = rows >= 0
            matrix = np.zeros((len(rows), self.dimensions), dtype=np.float32)
            matrix[has] = self._matrix[rows[has]]
            self._aligned = (key, matrix, has)
            return matrix, has


@dataclass(frozen=True)
class EmbeddingWeights:
    """``weight``: the embedding part's pull against the TF-IDF part's (see the module's docstring);
    ``disliked``, ``topics_fade`` and ``half_life_days`` as in :class:`recommender.Weights`."""

    weight: float = 1.0
    disliked: float = 0.25
    topics_fade: float = 10.0
    half_life_days: float = 90.0


def embedding_queries(vectors: PaperVectors, index: PaperIndex, profiles: Sequence[Profile],
                      encode: Encode | None, weights: EmbeddingWeights = EmbeddingWeights()) -> np.ndarray:
    """One query vector per profile (a zero row for a profile with nothing embedded)."""
    dims = vectors.dimensions
    matrix, has = vectors.aligned(index)
    queries = np.zeros((len(profiles), dims), dtype=np.float32)
    texts = [" ; ".join(p.topics) for p in profiles]
    wanted = [i for i, t in enumerate(texts) if t.strip()]
    topic_rows = np.zeros((len(profiles), dims), dtype=np.float32)
    if wanted and encode is not None:
        topic_rows[wanted] = unit(np.asarray(encode([texts[i] for i in wanted]), dtype=np.float32))
    for i, profile in enumerate(profiles):
        liked = _mean(matrix, has, index, profile.liked, profile.liked_weights(weights.half_life_days))
        disliked = _mean(matrix, has, index, profile.disliked,
                         profile.disliked_weights(weights.half_life_days))
        likes = sum(profile.liked_weights(weights.half_life_days))
        topics = np.sqrt(weights.topics_fade / (weights.topics_fade + likes)) if weights.topics_fade else 1.0
        queries[i] = topics * topic_rows[i] + liked - weights.disliked * disliked
    return queries


def _mean(matrix: np.ndarray, has: np.ndarray, index: PaperIndex, ids: Sequence[str],
          weights: Sequence[float]) -> np.ndarray:
    """unit(weighted mean of the known vectors of ``ids``), or zeros."""
    rows, ws = [], []
    for pid, w in zip(ids, weights, strict=True):
        row = index.row_of.get(pid)
        if row is not None and has[row]:
            rows.append(row)
            ws.append(w)
    if not rows:
        return np.zeros(matrix.shape[1], dtype=np.float32)
    mean = np.asarray(ws, dtype=np.float32) @ matrix[rows]
    norm = float(np.linalg.norm(mean))
    return mean / norm if norm > 0 else mean


def blend_scores(scores: np.ndarray, cosines: np.ndarray, has: np.ndarray, weight: float) -> np.ndarray:
    """``scores`` (profiles × rows, TF-IDF) with the embedding part added (see the module's docstring)."""
    if weight <= 0 or not has.any():
        return scores
    known_scores = scores[:, has]
    known_cos = cosines[:, has]
    c_std = known_cos.std(axis=1, keepdims=True)
    spread = np.maximum(known_scores.std(axis=1, keepdims=True), SPREAD_FLOOR)
    scale = weight * spread / np.where(c_std > 0, c_std, np.inf)
    out = scores.copy()
    out[:, has] = known_scores + (scale * (known_cos - known_cos.mean(axis=1, keepdims=True))).astype(
        scores.dtype)
    return out


class EmbeddingBlend:
    """What the ranker calls, when given one, on its TF-IDF scores: ``blend(index, profiles, scores)``
    returns the blended scores (profiles × index rows)."""

    def __init__(self, vectors: PaperVectors, encode: Encode | None,
                 weights: EmbeddingWeights = EmbeddingWeights()):
        self.vectors = vectors
        self.encode = encode
        self.weights = weights

    def __call__(self, index: PaperIndex, profiles: Sequence[Profile], scores: np.ndarray) -> np.ndarray:
        matrix, has = self.vectors.aligned(index)
        queries = embedding_queries(self.vectors, index, profiles, self.encode, self.weights)
        cosines = queries @ matrix.T
        return blend_scores(scores, cosines, has, self.weights.weight)
