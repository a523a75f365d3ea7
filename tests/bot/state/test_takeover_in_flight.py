"""Taking over the digest of a process that died with a post in flight: Slack carries out a post it has
received even though its poster is gone, a moment later. A process on the same host takes the digest over
at once (the dead owner is recognised), so it must give that post time to land before it looks at what
the DM holds, or it posts that paper again (seen with three `paperbot run` replicas, one killed)."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest

import bot.usecases.digests.send as sending
from bot.usecases import follow
from bot.usecases.digests.run import send_due_digests
from bot.usecases.digests.send import LEASE, send_digest
from tests.fakes import Death, FakeCourier

DAY = date(2026, 7, 15)
SETTLE = timedelta(seconds=2)


@pytest.fixture
def dm() -> FakeCourier:
    """One person's DM, where the post being made when its process dies is only in flight: Slack carries
    it out a moment later (``dm.land()``)."""
    return FakeCourier(in_flight=True, settle=SETTLE)


@pytest.fixture
def waits(monkeypatch, dm):
    """The waits a taking-over sender makes (none really waited); meanwhile Slack carries out what it
    had received."""
    made: list[float] = []

    def wait(seconds: float) -> None:
        made.append(seconds)
        dm.land()

    monkeypatch.setattr(sending, "sleep", wait)
    return made


def _killed_mid_post(ctx, dm: FakeCourier, die_on_paper: int) -> None:
    """The process sending U1's digest dies while paper ``die_on_paper`` (1 = the first) is in flight."""
    follow(ctx, "U1", "feline cats whiskers kittens")
    dm.die_after = die_on_paper
    with pytest.raises(Death):
        send_digest(ctx, "U1", DAY, dm.courier(), "host:100:1")
    dm.die_after = None  # the process taking over lives
    assert ctx.store.get_digest("U1", DAY.isoformat()).status == "sending"


@pytest.mark.parametrize("die_on_paper", [1, 2], ids=["right after the header", "after a paper"])
def test_a_post_in_flight_when_its_sender_died_is_not_posted_again_by_the_process_taking_over(
        ctx, dm, waits, die_on_paper):
    _killed_mid_post(ctx, dm, die_on_paper)
    assert dm.flying, "the paper was in flight when its sender died"
    outcome = send_digest(ctx, "U1", DAY, dm.courier(), "host:200:2", alive=lambda owner: False)
    dm.land()  # whatever was still in flight lands in the end
    assert outcome.status == "sent"
    assert len(dm.papers()) == 3 and len(set(dm.papers())) == 3, dm.posts
    assert len(dm.headers()) == 1
    assert waits and 0 < max(waits) <= SETTLE.total_seconds()
    assert ctx.store.shown_paper_ids("U1") == set(dm.papers())


def test_no_wait_when_the_dead_sender_was_last_heard_of_long_enough_ago(ctx, dm, waits):
    _killed_mid_post(ctx, dm, 2)
    later = datetime.now(UTC) + SETTLE + timedelta(seconds=1)  # its lease still runs: LEASE is far longer
    assert SETTLE + timedelta(seconds=1) < LEASE
    dm.land()  # Slack carried the post out long ago
    outcome = send_digest(ctx, "U1", DAY, dm.courier(), "host:200:2", clock=lambda: later,
                          alive=lambda owner: False)
    assert outcome.status == "sent" and len(set(dm.papers())) == len(dm.papers()) == 3
    assert waits == []


def test_a_courier_without_a_settle_time_takes_over_without_waiting(ctx, dm, waits):
    _killed_mid_post(ctx, dm, 2)
    dm.land()
    dm.settle = timedelta(0)
    outcome = send_digest(ctx, "U1", DAY, dm.courier(), "host:200:2",
                          alive=lambda owner: False)
    assert outcome.status == "sent" and waits == []


def test_the_scheduled_run_waits_for_the_post_in_flight_too(ctx, dm, waits):
    """The scheduler's path (claimed ahead in a batch, sent later by a worker) hands the dead owner's last
    sign of life on to the sender as :func:`send_digest` does."""
    _killed_mid_post(ctx, dm, 2)
    noon = datetime(DAY.year, DAY.month, DAY.day, 12, tzinfo=UTC)
    run = send_due_digests(ctx, noon, dm.courier(), users=["U1"], force=True, owner="host:200:2",
                           alive=lambda owner: False)
    dm.land()
    assert [o.status for o in run.outcomes] == ["sent"], run.outcomes
    assert len(dm.papers()) == 3 and len(set(dm.papers())) == 3, dm.posts
    assert waits and 0 < max(waits) <= SETTLE.total_seconds()
