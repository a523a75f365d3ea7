"""The paper index: every paper's TF-IDF row, kept current as papers arrive."""

from __future__ import annotations

import pickle
from collections.abc import Sequence

import numpy as np
from scipy import sparse

from recommender.rows import take_rows
from recommender.text_model import TextModel

FORMAT = 3  # 2: stemmed vocabulary; 3: the model records what its fit pruned, so its vocabulary can grow


class PaperIndex:
    """Papers as rows of one sparse matrix, with the model that made them.

    New and changed papers are transformed with the current vocabulary, grown by the words it has
    never seen, so they are rankable, and findable by their new words, at once; :meth:`needs_refit`
    says when enough of the corpus is new that the vocabulary should be rebuilt.
    """

    def __init__(self, model: TextModel, ids: Sequence[str], matrix: sparse.csr_matrix, fitted_on: int):
        self.model = model
        self.ids: list[str] = list(ids)
        self.matrix = sparse.csr_matrix(matrix, dtype=np.float32)
        self.row_of: dict[str, int] = {pid: i for i, pid in enumerate(self.ids)}
        self.fitted_on = fitted_on
        # Rows replaced by a newer text stay in the matrix but never rank.
        self.alive = np.ones(len(self.ids), dtype=bool)

    @classmethod
    def build(cls, ids: Sequence[str], texts: Sequence[str]) -> PaperIndex:
        """Fit a model on these papers and index them."""
        if not ids:
            raise ValueError("cannot build an index of no papers")
        model, matrix = TextModel.fit(texts)
        return cls(model, ids, matrix, fitted_on=len(ids))

    def __len__(self) -> int:
        return int(self.alive.sum())

    def add(self, ids: Sequence[str], texts: Sequence[str]) -> None:
        """Add new papers, or replace the text of known ones, without refitting.

        Words the vectorizer has no column for, and that the fit did not leave out on purpose, get new
        columns (:meth:`TextModel.grown`); indexed rows keep theirs. (A word one fitted paper had, too
        rare to keep then, is new here too: that one paper lacks it until the next fit.)
        """
        if not ids:
            return
        n_docs = len(self) + len({pid for pid in ids if pid not in self.row_of})
        model = self.model.grown(texts, n_docs)
        if model is not self.model:
            width = len(model.vectorizer.vocabulary_)
            # Zero columns on the right: the same arrays, a wider shape.
            self.matrix = sparse.csr_matrix((self.matrix.data, self.matrix.indices, self.matrix.indptr),
                                            shape=(self.matrix.shape[0], width))
            self.model = model
        rows = self.model.transform(texts)
        start = len(self.ids)
        self.matrix = sparse.vstack([self.matrix, rows], format="csr")
        self.alive = np.concatenate([self.alive, np.ones(len(ids), dtype=bool)])
        for offset, pid in enumerate(ids):
            old = self.row_of.get(pid)
            if old is not None:
                self.alive[old] = False
            self.row_of[pid] = start + offset
        self.ids.extend(ids)

    def remove(self, ids: Sequence[str]) -> None:
        """Stop ranking these papers (merged into others); unknown ids are ignored. Their rows stay in
        the matrix, as replaced rows do, until the next fit or save."""
        for pid in ids:
            row = self.row_of.pop(pid, None)
            if row is not None:
                self.alive[row] = False

    def needs_refit(self, growth: float = 0.2) -> bool:
        """True once the papers added since fitting exceed ``growth`` of those fitted on."""
        return len(self) - self.fitted_on > growth * max(self.fitted_on, 1)

    def rows(self, ids: Sequence[str]) -> sparse.csr_matrix:
        """The rows of these (known) papers."""
        return take_rows(self.matrix, [self.row_of[i] for i in ids])

    def known(self, ids) -> list[str]:
        """Those of ``ids`` that are indexed, in order."""
        return [i for i in ids if i in self.row_of]

    def subset(self, ids) -> PaperIndex:
        """An index of only these papers (those indexed, each once), on this index's own model: scoring
        or explaining a few papers there costs their rows, not the corpus."""
        keep = self.known(dict.fromkeys(ids))
        return PaperIndex(self.model, keep, self.rows(keep), self.fitted_on)

    def dumps(self) -> bytes:
        """Serialise, compacting away replaced rows."""
        keep = np.flatnonzero(self.alive)
        state = {
            "format": FORMAT,
            "model": self.model,
            "ids": [self.ids[i] for i in keep],
            "matrix": self.matrix[keep],
            "fitted_on": self.fitted_on,
        }
        return pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL)

    @classmethod
    def loads(cls, data: bytes) -> PaperIndex:
        """The inverse of :meth:`dumps`. Raises ValueError for data from another format."""
        # Only paperbot's own database is ever unpickled here.
        state = pickle.loads(data)  # noqa: S301
        if not isinstance(state, dict) or state.get("format") != FORMAT:
            raise ValueError("saved model is from an incompatible version")
        return cls(state["model"], state["ids"], state["matrix"], state["fitted_on"])
