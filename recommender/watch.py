"""Scoop watch arithmetic (issue 43): how close a paper comes to a project description, the bar a watch
sets from how close recent papers came, and the passages where a paper and a project overlap most.

Everything is in the index's own TF-IDF space (:class:`recommender.text_model.TextModel`): a watch's text is
transformed like a paper's, and closeness is the cosine of the two L2-normalised rows. Pure arithmetic on
texts and rows: no Slack, no SQL.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy import sparse

from recommender.text_model import TextModel

#: Watches scored against the history at a time: bounds the dense papers x watches block in memory.
CHUNK = 256


def watch_rows(model: TextModel, texts: Sequence[str]) -> sparse.csr_matrix:
    """The rows of watch texts in ``model``'s space (L2-normalised; words it never saw dropped)."""
    return model.transform(list(texts))


def closeness(paper_rows: sparse.csr_matrix, watches: sparse.csr_matrix) -> np.ndarray:
    """Cosine of every paper with every watch: a papers x watches array of float32."""
    if paper_rows.shape[0] == 0 or watches.shape[0] == 0:
        return np.zeros((paper_rows.shape[0], watches.shape[0]), dtype=np.float32)
    width = max(paper_rows.shape[1], watches.shape[1])
    papers, rows = _widened(paper_rows, width), _widened(watches, width)
    return np.asarray((papers @ rows.T).toarray(), dtype=np.float32)


def bars(history: sparse.csr_matrix, watches: sparse.csr_matrix, above: Sequence[int],
         least: float) -> np.ndarray:
    """Each watch's bar: the score its ``above[j]``-th closest paper of ``history`` reached (so that about
    ``above[j]`` of such papers would have passed it), never below ``least``; ``least`` when the history
    holds fewer papers than that."""
    out = np.full(watches.shape[0], least, dtype=np.float64)
    n = history.shape[0]
    for start in range(0, watches.shape[0], CHUNK):
        block = closeness(history, watches[start:start + CHUNK])
        for j in range(block.shape[1]):
            k = int(above[start + j])
            if 0 < k <= n:
                kth = float(np.partition(block[:, j], n - k)[n - k])
                out[start + j] = max(least, kth)
    return out


def overlaps(model: TextModel, paper_sentences: Sequence[str], watch_sentences: Sequence[str],
             most: int = 3, least: float = 0.05) -> list[tuple[int, int, float]]:
    """The pairs (paper sentence, watch sentence, cosine) that overlap most, each sentence in one pair at
    most, closest first, up to ``most`` and only those above ``least``."""
    if not paper_sentences or not watch_sentences:
        return []
    rows = model.transform([*paper_sentences, *watch_sentences])
    split = len(paper_sentences)
    scores = closeness(rows[:split], rows[split:]).astype(np.float64)
    pairs: list[tuple[int, int, float]] = []
    while len(pairs) < most:
        i, j = np.unravel_index(int(np.argmax(scores)), scores.shape)
        best = float(scores[i, j])
        if best <= least:
            break
        pairs.append((int(i), int(j), best))
        scores[i, :] = -1.0
        scores[:, j] = -1.0
    return pairs


def _widened(matrix: sparse.csr_matrix, width: int) -> sparse.csr_matrix:
    """``matrix`` with as many columns as ``width`` (a vocabulary grown since it was made)."""
    if matrix.shape[1] == width:
        return matrix
    return sparse.csr_matrix((matrix.data, matrix.indices, matrix.indptr), shape=(matrix.shape[0], width))
