"""Daily digests end to end, against the local Slack stand-in: the scheduler inside the running bot (its
minute in Kolkata, "digest now", a process not in UTC, a clock the test moves) and a rate-limit storm.
`paperbot digest` from the command line is tests/e2e/test_digest_cli.py. Nothing leaves 127.0.0.1."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from bot.config import Settings
from bot.slack.delivery.digests import (
    DigestScheduler,
    one_workspace,
    send_digests,
)
from bot.state.context import Context
from bot.usecases.digest_schedule import DEFAULT_TIME
from stand_ins.slack import SlackStandIn
from storage import open_store
from tests.e2e.digests_support import (
    at_the_start_of_a_minute,
    cleared,
    dispose,
    dm,
    headers,
    local_day,
    papers,
)
from tests.e2e.harness import (
    TEAM_ID,
    FakeSlack,
    add_people,
    bot_environment,
    serving,
    user_ids,
)
from tests.fakes import Clock

new_user = user_ids("UDIG")


@pytest.fixture(scope="module")
def standin(backend):
    """One per backend: the calls it records stay, and tests count them."""
    with SlackStandIn(default_tz="Asia/Kolkata") as s:
        yield s


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch, standin):
    yield from cleared(monkeypatch, standin)


@pytest.fixture
def db(tmp_path, backend, seeded_copy) -> Path:
    """A seeded database of its own on each backend in turn: a file, or a throwaway PostgreSQL database
    (tests/e2e/harness.py)."""
    with seeded_copy(tmp_path, backend) as path:
        yield path


# -- the bot's scheduler ----------------------------------------------------------------------------

@pytest.fixture
def running(standin, db):
    with serving(standin, db, digest_interval=0.3) as bot:
        yield bot


def test_digest_set_to_this_minute_in_kolkata_is_sent_once_by_the_running_bot(running, standin, db):
    slack = FakeSlack(running.url, standin)
    user = new_user()
    standin.timezones[user] = "Asia/Kolkata"
    slack.ask(user, "follow feline cats whiskers")
    now = at_the_start_of_a_minute()
    hhmm = now.astimezone(ZoneInfo("Asia/Kolkata")).strftime("%H:%M")
    reply = slack.ask(user, f"digest {hhmm}").text
    assert f"Daily digest at {hhmm} (Asia/Kolkata time), the next one today" in reply
    standin.wait_for(lambda: len(papers(standin, user)) >= 3, timeout=20, what="the scheduled digest")
    ticks = running.scheduler.runs
    standin.wait_for(lambda: running.scheduler.runs >= ticks + 4, timeout=20, what="more ticks")
    assert len(headers(standin, user)) == 1 and "Your digest" in headers(standin, user)[0].params["text"]
    assert len(papers(standin, user)) == 3 and all("cats" in t.lower() or "feline" in t.lower()
                                                     for t in papers(standin, user))
    store = open_store(str(db)).for_workspace(TEAM_ID)
    try:
        assert store.get_digest(user, local_day("Asia/Kolkata")).status == "sent"
    finally:
        dispose(store)


def far_from_the_default_time(now: datetime) -> str:
    """A timezone where a follow's default digest time is hours away, so the running bot's scheduler
    does not send that digest while the test asks for one itself."""
    def distance(zone: str) -> int:
        local = now.astimezone(ZoneInfo(zone))
        hour, minute = map(int, DEFAULT_TIME.split(":"))
        return abs((local.hour * 60 + local.minute) - (hour * 60 + minute))
    return max(("America/New_York", "Asia/Kolkata", "Australia/Adelaide"), key=distance)


def test_digest_now_is_todays_digest_and_the_scheduler_does_not_repeat_it(running, standin):
    slack = FakeSlack(running.url, standin)
    user = new_user()
    zone = far_from_the_default_time(datetime.now(UTC))
    standin.timezones[user] = zone
    slack.ask(user, "follow quantum qubits entanglement")
    assert slack.ask(user, "digest now").text == "I sent you 3 papers in our direct messages."
    now = at_the_start_of_a_minute()
    slack.ask(user, f"digest {now.astimezone(ZoneInfo(zone)):%H:%M}")  # due now: already sent
    ticks = running.scheduler.runs
    standin.wait_for(lambda: running.scheduler.runs >= ticks + 4, timeout=20, what="more ticks")
    assert len(papers(standin, user)) == 3 and len(headers(standin, user)) == 1
    again = slack.ask(user, "digest now")  # asked again: an extra digest, of other papers
    assert again.text == "I sent you 3 papers in our direct messages."
    assert "An extra digest" in headers(standin, user)[1].params["text"]
    assert len(set(papers(standin, user))) == 6


def test_the_real_scheduler_in_a_non_utc_process_sends_one_digest_to_someone_in_kolkata(standin, db,
                                                                                          monkeypatch):
    monkeypatch.setenv("TZ", "America/Los_Angeles")  # the machine's own zone must not matter
    time.tzset()
    user = new_user()
    kolkata = datetime.now(UTC).astimezone(ZoneInfo("Asia/Kolkata"))
    just_passed = (kolkata - timedelta(minutes=1)).strftime("%H:%M")
    if kolkata.strftime("%H:%M") == "00:00":
        just_passed = "00:00"  # just after local midnight, yesterday's 23:59 is not today
    add_people(db, [user], "Asia/Kolkata", just_passed)
    settings = Settings.load(environ=bot_environment(standin, db), dotenv=None)
    ctx = Context.open(str(db), digest_size=3)
    scheduler = DigestScheduler(ctx, one_workspace(settings), interval=0.2)
    try:
        scheduler.start()
        standin.wait_for(lambda: len(papers(standin, user)) >= 3, timeout=20, what="the digest")
        standin.wait_for(lambda: scheduler.runs >= 5, timeout=20, what="more ticks")
    finally:
        scheduler.shutdown()
        ctx.close()
        monkeypatch.delenv("TZ")
        time.tzset()
    assert len(headers(standin, user)) == 1 and len(papers(standin, user)) == 3


def test_the_scheduler_goes_by_the_clock_it_is_given_not_the_wall_clock(standin, db):
    """A test moves the scheduler's clock instead of waiting for the wall clock's minute."""
    user = new_user()
    add_people(db, [user], "Europe/Berlin", "09:00")
    clock = Clock(datetime(2030, 7, 15, 6, 59, 30, tzinfo=UTC))  # 08:59:30 in Berlin, summer time
    settings = Settings.load(environ=bot_environment(standin, db), dotenv=None)
    ctx = Context.open(str(db), digest_size=3)
    scheduler = DigestScheduler(ctx, one_workspace(settings), interval=0.2, clock=clock)
    try:
        scheduler.start()
        standin.wait_for(lambda: scheduler.runs >= 3, timeout=20, what="ticks before 09:00")
        assert papers(standin, user) == []
        clock.advance(timedelta(seconds=30))
        standin.wait_for(lambda: len(papers(standin, user)) >= 3, timeout=20, what="the 09:00 digest")
        ticks = scheduler.runs
        standin.wait_for(lambda: scheduler.runs >= ticks + 3, timeout=20, what="more ticks")
    finally:
        scheduler.shutdown()
        ctx.close()
    assert len(headers(standin, user)) == 1 and len(papers(standin, user)) == 3
    store = open_store(str(db)).for_workspace(TEAM_ID)
    try:
        assert store.get_digest(user, "2030-07-15").status == "sent"
    finally:
        dispose(store)


def test_a_429_storm_delays_digests_but_every_one_arrives_once(standin, db):
    users = [new_user() for _ in range(12)]
    add_people(db, users)
    standin.fail("chat.postMessage", status=429, times=40, retry_after=1)
    settings = Settings.load(environ=bot_environment(standin, db), dotenv=None)
    ctx = Context.open(str(db), digest_size=3)
    try:
        run = send_digests(settings, ctx)
    finally:
        ctx.close()
    assert sorted(o.user_id for o in run.outcomes if o.status == "sent") == users
    limited = [c for c in standin.calls("chat.postMessage") if c.status == 429]
    assert len(limited) == 40 and all(c.params["channel"] in {dm(u) for u in users} for c in limited)
    for user in users:
        assert len(headers(standin, user)) == 1
        assert len(papers(standin, user)) == 3 and len(set(papers(standin, user))) == 3
