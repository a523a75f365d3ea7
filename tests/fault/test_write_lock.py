"""A long write lock held by another process: no ack waits for it, no command or event is lost.

Another process (a plain ``sqlite3`` script, as a big ingest or a backup would be) holds a write
transaction on the bot's database while signed commands and events arrive over HTTP. The write wait
is shortened here (``BUSY_SECONDS``) so the suite stays quick; the behaviour is the same at 90 s.

SQLite only, by nature: a SQLite file has one write lock for the whole database, which any other process
may hold for as long as it likes. PostgreSQL has no such lock: writers wait only for the rows they both
change (and for the per-person advisory locks, tested in tests/storage/test_person_lock.py).
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

import storage.sqlite
from bot.slack.error_handler import KEPT_FOR_LATER
from stand_ins.slack import SlackStandIn
from storage import SqliteStore
from tests.e2e.harness import TEAM_ID, FakeSlack, posts_to, seed_papers, serving, user_ids

HOLDER = """
import sqlite3, sys, time
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("BEGIN IMMEDIATE")
conn.execute("update counters set value = value where name = 'feedback'")
print("held", flush=True)
time.sleep(float(sys.argv[2]))  # the lock held this long
conn.execute("COMMIT")
"""

new_user = user_ids("ULOCK", 3)
#: How long the lock of the long-lock test is held: 15 s in `make test`; .ci/run holds it the 40 s issue 24
#: names (PAPERBOT_FAULT_LOCK_SECONDS=40): an ack waits for neither.
LONG_LOCK = float(os.environ.get("PAPERBOT_FAULT_LOCK_SECONDS") or 15)


@contextlib.contextmanager
def write_lock(db_path, seconds: float):
    """Another process holding the database's write lock for ``seconds`` from when this returns."""
    process = subprocess.Popen([sys.executable, "-c", HOLDER, str(db_path), str(seconds)],
                               stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout.readline().strip() == "held"
        yield process
    finally:
        process.wait(timeout=seconds + 30)


@pytest.fixture
def standin():
    with SlackStandIn() as s:
        yield s


@pytest.fixture
def db_path(tmp_path):
    path = tmp_path / "paperbot.db"
    seed_papers(path)
    return path


@contextlib.contextmanager
def bot_with_write_wait(standin, db_path, monkeypatch, busy_seconds: float):
    monkeypatch.setattr(storage.sqlite, "BUSY_SECONDS", busy_seconds)
    with serving(standin, db_path) as bot:
        yield FakeSlack(bot.url, standin)


def prepared_user(slack: FakeSlack, standin: SlackStandIn) -> tuple[str, str, str]:
    """Someone following two topics, with one paper shown; returns (user, channel, ts) of that paper."""
    user = new_user()
    slack.ask(user, "follow feline cats, quantum circuits")
    slack.ask(user, "recommend 1")
    post = [c for c in posts_to(standin, "D" + user) if c.params.get("blocks")][-1]
    return user, post.response["channel"], post.response["ts"]


def test_commands_and_events_during_a_lock_are_acked_at_once_and_done_after_it(standin, db_path, monkeypatch,
                                                                             tally):
    tally.tried(8)  # six commands and two events
    with bot_with_write_wait(standin, db_path, monkeypatch, busy_seconds=20) as slack:
        user, channel, ts = prepared_user(slack, standin)
        other = new_user()
        with write_lock(db_path, 6) as holder:
            answers = {text: slack.command(who, text) for who, text in [
                (user, "unfollow feline cats"), (user, "digest off"), (user, "recommend 1"),
                (user, "digest 07:45"), (user, "interests"), (other, "follow robot grasping")]}
            reaction = slack.reaction(user, "+1", channel, ts)
            home = slack.event({"type": "app_home_opened", "user": user, "tab": "home"})[0]
            assert holder.poll() is None  # every answer came back while the lock was still held
        assert all(a.status == 200 for a in answers.values()) and reaction == 200 and home == 200

        def reply(text: str) -> str:
            key = answers[text].key
            calls = standin.wait_for(lambda: standin.responses(key), 30, f"the reply to {text!r}")
            return calls[0].params["text"]

        assert "Stopped following “feline cats”" in reply("unfollow feline cats")
        assert "digests are off" in reply("digest off")
        assert "sent you 1 paper" in reply("recommend 1")
        assert "Daily digest at 07:45" in reply("digest 07:45")
        assert "Now following “robot grasping”" in reply("follow robot grasping")
        standin.wait_for(lambda: standin.calls("views.publish", user_id=user), 30, "the Home tab")
        store = SqliteStore(db_path).for_workspace(TEAM_ID)
        try:
            standin.wait_for(lambda: store.get_feedback(user), 30, "the like")
            assert store.get_topics(user) == ["quantum circuits"]
            person = store.get_person(user)  # off, then on at 07:45: in the order they were sent
            assert person.digest_time == "07:45" and person.digest_enabled
            assert store.get_topics(other) == ["robot grasping"]
            tally.held(8)
        finally:
            store.close()


def test_a_lock_longer_than_a_write_waits_keeps_the_request_and_carries_it_out_after(
        standin, db_path, monkeypatch, tally):
    tally.tried(2)  # a command and an event
    with bot_with_write_wait(standin, db_path, monkeypatch, busy_seconds=1.5) as slack:
        user, channel, ts = prepared_user(slack, standin)
        store = SqliteStore(db_path).for_workspace(TEAM_ID)
        try:
            with write_lock(db_path, 6):
                answer = slack.command(user, "unfollow feline cats")
                assert answer.status == 200
                assert slack.reaction(user, "+1", channel, ts) == 200
                calls = standin.wait_for(lambda: standin.responses(answer.key), 30, "the notice")
                assert calls[0].params["text"] == KEPT_FOR_LATER  # said plainly: it is kept, not lost
                assert store.get_topics(user) == ["feline cats", "quantum circuits"]  # nothing half done
            calls = standin.wait_for(lambda: standin.responses(answer.key)[1:], 30, "the answer after it")
            assert "Stopped following “feline cats”" in calls[0].params["text"]
            assert store.get_topics(user) == ["quantum circuits"]
            standin.wait_for(lambda: store.get_feedback(user), 30, "the like, once the lock is gone")
        finally:
            store.close()
        tally.held(2)


def test_a_long_lock_delays_no_ack_and_every_command_is_carried_out_after_it(standin, db_path, monkeypatch,
                                                                            tally):
    """Commands from 8 senders all through a long lock (PAPERBOT_FAULT_LOCK_SECONDS, 15 by default): each
    answer comes back while the lock is still held, and every command is carried out once it is gone."""
    users = [new_user() for _ in range(8)]
    tally.tried(len(users) * 4)
    with bot_with_write_wait(standin, db_path, monkeypatch, busy_seconds=1.0) as slack:
        with write_lock(db_path, LONG_LOCK) as holder:
            ends = time.monotonic() + LONG_LOCK - 3  # the last commands go well before the lock ends

            def send(user: str) -> list[tuple[object, bool]]:
                sent = []
                for topic in ("feline cats", "quantum circuits", "robot grasping", "graph networks"):
                    answer = slack.command(user, f"follow {topic}")
                    sent.append((answer, holder.poll() is None))  # answered while the lock is held
                    time.sleep(max(0.0, (ends - time.monotonic()) / 4))  # spread over the lock's time
                return sent

            with ThreadPoolExecutor(len(users)) as pool:
                answers = [pair for sent in pool.map(send, users) for pair in sent]
        assert all(answer.status == 200 and held for answer, held in answers)
        store = SqliteStore(db_path).for_workspace(TEAM_ID)
        try:
            standin.wait_for(lambda: all(len(store.get_topics(u)) == 4 for u in users), 60,
                             "every follow, after the lock")
        finally:
            store.close()
        for answer, _ in answers:  # told it was kept, if its turn came while the lock held; then done
            said = standin.wait_for(lambda a=answer: [r.params["text"] for r in standin.responses(a.key)
                                                      if r.params["text"].startswith("Now following")],
                                    30, "the answer")
            assert len(said) == 1, said
        tally.held(len(answers))
