"""MMR's similarities are kept per index across digests: what is kept is what a fresh product gives."""

from __future__ import annotations

import numpy as np
import pytest

from recommender import PaperIndex, diversify
from recommender import diversity as diversity_module
from recommender.rows import take_rows
from stand_ins.corpus import make_corpus


@pytest.fixture
def index() -> PaperIndex:
    papers = make_corpus()
    return PaperIndex.build([p.id for p in papers], [p.text for p in papers])


def fresh(index: PaperIndex, rows: list[int]) -> np.ndarray:
    matrix = take_rows(index.matrix, rows)
    return (matrix @ matrix.T).toarray()


@pytest.mark.parametrize("kept", [7, 2048])
def test_kept_similarities_are_those_of_a_fresh_product(index, monkeypatch, kept):
    # 7 papers kept at most: most calls find it full and work their rows out as they come, the same.
    monkeypatch.setattr(diversity_module, "KEPT_PAPERS", kept)
    rng = np.random.default_rng(0)
    for _ in range(200):
        rows = [int(r) for r in rng.choice(len(index.ids), int(rng.integers(1, 6)))]  # repeats too
        got = diversity_module._kept_for(index).among(rows)
        assert np.array_equal(got, fresh(index, rows)), rows


def test_diversify_chooses_as_before_once_the_similarities_are_kept(index):
    ranked = [(pid, 1.0 - i / 100) for i, pid in enumerate(index.ids[:25])]
    first = diversify(index, ranked, 5, 0.5)
    assert diversify(index, ranked, 5, 0.5) == first  # the second time from what was kept
    other = list(reversed(ranked))[:10]
    unkept = PaperIndex(index.model, index.ids, index.matrix, index.fitted_on)
    assert diversify(index, other, 3, 0.5) == diversify(unkept, other, 3, 0.5)


def test_new_papers_start_the_kept_similarities_afresh(index):
    before = diversity_module._kept_for(index)
    before.among([0, 1])
    index.add(["new-one"], ["a new paper on graph networks for molecules"])
    after = diversity_module._kept_for(index)
    assert after is not before and after.matrix is index.matrix
    row = index.row_of["new-one"]
    assert np.array_equal(after.among([0, row]), fresh(index, [0, row]))
