"""The offline protocol: loading users, ranking through the recommender, and the metrics."""

from __future__ import annotations

import json
import math
import random

import pytest

from recommender import PaperIndex
from recommender.evaluate import (
    BadEvalInput,
    EvalUser,
    evaluate,
    intra_list_similarity,
    load_candidates,
    load_users,
    metrics,
)
from stand_ins.corpus import make_corpus
from tests.conftest import shared_data


@pytest.fixture(scope="module")
def index() -> PaperIndex:
    papers = make_corpus()
    return PaperIndex.build([p.id for p in papers], [p.text for p in papers])


def test_a_cat_lover_gets_cat_papers_first(index):
    user = EvalUser("u1", liked=["cats-0", "cats-1"])
    [(name, ranked)] = list(evaluate(index, [user], k=10))
    assert name == "u1"
    assert len(ranked) == 10
    assert set(ranked[:6]) == {f"cats-{i}" for i in range(2, 8)}
    assert not {"cats-0", "cats-1"} & set(ranked)


def test_liked_and_disliked_never_come_back_and_k_is_filled(index):
    everything = len(index)
    user = EvalUser("u1", liked=["cats-0", "graphs-1"], disliked=["cats-2", "quantum-0"], topics=["qubits"])
    [(_, ranked)] = list(evaluate(index, [user], k=everything))
    # No minimum score: every other paper is listed, even ones sharing no word with the profile.
    assert len(ranked) == everything - 4
    assert len(set(ranked)) == len(ranked)
    assert not {"cats-0", "graphs-1", "cats-2", "quantum-0"} & set(ranked)
    assert ranked[0].startswith(("quantum", "cats", "graphs"))


def test_topics_and_dislikes_push_their_own_way(index):
    [(_, by_topic)] = list(evaluate(index, [EvalUser("u", liked=[], topics=["quantum qubits"])], k=8))
    assert all(pid.startswith("quantum") for pid in by_topic)
    users = [EvalUser("plain", liked=["cats-0", "graphs-0"]),
             EvalUser("no-graphs", liked=["cats-0", "graphs-0"], disliked=["graphs-1", "graphs-2"])]
    ranked = dict(evaluate(index, users, k=12))
    graphs_in = {name: sum(pid.startswith("graphs") for pid in ids) for name, ids in ranked.items()}
    assert graphs_in["no-graphs"] < graphs_in["plain"]


def test_candidates_limit_what_is_ranked(index):
    candidates = ["robots-0", "cats-5", "cats-6", "unknown-id"]
    [(_, ranked)] = list(evaluate(index, [EvalUser("u", liked=["cats-0", "cats-6"])], k=10,
                                  candidates=candidates))
    assert ranked == ["cats-5", "robots-0"]


def test_batches_change_nothing_and_progress_is_reported(index):
    users = [EvalUser(f"u{i}", liked=[f"{t}-{i}"]) for i, t in enumerate(["cats", "graphs", "robots"] * 3)]
    calls = []
    one_by_one = list(evaluate(index, users, k=5, batch=1,
                               progress=lambda done, total: calls.append((done, total))))
    together = list(evaluate(index, users, k=5, batch=256))
    assert one_by_one == together
    assert [u for u, _ in together] == [u.user for u in users]
    assert calls[-1] == (9, 9) and len(calls) == 9


def test_other_users_likes_count_unless_turned_off(index):
    # Two users liked a cats paper and a quantum paper together; the third liked the cats paper only.
    users = [EvalUser("a", liked=["cats-0", "quantum-3"]), EvalUser("b", liked=["cats-0", "quantum-3"]),
             EvalUser("c", liked=["cats-0"])]
    together = dict(evaluate(index, users, k=10))
    alone = dict(evaluate(index, users, k=10, collaborative=False))
    assert "quantum-3" in together["c"][:8]
    assert "quantum-3" not in alone["c"][:8]
    # Only the users file is used: a user's own list never holds their liked papers.
    assert not {"cats-0", "quantum-3"} & set(together["a"])


def test_diversity_spreads_the_head_of_each_list(index):
    user = EvalUser("u", liked=["cats-0", "cats-1"], topics=["graph networks"])
    [(_, plain)] = list(evaluate(index, [user], k=20))
    [(_, diverse)] = list(evaluate(index, [user], k=20, diversity=0.5, diverse_head=5))
    assert len(diverse) == 20 and len(set(diverse)) == 20 and diverse[0] == plain[0]
    ils = [intra_list_similarity(index, {"u": ranked}, n=5) for ranked in (plain, diverse)]
    assert ils[1] < ils[0]
    assert diverse[5:] == [p for p in plain if p not in diverse[:5]][:15]


def test_ages_reach_the_recommender(index):
    liked = ["cats-0", "robots-0"]
    new_cats = EvalUser("u", liked=liked, liked_age_days=[0, 365])
    new_robots = EvalUser("v", liked=liked, liked_age_days=[365, 0])
    ranked = dict(evaluate(index, [new_cats, new_robots], k=3, collaborative=False))
    assert all(p.startswith("cats") for p in ranked["u"])
    assert all(p.startswith("robots") for p in ranked["v"])


def test_recall_and_ndcg_on_a_hand_made_example():
    ranked = {"u1": ["a", "b", "c", "d"], "u2": ["x", "y"], "u4": ["a"]}
    truth = [
        EvalUser("u1", liked=["b", "z"]),  # one of two found, at rank 2
        EvalUser("u2", liked=[]),          # nothing held out: not averaged in
        EvalUser("u3", liked=["q"]),       # never ranked: counts as a miss
        EvalUser("u4", liked=["a"]),       # found at rank 1
    ]
    m = metrics(ranked, truth, ks=(1, 2, 4))
    assert m["users"] == 3
    assert m["recall@1"] == pytest.approx((0 + 0 + 1) / 3)
    assert m["recall@2"] == pytest.approx((0.5 + 0 + 1) / 3)
    assert m["recall@4"] == pytest.approx((0.5 + 0 + 1) / 3)
    u1_ndcg2 = (1 / math.log2(3)) / (1 + 1 / math.log2(3))
    assert m["ndcg@2"] == pytest.approx((u1_ndcg2 + 0 + 1) / 3)
    assert m["ndcg@1"] == pytest.approx(1 / 3)


def test_metrics_default_k_is_the_list_length():
    m = metrics({"u": ["a", "b", "c"]}, [EvalUser("u", liked=["c", "d"])])
    assert m == {"users": 1, "recall@3": 0.5, "ndcg@3": pytest.approx(0.5 / (1 + 1 / math.log2(3)))}


def test_load_users_reads_every_shape(tmp_path):
    path = tmp_path / "u.jsonl"
    path.write_text(
        '{"user": "u1", "liked": ["1", "2"]}\n'
        "\n"
        '{"user": "u2", "liked": [], "disliked": ["3"], "topics": ["graph learning", " "]}\n'
        '{"user": 7, "liked": [4]}\n',
        encoding="utf-8",
    )
    users = load_users(path)
    assert users == [
        EvalUser("u1", ["1", "2"], [], []),
        EvalUser("u2", [], ["3"], ["graph learning"]),
        EvalUser("7", ["4"], [], []),
    ]


@pytest.mark.parametrize("line, reason", [
    ("not json", "not JSON"),
    ('["u1"]', "JSON object"),
    ('{"liked": []}', '"user"'),
    ('{"user": "u1"}', '"liked"'),
    ('{"user": "u1", "liked": "12"}', '"liked" must be a list'),
    ('{"user": "u1", "liked": [], "disliked": [{"id": 1}]}', '"disliked"'),
    ('{"user": "u1", "liked": [], "topics": "cats"}', '"topics"'),
])
def test_a_bad_line_names_the_file_and_line(tmp_path, line, reason):
    path = tmp_path / "users.jsonl"
    path.write_text('{"user": "ok", "liked": []}\n\n' + line + "\n", encoding="utf-8")
    with pytest.raises(BadEvalInput) as err:
        load_users(path)
    assert "users.jsonl" in str(err.value) and "line 3" in str(err.value)
    assert reason in str(err.value)


def test_unreadable_files_are_bad_arguments(tmp_path):
    with pytest.raises(BadEvalInput, match="missing.jsonl"):
        load_users(tmp_path / "missing.jsonl")
    with pytest.raises(BadEvalInput, match="missing.txt"):
        load_candidates(tmp_path / "missing.txt")


def test_load_candidates_skips_blank_lines(tmp_path):
    path = tmp_path / "c.txt"
    path.write_text("12\n\n  13  \n\n", encoding="utf-8")
    assert load_candidates(path) == ["12", "13"]


def _read_jsonl(path):
    with path.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def test_citeulike_sample_beats_chance():
    """~200 real users through the whole protocol: far better than chance (its time is measured by
    benchmarks/eval_time.py, not asserted: a loaded machine must not fail it)."""
    papers = _read_jsonl(shared_data("citeulike-a/papers.jsonl"))
    train = load_users(shared_data("citeulike-a/users-train-P10.jsonl"))
    test = load_users(shared_data("citeulike-a/users-test-P10.jsonl"))
    texts = [f"{p['title']}. {p['abstract']}" if p["title"] else p["abstract"] for p in papers]
    index = PaperIndex.build([p["id"] for p in papers], texts)
    sample = random.Random(0).sample(train, 200)
    ranked = dict(evaluate(index, sample, k=50))
    names = {u.user for u in sample}
    m = metrics(ranked, [t for t in test if t.user in names], ks=(50,))
    for user in sample:
        assert len(ranked[user.user]) == 50 and not set(user.liked) & set(ranked[user.user])
    # Chance is 50 / 16,980 = 0.003; the reference TF-IDF centroid gets ~0.15 on all users.
    assert m["recall@50"] > 0.12, m
