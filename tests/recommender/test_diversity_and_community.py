"""MMR diversity in a digest, and other people's likes (collaborative filtering)."""

from __future__ import annotations

import numpy as np
import pytest

from recommender import (
    Community,
    PaperIndex,
    Pick,
    Profile,
    diversify,
    intra_list_similarity,
    rank,
    score_matrix,
)
from stand_ins.corpus import make_corpus


@pytest.fixture(scope="module")
def index() -> PaperIndex:
    papers = make_corpus()
    ids, texts = [p.id for p in papers], [p.text for p in papers]
    # Near-copies of cats-1: a digest without diversity fills up with them.
    ids += [f"cats-1-copy{i}" for i in range(4)]
    texts += [texts[1] + f" version {i}" for i in range(4)]
    return PaperIndex.build(ids, texts)


# Diversity


def test_mmr_lowers_intra_list_similarity(index):
    profile = Profile(topics=["graph networks"], liked=["cats-0", "cats-1"])
    plain = rank(index, profile, 5)
    diverse = rank(index, profile, 5, diversity=0.5)
    assert len(diverse) == 5 and diverse[0].paper_id == plain[0].paper_id
    ils = [intra_list_similarity(index, [p.paper_id for p in picks]) for picks in (plain, diverse)]
    assert ils[1] < ils[0]
    assert any(p.paper_id.startswith("graphs") for p in diverse)
    assert sum("copy" in p.paper_id for p in diverse) < sum("copy" in p.paper_id for p in plain)
    # Still the person's own interests, still explained.
    assert all(p.paper_id.startswith(("cats", "graphs")) for p in diverse)
    assert all(p.similar_to or p.topics or p.terms for p in diverse)


def test_no_diversity_keeps_the_ranking(index):
    profile = Profile(liked=["cats-0"])
    assert rank(index, profile, 6, diversity=0.0) == rank(index, profile, 6)
    best = [(p.paper_id, p.score) for p in rank(index, profile, 8)]
    assert diversify(index, best, 5, 0.0) == best[:5]


def test_diversify_takes_picks_pairs_or_ids(index):
    ids = ["cats-1", "cats-1-copy0", "cats-1-copy1", "graphs-0", "quantum-0"]
    chosen = diversify(index, ids, 3, 0.5)
    assert chosen[0] == "cats-1" and len(chosen) == 3 and len(set(chosen)) == 3
    assert "cats-1-copy0" not in chosen[:2]
    picks = [Pick(pid, 1.0 - i / 10) for i, pid in enumerate(ids)]
    assert [p.paper_id for p in diversify(index, picks, 3, 0.5)] == chosen
    assert diversify(index, [], 3) == [] and diversify(index, ids, 0) == []
    assert diversify(index, ids + ["unknown"], 10, 0.3)[-1] in ids + ["unknown"]


def test_intra_list_similarity(index):
    assert intra_list_similarity(index, ["cats-1", "cats-1-copy0"]) > 0.9
    assert intra_list_similarity(index, ["cats-1", "quantum-0"]) == pytest.approx(0.0, abs=0.05)
    assert intra_list_similarity(index, ["cats-1"]) == 0.0
    assert intra_list_similarity(index, ["cats-1", "unknown"]) == 0.0


# Other people's likes


@pytest.fixture(scope="module")
def community() -> Community:
    # Three people who liked a cats paper also liked quantum-3; nobody links anything to robots.
    return Community([["cats-0", "quantum-3"], ["cats-0", "quantum-3", "graphs-1"], ["cats-0", "quantum-3"],
                      ["robots-0"]])


def test_co_liked_papers_rise(index, community):
    profile = Profile(liked=["cats-0"])
    alone = score_matrix(index, [profile])[0]
    together = score_matrix(index, [profile], community=community)[0]
    quantum = index.row_of["quantum-3"]
    assert alone[quantum] <= 0 < together[quantum]
    others = np.ones(len(index.ids), dtype=bool)
    others[[quantum, index.row_of["graphs-1"]]] = False
    assert np.allclose(alone[others], together[others])
    [pick] = [p for p in rank(index, profile, 12, community=community) if p.paper_id == "quantum-3"]
    assert pick.liked_by_others and pick.similar_to == "cats-0"
    # Content-driven picks keep their usual reason.
    assert all(not p.liked_by_others for p in rank(index, profile, 12, community=community)
               if p.paper_id.startswith("cats"))


def test_community_scores(index, community):
    scores = community.scores(index, [["cats-0"], ["robots-0"], [], ["unknown"]], [[1.0], [1.0], [], [1.0]])
    assert scores.shape == (4, len(index.ids))
    assert 0 < scores[0, index.row_of["quantum-3"]] <= 1
    assert not scores[1:].any()  # a single like has no partner; no likes, or unknown ones: nothing
    assert Community([["a"], ["b"]]).is_empty and not community.is_empty


def test_fewer_co_likers_count_less(index):
    one = Community([["cats-0", "quantum-3"]]).scores(index, [["cats-0"]], [[1.0]])
    three = Community([["cats-0", "quantum-3"]] * 3).scores(index, [["cats-0"]], [[1.0]])
    row = index.row_of["quantum-3"]
    assert 0 < one[0, row] < three[0, row]


def test_community_follows_a_growing_index(community):
    papers = make_corpus()
    index = PaperIndex.build([p.id for p in papers[:30]], [p.text for p in papers[:30]])
    assert "quantum-3" not in index.row_of
    before = community.scores(index, [["cats-0"]], [[1.0]])
    assert before.shape == (1, 30) and set(np.flatnonzero(before[0])) == {index.row_of["graphs-1"]}
    index.add(["quantum-3"], [papers[35].text])
    after = community.scores(index, [["cats-0"]], [[1.0]])
    assert after.shape == (1, 31) and after[0, index.row_of["quantum-3"]] > 0
