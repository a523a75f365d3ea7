import pytest

from bot.usecases import follow, recommend
from bot.usecases.delivery import deliver


def test_a_failed_message_loses_none_of_the_others_and_is_not_marked_shown(ctx):
    follow(ctx, "U1", "quantum qubits")
    recs = recommend(ctx, "U1", 3, remember=False)
    assert ctx.store.shown_paper_ids("U1") == set()
    posted = []

    def post(rec):
        if rec is recs[1]:
            raise ConnectionError("Slack is down")
        posted.append(rec.paper.id)
        return "D1", f"1.{len(posted)}"

    result = deliver(ctx, "U1", recs, post)
    assert [r.paper.id for r in result.delivered] == posted == [recs[0].paper.id, recs[2].paper.id]
    assert result.failed == [recs[1]]
    assert ctx.store.shown_paper_ids("U1") == set(posted)
    assert ctx.store.paper_for_message("D1", "1.2") == ("U1", recs[2].paper.id)
    assert recs[1].paper.id in {r.paper.id for r in recommend(ctx, "U1", 3, remember=False)}


def test_a_paper_is_shown_only_after_the_post_returned(ctx):
    follow(ctx, "U1", "robot manipulation grasping")
    recs = recommend(ctx, "U1", 2, remember=False)
    seen_during_post = []

    def post(rec):
        seen_during_post.append(set(ctx.store.shown_paper_ids("U1")))
        return "D1", rec.paper.id

    deliver(ctx, "U1", recs, post)
    assert seen_during_post == [set(), {recs[0].paper.id}]


def test_nothing_to_deliver(ctx):
    result = deliver(ctx, "U1", [], lambda rec: pytest.fail("no post expected"))
    assert result.delivered == [] and result.failed == []
