"""``storage.backup``: a consistent copy of a SQLite database while it is written to; PostgreSQL refused
with the pg_dump recipe."""

from __future__ import annotations

import sqlite3
import threading

import pytest

from storage import Paper, SqliteStore, open_store
from storage.backup import BackupRefused, backup_sqlite
from tests.storage.conftest import dispose


def paper(i: int) -> Paper:
    return Paper(id=f"p{i}", title=f"Paper {i}", abstract=f"Abstract number {i} about graph neural networks.")


def integrity(path) -> list[str]:
    conn = sqlite3.connect(path)
    try:
        return [row[0] for row in conn.execute("pragma integrity_check")]
    finally:
        conn.close()


def test_a_copy_made_while_another_thread_writes_is_whole_and_holds_the_rows(tmp_path):
    source = tmp_path / "live.db"
    store = SqliteStore(source)
    store.upsert_papers([paper(i) for i in range(200)])
    stop, written = threading.Event(), [0]

    def write() -> None:
        writer = SqliteStore(source)  # a connection of its own, as the bot's would be
        i = 1000
        while not stop.is_set():
            writer.upsert_papers([paper(i)])
            written[0] += 1
            i += 1
        writer.close()

    thread = threading.Thread(target=write)
    thread.start()
    try:
        while written[0] < 3:  # the writer is under way before the copy starts
            threading.Event().wait(0.01)
        result = backup_sqlite(source, tmp_path / "copy.db", step_pages=1, restarts=2)
    finally:
        stop.set()
        thread.join()
    assert integrity(tmp_path / "copy.db") == ["ok"]
    copy = SqliteStore(tmp_path / "copy.db")
    assert copy.count_papers() >= 203  # every paper stored before the copy began, and maybe more
    assert copy.get_paper("p7").title == "Paper 7"
    assert result.size == (tmp_path / "copy.db").stat().st_size
    assert not [p for p in tmp_path.iterdir() if ".partial" in p.name]
    copy.close()
    store.close()


def test_an_existing_target_is_refused_unless_forced(tmp_path):
    source = tmp_path / "a.db"
    SqliteStore(source).upsert_papers([paper(1)])
    target = tmp_path / "b.db"
    target.write_text("keep me")
    with pytest.raises(BackupRefused, match="exists already"):
        backup_sqlite(source, target)
    assert target.read_text() == "keep me"
    backup_sqlite(source, target, force=True)
    assert SqliteStore(target).count_papers() == 1


def test_a_missing_source_or_the_source_itself_as_target_is_refused(tmp_path):
    with pytest.raises(BackupRefused, match="no SQLite database"):
        backup_sqlite(tmp_path / "missing.db", tmp_path / "b.db")
    SqliteStore(tmp_path / "a.db").close()
    with pytest.raises(BackupRefused):
        backup_sqlite(tmp_path / "a.db", tmp_path / "a.db", force=True)


def test_each_backend_either_backs_up_or_gives_the_pg_dump_recipe(store_target, backend, tmp_path):
    store = open_store(store_target)
    store.upsert_papers([paper(1), paper(2)])
    dispose(store)
    if backend == "postgres":
        with pytest.raises(BackupRefused, match="pg_dump -Fc") as refused:
            backup_sqlite(store_target, tmp_path / "copy.db")
        assert "pg_restore" in str(refused.value)
        assert not (tmp_path / "copy.db").exists()
        return
    backup_sqlite(store_target, tmp_path / "copy.db")
    copy = open_store(str(tmp_path / "copy.db"))
    assert copy.count_papers() == 2
    dispose(copy)


def test_a_copy_restarted_by_a_write_between_every_step_still_finishes(tmp_path):
    source = tmp_path / "busy.db"
    store = SqliteStore(source)
    store.upsert_papers([paper(i) for i in range(100)])
    writer = SqliteStore(source)
    added = iter(range(1000, 2000))

    def write_between_steps(_done: int, _total: int) -> None:
        writer.upsert_papers([paper(next(added))])  # another connection: SQLite restarts the copy

    result = backup_sqlite(source, tmp_path / "copy.db", step_pages=1, restarts=3,
                           progress=write_between_steps)
    assert result.restarts >= 3
    assert integrity(tmp_path / "copy.db") == ["ok"]
    assert SqliteStore(tmp_path / "copy.db").count_papers() >= 100
    writer.close()
    store.close()
