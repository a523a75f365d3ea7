"""A Slack outage across several digest runs: nothing is recorded as sent that was not delivered, the
digests wait (with a growing pause) for the rest of their local day, and when Slack is back everyone
gets that day's digest once. First as use cases with a fake courier and a fake clock, then end to end
with the real Slack client against the stand-in answering 500. Each on SQLite and on PostgreSQL: what a
digest has delivered, and when it is tried next, is the store's to keep."""

from __future__ import annotations

import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from bot.config import Settings
from bot.slack.delivery.digests import digest_client, slack_courier
from bot.state.context import Context
from bot.usecases import follow
from bot.usecases.digest_vocabulary import Note
from bot.usecases.digests.run import run_daily, send_digest_now, send_due_digests
from bot.usecases.digests.send import (
    MAX_ATTEMPTS,
    OUTAGE_BACKOFF_CAP,
    RETRY_AFTER,
    iso_utc,
    outage_backoff,
)
from stand_ins.corpus import make_corpus
from stand_ins.slack import SlackStandIn
from tests.e2e.harness import (
    bot_environment,
    new_database,
    opened,
    posts_to,
    process_environment,
    query,
    standin_of_its_own,
    zone_far_from_midnight,
)
from tests.fakes import Clock, FakeCourier

DEAD = lambda owner: False  # noqa: E731 - worst case: every earlier run's process is gone (cron)
TOPICS = ["feline cats whiskers", "graph neural networks", "quantum qubits entanglement"]


def people(ctx: Context, users: list[str], tz: str = "Europe/Berlin", hhmm: str = "09:00") -> None:
    for i, user in enumerate(users):
        follow(ctx, user, TOPICS[i % len(TOPICS)])
        ctx.store.set_timezone(user, tz)
        ctx.store.set_digest_schedule(user, hhmm, True, since="2026-01-01T00:00:00+00:00")


def run(ctx: Context, clock: Clock, slack: FakeCourier):
    return send_due_digests(ctx, clock(), slack.courier(), clock=clock, alive=DEAD)


def status(ctx: Context, user: str, day: str = "2026-07-15") -> str | None:
    record = ctx.store.get_digest(user, day)
    return record.status if record else None


# -- use cases, fake courier and clock --------------------------------------------------------------

@pytest.fixture
def ctx(tmp_path, backend) -> Context:
    """tests/conftest.py's context (the five-topic corpus, index built), on each backend in turn."""
    with new_database(tmp_path, backend) as db:
        c = Context.open(str(db), digest_size=3)
        try:
            c.store.upsert_papers(make_corpus())
            c.engine.refresh()
            yield c
        finally:
            c.close()


def test_the_backoff_doubles_from_two_minutes_and_is_capped():
    minutes = [outage_backoff(n) / timedelta(minutes=1) for n in range(1, 8)]
    assert minutes == [2, 4, 8, 16, 30, 30, 30]
    assert outage_backoff(1000) == OUTAGE_BACKOFF_CAP and outage_backoff(1) == RETRY_AFTER


def test_an_outage_over_many_runs_records_nothing_as_sent_then_everyone_gets_the_digest_once(ctx):
    users = ["U1", "U2", "U3"]
    people(ctx, users)
    clock = Clock(datetime(2026, 7, 15, 7, 0, tzinfo=UTC))  # 09:00 in Berlin: due
    slack = FakeCourier(down=True)
    slack.clock = clock
    for _ in range(24):  # 12 minutes of runs every 30 s, as the bot's scheduler does: well past 3 runs
        outcomes = run(ctx, clock, slack).outcomes
        assert {o.status for o in outcomes} == {"incomplete"} and all(o.outage for o in outcomes)
        assert all(o.delivered == 0 for o in outcomes)
        clock.advance(timedelta(seconds=30))
    for user in users:
        record = ctx.store.get_digest(user, "2026-07-15")
        assert record.status == "sending" and record.failures == {} and record.attempts == 0
        # Tried at 0, 2, 6 minutes (then 14): the pause doubles; Slack is not hammered every run.
        tries = [t - datetime(2026, 7, 15, 7, 0, tzinfo=UTC) for t in slack.tries["D" + user]]
        assert tries == [timedelta(minutes=m) for m in (0, 2, 6)]
    assert slack.posts == []
    slack.down = False
    clock.advance(timedelta(minutes=14) - timedelta(seconds=30 * 24))  # the next try is due
    outcomes = run(ctx, clock, slack).outcomes
    assert {o.user_id: o.status for o in outcomes} == dict.fromkeys(users, "sent")
    for user in users:
        assert len(slack.of(user, "header")) == 1
        assert len(slack.of(user, "paper")) == 3 == len(set(slack.of(user, "paper")))
        assert ctx.store.shown_paper_ids(user) == set(slack.of(user, "paper"))
    assert run(ctx, clock, slack).outcomes == []  # done for the day


def test_an_outage_mid_digest_keeps_what_went_out_and_sends_only_the_rest(ctx):
    people(ctx, ["U1"])
    clock = Clock(datetime(2026, 7, 15, 7, 0, tzinfo=UTC))
    slack = FakeCourier(down_after=2)  # the header and one paper, then Slack goes down
    slack.clock = clock
    first = run(ctx, clock, slack).outcomes[0]
    assert (first.status, first.delivered, first.outage) == ("incomplete", 1, True)
    assert len(slack.tries["D" + "U1"]) == 3  # stopped at the first failure, not one try per paper
    slack.down, slack.down_after = False, None
    clock.advance(RETRY_AFTER)
    assert run(ctx, clock, slack).outcomes[0].status == "sent"
    assert len(slack.of("U1", "header")) == 1 and len(slack.of("U1", "paper")) == 3 == len(
        set(slack.of("U1", "paper")))


def test_a_header_that_failed_in_an_outage_goes_out_first_when_slack_is_back(ctx):
    people(ctx, ["U1"])
    clock = Clock(datetime(2026, 7, 15, 7, 0, tzinfo=UTC))
    slack = FakeCourier(down=True)
    slack.clock = clock
    assert run(ctx, clock, slack).outcomes[0].status == "incomplete"
    slack.down = False
    clock.advance(RETRY_AFTER)
    assert run(ctx, clock, slack).outcomes[0].status == "sent"
    assert [kind for _, kind, _ in slack.posts] == ["header", "paper", "paper", "paper"]


def test_an_outage_until_the_local_day_ends_fails_the_digest_and_never_records_it_sent(ctx):
    people(ctx, ["U1"], tz="Asia/Kolkata", hhmm="20:00")  # 14:30 UTC; the day ends at 18:30 UTC
    clock = Clock(datetime(2026, 7, 15, 14, 30, tzinfo=UTC))
    slack = FakeCourier(down=True)
    slack.clock = clock
    seen = []
    while clock() < datetime(2026, 7, 15, 18, 40, tzinfo=UTC):
        seen += [o.status for o in run(ctx, clock, slack).outcomes]
        clock.advance(timedelta(minutes=1))
    record = ctx.store.get_digest("U1", "2026-07-15")
    assert record.status == "failed" and Note.read(record.error).why == "slack_until_day_end"
    assert "sent" not in seen and seen.count("failed") == 1 and set(seen) == {"incomplete", "failed"}
    tries = slack.tries["DU1"]
    gaps = [b - a for a, b in zip(tries, tries[1:], strict=False)]
    assert gaps[:4] == [timedelta(minutes=m) for m in (2, 4, 8, 16)]
    assert max(gaps) == OUTAGE_BACKOFF_CAP and tries[-1] < datetime(2026, 7, 15, 18, 30, tzinfo=UTC)
    assert tries[-1] >= datetime(2026, 7, 15, 18, 28, tzinfo=UTC)  # one last try just before midnight
    # The next local day is a new digest, sent when Slack is back.
    slack.down = False
    clock.now = datetime(2026, 7, 16, 14, 31, tzinfo=UTC)
    assert [o.status for o in run(ctx, clock, slack).outcomes] == ["sent"]
    assert status(ctx, "U1", "2026-07-15") == "failed"


def test_a_digest_left_waiting_when_its_day_ended_is_closed_by_the_next_run_and_never_sent(ctx):
    people(ctx, ["U1", "U2"], tz="Asia/Kolkata", hhmm="23:00")  # 17:30 UTC; the day ends at 18:30 UTC
    clock = Clock(datetime(2026, 7, 15, 17, 30, tzinfo=UTC))
    slack = FakeCourier(down=True)
    slack.clock = clock
    assert [o.status for o in run(ctx, clock, slack).outcomes] == ["incomplete", "incomplete"]
    clock.now = datetime(2026, 7, 16, 3, 0, tzinfo=UTC)  # no run until the next (local) morning (cron)
    slack.down = False
    outcomes = send_due_digests(ctx, clock(), slack.courier(), users=iter(["U1"]), clock=clock,
                                alive=DEAD).outcomes
    assert [(o.user_id, o.local_date.isoformat(), o.status) for o in outcomes] == [
        ("U1", "2026-07-15", "failed")]
    assert Note.read(ctx.store.get_digest("U1", "2026-07-15").error).why == "day_ended"
    assert status(ctx, "U2") == "sending"  # not asked about in that run
    assert [o.status for o in run(ctx, clock, slack).outcomes] == ["failed"]
    assert status(ctx, "U2") == "failed" and slack.posts == []


def test_a_digest_whose_every_paper_slack_refuses_ends_failed_not_sent(ctx):
    people(ctx, ["U1"])
    clock = Clock(datetime(2026, 7, 15, 7, 0, tzinfo=UTC))
    slack = FakeCourier()
    refused = RuntimeError("invalid_blocks")  # a per-message error: it counts toward MAX_ATTEMPTS

    def post_paper(channel, rec):
        raise refused

    courier = slack.courier()
    courier.post_paper = post_paper
    statuses = []
    for _ in range(MAX_ATTEMPTS):
        statuses.append(send_due_digests(ctx, clock(), courier, clock=clock, alive=DEAD).outcomes[0].status)
        clock.advance(RETRY_AFTER)
    assert statuses == ["incomplete", "incomplete", "failed"]
    assert Note.read(ctx.store.get_digest("U1", "2026-07-15").error).why == "none_posted"
    assert ctx.store.shown_paper_ids("U1") == set()


def test_digest_now_in_an_outage_says_so_and_the_digest_still_comes_later(ctx):
    people(ctx, ["U1"])
    clock = Clock(datetime(2026, 7, 15, 7, 0, tzinfo=UTC))
    slack = FakeCourier(down=True)
    slack.clock = clock
    outcome = send_digest_now(ctx, "U1", slack.courier(), clock(), clock=clock, alive=DEAD)
    assert (outcome.status, outcome.outage, outcome.delivered) == ("incomplete", True, 0)
    slack.down = False
    clock.advance(RETRY_AFTER)
    assert run(ctx, clock, slack).outcomes[0].status == "sent"
    # An extra digest asked for during an outage stops at once and says why.
    slack.down = True
    tried = len(slack.tries["DU1"])
    extra = send_digest_now(ctx, "U1", slack.courier(), clock(), clock=clock, alive=DEAD)
    assert (extra.status, extra.delivered, extra.outage) == ("extra", 0, True)
    # The header (it may have landed: go on), the first paper, and a look that failed: stop there.
    assert len(slack.tries["DU1"]) - tried == 3


# -- end to end: the real Slack client, the stand-in answering 500 ----------------------------------

@pytest.fixture
def standin(monkeypatch):
    with standin_of_its_own(monkeypatch) as s:
        yield s


def _midday_zone() -> str:
    """A zone whose local day does not end within the next hours (the test moves its clock ~20 min)."""
    return zone_far_from_midnight(("Asia/Kolkata", "Europe/Berlin", "America/New_York", "Pacific/Auckland"))


def _add_people(db: Path, users: list[str], tz: str) -> None:
    ctx = Context.open(str(db))
    try:
        people(ctx, users, tz, "00:00")
    finally:
        ctx.close()


def test_a_500_outage_across_runs_with_the_real_client_then_every_digest_arrives_once(standin, fresh_db):
    tz = _midday_zone()
    users = ["UOUT1", "UOUT2", "UOUT3"]
    _add_people(fresh_db, users, tz)
    day = datetime.now(UTC).astimezone(ZoneInfo(tz)).date().isoformat()
    settings = Settings.load(environ=bot_environment(standin, fresh_db), dotenv=None)
    ctx = Context.open(str(fresh_db), digest_size=3)
    start = datetime.now(UTC) - timedelta(seconds=2)  # not ahead of the stand-in's message times
    clock = Clock(start)
    courier = slack_courier(ctx, digest_client(settings))
    standin.fail("chat.postMessage", status=500, times=1_000)
    try:
        for minutes in (0, 2, 6):  # three runs, each when the digests' next try is due
            clock.now = start + timedelta(minutes=minutes)
            run = run_daily(ctx, [], courier, clock(), clock=clock, alive=DEAD)
            assert sorted((o.user_id, o.status) for o in run.outcomes) == [(u, "incomplete") for u in users]
            assert all(ctx.store.get_digest(u, day).status == "sending" for u in users)
        failed = standin.calls("chat.postMessage")
        assert failed and all(c.status == 500 for c in failed)
        # One header try per person and run (with the client's own two retries): no hammering.
        assert len(failed) == 3 * 3 * 3
        standin.reset()  # Slack is back
        clock.now = start + timedelta(minutes=14)
        run = run_daily(ctx, [], courier, clock(), clock=clock, alive=DEAD)
        assert sorted((o.user_id, o.status) for o in run.outcomes) == [(u, "sent") for u in users]
        assert run_daily(ctx, [], courier, clock(), clock=clock, alive=DEAD).outcomes == []
    finally:
        ctx.close()
    for user in users:
        posts = posts_to(standin, "D" + user)
        assert [bool(p.params.get("blocks")) for p in posts] == [False, True, True, True]  # header first
        assert len({p.params["text"] for p in posts}) == 4


def cli(standin: SlackStandIn, db: Path) -> tuple[int, str, str]:
    environ = process_environment(db.parent, bot_environment(standin, db))
    done = subprocess.run([sys.executable, "-m", "bot.cli", "digest"], cwd=db.parent, env=environ,
                          capture_output=True, text=True, timeout=60, check=False)
    return done.returncode, done.stdout, done.stderr


def test_paperbot_digest_exits_1_while_slack_is_down_and_0_once_every_digest_went_out(standin, fresh_db):
    tz = _midday_zone()
    users = ["UCLI1", "UCLI2"]
    _add_people(fresh_db, users, tz)
    day = datetime.now(UTC).astimezone(ZoneInfo(tz)).date().isoformat()
    standin.fail("chat.postMessage", status=500, times=1_000)
    code, out, err = cli(standin, fresh_db)
    assert code == 1, out + err
    assert "2 left for the next run (2 waiting for Slack to answer)" in out and "Slack unavailable" in out
    assert "Traceback" not in out + err
    code, out, _ = cli(standin, fresh_db)  # the pause has not run out: nothing tried, still left
    assert code == 1 and "2 left for the next run" in out
    standin.reset()
    with opened(fresh_db) as store:
        for user in users:  # the pause runs out (instead of waiting two minutes)
            with store.transaction():
                query(store, "update digests set lease_until = ? where user_id = ? returning user_id",
                      [iso_utc(datetime.now(UTC) - timedelta(seconds=1)), user])
        assert all(store.get_digest(u, day).status == "sending" for u in users)
        code, out, err = cli(standin, fresh_db)
        assert code == 0, out + err
        assert "Sent 2 digest(s) with 6 paper(s)" in out
        assert all(store.get_digest(u, day).status == "sent" for u in users)
    for user in users:
        posts = posts_to(standin, "D" + user)
        assert len(posts) == 4 and len({p.params["text"] for p in posts}) == 4
