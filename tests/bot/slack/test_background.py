"""The work after the ack and its inbox (bot.slack.background), on both backends: written down before it
runs and finished after; a request sent again runs once; what a dead process took is replayed by the
next; a stop hands back what it holds; the work a busy database held up runs once it frees."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import threading
import time

import pytest

from bot.slack.background import Background
from bot.state.owner import owner_id
from stand_ins.waiting import wait_until
from storage import StoreBusy
from storage.models import InboxEntry, InboxItem
from storage.records import utcnow
from tests.storage.conftest import any_store, backend, pg_database, pg_url, store_target  # noqa: F401

WS = "T1"


def command(key: str, user: str = "U1") -> dict:
    return {"command": "/papers", "text": f"follow {key}", "user_id": user, "trigger_id": key}


def status(store, key: str) -> str | None:
    item = store.inbox_item(WS, f"trigger:{key}")
    return item.status if item else None


def dead_owner() -> str:
    """The owner id of a process of this host that has ended."""
    process = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                             text=True, check=True)
    host, _, start = owner_id().rsplit(":", 2)
    return f"{host}:{process.stdout.strip()}:{start}"


def test_work_is_written_down_before_it_runs_and_finished_after(any_store):  # noqa: F811
    store = any_store.for_workspace(WS)
    background, started, release = Background(store, workers=2), threading.Event(), threading.Event()
    background.submit(lambda: (started.set(), release.wait(10)), command("a"))
    assert started.wait(10)
    item = store.inbox_item(WS, "trigger:a")
    assert item is not None and (item.status, item.owner) == ("running", background.owner)
    assert '"follow a"' in item.entry.payload and item.entry.subject == "U1"
    release.set()
    background.shutdown()
    assert status(store, "a") == "done"


def test_a_request_sent_again_runs_once_even_through_another_process(any_store):  # noqa: F811
    store = any_store.for_workspace(WS)
    one, other, runs = Background(store, workers=2), Background(store, workers=2), []
    for background in (one, other, one):
        background.submit(lambda: runs.append(1), command("same"))
    one.shutdown()
    other.shutdown()
    assert runs == [1] and status(store, "same") == "done"


def test_what_a_dead_process_took_is_replayed_by_the_next_in_each_persons_order(any_store):  # noqa: F811
    store = any_store.for_workspace(WS)
    dead = Background(store)
    dead.owner = dead_owner()
    bodies = [command("b1", "U1"), command("b2", "U1"), command("c1", "U2")]
    for body in bodies:  # acknowledged, then the process died before carrying any of them out
        assert dead.intake.accept(InboxEntry(WS, f"trigger:{body['trigger_id']}", "command", body["user_id"],
                                             json.dumps(body), utcnow(), dead.owner))
    dead.shutdown()
    nxt, replayed = Background(store, workers=2), []

    def replay(item: InboxItem) -> int:  # as the app does: the listener runs again and carries it out
        nxt.carry_out(item, lambda: replayed.append(item.entry.key), {})
        return 200

    nxt.replay = replay
    nxt.start()
    try:
        wait_until(lambda: len(replayed) == 3)
    finally:
        nxt.shutdown()
    assert [k for k in replayed if k.startswith("trigger:b")] == ["trigger:b1", "trigger:b2"]
    assert all(status(store, k) == "done" for k in ("b1", "b2", "c1"))


def test_catch_up_carries_out_what_no_living_process_holds_and_returns_once_it_is_done(any_store):  # noqa: F811
    store = any_store.for_workspace(WS)
    dead, living = Background(store), Background(store)
    dead.owner = dead_owner()
    mine = [command("d1", "U1"), command("d2", "U1"), command("d3", "U2")]
    for body in mine:  # acknowledged by a process that died (on SQLite: still in the journal)
        assert dead.intake.accept(InboxEntry(WS, f"trigger:{body['trigger_id']}", "command", body["user_id"],
                                             json.dumps(body), utcnow(), dead.owner))
    held = command("h1", "U3")  # a living process's, within its hold: left to it
    assert living.intake.accept(InboxEntry(WS, "trigger:h1", "command", "U3", json.dumps(held), utcnow(),
                                           living.owner))
    nxt, replayed = Background(store, workers=2), []

    def replay(item: InboxItem) -> int:
        # slow work: catch_up must wait it out
        nxt.carry_out(item, lambda: (time.sleep(0.05), replayed.append(item.entry.key)), {})
        return 200

    nxt.replay = replay
    try:
        assert nxt.catch_up(timeout=30) == 3
        assert sorted(replayed) == ["trigger:d1", "trigger:d2", "trigger:d3"]  # all done on return
        assert [k for k in replayed if k != "trigger:d3"] == ["trigger:d1", "trigger:d2"]
        assert status(store, "h1") == "waiting" and nxt.catch_up(timeout=30) == 0
    finally:
        nxt.shutdown()
        living.shutdown()
        dead.shutdown()


def test_a_stop_hands_back_what_is_under_way_and_leaves_what_is_queued(any_store):  # noqa: F811
    store = any_store.for_workspace(WS)
    background, started, release = Background(store, workers=1), threading.Event(), threading.Event()
    background.submit(lambda: (started.set(), release.wait(10)), command("slow"))
    background.submit(lambda: None, command("queued", "U2"))
    assert started.wait(10)
    background.stop(grace=0.2)
    release.set()
    for key in ("slow", "queued"):
        item = store.inbox_item(WS, f"trigger:{key}")
        if item is None:  # SQLite: "queued" may still be in the journal, for the next process
            assert background.intake is not None and background.intake.pending()
            continue
        assert (item.status, item.owner) == ("waiting", None), key  # anyone may claim it at once


def test_an_event_the_database_is_too_busy_for_is_tried_again_later(any_store):  # noqa: F811
    store = any_store.for_workspace(WS)
    background = Background(store, workers=1, retry_pause=0.01)
    event = {"type": "event_callback", "event_id": "EvBUSY", "event": {"user": "U1"}}
    background.submit(lambda: (_ for _ in ()).throw(StoreBusy("busy")), event)
    background.shutdown()
    item = store.inbox_item(WS, "event:EvBUSY")
    assert item is not None and (item.status, item.owner, item.attempts) == ("waiting", None, 1)
    assert item.lease_until is not None and "busy" in (item.error or "")  # tried again from then, by anyone


@pytest.mark.parametrize("backend", ["sqlite"])
def test_work_held_up_by_a_locked_database_runs_once_it_frees(any_store, monkeypatch, tmp_path):  # noqa: F811
    import storage.sqlite

    monkeypatch.setattr(storage.sqlite, "BUSY_SECONDS", 0.3)
    store = any_store.for_workspace(WS)
    background, runs = Background(store, workers=2), []
    background.replay = lambda item: 200  # the sweep runs; nothing is left to replay here
    holder = sqlite3.connect(any_store.path, isolation_level=None)
    holder.execute("begin immediate")
    try:
        background.submit(lambda: runs.append("held"), command("held"))
        wait_until(lambda: background._deferred)
        assert runs == []
    finally:
        holder.execute("rollback")
        holder.close()
    background.start()
    try:
        wait_until(lambda: runs == ["held"])
        wait_until(lambda: status(store, "held") == "done")
    finally:
        background.shutdown()


def test_an_item_claimed_again_and_again_without_finishing_is_given_up(any_store):  # noqa: F811
    from bot.slack.background import MAX_ATTEMPTS

    store = any_store.for_workspace(WS)
    store.inbox_put([InboxEntry(WS, "trigger:poison", "command", "U1", "{}", utcnow())])
    for _ in range(MAX_ATTEMPTS):  # each time its process died on it
        assert store.inbox_claim("gone", utcnow(), utcnow(), 1)
        store.inbox_release("gone")
    background, replayed = Background(store, workers=1), []
    background.replay = lambda item: replayed.append(item) or 200
    background.start()
    try:
        wait_until(lambda: status(store, "poison") == "failed")
    finally:
        background.shutdown()
    assert replayed == []
