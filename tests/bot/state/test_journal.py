"""The inbox journal beside a SQLite database (bot.state.journal, issue 24): appended entries reach the
inbox once, a torn line is skipped alone, two processes appending lose nothing, and an append never waits
for the database's write lock."""

import multiprocessing
import os
import signal
import sqlite3
import threading
import time

from bot.state.journal import Journal, decode, encode, journal_path
from storage import SqliteStore
from storage.models import InboxEntry

T0 = "2026-07-15T08:00:00+00:00"


def entry(key: str, subject: str = "U1") -> InboxEntry:
    return InboxEntry("T1", key, "command", subject, '{"text": "follow «graphs»"}', T0)


def inbox_keys(store: SqliteStore) -> list[str]:
    return [r[0] for r in store.db.execute("select key from inbox order by seq").fetchall()]


def test_appended_entries_reach_the_inbox_in_order_and_the_journal_empties(store):
    journal = Journal(store.path)
    assert journal.path == journal_path(store.path) and journal.path.name == "test.db.inbox-journal"
    for k in ("a", "b", "c"):
        journal.append(entry(k))
    assert journal.pending()
    drained = journal.drain(store)
    assert (drained.read, drained.new, drained.skipped) == (3, 3, 0)
    assert inbox_keys(store) == ["a", "b", "c"]
    assert store.inbox_item("T1", "a").entry == entry("a")  # the payload as given, non-ASCII too
    assert not journal.pending()
    assert journal.drain(store).read == 0
    journal.append(entry("d"))
    assert journal.drain(store).new == 1 and inbox_keys(store) == ["a", "b", "c", "d"]


def test_a_drain_that_crashed_after_its_put_is_replayed_harmlessly(store, monkeypatch):
    journal = Journal(store.path)
    journal.append(entry("a"))
    journal.append(entry("b"))
    real = type(journal.draining).unlink

    def crash(path, *args, **kwargs):
        raise KeyboardInterrupt  # the process dies between the put and the deletion

    monkeypatch.setattr(type(journal.draining), "unlink", crash)
    try:
        journal.drain(store)
    except KeyboardInterrupt:
        pass
    monkeypatch.setattr(type(journal.draining), "unlink", real)
    journal.append(entry("c"))
    drained = journal.drain(store)
    assert (drained.read, drained.new) == (3, 1)  # a and b again, ignored; c new
    assert inbox_keys(store) == ["a", "b", "c"]
    assert not journal.pending()


def test_a_drain_the_database_refuses_keeps_every_entry_for_the_next(store):
    journal = Journal(store.path)
    journal.append(entry("a"))

    class Refusing:
        def inbox_put(self, entries, hold=None):
            raise RuntimeError("database is locked")

    try:
        journal.drain(Refusing())
    except RuntimeError:
        pass
    journal.append(entry("b"))
    assert journal.drain(store).new == 2 and inbox_keys(store) == ["a", "b"]


def test_a_torn_line_is_skipped_and_the_lines_around_it_are_kept(store):
    journal = Journal(store.path)
    journal.append(entry("a"))
    with open(journal.path, "ab") as f:
        f.write(encode(entry("torn"))[:25])  # a crash mid-write: never acknowledged
    journal.append(entry("b"))
    drained = journal.drain(store)
    assert (drained.read, drained.new, drained.skipped) == (2, 2, 1)
    assert inbox_keys(store) == ["a", "b"]


def test_a_line_is_one_whole_entry_or_nothing():
    assert decode(encode(entry("a")).strip()) == entry("a")
    assert decode(b'{"ws": "T1"}') is None
    assert decode(b"[1, 2]") is None
    assert decode(encode(entry("a")).strip().replace(b'"command"', b'"poke"')) is None
    assert decode(b'{"ws": "T1", "key": "\xff') is None


def _append_many(database: str, prefix: str, n: int) -> None:
    journal = Journal(database)
    for i in range(n):
        journal.append(entry(f"{prefix}-{i}", subject=prefix))


def test_two_processes_and_a_drain_at_once_lose_nothing(store):
    context = multiprocessing.get_context("spawn")
    n = 150
    workers = [context.Process(target=_append_many, args=(store.path, p, n)) for p in ("p1", "p2")]
    for w in workers:
        w.start()
    journal = Journal(store.path)
    threads = [threading.Thread(target=_append_many, args=(store.path, t, n)) for t in ("t1", "t2")]
    for t in threads:
        t.start()
    while any(w.is_alive() for w in workers) or any(t.is_alive() for t in threads):
        journal.drain(store)  # drains while they append
        time.sleep(0.01)  # the processes and threads get on with their appends
    for w in workers:
        w.join(30)
        assert w.exitcode == 0
    journal.drain(store)
    keys = inbox_keys(store)
    assert sorted(keys) == sorted(f"{p}-{i}" for p in ("p1", "p2", "t1", "t2") for i in range(n))
    for p in ("p1", "p2", "t1", "t2"):  # each sender's entries in the order it wrote them
        assert [k for k in keys if k.startswith(p + "-")] == [f"{p}-{i}" for i in range(n)]


def _append_and_ack(database: str, acks) -> None:
    journal = Journal(database)
    for i in range(100_000):
        journal.append(entry(f"k-{i}"))
        acks.send(i)  # the ack goes only once the entry is written down


def test_every_entry_acknowledged_before_a_kill_9_reaches_the_inbox(store):
    context = multiprocessing.get_context("spawn")
    ours, theirs = context.Pipe(duplex=False)
    writer = context.Process(target=_append_and_ack, args=(store.path, theirs))
    writer.start()
    acked = -1
    while acked < 150:
        assert ours.poll(30)
        acked = ours.recv()
    os.kill(writer.pid, signal.SIGKILL)  # mid-append, most likely
    writer.join(10)
    while ours.poll(0):
        acked = ours.recv()
    Journal(store.path).drain(store)
    kept = set(inbox_keys(store))
    assert {f"k-{i}" for i in range(acked + 1)} <= kept


def test_an_append_completes_while_another_connection_holds_the_write_lock(store, capsys):
    journal = Journal(store.path)
    holder = sqlite3.connect(store.path, check_same_thread=False)
    holder.execute("BEGIN IMMEDIATE")
    try:
        journal.append(entry("before"))
        draining = threading.Thread(target=journal.drain, args=(store,), daemon=True)
        draining.start()  # waits on the lock to put "before"
        time.sleep(0.2)  # the drain's thread gets to that wait (nothing shows it from outside)
        started = time.perf_counter()
        journal.append(entry("during"))
        took = time.perf_counter() - started
        assert draining.is_alive()  # the lock is still held, and the append came back
        with capsys.disabled():
            print(f"\n  journal append while the write lock is held: {took * 1000:.1f} ms")
    finally:
        holder.rollback()
        holder.close()
    draining.join(30)
    journal.drain(store)
    assert inbox_keys(store) == ["before", "during"]
