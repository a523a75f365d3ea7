"""Daily digests end to end from the command line, as cron runs them: `paperbot digest` twice, side by side,
killed half-way, without a token, with people Slack can't reach; a big run's helper process; a post that
timed out; a day nothing matched; feeds that failed. The scheduler inside the running bot is
tests/e2e/test_digests.py. Nothing leaves 127.0.0.1."""

from __future__ import annotations

import signal
import time
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from bot.config import Settings
from bot.slack import client as slack_client
from bot.slack.delivery.digests import (
    Served,
    digest_client,
    digest_helpers,
    slack_courier,
)
from bot.state.context import Context
from bot.usecases.digests.run import run_daily, send_due_digests
from stand_ins.slack import SlackStandIn
from storage import open_store
from tests.e2e.digests_support import (
    cleared,
    cli,
    dispose,
    dm,
    headers,
    local_day,
    papers,
)
from tests.e2e.harness import (
    BOT_TOKEN,
    TEAM_ID,
    add_people,
    bot_environment,
    user_ids,
)

new_user = user_ids("UDCL")


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
