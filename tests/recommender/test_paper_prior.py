"""The per-paper factor in scoring: positive, cached per index state, and never a reason to return
papers sharing nothing with the profile."""

from __future__ import annotations

import numpy as np
import pytest

from recommender import PaperIndex, Profile, Weights, rank, score_matrix, search
from recommender.ranker import explain, paper_prior, profile_vectors
from stand_ins.corpus import make_corpus

PLAIN = Weights(length=0.0, generic=0.0, query_idf=0.0, expansion=0.0)


@pytest.fixture
def index() -> PaperIndex:
    papers = make_corpus()
    return PaperIndex.build([p.id for p in papers], [p.text for p in papers])


def test_prior_is_positive_and_damps_generic_papers(index):
    index.add(["generic"], [" ".join(p.text for p in make_corpus(per_topic=1))])
    prior = paper_prior(index)
    assert prior.shape == (len(index.ids),) and (prior > 0).all()
    # A paper mixing every topic sits at the corpus's centre: it is damped more than any focused one,
    # more than its length alone would lift it.
    assert prior[index.row_of["generic"]] < prior[index.row_of["cats-0"]]


def test_zero_weights_give_plain_cosine(index):
    profiles = [Profile(topics=["graphs"], liked=["cats-0"], disliked=["robots-1"])]
    plain = score_matrix(index, profiles, PLAIN)
    expected = (profile_vectors(index, profiles, PLAIN) @ index.matrix.T).toarray()
    assert np.allclose(plain, expected)
    tuned = score_matrix(index, profiles)
    assert np.array_equal(np.sign(tuned), np.sign(plain))


def test_prior_follows_the_index_as_it_changes(index):
    before = paper_prior(index)
    assert paper_prior(index) is before  # cached
    index.add(["new"], ["feline cats kittens whiskers purring"])
    after = paper_prior(index)
    assert after.shape[0] == before.shape[0] + 1
    assert "new" in [p.paper_id for p in rank(index, Profile(topics=["kittens"]), 50)]


def test_nothing_unrelated_is_returned(index):
    ids = [p.paper_id for p in search(index, "qubits", 50)]
    assert ids and all(pid.startswith("quantum") for pid in ids)


def test_rank_explains_each_pick_as_explain_does(index):
    profile = Profile(topics=["denoising"], liked=["cats-0", "cats-1"], disliked=["graphs-0"])
    picks = rank(index, profile, 8)
    assert len(picks) == 8
    assert not {"cats-0", "cats-1", "graphs-0"} & {p.paper_id for p in picks}
    assert [p.score for p in picks] == sorted((p.score for p in picks), reverse=True)
    for pick in picks:
        assert explain(index, profile, pick.paper_id, pick.score) == pick
    assert any(p.similar_to in {"cats-0", "cats-1"} for p in picks)
    assert any(p.paper_id.startswith("diffusion") for p in picks)
