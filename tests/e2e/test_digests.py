"""Daily digests end to end, against the local Slack stand-in: the scheduler inside the running bot,
`paperbot digest` from the command line (twice, side by side, killed half-way), rate-limit storms and
people Slack can't reach. Nothing leaves 127.0.0.1."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from bot.config import Settings
from bot.slack import client as slack_client
from bot.slack.delivery.digests import (
    DigestScheduler,
    Served,
    digest_client,
    digest_helpers,
    one_workspace,
    send_digests,
    slack_courier,
)
from bot.state.context import Context
from bot.usecases.digest_schedule import DEFAULT_TIME
from bot.usecases.digests.run import run_daily, send_due_digests
from stand_ins.slack import SlackStandIn
from storage import open_store
from tests.e2e.harness import (
    BOT_TOKEN,
    SLACK_ENVIRONMENT,
    TEAM_ID,
    FakeSlack,
    add_people,
    bot_environment,
    posts_to,
    process_environment,
    serving,
    user_ids,
)
from tests.fakes import Clock


def dispose(store) -> None:
    getattr(store, "dispose", store.close)()

new_user = user_ids("UDIG")


def dm(user: str) -> str:
    return "D" + user


def headers(standin: SlackStandIn, user: str) -> list:
    return [c for c in posts_to(standin, dm(user)) if not c.params.get("blocks")]


def papers(standin: SlackStandIn, user: str) -> list[str]:
    """The titles of the paper messages posted into the person's DM, in order."""
    return [c.params["text"] for c in posts_to(standin, dm(user)) if c.params.get("blocks")]


def local_day(tz: str) -> str:
    return datetime.now(UTC).astimezone(ZoneInfo(tz)).date().isoformat()


def at_the_start_of_a_minute() -> datetime:
    """Now, but not in a minute's last seconds (so that a time set now is still this minute)."""
    now = datetime.now(UTC)
    if now.second >= 55:
        time.sleep(60.5 - now.second)  # the bot's process reads the real clock: into the next minute
        now = datetime.now(UTC)
    return now


@pytest.fixture(scope="module")
def standin(backend):
    """One per backend: the calls it records stay, and tests count them."""
    with SlackStandIn(default_tz="Asia/Kolkata") as s:
        yield s


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch, standin):
    for name in SLACK_ENVIRONMENT:  # Bolt reads some of these itself: never the developer's
        monkeypatch.delenv(name, raising=False)
    standin.reset()
    yield
    standin.reset()


@pytest.fixture
def db(tmp_path, backend, seeded_copy) -> Path:
    """A seeded database of its own on each backend in turn: a file, or a throwaway PostgreSQL database
    (tests/e2e/harness.py)."""
    with seeded_copy(tmp_path, backend) as path:
        yield path


def cli(standin: SlackStandIn, db: Path, *args: str, digest_size: int = 3, env: dict | None = None,
        wait: bool = True):
    """`paperbot digest ARGS` as its own process, as cron would run it."""
    environ = process_environment(db.parent, {**bot_environment(standin, db, digest_size), **(env or {})})
    process = subprocess.Popen([sys.executable, "-m", "bot.cli", "digest", *args], cwd=db.parent, env=environ,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if not wait:
        return process
    out, err = process.communicate(timeout=60)
    return process.returncode, out, err


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


# -- `paperbot digest` ------------------------------------------------------------------------------

def test_paperbot_digest_twice_sends_nothing_twice_and_skips_who_slack_cant_reach(standin, db):
    users = [new_user() for _ in range(4)]
    gone, later = users[0], new_user()
    add_people(db, users)
    now = datetime.now(UTC)
    two_hours_ago = (now.astimezone(ZoneInfo("Asia/Kolkata")) - timedelta(hours=2)).strftime("%H:%M")
    add_people(db, [later], "Asia/Kolkata", two_hours_ago, since=now.isoformat())  # starts tomorrow
    standin.unreachable[gone] = "user_not_found"
    calls = len(standin.calls())
    code, out, err = cli(standin, db, "--dry-run")
    assert code == 0, err
    assert "Dry run: 4 digest(s) due, 12 paper(s)" in out and "nothing was posted" in out
    assert len(standin.calls()) == calls  # not one call to Slack
    code, out, err = cli(standin, db)
    assert code == 0, err + out
    assert "Sent 3 digest(s) with 9 paper(s)" in out and "1 failed" in out and "user_not_found" in out
    for user in users[1:]:
        assert len(headers(standin, user)) == 1 and len(papers(standin, user)) == 3
    posted = len(standin.calls("chat.postMessage"))
    code, out, err = cli(standin, db)
    assert code == 0, err
    assert "Sent 0 digest(s)" in out and "5 not due (4 done for today, 1 due later;" in out
    assert len(standin.calls("chat.postMessage")) == posted
    assert len(standin.calls("conversations.open", users=gone)) == 1  # not retried that day
    assert not headers(standin, later)


def test_a_big_run_s_helper_process_posts_with_the_workspace_s_token_and_each_digest_goes_out_once(
        standin, fresh_db):
    users = [new_user() for _ in range(40)]  # more than a batch (32), which a process claims at once
    add_people(fresh_db, users)
    settings = Settings(bot_token=BOT_TOKEN, api_url=standin.base_url, db_path=str(fresh_db), digest_size=3,
                        digest_processes=2)
    client = digest_client(settings)
    made = digest_helpers(settings)(Served(TEAM_ID, client))
    assert made is not None and made.count == 1  # two processes: the run's own and one helper
    bots = digest_helpers(settings, alone=True)(Served(TEAM_ID, client))  # the bot's: both are helpers
    assert bots is not None and bots.count == 2 and bots.alone
    ctx = Context.open(str(fresh_db), 3).for_workspace(TEAM_ID)
    courier, before, waited = slack_courier(ctx, client), len(standin.calls("chat.postMessage")), []

    def after_the_helper_s_first(channel: str, text: str) -> str:  # so both processes surely send some
        if not waited:
            standin.wait_for(lambda: len(standin.calls("chat.postMessage")) > before, 60, "the helper's post")
            waited.append(True)
        return courier.post_text(channel, text)

    try:
        run = send_due_digests(ctx, datetime.now(UTC), replace(courier, post_text=after_the_helper_s_first),
                               force=True, helpers=replace(made, min_due=len(users)))
    finally:
        ctx.close()
    assert run.count("sent") == len(users)
    for user in users:
        assert len(headers(standin, user)) == 1 and len(papers(standin, user)) == 3
    assert {c.token for c in standin.calls("chat.postMessage")[before:]} == {BOT_TOKEN}


def test_paperbot_digest_force_ignores_the_time_of_day_but_not_the_once_a_day_rule(standin, db):
    user = new_user()
    add_people(db, [user], "Asia/Kolkata", "23:59")
    code, out, err = cli(standin, db, "--user", user, "--force")
    assert code == 0, err
    assert len(papers(standin, user)) == 3
    code, out, err = cli(standin, db, "--user", user, "--force")
    assert code == 0 and "Sent 0 digest(s)" in out
    assert len(papers(standin, user)) == 3


def test_paperbot_digest_needs_the_token_and_says_so_in_one_line(standin, db):
    code, out, err = cli(standin, db, env={"SLACK_BOT_TOKEN": ""})
    assert code == 1 and "SLACK_BOT_TOKEN is not set" in err and "Traceback" not in err + out
    code, out, err = cli(standin, db, env={"SLACK_BOT_TOKEN": "xoxb-e2e-bot-token", "SLACK_API_URL":
                                           "http://127.0.0.1:9/api/"})
    assert code == 1 and "Can't reach the Slack API" in err and "Traceback" not in err + out


def test_killed_mid_digest_the_next_run_finishes_it_without_repeats(standin, db):
    user = new_user()
    add_people(db, [user])
    standin.delay("chat.postMessage", 0.4)
    process = cli(standin, db, digest_size=5, wait=False)
    store = open_store(str(db)).for_workspace(TEAM_ID)
    try:
        try:  # two papers confirmed by Slack and recorded; the third is on its way (0.4 s)
            standin.wait_for(lambda: len(store.shown_paper_ids(user)) >= 2, timeout=30, what="two papers")
        finally:
            process.send_signal(signal.SIGKILL)
            process.communicate(timeout=30)
        confirmed = store.shown_paper_ids(user)
        record = store.get_digest(user, local_day("Asia/Kolkata"))
        assert record.status == "sending" and len(record.papers) == 5 and len(confirmed) >= 2
        time.sleep(0.5)  # a post in flight when the process died may still land
        standin.reset()
        before = papers(standin, user)
        code, out, err = cli(standin, db, digest_size=5)
        assert code == 0, err
        after = papers(standin, user)
        titles = {p.id: p.title for p in store.get_papers(record.papers).values()}
        assert set(after) == {titles[p] for p in record.papers}  # all five, the same five
        for paper in confirmed:  # none confirmed before the kill went out again
            assert after.count(titles[paper]) == 1
        # Nor the one in flight: it landed unrecorded, and the resumed digest found it in the DM.
        assert len(after) == len(set(after)) == 5
        assert len(after) > len(before) and len(headers(standin, user)) == 1
        assert standin.calls("conversations.history", channel="D" + user)
        assert store.get_digest(user, local_day("Asia/Kolkata")).status == "sent"
    finally:
        dispose(store)


def test_two_paperbot_digest_processes_at_once_send_each_digest_once(standin, db):
    users = [new_user() for _ in range(10)]
    add_people(db, users)
    standin.delay("chat.postMessage", 0.02)
    processes = [cli(standin, db, wait=False) for _ in range(2)]
    outputs = [p.communicate(timeout=60) for p in processes]
    assert [p.returncode for p in processes] == [0, 0], outputs
    for user in users:
        assert len(headers(standin, user)) == 1, user
        assert len(papers(standin, user)) == 3 and len(set(papers(standin, user))) == 3, user


def test_a_post_that_timed_out_inside_a_digest_is_found_not_posted_again_on_the_retry(standin, db,
                                                                                       monkeypatch):
    monkeypatch.setattr(slack_client, "API_TIMEOUT", 0.5)
    user = new_user()
    add_people(db, [user])
    standin.land_late("chat.postMessage", 1.2, after=2)  # the header, a paper, then one lands, answered late
    settings = Settings.load(environ=bot_environment(standin, db), dotenv=None)
    opened = Context.open(str(db), digest_size=3)
    ctx = opened.for_workspace(TEAM_ID)
    now = [datetime.now(UTC) - timedelta(seconds=2)]  # a clock the test moves; not ahead of Slack's
    try:
        courier = slack_courier(ctx, digest_client(settings))
        first = run_daily(ctx, [], courier, now[0], clock=lambda: now[0], alive=lambda owner: False)
        assert [(o.status, o.delivered, o.outage) for o in first.outcomes] == [("incomplete", 1, True)]
        now[0] += timedelta(minutes=2)  # its next try is due
        second = run_daily(ctx, [], courier, now[0], clock=lambda: now[0], alive=lambda owner: False)
        assert [o.status for o in second.outcomes] == ["sent"]
    finally:
        opened.close()
    messages = standin.history[dm(user)]
    assert len(messages) == 4 == len({m["text"] for m in messages})  # the header and 3 papers, once each
    assert standin.calls("conversations.history", channel=dm(user))


def test_a_day_nothing_matched_brings_one_short_note_unless_the_person_asked_for_quiet(standin, db):
    from bot.usecases import follow
    from bot.usecases.settings import set_quiet_days

    told, quiet = new_user(), new_user()
    opened_ctx = Context.open(str(db))
    ctx = opened_ctx.for_workspace(TEAM_ID)
    try:
        for user in (told, quiet):
            follow(ctx, user, "volcano magma eruptions")  # no paper matches
        set_quiet_days(ctx, quiet, True)
    finally:
        opened_ctx.close()
    for _ in range(2):  # the second run finds the day's digests ended: nothing more
        code, out, err = cli(standin, db, "--force")
        assert code == 0, err
    notes = [c.params["text"] for c in standin.calls("chat.postMessage", channel=dm(told))]
    assert len(notes) == 1 and notes[0].startswith("Nothing new matched your interests today")
    assert "/papers digest quiet on" in notes[0]
    assert standin.calls("chat.postMessage", channel=dm(quiet)) == []


def test_the_admin_channel_hears_once_a_day_that_the_feeds_failed(standin, db):
    admin = "C0ADMIN01"
    settings = {"PAPERBOT_ADMIN_CHANNEL": admin, "PAPERBOT_FEEDS": "http://127.0.0.1:9/nothing-listens.xml"}
    for _ in range(2):  # the second run finds the day's word said
        code, out, err = cli(standin, db, env=settings)
        assert "Traceback" not in out + err
    posts = [c.params["text"] for c in standin.calls("chat.postMessage", channel=admin)]
    assert len(posts) == 1, posts
    assert "something needs an admin" in posts[0] and "today's feeds failed" in posts[0]
    assert "127.0.0.1:9/nothing-listens.xml" in posts[0] and "paperbot doctor" in posts[0]
