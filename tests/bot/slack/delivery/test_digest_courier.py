import http.client
from urllib.error import URLError

import pytest
from slack_sdk.errors import SlackApiError
from slack_sdk.web import SlackResponse

from bot.errors import Outage
from bot.slack.delivery.digests import classified
from bot.usecases import follow, recommend
from bot.usecases.delivery import deliver
from bot.usecases.digests.send import Posted


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


# -- posts that timed out: unknown until the DM is looked at ----------------------------------------

def _timed_out_first(recs, landed: bool, find_error: Exception | None = None):
    """A post for recs[0] that raises a maybe-delivered Outage (landed or not), the others fine."""
    posted = []

    def post(rec):
        if rec is recs[0]:
            if landed:
                posted.append(rec.paper.id)
            raise Outage("no answer from Slack (TimeoutError)", maybe_delivered=True)
        posted.append(rec.paper.id)
        return "D1", f"1.{len(posted)}"

    def find():
        if find_error is not None:
            raise find_error
        return Posted(papers={pid: ("D1", f"9.{i}") for i, pid in enumerate(posted)})

    return post, find, posted


def test_a_timed_out_post_found_in_the_dm_counts_as_delivered_with_its_message(ctx):
    follow(ctx, "U1", "quantum qubits")
    recs = recommend(ctx, "U1", 3, remember=False)
    post, find, posted = _timed_out_first(recs, landed=True)
    result = deliver(ctx, "U1", recs, post, find)
    assert [r.paper.id for r in result.delivered] == posted and result.failed == [] == result.unconfirmed
    assert ctx.store.paper_for_message("D1", "9.0") == ("U1", recs[0].paper.id)


def test_a_timed_out_post_not_in_the_dm_may_come_again_and_the_rest_still_go(ctx):
    follow(ctx, "U1", "quantum qubits")
    recs = recommend(ctx, "U1", 3, remember=False)
    post, find, posted = _timed_out_first(recs, landed=False)
    result = deliver(ctx, "U1", recs, post, find)
    assert result.failed == [recs[0]] and [r.paper.id for r in result.delivered] == posted
    assert recs[0].paper.id not in ctx.store.shown_paper_ids("U1")


def test_a_timed_out_post_that_cannot_be_checked_is_never_repeated_and_slack_is_left_alone(ctx):
    follow(ctx, "U1", "quantum qubits")
    recs = recommend(ctx, "U1", 3, remember=False)
    post, find, posted = _timed_out_first(recs, landed=True, find_error=ConnectionError("still down"))
    result = deliver(ctx, "U1", recs, post, find)
    assert result.unconfirmed == [recs[0]] and result.failed == recs[1:] and result.delivered == []
    assert posted == [recs[0].paper.id]  # nothing more was tried
    assert ctx.store.shown_paper_ids("U1") == {recs[0].paper.id}  # counted as shown: never sent twice
    assert result.outage


def test_slack_down_stops_the_rest_at_once_and_marks_nothing_shown(ctx):
    follow(ctx, "U1", "quantum qubits")
    recs = recommend(ctx, "U1", 3, remember=False)
    tries = []

    def post(rec):
        tries.append(rec)
        raise Outage("can't reach Slack (Connection refused)")

    result = deliver(ctx, "U1", recs, post, lambda: pytest.fail("nothing can have landed: no look"))
    assert tries == recs[:1] and result.failed == recs and ctx.store.shown_paper_ids("U1") == set()


# -- what a failed Web API call means ---------------------------------------------------------------

def _api_error(status: int, error: str):
    response = SlackResponse(client=None, http_verb="POST", api_url="chat.postMessage", req_args={},
                             data={"ok": False, "error": error}, headers={}, status_code=status)
    return SlackApiError("failed", response)


@pytest.mark.parametrize(("failure", "kind", "maybe"), [
    (lambda: _api_error(500, "internal_error"), "Outage", True),
    (lambda: _api_error(200, "fatal_error"), "Outage", True),
    (lambda: _api_error(503, "service_unavailable"), "Outage", False),
    (lambda: _api_error(429, "ratelimited"), "Outage", False),
    (lambda: _api_error(200, "request_timeout"), "Outage", False),
    (lambda: _api_error(200, "invalid_blocks"), "SlackApiError", None),
    (lambda: _api_error(200, "msg_too_long"), "SlackApiError", None),
    (lambda: _api_error(200, "user_not_found"), "Unreachable", None),
    (lambda: URLError(ConnectionRefusedError(111, "refused")), "Outage", False),
    (lambda: TimeoutError("The read operation timed out"), "Outage", True),
    (lambda: http.client.RemoteDisconnected("closed"), "Outage", True),
])
def test_failed_calls_are_classified_for_digests(failure, kind, maybe):
    error = classified(failure())
    assert type(error).__name__ == kind
    if maybe is not None:
        assert error.maybe_delivered is maybe
