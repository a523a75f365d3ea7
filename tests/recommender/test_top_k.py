from __future__ import annotations

import numpy as np

from recommender import PaperIndex, best_of_rows, top_k


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
