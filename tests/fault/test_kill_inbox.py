"""Acknowledged means done (issue 24): 1,000 signed `/papers follow` commands from 8 senders, every one
answered 200, then `paperbot run` killed with SIGKILL about a second later, with most of their work still
queued; a new process on the same database carries out every one. On SQLite (the journal beside the
file) and on PostgreSQL (the inbox table).

Also: SIGTERM makes a process hand back what it holds within its grace, and the next one carries it out.

How many commands: PAPERBOT_INBOX_COMMANDS (1,000 by default).
"""

from __future__ import annotations

import os
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.e2e.harness import FakeSlack, opened, query, standin_of_its_own
from tests.e2e.replicas import Replica
from tests.e2e.slack_standin import SlackStandIn, wait_until

COMMANDS = int(os.environ.get("PAPERBOT_INBOX_COMMANDS") or 1000)
SENDERS = 8
RECOVERY_SECONDS = 120.0  # a hang guard: the second process starts, then works through what is left


@pytest.fixture
def standin(monkeypatch):
    """A stand-in of this test's own: its record of response_url calls is this test's alone."""
    with standin_of_its_own(monkeypatch) as s:
        yield s


def _send_all(slack: FakeSlack, users: list[str]) -> list:
    """``follow`` from each user, from :data:`SENDERS` threads at once; the answers."""
    lock, answers = threading.Lock(), []

    def send(user: str) -> None:
        answer = slack.command(user, "follow graph neural networks")
        with lock:
            answers.append(answer)

    with ThreadPoolExecutor(SENDERS) as pool:
        list(pool.map(send, users))
    return answers


def _following(db) -> set[str]:
    with opened(db) as store:
        return {r["user_id"] for r in query(store, "select distinct user_id from topics")}


def test_every_command_acked_before_a_kill_9_is_carried_out_by_the_next_process(standin: SlackStandIn,
                                                                                fresh_db, tmp_path):
    users = [f"UINBOX{i:04d}" for i in range(COMMANDS)]
    first = Replica("first", standin, fresh_db, tmp_path / "first")
    try:
        slack = FakeSlack(first.wait_until_listening(), standin)
        standin.delay("users.info", 0.01)  # each follow asks Slack for a timezone: work piles up
        t0 = time.monotonic()
        answers = _send_all(slack, users)
        print(f"{COMMANDS} acks in {time.monotonic() - t0:.1f} s")
        assert Counter(a.status for a in answers) == {200: COMMANDS}
        time.sleep(1.0)
        first.kill()
    finally:
        first.kill() if first.alive else None
    done_before = len(_following(fresh_db))
    assert done_before < COMMANDS, "the kill came too late to test anything: raise PAPERBOT_INBOX_COMMANDS"

    second = Replica("second", standin, fresh_db, tmp_path / "second")
    try:
        t0 = time.monotonic()
        second.wait_until_listening()
        print(f"{done_before} done before the kill; the next process up in {time.monotonic() - t0:.1f} s")
        wait_until(lambda: len(_following(fresh_db)) == COMMANDS, RECOVERY_SECONDS,
                   f"all {COMMANDS} people to follow their topic ({done_before} before the kill)", pause=0.5)
        print(f"all done {time.monotonic() - t0:.1f} s after the restart")
        # Every command was answered; a second answer only for the few under way at the kill.
        wanted = {a.key for a in answers}
        wait_until(lambda: wanted <= {c.key for c in standin.calls("response_url")}, RECOVERY_SECONDS,
                   "every command's answer")
        keys = Counter(c.key for c in standin.calls("response_url") if c.key in wanted)
        assert sum(n - 1 for n in keys.values()) <= SENDERS, keys.most_common(10)
        with opened(fresh_db) as store:
            left = query(store, "select status, count(*) as n from inbox group by status")
        assert {r["status"]: r["n"] for r in left} == {"done": COMMANDS}
    finally:
        assert second.stop() == 0, second.log


def test_sigterm_hands_back_what_it_holds_within_its_grace_and_the_next_process_does_it(
        standin: SlackStandIn, fresh_db, tmp_path):
    users = [f"UTERM{i:04d}" for i in range(200)]
    first = Replica("first", standin, fresh_db, tmp_path / "first")
    try:
        slack = FakeSlack(first.wait_until_listening(), standin)
        standin.delay("users.info", 0.05)
        answers = _send_all(slack, users)
        assert all(a.status == 200 for a in answers)
        started = time.monotonic()
        first.terminate()
        assert first.stop() == 0, first.log
        assert time.monotonic() - started < 15.0, "stopping took longer than its 10 s grace"
    finally:
        first.kill() if first.alive else None
    assert len(_following(fresh_db)) < len(users), "the stop came too late to test anything"
    second = Replica("second", standin, fresh_db, tmp_path / "second")
    try:
        second.wait_until_listening()
        wait_until(lambda: len(_following(fresh_db)) == len(users), RECOVERY_SECONDS,
                   "everyone to follow their topic", pause=0.5)
    finally:
        assert second.stop() == 0, second.log


def test_two_replicas_given_the_same_requests_do_each_once(standin: SlackStandIn, fresh_db, tmp_path):
    """Every signed command goes to both replicas at once (a load balancer's retry, a replayed request):
    each is carried out by one of them, once."""
    replicas = [Replica(name, standin, fresh_db, tmp_path / name) for name in ("one", "two")]
    try:
        sends = [FakeSlack(r.wait_until_listening(), standin) for r in replicas]
        bodies = [sends[0].command_body(f"UTWICE{i:03d}", "follow robot grasping") for i in range(200)]
        form = "application/x-www-form-urlencoded"
        with ThreadPoolExecutor(SENDERS) as pool:
            statuses = list(pool.map(lambda job: job[0].post(job[1][0], form)[0],
                                     [(send, body) for body in bodies for send in sends]))
        assert Counter(statuses) == {200: 2 * len(bodies)}
        wait_until(lambda: len(_following(fresh_db)) == len(bodies), RECOVERY_SECONDS, "every follow",
                   pause=0.5)
        time.sleep(2.0)  # time enough for a second run of any of them to show
        answered = Counter(c.key for c in standin.calls("response_url"))
        assert answered == {key: 1 for _, key in bodies}, [k for k, n in answered.items() if n != 1][:10]
    finally:
        for replica in replicas:
            assert replica.stop() == 0, replica.log
