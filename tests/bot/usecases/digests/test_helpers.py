"""A big run of digests sent also by helper processes (bot/usecases/digests/helpers.py), on each backend:
every digest once whichever process sends it, the run's report as the sender found it, and a stopped run
stopping its helpers. Real processes; the couriers write what they post into one file."""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import threading
import time
from datetime import UTC, datetime
from functools import partial
from pathlib import Path

import pytest

from bot.slack.views.digest_texts import phrase
from bot.state.context import Context
from bot.usecases import follow
from bot.usecases.digest_vocabulary import Courier, Note, Outcome
from bot.usecases.digests.helpers import Helpers, merged
from bot.usecases.digests.run import send_due_digests
from stand_ins.waiting import wait_until
from tests.bot.usecases.conftest import WS

NOW = datetime(2026, 7, 15, 12, 0, tzinfo=UTC)
TOPICS = ["cats", "graphs", "diffusion", "robots", "quantum"]


def open_workspace(target: str) -> Context:
    """What a helper opens: the test's database, workspace T1 (pickled into the helper: module level)."""
    return Context.open(target, 3).for_workspace(WS)


def file_courier(posts: str, ctx: Context, stop: threading.Event, wait_for: str | None = None) -> Courier:
    """A courier that appends a line "pid user kind" to ``posts`` for each message; with ``wait_for``,
    its first header waits (up to a minute) until that text is in the file."""
    pid, waited = os.getpid(), threading.Event()

    def write(channel: str, kind: str) -> str:
        if wait_for is not None and not waited.is_set():
            with contextlib.suppress(AssertionError):  # a minute at most, then it goes on
                wait_until(lambda: wait_for in Path(posts).read_text(), 60, repr(wait_for), pause=0.05)
            waited.set()
        with open(posts, "a", encoding="utf-8") as out:  # one write of one line: appended whole
            out.write(f"{pid} {channel[1:]} {kind}\n")
        return f"{time.time()}"

    return Courier(open=lambda user: "D" + user, post_text=lambda channel, text: write(channel, "header"),
                   post_paper=lambda channel, rec: (channel, write(channel, "paper")), phrase=phrase)


def one_helper(target: str, posts: Path, min_due: int, alone: bool = False) -> Helpers:
    """One helper on the database ``target``, posting into ``posts``, for runs of ``min_due`` or more."""
    return Helpers(1, open=partial(open_workspace, target), courier=partial(file_courier, str(posts)),
                   min_due=min_due, alone=alone)


def everyone(app: Context, n: int) -> list[str]:
    users = [f"U{i:03d}" for i in range(n)]
    for i, user in enumerate(users):
        follow(app, user, TOPICS[i % len(TOPICS)])
    return users


def headers(posts: Path) -> list[tuple[int, str]]:
    lines = [line.split() for line in posts.read_text().splitlines()]
    return [(int(pid), user) for pid, user, kind in lines if kind == "header"]


def test_a_big_run_is_shared_with_a_helper_process_and_each_digest_goes_out_once(app, store_target, tmp_path):
    users = everyone(app, 40)
    posts = tmp_path / "posts.txt"
    posts.touch()
    helpers = one_helper(store_target, posts, 40)
    # This process's first post waits until the helper has posted: both surely send some.
    mine = file_courier(str(posts), app, threading.Event(), wait_for=" header")
    run = send_due_digests(app, NOW, mine, force=True, workers=2, helpers=helpers)

    sent = headers(posts)
    assert sorted(user for _, user in sent) == users  # each person's digest once
    assert len({pid for pid, _ in sent}) == 2 and os.getpid() in {pid for pid, _ in sent}
    assert sorted(o.user_id for o in run.outcomes) == users  # the report: everyone once, as sent
    assert {o.status for o in run.outcomes} == {"sent"} and all(o.delivered for o in run.outcomes)
    # A second run finds every digest done: nothing is sent again.
    again = send_due_digests(app, NOW, mine, force=True, helpers=helpers)
    assert headers(posts) == sent and again.count("sent") == 0


def test_a_run_left_to_its_helper_sends_nothing_itself_and_reports_what_the_helper_did(app, store_target,
                                                                                      tmp_path):
    users = everyone(app, 40)
    posts = tmp_path / "posts.txt"
    posts.touch()
    run = send_due_digests(app, NOW, file_courier(str(posts), app, threading.Event()), force=True,
                           helpers=one_helper(store_target, posts, 40, alone=True))
    sent = headers(posts)
    assert sorted(user for _, user in sent) == users
    assert os.getpid() not in {pid for pid, _ in sent}  # the bot's process answers Slack meanwhile
    assert {o.status for o in run.outcomes} == {"sent"} and sorted(o.user_id for o in run.outcomes) == users


def test_what_a_failed_helper_was_left_is_reported_skipped_and_sent_by_the_next_run(app, tmp_path):
    users = everyone(app, 10)
    posts = tmp_path / "posts.txt"
    posts.touch()
    missing = str(tmp_path / "no such folder" / "paperbot.db")
    courier = file_courier(str(posts), app, threading.Event())
    run = send_due_digests(app, NOW, courier, force=True, helpers=one_helper(missing, posts, 1, alone=True))
    assert {(o.status, o.note) for o in run.outcomes} == {("skipped", Note("left_to_helpers"))}
    assert not headers(posts)
    assert send_due_digests(app, NOW, courier, force=True).count("sent") == len(users)


def test_a_run_whose_helpers_cannot_start_sends_its_digests_itself(app, store_target, tmp_path, monkeypatch,
                                                                    caplog):
    import multiprocessing.context

    def refused(self) -> None:
        raise OSError("Resource temporarily unavailable")

    monkeypatch.setattr(multiprocessing.context.SpawnProcess, "start", refused)
    users = everyone(app, 10)
    posts = tmp_path / "posts.txt"
    posts.touch()
    run = send_due_digests(app, NOW, file_courier(str(posts), app, threading.Event()), force=True,
                           helpers=one_helper(store_target, posts, 1, alone=True))
    assert run.count("sent") == len(users) and {pid for pid, _ in headers(posts)} == {os.getpid()}
    assert "could not start a digest helper process (OSError: Resource temporarily" in caplog.text


def test_too_small_a_run_starts_no_helper(app, store_target, tmp_path):
    users = everyone(app, 5)
    posts = tmp_path / "posts.txt"
    posts.touch()
    helpers = one_helper(store_target, posts, 6)
    run = send_due_digests(app, NOW, file_courier(str(posts), app, threading.Event()), force=True,
                           helpers=helpers)
    assert {pid for pid, _ in headers(posts)} == {os.getpid()} and run.count("sent") == len(users)


def test_a_stopped_run_stops_its_helper_and_the_next_run_sends_the_rest_once(app, store_target, tmp_path):
    users = everyone(app, 40)
    posts = tmp_path / "posts.txt"
    posts.touch()
    stop = threading.Event()
    helpers = one_helper(store_target, posts, 40)
    slow = file_courier(str(posts), app, threading.Event(), wait_for=" header")

    def stopping(channel: str, text: str) -> str:
        ts = slow.post_text(channel, text)  # the first waits for the helper's first header
        stop.set()
        return ts

    first = send_due_digests(app, NOW, Courier(slow.open, stopping, slow.post_paper, phrase), force=True,
                             workers=1, helpers=helpers, stop=stop)
    assert first.count("skipped") > 0  # stopped short, in both processes
    assert sorted(o.user_id for o in first.outcomes) == users
    rest = send_due_digests(app, NOW, file_courier(str(posts), app, threading.Event()), force=True)
    assert sorted(user for _, user in headers(posts)) == users  # everyone once, over the two runs
    assert first.count("sent") + rest.count("sent") == len(users)


def test_a_helper_that_cannot_open_the_database_leaves_the_run_to_this_process(app, tmp_path, caplog):
    users = everyone(app, 10)
    posts = tmp_path / "posts.txt"
    posts.touch()
    missing = str(tmp_path / "no such folder" / "paperbot.db")
    helpers = one_helper(missing, posts, 1)
    run = send_due_digests(app, NOW, file_courier(str(posts), app, threading.Event()), force=True,
                           helpers=helpers)
    assert run.count("sent") == len(users) and sorted(u for _, u in headers(posts)) == users
    assert "a digest helper process ended without a report (exit code 1)" in caplog.text


def test_a_run_that_fails_here_still_waits_for_its_helper(app, store_target, tmp_path, monkeypatch):
    users = everyone(app, 20)
    posts = tmp_path / "posts.txt"
    posts.touch()
    started = []

    def broken(*args, **kwargs):
        started.extend(multiprocessing.active_children())
        raise RuntimeError("the database went away")

    monkeypatch.setattr("bot.usecases.digests.run._send_here", broken)
    with pytest.raises(RuntimeError):
        send_due_digests(app, NOW, file_courier(str(posts), app, threading.Event()), force=True, workers=2,
                         helpers=one_helper(store_target, posts, 20))
    assert started and not any(p.is_alive() for p in started)  # the helper ran, and ended with the run
    assert sorted(user for _, user in headers(posts)) == users  # it sent what it claimed: everyone


def test_merged_takes_the_senders_outcome_and_keeps_the_runs_order():
    day = NOW.date()
    own = [Outcome("U1", day, "sent", 3), Outcome("U2", day, "busy"), Outcome("U3", day, "done"),
           Outcome("U5", day, "skipped", note=Note("stopping"))]
    theirs = [Outcome("U2", day, "sent", 3), Outcome("U4", day, "failed"), Outcome("U1", day, "incomplete"),
              Outcome("U5", day, "empty")]
    assert merged(own, theirs) == [Outcome("U1", day, "sent", 3), Outcome("U2", day, "sent", 3),
                                   Outcome("U3", day, "done"), Outcome("U5", day, "empty"),
                                   Outcome("U4", day, "failed")]
