"""The first round of papers to rate (recommender/onboarding.py): spread, uncertain, never excluded."""

from __future__ import annotations

import numpy as np
import pytest

from recommender import PaperIndex, Profile, score_matrix
from recommender.onboarding import ROUND_SIZE, choose_round, fair_shares, uncertainty
from stand_ins.corpus import TOPIC_WORDS, make_corpus


@pytest.fixture(scope="module")
def index() -> PaperIndex:
    papers = make_corpus(per_topic=12)
    return PaperIndex.build([p.id for p in papers], [p.text for p in papers])


def topic_of(paper_id: str) -> str:
    return paper_id.rsplit("-", 1)[0]


def test_without_topics_the_round_spans_the_corpus_clusters(index):
    picked = choose_round(index, Profile(), k=5)
    assert len(picked) == 5 == len(set(picked))
    assert {topic_of(p) for p in picked} == set(TOPIC_WORDS)  # one per topic of the five


def test_with_topics_the_round_is_shared_among_them(index):
    picked = choose_round(index, Profile(topics=["feline cats", "quantum circuits"]), k=ROUND_SIZE)
    assert len(picked) == ROUND_SIZE == len(set(picked))
    assert [topic_of(p) for p in picked].count("cats") == 4
    assert [topic_of(p) for p in picked].count("quantum") == 4


def test_within_a_topic_it_prefers_papers_the_ranking_is_least_sure_of(index):
    profile = Profile(topics=["feline cats"])
    picked = choose_round(index, profile, k=3)
    cats = [i for i, pid in enumerate(index.ids) if topic_of(pid) == "cats"]
    scores = score_matrix(index, [profile])[0]
    best = index.ids[cats[int(np.argmax(scores[cats]))]]
    assert all(topic_of(p) == "cats" for p in picked)
    assert best not in picked  # the clearest match teaches least


def test_excluded_and_rated_papers_never_come(index):
    shown = [f"cats-{i}" for i in range(10)]
    profile = Profile(topics=["feline cats"], liked=["cats-10"], disliked=["graphs-0"])
    picked = choose_round(index, profile, k=ROUND_SIZE, exclude=shown)
    assert not set(picked) & {*shown, "cats-10", "graphs-0"}
    assert "cats-11" in picked  # the one cat paper left
    assert len(picked) == ROUND_SIZE  # topped up from the rest of the corpus


def test_a_topic_nothing_matches_gives_its_share_to_the_corpus(index):
    picked = choose_round(index, Profile(topics=["zzzunknownword"]), k=4)
    assert len(picked) == 4 == len(set(picked))


def test_small_and_empty_cases(index):
    assert choose_round(index, Profile(), k=0) == []
    assert choose_round(index, Profile(), k=5, exclude=index.ids) == []
    assert choose_round(index, Profile(), k=3, exclude=index.ids[2:]) == index.ids[:2]


def test_the_choice_is_deterministic(index):
    profile = Profile(topics=["robot grasping", "graph neural networks", "diffusion models"])
    assert choose_round(index, profile) == choose_round(index, profile)


def test_uncertainty_and_shares():
    assert uncertainty(np.array([0.0, 0.5, 1.0])).tolist() == [0.0, 1.0, 0.0]
    assert uncertainty(np.array([0.3, 0.3])).tolist() == [1.0, 1.0]
    assert fair_shares(8, 3) == [3, 3, 2] and fair_shares(2, 3) == [1, 1, 0] and fair_shares(4, 0) == []
