"""What keeps one person's writes right when several processes share the database: topics unique ignoring
case in the database itself (m008), and a per-person lock held for a transaction (``lock_person``)."""

from __future__ import annotations

import threading
import time

import pytest

from storage import open_store
from tests.storage.conftest import database_before, dispose


def test_a_topic_differing_only_in_case_is_refused_by_the_database_when_the_check_misses_it(any_store,
                                                                                          monkeypatch):
    any_store.ensure_person("U1")
    assert any_store.add_topics("U1", ["Cats"]) == ["Cats"]
    # What a follow in another process sees before this one commits: not "Cats" yet.
    with monkeypatch.context() as patch:
        patch.setattr(any_store, "get_topics", lambda user_id: [])
        with any_store.transaction():
            assert any_store.add_topics("U1", ["cats", "Dogs"]) == ["Dogs"]
    assert any_store.get_topics("U1") == ["Cats", "Dogs"]
    assert any_store.add_topics("U2", ["cats"]) == ["cats"]  # someone else's are their own


def test_m008_keeps_the_first_spelling_of_topics_stored_twice_ignoring_case(backend, store_target,
                                                                             monkeypatch):
    rows = [("U1", "Cats", "2026-01-01T00:00:00+00:00"), ("U1", "cats", "2026-01-02T00:00:00+00:00"),
            ("U1", "dogs", "2026-01-03T00:00:00+00:00"), ("U2", "CATS", "2026-01-04T00:00:00+00:00")]
    insert = "insert into topics (user_id, topic, added_at) values "
    database_before(backend, store_target, monkeypatch, "m008_topics_unique_ignoring_case", insert, rows)
    store = open_store(store_target)
    try:
        assert store.get_topics("U1") == ["Cats", "dogs"]
        assert store.get_topics("U2") == ["CATS"]
        assert store.add_topics("U1", ["DOGS"]) == []
    finally:
        dispose(store)


def _advisory_waiters(url: str) -> int:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        return conn.execute("select count(*) from pg_stat_activity where wait_event_type = 'Lock'"
                            " and wait_event = 'advisory' and datname = current_database()").fetchone()[0]


def test_a_person_s_lock_holds_off_another_connection_until_the_first_transaction_ends(pg_url):
    first, second = open_store(pg_url), open_store(pg_url)  # two processes, as far as the server knows
    holding, release, order = threading.Event(), threading.Event(), []

    def hold() -> None:
        with first.transaction():
            first.lock_person("U1")
            holding.set()
            release.wait(30)
            order.append("first done")

    def wait_for_it() -> None:
        with second.transaction():
            second.lock_person("U1")
            order.append("second locked")

    try:
        with second.transaction():
            second.lock_person("U2")  # someone else's lock is not held off
        holder = threading.Thread(target=hold)
        holder.start()
        assert holding.wait(30)
        _waits_until_released(pg_url, wait_for_it, holder, release, order)
        assert order == ["first done", "second locked"]
    finally:
        release.set()
        dispose(first)
        dispose(second)


def test_holding_a_person_holds_off_another_process_s_hold_not_its_transactions_locks(pg_url):
    from bot.slack.runtime import UserLocks

    first, second = open_store(pg_url), open_store(pg_url)
    holding, release, order = threading.Event(), threading.Event(), []

    def hold() -> None:
        with UserLocks(first).hold("U1"):  # the bot's per-person lock, in one process
            with first.transaction():  # a delivery's own writes meanwhile take the transaction lock
                first.lock_person("U1")
            holding.set()
            release.wait(30)
            order.append("first done")

    def wait_for_it() -> None:
        with UserLocks(second).hold("U1"):  # ... and in another
            order.append("second holds")

    try:
        holder = threading.Thread(target=hold)
        holder.start()
        assert holding.wait(30)
        with second.transaction():
            second.lock_person("U1")  # a transaction's lock is not held off by a hold
        _waits_until_released(pg_url, wait_for_it, holder, release, order)
        assert order == ["first done", "second holds"]
    finally:
        release.set()
        dispose(first)
        dispose(second)


def _waits_until_released(pg_url: str, wait_for_it, holder: threading.Thread, release: threading.Event,
                          order: list) -> None:
    """Start ``wait_for_it`` in a thread, see it wait on an advisory lock (bounded: it shows up at once,
    or the lock is missing) with nothing done yet, then release the holder and let both finish."""
    waiter = threading.Thread(target=wait_for_it)
    waiter.start()
    deadline = time.monotonic() + 30
    while not _advisory_waiters(pg_url) and waiter.is_alive() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert _advisory_waiters(pg_url) == 1 and order == []
    release.set()
    holder.join(30)
    waiter.join(30)


def _held_elsewhere(url: str, space: int, user_id: str) -> bool:
    """Whether another session holds the two-key advisory lock (space, user): it can't take it."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        taken = conn.execute("select pg_try_advisory_lock(%s, hashtext(%s))", [space, user_id]).fetchone()[0]
    return not taken  # (when it was free, closing the connection let go of it again)


def test_a_person_s_lock_is_taken_again_by_the_next_transaction_and_after_a_rolled_back_savepoint(pg_url):
    from storage import pg_migrations

    store, space = open_store(pg_url), pg_migrations.PERSON_LOCK_SPACE
    try:
        with store.transaction():
            store.lock_person("U1")
            store.lock_person("U1")  # again in the same transaction: still held
            assert _held_elsewhere(pg_url, space, "U1")
        assert not _held_elsewhere(pg_url, space, "U1")
        with store.transaction():  # a new transaction takes it anew (what the last one held went with it)
            store.lock_person("U1")
            assert _held_elsewhere(pg_url, space, "U1")
        with store.transaction():
            try:
                with store.transaction():  # a savepoint: rolling it back lets go of the lock taken in it
                    store.lock_person("U2")
                    raise RuntimeError("rolled back")
            except RuntimeError:
                pass
            assert not _held_elsewhere(pg_url, space, "U2")
            store.lock_person("U2")  # so this takes it again
            assert _held_elsewhere(pg_url, space, "U2")
    finally:
        dispose(store)


def _holders(url: str) -> set[int]:
    """The server processes (connections) holding advisory locks on this database now."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        rows = conn.execute("select l.pid from pg_locks l join pg_database d on d.oid = l.database"
                            " where l.locktype = 'advisory' and d.datname = current_database()").fetchall()
    return {pid for (pid,) in rows}


def test_a_hold_lets_go_of_the_person_when_it_ends_though_its_connection_is_kept_for_the_next(pg_url):
    from storage import pg_migrations

    first, second = open_store(pg_url), open_store(pg_url)
    space = pg_migrations.PERSON_HOLD_SPACE
    try:
        with first.hold_person("U1"):
            assert _held_elsewhere(pg_url, space, "U1")
        assert not _held_elsewhere(pg_url, space, "U1")
        holders: set[int] = set()
        for _ in range(10):  # one delivery after another (two at once): not a new connection each time
            with first.hold_person("U1"), first.hold_person("U2"):
                assert _held_elsewhere(pg_url, space, "U1") and _held_elsewhere(pg_url, space, "U2")
                holders |= _holders(pg_url)
        assert len(holders) == 2
        with pytest.raises(RuntimeError), first.hold_person("U1"):
            raise RuntimeError("the delivery failed")
        done = threading.Event()

        def other_process() -> None:
            with second.hold_person("U1"):
                done.set()

        waiter = threading.Thread(target=other_process, daemon=True)
        waiter.start()
        assert done.wait(30), "the hold was not let go when its block ended"
        waiter.join(30)
    finally:
        dispose(first)
        dispose(second)


_HOLDER = """
import sys, time
from storage import open_store
store = open_store(sys.argv[1]).for_workspace(sys.argv[2])
with store.hold_person(sys.argv[3]):
    print("held", flush=True)
    time.sleep(300)
"""


def _waited(store, user_id: str, seconds: float) -> bool:
    """Whether ``store.hold_person(user_id)`` has to wait longer than ``seconds`` (it is then given up on,
    in a daemon thread, and taken once its holder lets go)."""
    got = threading.Event()

    def take() -> None:
        with store.hold_person(user_id):
            got.set()

    threading.Thread(target=take, daemon=True).start()
    return not got.wait(seconds)


def test_a_person_held_in_one_process_is_held_off_in_another_until_that_process_dies(store_target):
    """Both backends: a digest helper, or `paperbot digest` beside the bot, never delivers to a person the
    bot is delivering to; the hold goes with its process, even killed."""
    import os
    import subprocess
    import sys

    from tests.conftest import ROOT

    store = open_store(store_target)
    holder = subprocess.Popen([sys.executable, "-c", _HOLDER, store_target, "T1", "U1"], cwd=ROOT,
                              stdout=subprocess.PIPE, text=True,
                              env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        assert _waited(store.for_workspace("T1"), "U1", 1.0)
        assert not _waited(store.for_workspace("T1"), "U2", 10)  # someone else is not held off
        assert not _waited(store.for_workspace("T2"), "U1", 10)  # nor the same id in another workspace
        holder.kill()
        holder.wait(30)
        assert not _waited(store.for_workspace("T1"), "U1", 10)  # the process is gone, and its hold
    finally:
        holder.kill()
        holder.wait(30)
        dispose(store)


def test_threads_of_one_process_hold_a_sqlite_person_in_turn_and_two_people_at_once(tmp_path):
    first, second = open_store(str(tmp_path / "a.db")), open_store(str(tmp_path / "a.db"))
    try:
        with first.hold_person("U1"):
            assert _waited(second, "U1", 0.5)  # another store of this process on the file: its threads too
            with first.hold_person("U2"):  # a hold within a hold
                assert _waited(second, "U2", 0.5)
            assert not _waited(second, "U2", 10)
        assert not _waited(second, "U1", 10)
    finally:
        dispose(first)
        dispose(second)


def test_a_process_keeps_no_lock_for_a_person_nobody_holds(tmp_path):
    from storage.person_holds import holds_of

    store = open_store(str(tmp_path / "a.db"))
    try:
        for i in range(100):
            with store.hold_person(f"U{i}"):
                pass
        assert holds_of(str(tmp_path / "a.db"))._slots == {}
    finally:
        dispose(store)


def test_a_hold_told_deadlock_by_the_kernel_waits_on(tmp_path, monkeypatch):
    """Linux counts a process's threads as one owner and may answer EDEADLK where no deadlock is."""
    import errno

    import storage.person_holds as holds

    real, told = holds.fcntl.lockf, []

    def once_deadlocked(fd, cmd, *args):
        if cmd == holds.fcntl.LOCK_EX and not told:
            told.append(True)
            raise OSError(errno.EDEADLK, "Resource deadlock avoided")
        return real(fd, cmd, *args)

    monkeypatch.setattr(holds.fcntl, "lockf", once_deadlocked)
    store = open_store(str(tmp_path / "a.db"))
    try:
        with store.hold_person("U1"):
            assert told == [True]
    finally:
        dispose(store)
