"""Learning from reactions: dislikes push down, the per-person model starts with enough feedback, old
feedback fades, topics give way to many likes, and reasons keep their meaning."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from scipy import sparse

from recommender import (
    DEFAULT_WEIGHTS,
    PaperIndex,
    Profile,
    Weights,
    explain,
    model_share,
    rank,
    score_matrix,
)
from recommender.model import RIDGE, negative_cache, person_vector
from recommender.profile import fading
from stand_ins.corpus import make_corpus

NO_MODEL = replace(DEFAULT_WEIGHTS, model=0.0)


@pytest.fixture(scope="module")
def index() -> PaperIndex:
    papers = make_corpus(per_topic=14)
    return PaperIndex.build([p.id for p in papers], [p.text for p in papers])


def scores_of(index, profile, weights=DEFAULT_WEIGHTS) -> dict[str, float]:
    row = score_matrix(index, [profile], weights)[0]
    return {pid: float(row[i]) for i, pid in enumerate(index.ids)}


def position(picks, paper_id) -> int:
    return [p.paper_id for p in picks].index(paper_id)


# Dislikes


def test_a_dislike_pushes_down_papers_like_it(index):
    liked = ["cats-0", "graphs-0"]
    before = scores_of(index, Profile(liked=liked))
    after = scores_of(index, Profile(liked=liked, disliked=["graphs-1"]))
    for pid in ("graphs-2", "graphs-3", "graphs-4"):
        assert after[pid] < before[pid]
    # Papers unlike the disliked one are not pushed down.
    for pid in ("cats-2", "cats-3"):
        assert after[pid] >= before[pid] - 1e-6
    def graph_places(profile):
        ranked = [p.paper_id for p in rank(index, profile, 30)]
        return sum(ranked.index(f"graphs-{i}") for i in range(2, 7))
    assert graph_places(Profile(liked=liked, disliked=["graphs-1"])) > graph_places(Profile(liked=liked))


def test_dislikes_never_come_back_and_weigh_less_than_likes(index):
    profile = Profile(liked=["cats-0"], disliked=["cats-1"])
    picks = rank(index, profile, 10)
    assert "cats-1" not in {p.paper_id for p in picks}
    # One dislike of a paper like the liked one does not wipe out the person's topic.
    assert picks[0].paper_id.startswith("cats")


# The per-person model


@pytest.mark.parametrize("likes, dislikes, on", [
    (0, 0, False), (4, 3, False), (9, 0, False), (10, 0, True), (5, 1, True), (5, 0, False), (40, 10, True),
])
def test_the_model_starts_with_enough_feedback(likes, dislikes, on):
    share = model_share(likes, dislikes)
    assert (share > 0) == on
    assert share <= DEFAULT_WEIGHTS.model
    assert model_share(likes, dislikes, NO_MODEL) == 0


def test_the_models_share_grows_with_feedback():
    shares = [model_share(n, 1) for n in (5, 8, 12, 19, 30)]
    assert shares == sorted(shares) and shares[0] < shares[-1] == DEFAULT_WEIGHTS.model


def test_the_model_changes_the_ranking_only_once_it_starts(index):
    nine = Profile(liked=[f"cats-{i}" for i in range(7)] + ["graphs-0", "graphs-1"])
    ten = Profile(liked=nine.liked + ["graphs-2"])
    assert np.allclose(score_matrix(index, [nine]), score_matrix(index, [nine], NO_MODEL))
    assert not np.allclose(score_matrix(index, [ten]), score_matrix(index, [ten], NO_MODEL))
    five_and_one = Profile(liked=nine.liked[:5], disliked=["robots-0"])
    assert not np.allclose(score_matrix(index, [five_and_one]), score_matrix(index, [five_and_one], NO_MODEL))


def test_the_model_learns_what_separates_likes_from_dislikes():
    texts = {f"mol-{i}": f"graph neural networks for molecules and chemistry, study {i}" for i in range(6)}
    texts |= {f"img-{i}": f"graph neural networks for images and pixels, study {i}" for i in range(6)}
    texts |= {f"other-{i}": f"{w} kernels bandits proteins trading markets {i}" for i, w in
              enumerate(["sparse", "convex", "online", "robust", "causal", "bayesian"] * 3)}
    texts |= {"new-mol": "graph networks for molecules", "new-img": "graph networks for images"}
    index = PaperIndex.build(list(texts), list(texts.values()))
    liked = [index.row_of[f"mol-{i}"] for i in range(5)]
    disliked = [index.row_of[f"img-{i}"] for i in range(5)]
    w = person_vector(index, liked, [1.0] * 5, disliked, [1.0] * 5)
    assert w is not None and w.shape == (1, index.matrix.shape[1])
    assert np.isclose(sparse.linalg.norm(w), 1.0)
    # Only the words of the person's own papers carry weight.
    assert set(w.indices) <= set(index.matrix[liked + disliked].indices)
    weight = dict(zip(index.model.terms[w.indices], w.data, strict=True))
    assert weight["molecules"] > weight["graph"] > 0 > weight["images"]
    scores = (index.matrix @ w.T).toarray().ravel()
    assert scores[index.row_of["new-mol"]] > scores[index.row_of["new-img"]]
    # Without the dislikes, the shared words count fully and the disliked ones not at all.
    only_likes = person_vector(index, liked, [1.0] * 5)
    assert "images" not in set(index.model.terms[only_likes.indices])
    profile = Profile(liked=[f"mol-{i}" for i in range(5)], disliked=[f"img-{i}" for i in range(5)])
    assert model_share(5, 5) > 0
    with_model = scores_of(index, profile)
    without = scores_of(index, profile, NO_MODEL)
    assert (with_model["new-img"] / with_model["new-mol"]) < (without["new-img"] / without["new-mol"])
    # Reasons speak of the profile's similarity, whatever the model does to the order.
    for pid in ("new-mol", "new-img", "mol-5"):
        assert (explain(index, profile, pid, 1.0, n_terms=10)
                == explain(index, profile, pid, 1.0, NO_MODEL, n_terms=10))


def test_the_shared_solve_matches_solving_everything_at_once(index):
    """The block (Schur) solution equals the plain dual ridge solution over likes, dislikes and cache."""
    liked, disliked = [index.row_of["cats-0"], index.row_of["graphs-3"]], [index.row_of["robots-2"]]
    lw, dw = [1.0, 0.5], [0.8]
    w = person_vector(index, liked, lw, disliked, dw).toarray().ravel()
    cache = negative_cache(index)
    rows = sparse.vstack([index.matrix[liked + disliked], cache.matrix]).toarray().astype(np.float64)
    cache_weight = sum(lw) / len(cache.rows)
    weights = np.array(lw + dw + [cache_weight] * len(cache.rows))
    labels = np.array([1.0, 1.0, 0.0] + [0.0] * len(cache.rows))
    alpha = np.linalg.solve(rows @ rows.T + np.diag(RIDGE / weights), labels)
    expected = rows.T @ alpha
    support = np.unique(index.matrix[liked + disliked].indices)
    masked = np.zeros_like(expected)
    masked[support] = expected[support]
    assert np.allclose(w, masked / np.linalg.norm(masked), atol=1e-5)


def test_many_people_are_solved_as_each_alone(index):
    profiles = [Profile(liked=[f"{t}-{i}" for i in range(10)][:8] + ["quantum-0", "robots-0"], disliked=[d])
                for t, d in (("cats", "graphs-0"), ("graphs", "cats-0"), ("robots", "quantum-1"))]
    together = score_matrix(index, profiles)
    for profile, row in zip(profiles, together, strict=True):
        assert np.allclose(score_matrix(index, [profile])[0], row, atol=1e-6)


# Fading


def test_fading_weights_halve_every_half_life():
    assert fading(["a", "b", "c"], [0, 90, 180], 90) == pytest.approx([1.0, 0.5, 0.25])
    assert fading(["a", "b"], None, 90) == [1.0, 1.0]
    assert fading(["a"], [-5], 90) == [1.0]  # a date in the future counts as new
    assert fading(["a", "b"], [0, 365], 0) == [1.0, 1.0]  # no half-life: no fading
    assert 0 < fading(["a"], [10_000], 90)[0] < 1e-6
    with pytest.raises(ValueError, match="liked_age_days"):
        Profile(liked=["a", "b"], liked_age_days=[1.0]).liked_weights(90)


def test_old_likes_count_less_than_new_ones(index):
    liked = ["cats-0", "robots-0"]
    cats_new = Profile(liked=liked, liked_age_days=[1, 400])
    robots_new = Profile(liked=liked, liked_age_days=[400, 1])
    top = [p.paper_id for p in rank(index, cats_new, 5)]
    assert all(p.startswith("cats") for p in top)
    top = [p.paper_id for p in rank(index, robots_new, 5)]
    assert all(p.startswith("robots") for p in top)
    # Without a half-life, ages change nothing.
    still = replace(DEFAULT_WEIGHTS, half_life_days=0)
    plain = Profile(liked=liked)
    assert np.allclose(score_matrix(index, [cats_new], still), score_matrix(index, [plain], still))


def test_old_dislikes_count_less_too(index):
    base = Profile(liked=["graphs-0"], disliked=["graphs-1"])
    fresh = scores_of(index, replace(base, disliked_age_days=[0]))
    old = scores_of(index, replace(base, disliked_age_days=[0]), replace(DEFAULT_WEIGHTS, disliked=0))
    assert fresh["graphs-2"] < old["graphs-2"]
    # The only dislike's direction is kept whatever its age (it is unit length); against a newer
    # dislike of something else, an old one counts less.
    two = Profile(liked=["graphs-0", "cats-0"], disliked=["graphs-1", "cats-1"])
    graphs_old = scores_of(index, replace(two, disliked_age_days=[365, 0]))
    cats_old = scores_of(index, replace(two, disliked_age_days=[0, 365]))
    assert graphs_old["graphs-2"] > cats_old["graphs-2"] and graphs_old["cats-2"] < cats_old["cats-2"]


# Topics against likes


def test_topics_count_less_once_many_likes_exist(index):
    def topic_score(n_likes, weights=NO_MODEL):
        # Liked cats papers share no word with quantum papers: only the topic scores them.
        profile = Profile(topics=["quantum qubits"], liked=[f"cats-{i}" for i in range(n_likes)])
        return scores_of(index, profile, weights)["quantum-5"]
    assert topic_score(10) < topic_score(4) < topic_score(1) < topic_score(0)
    assert topic_score(10) / topic_score(0) == pytest.approx(np.sqrt(10 / 20), rel=1e-3)
    steady = replace(NO_MODEL, topics_fade=0)
    assert topic_score(10, steady) == pytest.approx(topic_score(0, steady), rel=1e-4)


# Reasons


def test_reasons_keep_their_meaning_with_a_model(index):
    profile = Profile(topics=["quantum qubits"], liked=[f"cats-{i}" for i in range(10)],
                      disliked=["robots-0"])
    assert model_share(10, 1) > 0
    picks = rank(index, profile, 12)
    by_id = {p.paper_id: p for p in picks}
    cats = [p for p in picks if p.paper_id.startswith("cats")]
    assert cats and all(p.similar_to and p.similar_to.startswith("cats") for p in cats)
    quantum = [p for p in picks if p.paper_id.startswith("quantum")]
    assert quantum and all(p.topics == ["quantum qubits"] and p.similar_to is None for p in quantum)
    assert not any(p.liked_by_others for p in by_id.values())


def test_reasons_are_the_same_on_a_small_index_of_the_picks(index):
    """The digest explains its picks on an index of just them and the feedback papers: the words a
    reason gives must not depend on the rest of the corpus, even with the person's model on."""
    profile = Profile(liked=[f"graphs-{i}" for i in range(6)] + ["cats-0", "cats-1", "cats-2", "cats-3"],
                      disliked=["robots-1"])
    picks = rank(index, profile, 5)
    keep = index.known(dict.fromkeys([*(p.paper_id for p in picks), *profile.liked, *profile.disliked]))
    small = PaperIndex(index.model, keep, index.rows(keep), index.fitted_on)
    again = {p.paper_id: p for p in rank(small, profile, 5, candidates=[p.paper_id for p in picks])}
    for pick in picks:
        other = again[pick.paper_id]
        assert (other.similar_to, other.topics, other.terms) == (pick.similar_to, pick.topics, pick.terms)
        # and what the reason is checked against the paper's text by
        assert (other.term_stems, other.topic_stems) == (pick.term_stems, pick.topic_stems)
        # Every word, in order, not just the three a reason shows.
        assert (explain(small, profile, pick.paper_id, pick.score, n_terms=20).terms
                == explain(index, profile, pick.paper_id, pick.score, n_terms=20).terms)


def test_unknown_and_duplicate_feedback_is_harmless(index):
    profile = Profile(liked=["cats-0", "cats-0", "gone"], disliked=["cats-0", "also-gone"],
                      liked_age_days=[1, 1, 1], disliked_age_days=[2, 2])
    picks = rank(index, profile, 3)
    assert len(picks) == 3 and all(p.paper_id.startswith("cats") for p in picks)


def test_weights_default_is_documented():
    w = Weights()
    assert (w.disliked, w.half_life_days, w.model) == (0.25, 90.0, 0.5)
