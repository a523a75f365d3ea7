"""The eval's shortcuts give what the plain computations give: the collaborative part added in place,
the corpus's transpose remembered, a community without co-likes skipped."""

from __future__ import annotations

import numpy as np
import pytest

from recommender import Community, PaperIndex
from recommender.evaluate import EvalUser, evaluate
from stand_ins.corpus import make_corpus


@pytest.fixture(scope="module")
def index() -> PaperIndex:
    papers = make_corpus()
    return PaperIndex.build([p.id for p in papers], [p.text for p in papers])


def test_adding_in_place_equals_adding_the_scores(index):
    community = Community([["cats-0", "cats-1", "quantum-2"], ["cats-1", "cats-2"], ["quantum-2", "cats-0"],
                           ["not-indexed", "cats-2"]])
    liked = [["cats-0"], ["cats-1", "quantum-2"], [], ["nobody-liked"]]
    weights = [[1.0], [0.5, 2.0], [], [1.0]]
    base = np.random.default_rng(0).random((len(liked), len(index.ids)), dtype=np.float32)
    expected = base + 0.3 * community.scores(index, liked, weights)
    got = base.copy()
    community.add_scores(got, index, liked, weights, 0.3)
    assert np.array_equal(got, expected)
    assert np.count_nonzero(got != base) < got.size // 4


def test_a_community_without_co_likes_adds_nothing(index):
    community = Community([["cats-0"], ["cats-1"]])
    assert community.is_empty
    scores = np.ones((1, len(index.ids)), dtype=np.float32)
    community.add_scores(scores, index, [["cats-0"]], [[1.0]])
    assert (scores == 1).all()


def test_eval_ranks_the_same_with_and_without_an_empty_community(index):
    users = [EvalUser("a", ["cats-0"]), EvalUser("b", ["quantum-1"], ["quantum-2"])]
    assert list(evaluate(index, users, k=10)) == list(evaluate(index, users, k=10, collaborative=False))


def test_scores_are_the_same_once_the_transpose_is_remembered(index):
    from recommender.ranker import _transposed

    assert _transposed(index) is _transposed(index)
    assert np.array_equal(_transposed(index).toarray(), index.matrix.T.toarray())


def test_users_with_the_same_profile_get_the_same_list_in_their_order(index):
    users = [EvalUser("a", ["cats-0"]), EvalUser("b", ["quantum-1"], ["quantum-2"]),
             EvalUser("c", ["cats-0"]), EvalUser("d", ["quantum-1"]),
             EvalUser("e", ["cats-0"], topics=["quantum"]),
             EvalUser("f", ["quantum-1"], ["quantum-2"])]
    seen = []
    ranked = list(evaluate(index, users, k=10, batch=2,
                           progress=lambda done, total: seen.append((done, total))))
    assert [name for name, _ in ranked] == list("abcdef")
    # One like each: no community either way, so ranking a user alone is the reference.
    alone = {u.user: dict(evaluate(index, [u], k=10))[u.user] for u in users}
    assert dict(ranked) == alone
    assert ranked[0][1] == ranked[2][1] and ranked[0][1] is not ranked[2][1]
    assert ranked[1][1] == ranked[5][1] and ranked[1][1] != ranked[3][1]
    assert seen[-1] == (6, 6) and [d for d, _ in seen] == sorted(d for d, _ in seen)


def test_candidates_rank_as_a_mask_of_the_whole_row_does(index):
    from recommender import best_of_matrix, score_matrix

    users = [EvalUser("a", ["cats-0", "cats-3"]), EvalUser("b", ["quantum-1"], ["cats-5"])]
    candidates = [p for p in index.ids if not p.endswith(("-1", "-6"))]
    ranked = dict(evaluate(index, users, k=20, candidates=candidates, collaborative=False))
    scores = score_matrix(index, [u.profile for u in users])
    allowed = np.isin(np.array(index.ids), candidates)
    scores[:, ~allowed] = -np.inf
    for i, u in enumerate(users):
        scores[i, [index.row_of[p] for p in (*u.liked, *u.disliked)]] = -np.inf
    expected = [[pid for pid, _ in best] for best in best_of_matrix(index, scores, 20)]
    assert [ranked["a"], ranked["b"]] == expected
    assert "cats-5" not in ranked["b"] and not any(p.endswith(("-1", "-6")) for p in ranked["a"])
