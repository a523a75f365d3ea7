"""One way to deliver papers outside the daily digest's claim (``/papers recommend``, an extra digest):
:func:`bot.usecases.delivery.send_papers`, a header then one message per paper, through a Courier."""

from datetime import UTC, datetime

import pytest

import bot.usecases.delivery
from bot.errors import Outage, Unreachable
from bot.usecases import follow, recommend
from bot.usecases.delivery import send_papers
from bot.usecases.digests.run import send_digest_now
from bot.usecases.digests.send import Courier, Posted


class FakeDM:
    """A courier over one DM that records posts; ``fail`` maps what to fail ("open", "header", or a
    paper id) to the exception to raise. A failed post with ``landed`` set arrived nonetheless."""

    def __init__(self, fail=None, landed=()):
        self.fail, self.landed = dict(fail or {}), set(landed)
        self.posts: list[tuple[str, str]] = []

    def courier(self) -> Courier:
        return Courier(open=self.open, post_text=self.post_text, post_paper=self.post_paper,
                       find_posted=self.find_posted)

    def open(self, user_id):
        if "open" in self.fail:
            raise self.fail["open"]
        return "D" + user_id

    def post_text(self, channel, text):
        if "header" in self.fail:
            raise self.fail["header"]
        self.posts.append(("header", text))
        return f"{len(self.posts)}.0"

    def post_paper(self, channel, rec):
        if rec.paper.id in self.landed:
            self.posts.append(("paper", rec.paper.id))
        if rec.paper.id in self.fail:
            raise self.fail[rec.paper.id]
        if rec.paper.id not in self.landed:
            self.posts.append(("paper", rec.paper.id))
        return channel, f"{len(self.posts)}.0"

    def find_posted(self, channel, since):
        return Posted(papers={pid: (channel, f"{i + 1}.0") for i, (kind, pid) in enumerate(self.posts)
                              if kind == "paper"})

    def papers(self):
        return [what for kind, what in self.posts if kind == "paper"]


@pytest.fixture
def recs(ctx):
    follow(ctx, "U1", "feline cats")
    return recommend(ctx, "U1", 3, remember=False)


def shown_ids(ctx, recs):
    return ctx.store.shown_among("U1", [r.paper.id for r in recs])


def test_a_header_then_each_paper_each_remembered_as_shown(ctx, recs):
    dm = FakeDM()
    delivery = send_papers(ctx, "U1", recs, dm.courier(), "*3 papers*")
    assert dm.posts[0] == ("header", "*3 papers*")
    assert dm.papers() == [r.paper.id for r in recs]
    assert delivery.delivered == recs and not delivery.failed and delivery.outage is None
    assert shown_ids(ctx, recs) == {r.paper.id for r in recs}


@pytest.mark.parametrize("where", ["open", "header"])
def test_slack_down_before_the_papers_posts_none_of_them(ctx, recs, where):
    dm = FakeDM(fail={where: Outage("Slack answered 503")})
    delivery = send_papers(ctx, "U1", recs, dm.courier(), "*3 papers*")
    assert dm.papers() == [] and delivery.failed == recs and delivery.outage == "Slack answered 503"
    assert shown_ids(ctx, recs) == set()


@pytest.mark.parametrize("error", [Outage("no answer from Slack (TimeoutError)", maybe_delivered=True),
                                   RuntimeError("refused")])
def test_a_header_that_got_no_answer_or_was_refused_does_not_hold_the_papers(ctx, recs, error):
    dm = FakeDM(fail={"header": error})
    delivery = send_papers(ctx, "U1", recs, dm.courier(), "*3 papers*")
    assert dm.papers() == [r.paper.id for r in recs] and delivery.delivered == recs


@pytest.mark.parametrize("where", ["open", "header"])
def test_nobody_to_post_to_is_raised_for_the_caller_to_say(ctx, recs, where):
    dm = FakeDM(fail={where: Unreachable("Slack refused direct messages (user_disabled)")})
    with pytest.raises(Unreachable):
        send_papers(ctx, "U1", recs, dm.courier(), "*3 papers*")
    assert dm.papers() == [] and shown_ids(ctx, recs) == set()


def test_a_paper_whose_post_timed_out_but_landed_is_found_and_not_sent_again(ctx, recs):
    first = recs[0].paper.id
    dm = FakeDM(fail={first: Outage("no answer from Slack (TimeoutError)", maybe_delivered=True)},
                landed={first})
    delivery = send_papers(ctx, "U1", recs, dm.courier(), "*3 papers*")
    assert dm.papers() == [r.paper.id for r in recs]  # each once
    assert delivery.delivered == recs and shown_ids(ctx, recs) == {r.paper.id for r in recs}


def test_an_extra_digest_goes_through_the_same_way(ctx, monkeypatch):
    follow(ctx, "U1", "feline cats")
    dm = FakeDM()
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
    assert dm.posts[-ctx.digest_size - 1][1].startswith(":newspaper: An extra digest")
