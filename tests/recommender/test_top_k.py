from __future__ import annotations

import numpy as np

from recommender import PaperIndex, best_of_matrix, best_of_rows, top_k
from recommender.ranker import _best_positive, best_columns


def index_of(n: int) -> PaperIndex:
    texts = [f"paper number {i} about graphs and kernels {'deep ' * (i % 3)}" for i in range(n)]
    return PaperIndex.build([f"p{i}" for i in range(n)], texts)


def test_best_first_with_ties_going_to_the_earlier_row():
    index = index_of(8)
    scores = np.array([0.5, 0.9, 0.5, 0.5, 0.1, 0.9, 0.5, 0.0], dtype=np.float32)
    assert [pid for pid, _ in top_k(index, scores, 4)] == ["p1", "p5", "p0", "p2"]
    # The same answer however the candidates are ordered.
    rows = np.array([6, 3, 2, 0, 5, 1])
    assert [pid for pid, _ in best_of_rows(index, scores, rows, 3)] == ["p1", "p5", "p0"]
    assert best_of_rows(index, scores, np.array([], dtype=int), 3) == []


def test_exclusions_floor_and_non_finite_scores():
    index = index_of(6)
    scores = np.array([0.4, np.nan, 0.3, -np.inf, 0.2, 0.05], dtype=np.float32)
    assert [pid for pid, _ in top_k(index, scores, 10, exclude={"p0"})] == ["p2", "p4", "p5"]
    assert [pid for pid, _ in top_k(index, scores, 10, min_score=0.1)] == ["p0", "p2", "p4"]
    assert [pid for pid, _ in top_k(index, scores, 10, min_score=None)] == ["p0", "p2", "p4", "p5"]
    assert [pid for pid, _ in top_k(index, scores, 10, candidates={"p4", "p5", "nope"})] == ["p4", "p5"]


def _full_sort(row: np.ndarray, k: int) -> list[int]:
    """The reference: every finite score sorted best first, ties by column."""
    cols = [c for c in range(len(row)) if np.isfinite(row[c])]
    return sorted(cols, key=lambda c: (-row[c], c))[:k]


def test_best_columns_match_a_full_sort_ties_and_gaps_included():
    rng = np.random.default_rng(7)
    n, k = 4000, 300
    dense = rng.random((6, n)).astype(np.float32)
    ties = np.round(rng.random((6, n)) * 20).astype(np.float32) / 20  # thousands of equal scores
    sparse_row = np.where(rng.random(n) < 0.05, rng.random(n), 0.0).astype(np.float32)  # 0s tie at the k-th
    few = np.full(n, -np.inf, dtype=np.float32)
    few[rng.choice(n, 120, replace=False)] = rng.random(120)  # fewer than k allowed
    gaps = dense[0].copy()
    gaps[rng.choice(n, 3000, replace=False)] = -np.inf  # candidates only
    # The sample holds the best scores, so too few clear its bar: the row is sorted whole.
    skewed = np.zeros(n, dtype=np.float32)
    skewed[::8] = 1.0 + np.arange(len(skewed[::8]))
    scores = np.vstack([dense, ties, sparse_row, few, gaps, skewed])
    got = best_columns(scores, k)
    for row, cols in zip(scores, got, strict=True):
        assert cols.tolist() == _full_sort(row, k)


def test_best_of_matrix_is_best_of_rows_for_every_row():
    index = index_of(40)
    rng = np.random.default_rng(3)
    scores = np.round(rng.random((5, 40)) * 4).astype(np.float32)
    scores[1, :30] = -np.inf
    for row, best in zip(scores, best_of_matrix(index, scores, 12), strict=True):
        assert best == best_of_rows(index, row, np.flatnonzero(np.isfinite(row)), 12)
    assert best_of_matrix(index, scores, 0) == [[]] * 5


def test_best_positive_holds_each_rows_best_positive_scores_ties_and_gaps_included():
    rng = np.random.default_rng(0)
    for trial in range(150):
        n, n_rows = int(rng.integers(1, 3000)), int(rng.integers(1, 12))
        depth = int(rng.integers(1, min(n, 30) + 1))
        scores = rng.random((n_rows, n)).astype(np.float32) - 0.5
        if trial % 3 == 0:
            scores = np.round(scores * 5) / 5  # many ties at the bar
        if trial % 5 == 0:
            scores[:, rng.random(n) < 0.5] = -np.inf
        if trial % 7 == 0:
            scores[:, rng.random(n) < 0.99] = 0.0  # a few positive scores, or none
        cols, real = _best_positive(scores, depth)
        assert cols.shape == real.shape == (n_rows, depth)
        for row, c, r in zip(scores, cols, real, strict=True):
            positive = np.sort(row[row > 0])[::-1][:depth]
            assert len(set(c[r].tolist())) == r.sum() == len(positive)
            assert np.array_equal(np.sort(row[c[r]])[::-1], positive)
