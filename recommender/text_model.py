"""TF-IDF: the one text representation paperbot ranks with."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy import sparse
from sklearn.feature_extraction.text import TfidfVectorizer

# Words of two or more characters that start with a letter, as arxiv-sanity does: drops bare numbers
# and the debris of LaTeX markup.
TOKEN_PATTERN = r"(?u)\b[a-zA-Z_][a-zA-Z0-9_]+\b"


def make_vectorizer(n_docs: int) -> TfidfVectorizer:
    """A TF-IDF vectorizer suited to a corpus of ``n_docs`` abstracts.

    Tiny corpora (the demo's 20 abstracts) keep every word; large ones drop words seen once,
    which are mostly typos and would only bloat the vocabulary.
    """
    return TfidfVectorizer(
        stop_words="english",
        strip_accents="unicode",
        lowercase=True,
        token_pattern=TOKEN_PATTERN,
        ngram_range=(1, 2),
        min_df=1 if n_docs < 200 else 2,
        max_df=0.5 if n_docs >= 20 else 1.0,
        max_features=100_000,
        sublinear_tf=True,
        norm="l2",
        dtype=np.float32,
    )


class TextModel:
    """A fitted vectorizer: texts in, L2-normalised sparse rows out."""

    def __init__(self, vectorizer: TfidfVectorizer):
        self.vectorizer = vectorizer
        self._terms: np.ndarray | None = None

    @classmethod
    def fit(cls, texts: Sequence[str]) -> tuple[TextModel, sparse.csr_matrix]:
        """Fit on a corpus; returns the model and the corpus's rows."""
        vectorizer = make_vectorizer(len(texts))
        try:
            matrix = vectorizer.fit_transform(texts)
        except ValueError:
            # Every word was a stop word or pruned: fall back to keeping everything.
            vectorizer.set_params(min_df=1, max_df=1.0, stop_words=None)
            matrix = vectorizer.fit_transform(texts)
        return cls(vectorizer), sparse.csr_matrix(matrix, dtype=np.float32)

    def transform(self, texts: Sequence[str]) -> sparse.csr_matrix:
        """Rows for texts, in the fitted vocabulary (unknown words are dropped)."""
        return sparse.csr_matrix(self.vectorizer.transform(texts), dtype=np.float32)

    @property
    def terms(self) -> np.ndarray:
        """Column index to term."""
        if self._terms is None:
            self._terms = self.vectorizer.get_feature_names_out()
        return self._terms

    def __getstate__(self) -> dict:
        return {"vectorizer": self.vectorizer}

    def __setstate__(self, state: dict) -> None:
        self.vectorizer = state["vectorizer"]
        self._terms = None
