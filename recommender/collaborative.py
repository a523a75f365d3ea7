"""What people with similar taste liked: item-to-item collaborative filtering over everyone's likes.

Two papers are close when the same people liked them: the cosine between their columns of the
people × papers like matrix (``co-likes / sqrt(likes of one × likes of the other)``). A person's
collaborative score for a paper is the (fading-weighted) mean of that closeness over their liked
papers. It needs no text, so it finds papers the words miss, but it knows nothing of papers nobody has
liked yet: a brand-new paper scores 0 until someone likes it.

Built from likes only, never from held-out data: ``paperbot eval`` builds it from the users file it
ranks for (each user's given likes), the bot from the likes stored for everyone.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable, Sequence

import numpy as np
from scipy import sparse

from recommender.index import PaperIndex

#: Added to the cosine's denominator: two papers liked together by one person only are weak evidence.
SHRINK = 1.0


class Community:
    """Everyone's likes, as paper-to-paper co-like similarities.

    ``likes`` holds one list of liked paper ids per person (order and duplicates don't matter;
    a person with a single like adds nothing, as that like has no partner). Papers are matched to an
    index by id, so a community stays valid while the index grows or is rebuilt.
    """

    def __init__(self, likes: Iterable[Sequence[str]]):
        col_of: dict[str, int] = {}
        rows, cols = [], []
        for person, ids in enumerate(likes):
            for pid in set(ids):
                rows.append(person)
                cols.append(col_of.setdefault(pid, len(col_of)))
        self.papers: list[str] = list(col_of)
        self.col_of = col_of
        n_people = (rows[-1] + 1) if rows else 0
        matrix = sparse.csr_matrix((np.ones(len(rows), np.float32), (rows, cols)),
                                   shape=(n_people, len(col_of)))
        popularity = np.asarray(matrix.sum(axis=0)).ravel()
        co = sparse.csr_matrix(matrix.T @ matrix, dtype=np.float32)
        co.setdiag(0.0)
        co.eliminate_zeros()
        co = co.tocoo()
        root = np.sqrt(np.maximum(popularity, 1.0))
        values = co.data / (root[co.row] * root[co.col] + SHRINK)
        similar = sparse.csr_matrix((values.astype(np.float32), (co.row, co.col)), shape=co.shape)
        self.similar = similar  # paper × paper, in the community's own order
        self._rows: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

    def __len__(self) -> int:
        return len(self.papers)

    @property
    def is_empty(self) -> bool:
        """True when no two papers share a liker: every score would be 0."""
        return self.similar.nnz == 0

    def _index_rows(self, index: PaperIndex) -> np.ndarray:
        """Index row of each community paper (-1 where the index doesn't know it), cached per index state."""
        key = len(index.ids)
        cached = self._rows.get(index)
        if cached is not None and cached[0] == key:
            return cached[1]
        rows = np.array([index.row_of.get(pid, -1) for pid in self.papers], dtype=np.int64)
        self._rows[index] = (key, rows)
        return rows

    def scores(self, index: PaperIndex, liked: Sequence[Sequence[str]],
               weights: Sequence[Sequence[float]]) -> np.ndarray:
        """Collaborative scores of every index row for each person: shape (people, rows), in [0, 1].

        ``liked[i]`` are person i's liked ids and ``weights[i]`` how much each counts; the score is
        the weighted mean co-like cosine between the row's paper and those liked papers.
        """
        out = np.zeros((len(liked), len(index.ids)), dtype=np.float32)
        self.add_scores(out, index, liked, weights)
        return out

    def add_scores(self, out: np.ndarray, index: PaperIndex, liked: Sequence[Sequence[str]],
                   weights: Sequence[Sequence[float]], factor: float = 1.0) -> None:
        """``out += factor * self.scores(index, liked, weights)``, touching only the scores that are
        not 0: a batch's other scores are most of its row (a full array of zeros added to a batch was
        ~7% of P10's ranking time on the larger eval set)."""
        if self.is_empty:
            return
        data, cols, ptr = [], [], [0]
        for ids, ws in zip(liked, weights, strict=True):
            total = float(sum(ws)) or 1.0
            for pid, w in zip(ids, ws, strict=True):
                col = self.col_of.get(pid)
                if col is not None:
                    data.append(w / total)
                    cols.append(col)
            ptr.append(len(data))
        if not data:
            return
        select = sparse.csr_matrix((np.array(data, np.float32), np.array(cols, np.int64), ptr),
                                   shape=(len(liked), len(self.papers)))
        found = (select @ self.similar).tocoo()
        rows = self._index_rows(index)
        target = rows[found.col]
        known = target >= 0
        # The same float32 product as ``factor * scores`` makes; no (row, column) comes twice.
        out[found.row[known], target[known]] += np.float32(factor) * found.data[known]

    def because_of(self, liked: Sequence[str], weights: Sequence[float],
                   paper_id: str) -> tuple[str | None, float]:
        """The liked paper whose likers most liked ``paper_id`` too, and the weighted co-like cosine."""
        col = self.col_of.get(paper_id)
        if col is None:
            return None, 0.0
        best, best_value = None, 0.0
        column = self.similar[col].toarray().ravel()  # symmetric: the row is the column
        for pid, w in zip(liked, weights, strict=True):
            j = self.col_of.get(pid)
            if j is not None and w * column[j] > best_value:
                best, best_value = pid, float(w * column[j])
        return best, best_value
