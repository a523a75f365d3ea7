"""A compact digest (issue 23): the day's papers as one message, under the same exactly-once rules as a
digest of one message a paper: claimed once, recorded in one step (each paper shown with the message's
ts), found again by its metadata when its sender died before recording it, tried again after a failure."""

from __future__ import annotations

import itertools
from datetime import UTC, date, datetime, timedelta

import pytest

from bot.slack.views.digest_texts import phrase
from bot.state.context import Context
from bot.usecases import follow
from bot.usecases.delivery import send_compact
from bot.usecases.digest_vocabulary import Courier, Posted
from bot.usecases.digests.run import send_digest_now
from bot.usecases.digests.send import RETRY_AFTER, send_digest
from bot.usecases.settings import set_compact_digest
from tests.fakes import Clock, Death

DAY = date(2026, 7, 15)
DEAD = lambda owner: False  # noqa: E731 - the previous sender's process is gone


class CompactDM:
    """A DM as a compact digest's courier sees it: every message posted, as (kind, text, paper ids, ts).
    ``fail``: the compact post raises it (once); ``die``: the process dies once Slack has the message,
    before it is recorded."""

    def __init__(self, fail: Exception | None = None, die: bool = False, most: int = 24):
        self.fail, self.die, self.most = fail, die, most
        self.messages: list[tuple[str, str, list[str], str]] = []
        self._ts = itertools.count(1)

    def courier(self) -> Courier:
        return Courier(open=lambda user: "D" + user, post_text=self.post_text, post_paper=self.post_paper,
                       phrase=phrase, find_posted=self.find_posted, post_compact=self.post_compact,
                       compact_most=self.most)

    def _post(self, kind: str, text: str, ids: list[str]) -> str:
        ts = f"{next(self._ts)}.0"
        self.messages.append((kind, text, ids, ts))
        return ts

    def post_text(self, channel: str, text: str) -> str:
        return self._post("header", text, [])

    def post_paper(self, channel: str, rec) -> tuple[str, str]:
        return channel, self._post("paper", rec.paper.title, [rec.paper.id])

    def post_compact(self, channel: str, header: str, recs) -> tuple[str, str]:
        if self.fail is not None:
            fail, self.fail = self.fail, None
            raise fail
        ts = self._post("compact", header, [r.paper.id for r in recs])
        if self.die:
            self.die = False
            raise Death
        return channel, ts

    def find_posted(self, channel: str, since: datetime) -> Posted:
        found = Posted()
        for kind, _, ids, ts in self.messages:
            if kind in ("header", "compact"):
                found.header_ts = found.header_ts or ts
            for paper_id in ids:
                found.papers.setdefault(paper_id, (channel, ts))
        return found

    def kinds(self) -> list[str]:
        return [kind for kind, *_ in self.messages]


def person(ctx: Context, user: str = "U1", compact: bool = True) -> None:
    follow(ctx, user, "feline cats whiskers")
    ctx.store.set_timezone(user, "Asia/Kolkata")
    ctx.store.set_digest_schedule(user, "09:00", True, since="2026-01-01T00:00:00+00:00")
    set_compact_digest(ctx, user, compact)


def compact_digest(ctx: Context, user: str) -> bool:
    person = ctx.store.get_person(user)
    return bool(person and person.digest_compact)


def shown_ts(ctx: Context, user: str = "U1") -> dict[str, str]:
    rows = ctx.store.person_rows(user)["shown"]
    return {r["paper_id"]: r["message_ts"] for r in rows}


def test_the_setting_is_stored_only_when_it_changes_something(ctx):
    assert not set_compact_digest(ctx, "U9", False) and ctx.store.get_person("U9") is None
    assert set_compact_digest(ctx, "U9", True) and compact_digest(ctx, "U9")
    assert not set_compact_digest(ctx, "U9", True)
    assert set_compact_digest(ctx, "U9", False) and not compact_digest(ctx, "U9")


def test_compact_on_sends_one_message_recorded_once_each_paper_with_its_ts(ctx):
    person(ctx)
    dm = CompactDM()
    outcome = send_digest(ctx, "U1", DAY, dm.courier(), "me:1:1")
    assert (outcome.status, outcome.delivered) == ("sent", 3)
    assert dm.kinds() == ["compact"]
    _, header, ids, ts = dm.messages[0]
    assert "Your digest for Wednesday 15 July: 3 papers" in header and "Click 👍 or 👎" in header
    record = ctx.store.get_digest("U1", DAY.isoformat())
    assert record.status == "sent" and record.papers == ids and record.header_ts == ts
    assert shown_ts(ctx) == {paper_id: ts for paper_id in ids}
    assert send_digest(ctx, "U1", DAY, dm.courier(), "other:2:2", alive=DEAD).status == "done"
    assert len(dm.messages) == 1


def test_compact_off_keeps_a_header_and_one_message_a_paper(ctx):
    person(ctx, compact=False)
    dm = CompactDM()
    assert send_digest(ctx, "U1", DAY, dm.courier(), "me:1:1").status == "sent"
    assert dm.kinds() == ["header", "paper", "paper", "paper"]


def test_more_papers_than_one_message_holds_go_out_one_a_message(ctx):
    person(ctx)
    dm = CompactDM(most=2)
    assert send_digest(ctx, "U1", DAY, dm.courier(), "me:1:1").status == "sent"
    assert dm.kinds() == ["header", "paper", "paper", "paper"]


def test_a_sender_dying_after_slack_has_it_never_sends_it_twice(ctx):
    person(ctx)
    dm = CompactDM(die=True)
    with pytest.raises(Death):
        send_digest(ctx, "U1", DAY, dm.courier(), "host:100:1")
    assert shown_ts(ctx) == {}  # it died before recording anything
    outcome = send_digest(ctx, "U1", DAY, dm.courier(), "host:200:2", alive=DEAD)
    assert outcome.status == "sent" and dm.kinds() == ["compact"]  # found by its metadata, not sent again
    _, _, ids, ts = dm.messages[0]
    assert shown_ts(ctx) == {paper_id: ts for paper_id in ids}


def test_a_refused_compact_post_counts_against_its_papers_and_goes_out_once_later(ctx):
    person(ctx)
    clock = Clock(datetime(2026, 7, 15, 4, 0, tzinfo=UTC))
    dm = CompactDM(fail=RuntimeError("invalid_blocks"))
    first = send_digest(ctx, "U1", DAY, dm.courier(), "me:1:1", clock=clock)
    assert (first.status, first.failed, dm.messages) == ("incomplete", 3, [])
    assert set(ctx.store.get_digest("U1", DAY.isoformat()).failures.values()) == {1}
    clock.advance(RETRY_AFTER + timedelta(seconds=1))
    again = send_digest(ctx, "U1", DAY, dm.courier(), "me:1:1", clock=clock)
    assert again.status == "sent" and dm.kinds() == ["compact"] and len(shown_ts(ctx)) == 3


def test_a_channel_digest_is_never_compact(ctx):
    channel = "C0CATS"
    person(ctx, channel)
    dm = CompactDM()
    assert send_digest(ctx, channel, DAY, dm.courier(), "me:1:1").status == "sent"
    assert "compact" not in dm.kinds()


def test_an_extra_digest_asked_for_after_the_days_goes_out_compact_too(ctx):
    person(ctx)
    dm = CompactDM()
    now = datetime(2026, 7, 15, 4, 0, tzinfo=UTC)
    assert send_digest(ctx, "U1", DAY, dm.courier(), "me:1:1").status == "sent"
    from bot.usecases import follow
    follow(ctx, "U1", "graphs")  # more to send than the day's digest took
    extra = send_digest_now(ctx, "U1", dm.courier(), now=now, clock=lambda: now)
    assert extra.status == "extra" and extra.delivered > 0
    assert dm.kinds() == ["compact", "compact"]
    _, header, ids, ts = dm.messages[1]
    assert "Click 👍 or 👎" in header and {p: shown_ts(ctx)[p] for p in ids} == {p: ts for p in ids}


def test_a_compact_post_slack_refuses_shows_nothing_and_one_that_timed_out_counts_as_shown(ctx):
    from bot.errors import Outage
    from bot.usecases.recommend import Recommendation

    person(ctx)
    papers = ctx.store.get_papers(["cats-0", "cats-1"])
    recs = [Recommendation(paper, 1.0, "why") for paper in papers.values()]
    assert len(recs) == 2
    down = send_compact(ctx, "U1", recs, CompactDM(fail=Outage("down")).courier(), "header")
    assert down.outage and down.failed == recs and shown_ts(ctx) == {}
    refused = CompactDM(fail=RuntimeError("invalid_blocks")).courier()
    broken = send_compact(ctx, "U1", recs, refused, "h")
    assert broken.failed == recs and not broken.outage and shown_ts(ctx) == {}
    timed_out = CompactDM(fail=Outage("timeout", maybe_delivered=True)).courier()
    late = send_compact(ctx, "U1", recs, timed_out, "h")
    assert late.unconfirmed == recs and set(shown_ts(ctx)) == {r.paper.id for r in recs}
