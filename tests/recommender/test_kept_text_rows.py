"""Topic rows are kept per model and text: what is kept is what working them out afresh gives."""

from __future__ import annotations

import numpy as np
import pytest

from recommender import PaperIndex, ranker
from stand_ins.corpus import make_corpus

TEXTS = ["graph neural networks", "cats ; reinforcement learning", "", "diffusion models ; bandits ; robots",
         "graph neural networks"]


@pytest.fixture
def index() -> PaperIndex:
    papers = make_corpus()
    return PaperIndex.build([p.id for p in papers], [p.text for p in papers])


def same(a, b) -> bool:
    a, b = a.tocsr(), b.tocsr()
    return a.shape == b.shape and np.array_equal(a.toarray(), b.toarray())


def test_kept_text_rows_are_those_worked_out_afresh(index):
    fresh = ranker._text_rows_now(index, list(dict.fromkeys(TEXTS)))
    by_text = {t: fresh[i] for i, t in enumerate(dict.fromkeys(TEXTS))}
    for _ in range(2):  # the second time from what was kept
        rows = ranker._text_rows(index, TEXTS)
        assert rows.shape == (len(TEXTS), index.matrix.shape[1])
        for i, text in enumerate(TEXTS):
            assert same(rows[i], by_text[text]), text
        assert same(ranker._text_rows(index, [TEXTS[1]]), by_text[TEXTS[1]])


def test_kept_topic_queries_are_sharpened_as_before(index):
    power = ranker.DEFAULT_WEIGHTS.query_idf
    expected = ranker._sharpened(index, ranker._text_rows_now(index, TEXTS), power)
    for _ in range(2):
        assert same(ranker._topic_rows(index, TEXTS, power), expected)
    assert same(ranker._topic_rows(index, TEXTS, 0.0), ranker._text_rows_now(index, TEXTS))


def test_kept_rows_start_over_past_their_number(index, monkeypatch):
    monkeypatch.setattr(ranker, "TEXT_ROWS", 2)
    texts = [f"graph networks {i}" for i in range(5)] + ["cats"]
    assert same(ranker._text_rows(index, texts), ranker._text_rows_now(index, texts))
    assert same(ranker._text_rows(index, texts[::-1]), ranker._text_rows_now(index, texts[::-1]))
