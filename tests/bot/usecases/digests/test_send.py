"""One way to deliver papers outside the daily digest's claim (``/papers recommend``, an extra digest):
:func:`bot.usecases.delivery.send_papers`, a header then one message per paper, through a Courier."""

from datetime import UTC, datetime

import pytest

import bot.usecases.delivery
from bot.errors import Outage, Unreachable
from bot.usecases import follow, recommend
from bot.usecases.delivery import send_papers
from bot.usecases.digests.run import send_digest_now
from tests.fakes import FakeCourier


@pytest.fixture
def recs(ctx):
    follow(ctx, "U1", "feline cats")
    return recommend(ctx, "U1", 3, remember=False)


def shown_ids(ctx, recs):
    return ctx.store.shown_among("U1", [r.paper.id for r in recs])


def test_a_header_then_each_paper_each_remembered_as_shown(ctx, recs):
    dm = FakeCourier()
    delivery = send_papers(ctx, "U1", recs, dm.courier(), "*3 papers*")
    assert dm.posts[0] == ("DU1", "header", "*3 papers*")
    assert dm.papers() == [r.paper.id for r in recs]
    assert delivery.delivered == recs and not delivery.failed and delivery.outage is None
    assert shown_ids(ctx, recs) == {r.paper.id for r in recs}


@pytest.mark.parametrize("where", ["open", "header"])
def test_slack_down_before_the_papers_posts_none_of_them(ctx, recs, where):
    dm = FakeCourier(fail={where: Outage("Slack answered 503")})
    delivery = send_papers(ctx, "U1", recs, dm.courier(), "*3 papers*")
    assert dm.papers() == [] and delivery.failed == recs and delivery.outage == "Slack answered 503"
    assert shown_ids(ctx, recs) == set()


@pytest.mark.parametrize("error", [Outage("no answer from Slack (TimeoutError)", maybe_delivered=True),
                                   RuntimeError("refused")])
def test_a_header_that_got_no_answer_or_was_refused_does_not_hold_the_papers(ctx, recs, error):
    dm = FakeCourier(fail={"header": error})
    delivery = send_papers(ctx, "U1", recs, dm.courier(), "*3 papers*")
    assert dm.papers() == [r.paper.id for r in recs] and delivery.delivered == recs


@pytest.mark.parametrize("where", ["open", "header"])
def test_nobody_to_post_to_is_raised_for_the_caller_to_say(ctx, recs, where):
    dm = FakeCourier(fail={where: Unreachable("Slack refused direct messages (user_disabled)")})
    with pytest.raises(Unreachable):
        send_papers(ctx, "U1", recs, dm.courier(), "*3 papers*")
    assert dm.papers() == [] and shown_ids(ctx, recs) == set()


def test_a_paper_whose_post_timed_out_but_landed_is_found_and_not_sent_again(ctx, recs):
    first = recs[0].paper.id
    dm = FakeCourier(fail={first: Outage("no answer from Slack (TimeoutError)", maybe_delivered=True)},
                landed={first})
    delivery = send_papers(ctx, "U1", recs, dm.courier(), "*3 papers*")
    assert dm.papers() == [r.paper.id for r in recs]  # each once
    assert delivery.delivered == recs and shown_ids(ctx, recs) == {r.paper.id for r in recs}


def test_an_extra_digest_goes_through_the_same_way(ctx, monkeypatch):
    follow(ctx, "U1", "feline cats")
    dm = FakeCourier()
    now = datetime.now(UTC)
    assert send_digest_now(ctx, "U1", dm.courier(), now).status == "sent"  # today's digest
    calls = []
    real = bot.usecases.delivery.send_papers

    def spy(*args, **kwargs):
        calls.append(args[3])
        return real(*args, **kwargs)

    monkeypatch.setattr("bot.usecases.digests.run.send_papers", spy)
    outcome = send_digest_now(ctx, "U1", dm.courier(), now)
    assert outcome.status == "extra" and outcome.delivered == ctx.digest_size
    assert len(calls) == 1
    assert dm.posts[-ctx.digest_size - 1][2].startswith(":newspaper: An extra digest")
