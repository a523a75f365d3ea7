import pytest

from bot.errors import BadArgument, NoInterests, NoPapers, NotFound
from bot.usecases import (
    DISLIKE,
    LIKE,
    build_digest,
    follow,
    forget,
    interests,
    recommend,
    record_feedback,
    search,
    unfollow,
    withdraw_feedback,
)
from storage import Paper


def ids(recs):
    return [r.paper.id for r in recs]


def test_first_follow_turns_digests_on_at_nine(ctx):
    result = follow(ctx, "U1", "cats, Graph neural networks , cats")
    assert result.added == ["cats", "Graph neural networks"]
    assert (result.digest_turned_on, result.digest_time) == (True, "09:00")
    again = follow(ctx, "U1", "CATS, robots")
    assert again.added == ["robots"] and again.already == ["CATS"]
    assert not again.digest_turned_on


def test_follow_keeps_a_schedule_the_person_chose(ctx):
    ctx.store.set_digest_schedule("U1", "07:30", False)
    result = follow(ctx, "U1", "cats")
    assert not result.digest_turned_on
    assert interests(ctx, "U1").digest_time == "07:30"


def test_follow_rejects_empty_and_oversized_topics(ctx):
    with pytest.raises(BadArgument):
        follow(ctx, "U1", " , ,")
    with pytest.raises(BadArgument):
        follow(ctx, "U1", "x" * 101)
    with pytest.raises(BadArgument):
        follow(ctx, "U1", ", ".join(f"topic {i}" for i in range(51)))
    assert interests(ctx, "U1").topics == []


def test_follow_an_arxiv_id_likes_that_paper_as_a_seed(ctx):
    ctx.store.upsert_papers([Paper(id="arxiv:2401.00001", abstract="feline cats purring study",
                                   arxiv_id="2401.00001", arxiv_version=1)])
    result = follow(ctx, "U1", "https://arxiv.org/abs/2401.00001v2, 2402.99999, quantum")
    assert [p.id for p in result.seeds] == ["arxiv:2401.00001"]
    assert result.unknown_seeds == ["2402.99999"]
    assert result.added == ["quantum"]
    assert interests(ctx, "U1").liked == 1


def test_unfollow_one_and_all(ctx):
    follow(ctx, "U1", "cats, robots, quantum")
    assert unfollow(ctx, "U1", "ROBOTS") == ["robots"]
    assert unfollow(ctx, "U1", "nothing") == []
    assert unfollow(ctx, "U1", "all") == ["cats", "quantum"]
    assert interests(ctx, "U1").topics == []


def test_recommend_follows_topics_and_never_repeats(ctx):
    follow(ctx, "U1", "feline cats")
    first = recommend(ctx, "U1", 3)
    assert len(first) == 3 and all(i.startswith("cats-") for i in ids(first))
    assert all(r.reason == "Matches your interest “feline cats”" for r in first)
    second = recommend(ctx, "U1", 3)
    assert not set(ids(first)) & set(ids(second))
    everything = ids(first) + ids(second) + ids(recommend(ctx, "U1", 20))
    assert len(everything) == len(set(everything))


def test_likes_and_dislikes_change_the_next_recommendations(ctx):
    follow(ctx, "U1", "generative sampling, robot arms")
    before = recommend(ctx, "U1", 4, remember=False)
    record_feedback(ctx, "U1", "robots-0", DISLIKE)
    record_feedback(ctx, "U1", "diffusion-0", LIKE)
    after = recommend(ctx, "U1", 4, remember=False)
    robots = [sum(i.startswith("robots-") for i in ids(recs)) for recs in (before, after)]
    assert robots[1] < robots[0]
    assert all(i.startswith("diffusion-") for i in ids(after))
    assert "robots-0" not in ids(after) and "diffusion-0" not in ids(after)


def test_a_liked_paper_can_be_the_reason(ctx):
    record_feedback(ctx, "U1", "quantum-0", LIKE)
    recs = recommend(ctx, "U1", 2)
    assert all(r.paper.id.startswith("quantum-") for r in recs)
    assert recs[0].reason.startswith("Like “On quantum")


def test_withdrawn_feedback_stops_counting(ctx):
    record_feedback(ctx, "U1", "quantum-0", LIKE)
    assert not withdraw_feedback(ctx, "U1", "quantum-0", DISLIKE)
    assert withdraw_feedback(ctx, "U1", "quantum-0", LIKE)
    with pytest.raises(NoInterests):
        recommend(ctx, "U1")


def test_feedback_on_an_unknown_paper_is_refused(ctx):
    with pytest.raises(NotFound):
        record_feedback(ctx, "U1", "no-such-paper", LIKE)


def test_recommend_bounds_and_empty_states(ctx, tmp_path):
    follow(ctx, "U1", "cats")
    for bad in (0, 21):
        with pytest.raises(BadArgument):
            recommend(ctx, "U1", bad)
    with pytest.raises(NoInterests):
        recommend(ctx, "U2")
    from bot.state.context import Context

    empty = Context.open(str(tmp_path / "empty.db"))
    follow(empty, "U1", "cats")
    with pytest.raises(NoPapers):
        recommend(empty, "U1")


def test_digest_uses_the_digest_size_and_remembers(ctx):
    follow(ctx, "U1", "qubits entanglement")
    digest = build_digest(ctx, "U1")
    assert len(digest.recommendations) == 3
    assert ctx.store.shown_paper_ids("U1") == set(ids(digest.recommendations))


def test_nothing_is_sent_rather_than_junk(ctx):
    follow(ctx, "U1", "qubits entanglement")
    got = ids(recommend(ctx, "U1", 20))
    assert got and all(i.startswith("quantum-") for i in got)


def test_search_does_not_mark_papers_shown(ctx):
    recs = search(ctx, "message passing on graph nodes", 3)
    assert all(i.startswith("graphs-") for i in ids(recs))
    assert recs[0].reason.startswith("Matches")
    assert ctx.store.shown_paper_ids("U1") == set()
    with pytest.raises(BadArgument):
        search(ctx, "   ")
    with pytest.raises(BadArgument):
        search(ctx, "x" * 501)


def test_forget_removes_everything(ctx):
    follow(ctx, "U1", "cats")
    record_feedback(ctx, "U1", "cats-0", LIKE)
    recommend(ctx, "U1", 2)
    assert forget(ctx, "U1") > 0
    assert all(n == 0 for n in ctx.store.rows_about("U1").values())


def test_older_feedback_fades(ctx):
    from bot.usecases.recommend import profile_for

    record_feedback(ctx, "U1", "quantum-0", LIKE)
    record_feedback(ctx, "U1", "robots-0", LIKE)
    ctx.store.db.execute("update feedback set created_at = '2020-01-01T00:00:00+00:00'"
                         " where paper_id = 'quantum-0'")
    profile = profile_for(ctx, "U1")
    assert profile.liked == ["quantum-0", "robots-0"]
    assert profile.liked_age_days[0] > 365 and profile.liked_age_days[1] < 1
    recs = ids(recommend(ctx, "U1", 4, remember=False))
    assert sum(i.startswith("robots-") for i in recs) > sum(i.startswith("quantum-") for i in recs)


def test_what_colleagues_liked_counts(ctx):
    # U2 liked a cats paper and a quantum paper together; U1 likes that cats paper too.
    for user in ("U2", "U3"):
        record_feedback(ctx, user, "cats-0", LIKE)
        record_feedback(ctx, user, "quantum-5", LIKE)
    record_feedback(ctx, "U1", "cats-0", LIKE)
    recs = recommend(ctx, "U1", 8, remember=False)
    assert "quantum-5" in ids(recs)
    reason = next(r.reason for r in recs if r.paper.id == "quantum-5")
    assert reason.startswith("People who liked “On feline")
    ctx.store.remove_feedback("U2", "quantum-5")
    ctx.store.remove_feedback("U3", "quantum-5")
    assert "quantum-5" not in ids(recommend(ctx, "U1", 8, remember=False))
