"""Scoop watch arithmetic (recommender/watch.py): closeness is the cosine in the index's space, a watch's bar
is the score its k-th closest paper of the history reached (never below the least), and the passages are
the sentence pairs that overlap most, each sentence once."""

from __future__ import annotations

import numpy as np
import pytest

from recommender import PaperIndex
from recommender.watch import bars, closeness, overlaps, watch_rows
from stand_ins.corpus import make_corpus


@pytest.fixture(scope="module")
def index() -> PaperIndex:
    papers = make_corpus()
    return PaperIndex.build([p.id for p in papers], [p.text for p in papers])


def test_closeness_is_the_cosine_and_a_watch_is_closest_to_its_topic(index):
    rows = watch_rows(index.model, ["feline cats whiskers purring", "qubits entanglement"])
    scores = closeness(index.rows(index.ids), rows)
    assert scores.shape == (len(index.ids), 2) and np.all(scores <= 1.0001)
    assert index.ids[int(np.argmax(scores[:, 0]))].startswith("cats-")
    assert index.ids[int(np.argmax(scores[:, 1]))].startswith("quantum-")


def test_the_bar_is_the_kth_closest_score_and_never_below_the_least(index):
    rows = watch_rows(index.model, ["feline cats whiskers purring"])
    history = index.rows(index.ids)
    scores = np.sort(closeness(history, rows)[:, 0])[::-1]
    assert bars(history, rows, [3], 0.0)[0] == pytest.approx(scores[2])
    assert bars(history, rows, [1], 0.0)[0] == pytest.approx(scores[0])
    assert bars(history, rows, [30], 0.5)[0] == 0.5  # the 30th is another topic's: the least holds
    assert bars(history, rows, [1000], 0.2)[0] == 0.2  # fewer papers than that: the least
    assert bars(history, rows, [3], 0.0)[0] < bars(history, rows, [1], 0.0)[0]  # fewer pass: higher


def test_passages_pair_the_sentences_that_overlap_most_each_once(index):
    paper = ["Cats purr with their whiskers.", "Qubits are entangled.", "Nothing here."]
    watch = ["We study qubits and entanglement.", "Our cats purr.", "Unrelated words."]
    found = overlaps(index.model, paper, watch, most=3)
    assert {(i, j) for i, j, _ in found} == {(0, 1), (1, 0)}
    assert [s for *_, s in found] == sorted((s for *_, s in found), reverse=True)
    assert overlaps(index.model, [], watch) == []
