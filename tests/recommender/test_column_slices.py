"""A batch is scored on a kept slice of the corpus's columns: the scores a slice to its own terms gives."""

from __future__ import annotations

import numpy as np
import pytest

from recommender import PaperIndex, Profile, ranker
from stand_ins.corpus import make_corpus

TOPICS = ["graph neural networks", "cats", "reinforcement learning", "protein folding", "diffusion models",
          "bandits", "robots", "language models"]


@pytest.fixture
def index() -> PaperIndex:
    papers = make_corpus()
    return PaperIndex.build([p.id for p in papers], [p.text for p in papers])


def own_slice(index: PaperIndex, queries) -> np.ndarray:
    terms = np.unique(queries.indices)
    return ranker._dense_scores(index.matrix[:, terms], queries[:, terms])


def test_kept_columns_score_as_the_batch_own_terms(index, monkeypatch):
    monkeypatch.setattr(ranker, "_dense_pays", lambda *args: True)  # the path that slices columns
    rng = np.random.default_rng(0)
    for _ in range(30):
        profiles = [Profile(topics=list(rng.choice(TOPICS, 2, replace=False))) for _ in range(20)]
        parts = [ranker._parts(index, p, ranker.DEFAULT_WEIGHTS) for p in profiles]
        queries = ranker._queries(index, parts, profiles, ranker.DEFAULT_WEIGHTS)
        got = ranker._scores(index, queries, ranker.Weights(length=0, generic=0))
        assert np.array_equal(got, own_slice(index, queries))


def test_a_kept_slice_serves_only_while_it_is_not_much_wider(index):
    wide = np.arange(index.matrix.shape[1])
    narrow = np.unique(index.matrix[0].indices)[:3]
    ranker._columns(index, wide)
    columns, corpus = ranker._columns(index, narrow)
    assert np.array_equal(columns, narrow) and corpus.shape[1] == len(narrow)
    again, _ = ranker._columns(index, narrow[:2])  # the kept three, or these two alone: never more
    assert np.isin(narrow[:2], again).all() and len(again) <= len(narrow)


def test_new_papers_slice_afresh(index):
    terms = np.unique(index.matrix[0].indices)
    _, before = ranker._columns(index, terms)
    index.add(["new-one"], ["a new paper on graph networks for molecules"])
    _, after = ranker._columns(index, terms)
    assert after is not before and after.shape[0] == index.matrix.shape[0]
