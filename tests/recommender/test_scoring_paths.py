"""Scoring a batch goes through a dense block of the queries or through a sparse product,
whichever costs less: both must give the same scores, and the dense block stays bounded."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import sparse

from recommender import PaperIndex, Profile, ranker, score_matrix
from stand_ins.corpus import make_corpus


@pytest.fixture
def index() -> PaperIndex:
    papers = make_corpus()
    return PaperIndex.build([p.id for p in papers], [p.text for p in papers])


def _profiles(index: PaperIndex) -> list[Profile]:
    ids = index.ids
    # More than 16 profiles, so the choice between the paths is the cost model's.
    n = len(ids)
    return [Profile(liked=[ids[i % n], ids[(3 * i + 1) % n]], disliked=[ids[(5 * i + 2) % n]])
            for i in range(40)] + [Profile(topics=["graph neural networks"])]


def _scores_with(monkeypatch, index: PaperIndex, share: float, block: int = ranker.DENSE_BLOCK) -> np.ndarray:
    monkeypatch.setattr(ranker, "DENSE_SHARE", share)
    monkeypatch.setattr(ranker, "DENSE_BLOCK", block)
    return score_matrix(index, _profiles(index))


def test_dense_and_sparse_scoring_agree(monkeypatch, index):
    dense = _scores_with(monkeypatch, index, 0.0)        # any work at all: dense
    sparse_ = _scores_with(monkeypatch, index, np.inf)   # never dense
    assert dense.shape == sparse_.shape == (41, len(index.ids))
    assert dense.dtype == sparse_.dtype == np.float32
    np.testing.assert_allclose(dense, sparse_, rtol=1e-5, atol=1e-6)
    assert (dense > 0).any()


def test_a_small_dense_block_scores_a_few_queries_at_a_time(monkeypatch, index):
    whole = _scores_with(monkeypatch, index, 0.0)
    pieces = _scores_with(monkeypatch, index, 0.0, block=1)  # one query per block
    np.testing.assert_allclose(pieces, whole, rtol=1e-6, atol=1e-7)


def _terms(queries):
    return np.unique(queries.indices)


def test_the_cost_model_picks_dense_for_queries_sharing_their_terms_only(index):
    matrix = index.matrix
    broad = sparse.csr_matrix(matrix[np.zeros(40, dtype=np.int64)] @ matrix.T @ matrix)  # 40 alike
    assert ranker._dense_pays(index, broad, _terms(broad))
    # One different word each: a dense block would multiply every query by every word's papers.
    n = min(matrix.shape[1], 200)
    assert n > 1 / ranker.DENSE_SHARE
    one_each = (np.ones(n, np.float32), (np.arange(n), np.arange(n)))
    narrow = sparse.csr_matrix(one_each, shape=(n, matrix.shape[1]))
    assert not ranker._dense_pays(index, narrow, _terms(narrow))
