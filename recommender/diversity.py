"""Diversity in a digest: maximal marginal relevance (Carbonell & Goldstein 1998), and how to measure it.

A digest of five near-copies of one paper wastes four slots. MMR picks, one at a time, the paper
with the best ``(1 - diversity) · relevance - diversity · (its highest similarity to a paper already
picked)``, where relevance is the ranking score scaled so the best candidate is 1, and similarity is
the cosine between TF-IDF rows. Only the order among the candidates it is given changes: give it the
top few times ``k`` of a ranking.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Sequence
from typing import TypeVar

import numpy as np
from scipy import sparse

from recommender.index import PaperIndex
from recommender.profile import Pick
from recommender.rows import take_rows

T = TypeVar("T", Pick, tuple, str)


def _id_and_score(item) -> tuple[str, float | None]:
    if isinstance(item, Pick):
        return item.paper_id, item.score
    if isinstance(item, tuple):
        return str(item[0]), float(item[1])
    return str(item), None


def diversify(index: PaperIndex, ranked: Sequence[T], k: int, diversity: float = 0.3) -> list[T]:
    """``k`` of ``ranked`` (best first: Picks, ``(id, score)`` pairs or bare ids) in MMR order.

    ``diversity`` 0 keeps the ranking's order; 1 ignores relevance after the first pick. Bare ids
    have no scores, so their relevance falls linearly with rank. Items the index doesn't know keep
    their relevance and count as similar to nothing.
    """
    items = list(ranked)
    k = min(k, len(items))
    if k <= 0:
        return []
    if diversity <= 0 or k == 1:
        return items[:k]
    pairs = [_id_and_score(item) for item in items]
    scores = [s for _, s in pairs]
    known = [s for s in scores if s is not None]
    if len(known) < len(scores) or not np.all(np.isfinite(known)):
        relevance = 1.0 - np.arange(len(items)) / len(items)
    else:
        values = np.asarray(known, dtype=np.float64)
        top = float(values.max())
        # Scores to [0, 1] over the candidates: best 1, worst 0 (also right for negative scores).
        spread = top - float(values.min())
        relevance = (values - values.min()) / spread if spread > 0 else np.ones(len(items))
    rows = [index.row_of.get(pid) for pid, _ in pairs]
    similarity = _similarities(index, rows)
    chosen: list[int] = []
    closest = np.zeros(len(items))  # each candidate's highest similarity to a chosen one
    available = np.ones(len(items), dtype=bool)
    for _ in range(k):
        value = (1.0 - diversity) * relevance - diversity * closest
        value[~available] = -np.inf
        best = int(np.argmax(value))
        chosen.append(best)
        available[best] = False
        closest = np.maximum(closest, similarity[best])
    return [items[i] for i in chosen]


def _similarities(index: PaperIndex, rows: list[int | None]) -> np.ndarray:
    """Cosine between every pair of candidates' rows (rows are unit length); 0 for unknown papers."""
    known = [i for i, r in enumerate(rows) if r is not None]
    out = np.zeros((len(rows), len(rows)))
    if known:
        out[np.ix_(known, known)] = _kept_for(index).among([r for r in rows if r is not None])
    return out


#: Papers whose similarities to each other are kept per index (see _Kept): the first this many met (4 MB).
KEPT_PAPERS = 1024


class _Kept:
    """Similarities between papers' rows, kept: a morning's digests diversify the same few thousand
    candidates for thousands of people, and each sparse product of some twenty rows costs a quarter
    of a millisecond. A paper met for the first time is compared with every paper kept, at once.

    Each entry of a sparse product depends on its two rows alone, the left one's order included: a
    kept value is the one a product of any rows holding both gives, so keeping it changes no choice."""

    def __init__(self, matrix: sparse.csr_matrix):
        self.matrix = matrix
        self.slot: dict[int, int] = {}  # index row -> its place in ``values``
        self.rows: list[int] = []       # index rows, by place
        self.values = np.zeros((0, 0), dtype=np.float32)
        self.lock = threading.Lock()

    def among(self, rows: list[int]) -> np.ndarray:
        """The rows' pairwise dot products, as ``take_rows(rows) @ take_rows(rows).T`` gives them."""
        with self.lock:
            new = [r for r in dict.fromkeys(rows) if r not in self.slot]
            if len(self.rows) + len(new) > KEPT_PAPERS:
                # Full: these are worked out as they come, and the papers kept (met first, so mostly
                # the popular ones) stay. Starting over instead had every later digest pay to refill.
                matrix = take_rows(self.matrix, rows)
                return (matrix @ matrix.T).toarray()
            if new:
                self._keep(new)
            slots = np.array([self.slot[r] for r in rows], dtype=np.int64)
            return self.values[np.ix_(slots, slots)]

    def _keep(self, new: list[int]) -> None:
        start, end = len(self.rows), len(self.rows) + len(new)
        if end > len(self.values):  # grown as needed: a small index never holds the largest block
            size = min(max(2 * len(self.values), end, 64), max(KEPT_PAPERS, end))
            values = np.zeros((size, size), dtype=np.float32)
            values[:start, :start] = self.values[:start, :start]
            self.values = values
        for row in new:
            self.slot[row] = len(self.rows)
            self.rows.append(row)
        kept, fresh = take_rows(self.matrix, self.rows), take_rows(self.matrix, new)
        # Both ways round: the left row's order of terms is the order of the sum.
        self.values[start:end, :end] = (fresh @ kept.T).toarray()
        self.values[:end, start:end] = (kept @ fresh.T).toarray()


_kept: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_kept_lock = threading.Lock()


def _kept_for(index: PaperIndex) -> _Kept:
    """The index's kept similarities, started afresh whenever its matrix is another (papers added)."""
    with _kept_lock:
        kept = _kept.get(index)
        if kept is None or kept.matrix is not index.matrix:
            kept = _kept[index] = _Kept(index.matrix)
        return kept


def intra_list_similarity(index: PaperIndex, paper_ids: Sequence[str]) -> float:
    """Mean cosine similarity over all pairs of these papers (TF-IDF rows): lower is more diverse.

    Papers the index doesn't know are left out; fewer than two papers give 0.
    """
    rows = [index.row_of[p] for p in paper_ids if p in index.row_of]
    n = len(rows)
    if n < 2:
        return 0.0
    matrix = index.matrix[rows]
    sims = (matrix @ matrix.T).toarray()
    return float((sims.sum() - np.trace(sims)) / (n * (n - 1)))
