"""The SQLite store: what only SQLite does (connections, the write lock, the paper feed, claims, copying
in and out); the statements both stores share are its mixins' (:mod:`storage.dialect`).

One connection per thread (sqlite3 objects must stay on the thread that made them); WAL so that
the bot, the scheduler and a `paperbot` command can read and write the same file at once.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import threading
from collections.abc import Iterable, Iterator
from contextlib import AbstractContextManager
from datetime import UTC, datetime, timedelta
from pathlib import Path

from sqlite_utils import Database

from storage import leases, merging, workspaces
from storage.activity import Activities
from storage.alerts import Alerts
from storage.artifacts import Artifacts
from storage.arxiv_cursors import ArxivCursors
from storage.channel_settings import ChannelSettings
from storage.conference import Conference
from storage.dialect import SqliteDialect
from storage.digests import Digests
from storage.errors import StorageError, StoreBusy, translated
from storage.fulltext import FullText
from storage.inbox import Inbox
from storage.library_imports import LibraryImports
from storage.migrations import migrations
from storage.models import Paper, UpsertCounts
from storage.moments import iso_utc
from storage.paper_events import EventDetector, Followups
from storage.paper_vectors import PaperVectorStore
from storage.papers import Papers
from storage.people import People
from storage.person_holds import holds_of
from storage.polls import Polls
from storage.preferences import Preferences
from storage.recaps import Recaps
from storage.records import paper_row, utcnow
from storage.saved import SavedPapers
from storage.shares import Shares
from storage.snapshot import Snapshots
from storage.store import Store
from storage.suggestions import Suggestions
from storage.summaries import Summaries
from storage.tables import PERSONAL_TABLES, columns, copied_rows_insert, order_by
from storage.watches import Watches
from storage.workspaces import Workspaces

#: How long a write waits for another to finish before giving up (StoreBusy). Long enough to outlast a
#: slow writer elsewhere (a big ingest, a backup); the bot never makes Slack wait on it (it works after
#: the ack).
BUSY_SECONDS = 90


class SqliteStore(Papers, FullText, People, Preferences, Digests, ChannelSettings, PaperVectorStore,
                  SavedPapers, Followups, Suggestions, Artifacts, Workspaces, Snapshots, Inbox, Polls,
                  LibraryImports, Alerts, ArxivCursors, Summaries, Activities, Shares, Recaps,
                  Conference, Watches,
                  Store):
    """Papers, people, topics, feedback, what was shown, digests and saved models in one SQLite file.

    The file may serve many Slack workspaces: :meth:`for_workspace` gives the view of one, whose
    person-level methods read and write only that workspace's rows. The store opened here is the view
    of workspace "" (rows not assigned to one yet). Papers, saved models, jobs, installations and OAuth
    states are shared by every view."""

    def __init__(self, path: str | Path):
        self.path = str(path)
        self._ws = ""
        self._local = threading.local()
        self._writer = threading.Lock()
        self._sql = SqliteDialect(lambda: self.db, self.transaction)
        with translated(self.path):
            migrations.apply(self.db)

    @property
    def local_file(self) -> str | None:
        return None if self.path == ":memory:" or self.path.startswith("file:") else self.path

    # -- connections and transactions ------------------------------------------------------------

    @property
    def db(self) -> Database:
        """This thread's connection, opened on first use."""
        db = getattr(self._local, "db", None)
        if db is None:
            # A missing folder fails here, a file that is not a database at its first statement.
            with translated(self.path):
                conn = sqlite3.connect(self.path, timeout=BUSY_SECONDS)
                try:
                    db = Database(conn)
                    if self.path != ":memory:":
                        db.enable_wal()
                    db.execute(f"PRAGMA busy_timeout = {int(BUSY_SECONDS * 1000)}")
                    db.execute("PRAGMA synchronous = NORMAL")
                    db.execute("PRAGMA secure_delete = ON")  # forgotten people leave no bytes in free pages
                except BaseException:
                    conn.close()
                    raise
            self._local.db = db
        return db

    def waiting_at_most(self, seconds: float) -> AbstractContextManager[None]:
        return contextlib.nullcontext()  # no pool to wait for: the journal takes what must be soon

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        # Group one use case's writes. Outermost level takes the write lock at once (BEGIN IMMEDIATE), so two
        # processes never deadlock upgrading read locks; nested levels are savepoints. Threads of one process
        # queue on a lock of their own first: SQLite's busy handler would have them sleep and poll for
        # milliseconds to wait out a transaction that takes a fraction of one.
        db = self.db
        if db.conn.in_transaction:
            with db.atomic():
                yield
            return
        if not self._writer.acquire(timeout=BUSY_SECONDS):  # as long as SQLite itself would wait
            raise StoreBusy(f"{self.path} is busy: another thread has held its write lock too long")
        try:
            with translated(self.path):
                db.execute("BEGIN IMMEDIATE")
                try:
                    yield
                except BaseException:
                    db.rollback()
                    raise
                db.execute("COMMIT")
        finally:
            self._writer.release()

    def close(self) -> None:
        # Close this thread's connection.
        db = getattr(self._local, "db", None)
        if db is not None:
            db.close()
            self._local.db = None

    def dispose(self) -> None:
        # A SQLite store holds nothing beyond each thread's connection: this thread's is what there is
        # to close here (another thread's closes with it).
        self.close()

    @contextlib.contextmanager
    def hold_person(self, user_id: str) -> Iterator[None]:
        # Hold off every other process's ``hold_person`` for this person until the block ends (work spanning
        # many transactions and Slack calls: a delivery): the bot beside `paperbot digest` from cron, or a
        # run's digest helpers. A byte of a lock file beside the database (:mod:`storage.person_holds`).
        if self.local_file is None:  # in memory: one process only
            yield
            return
        with holds_of(self.local_file).hold(f"{self._ws}\x00{user_id}"):
            yield

    def lock_person(self, user_id: str) -> None:
        # Serialise this transaction with every other that locks the same person, in any process, until it
        # ends (call it first inside :meth:`transaction`). Here the write transaction (BEGIN IMMEDIATE)
        # already excludes every other writer, so there is nothing more to take.
        pass

    # -- papers ----------------------------------------------------------------------------------

    def upsert_papers(self, papers: Iterable[Paper], events: EventDetector | None = None) -> UpsertCounts:
        with self.transaction():  # the write lock: paper writers queue, reading and writing are one step
            counts, _ = merging.upsert(self._sql, map(paper_row, papers), utcnow(), self.max_paper_seq(),
                                           events)
        return counts

    def max_paper_seq(self) -> int:
        return int(self._sql.all("select coalesce(max(seq), 0) from papers")[0][0])

    # -- daily digests: what takes SQLite a transaction ------------------------------------------

    def record_posted(self, user_id: str, local_date: str, owner: str, paper_id: str, reason: str,
                      channel: str | None, message_ts: str | None, lease_until: str,
                      finished_at: str | None = None) -> bool:
        step = leases.paper_posted((user_id, local_date), self._ws, owner, lease_until, finished_at)
        with self.transaction():
            if not self._sql.write(*step):
                return False
            self.mark_shown(user_id, paper_id, reason, channel, message_ts)
        return True

    def record_digest_failure(self, user_id: str, local_date: str, owner: str, paper_id: str) -> int:
        with self.transaction():  # a read, then a write: exclusive here (one statement on PostgreSQL)
            record = self.get_digest(user_id, local_date)
            if record is None:
                return 0
            failures = {**record.failures, paper_id: record.failures.get(paper_id, 0) + 1}
            self._digest_update(user_id, local_date, owner, "failures = ?", [json.dumps(failures)])
        return failures[paper_id]

    # -- saved models ----------------------------------------------------------------------------

    def load_artifact(self, name: str) -> tuple[int, bytes | None] | None:
        # ``data`` is whatever the row holds, as bytes (text as its UTF-8, a number as its digits), or None
        # for NULL: judging whether it is usable is the caller's business.
        row = self._sql.one("select coalesce(cast(version as integer), 0), data from artifacts"
                            " where name = ?", [name])
        if row is None:
            return None
        version, data = row
        if data is None or isinstance(data, bytes):
            return int(version), data
        return int(version), str(data).encode()

    # -- forgetting ------------------------------------------------------------------------------

    def scrub_log(self) -> None:
        # Fold the write-ahead log into the file and truncate it (waiting for readers, up to the busy
        # timeout), so rows deleted before now survive in neither; deleted content is overwritten in the
        # file already (``secure_delete``).
        if self.path != ":memory:":
            with translated(self.path):
                self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def _adopt(self, ws: str) -> int:
        # The write lock makes two adoptions at once one after the other.
        moved = 0
        with self.transaction():
            for table in workspaces.MOVED_TABLES:
                self._sql.run(workspaces.copy_into(table, table, "ws = ''", order_by("sqlite", table)), [ws])
                # Table names come from storage.workspaces, never from input.
                moved += self._sql.run(f"delete from {table} where ws = ''")  # noqa: S608
            self._sql.run("delete from feedback_counters where ws = ''")
        return moved

    # -- Slack -----------------------------------------------------------------------------------

    def claim_once(self, key: str, keep: timedelta) -> bool:
        # Not a lease (storage.leases): a key used up, not work held; nothing to renew, give back or finish.
        # Claim ``key`` in this workspace: True the first time, False while an earlier claim of it is kept
        # (``keep`` from now). Expired keys (of every workspace) are dropped on the way.
        now = datetime.now(UTC)
        with self.transaction():
            self._sql.run("delete from once_keys where expires_at < ?", [iso_utc(now)])
            inserted = self._sql.run("insert or ignore into once_keys (ws, key, expires_at) values (?, ?, ?)",
                                     [self._ws, key, iso_utc(now + keep)])
        return inserted > 0

    # -- copying (paperbot db copy) --------------------------------------------------------------

    def export_rows(self, table: str, batch_size: int = 1000) -> Iterator[list[dict]]:
        names = columns(table)
        sql = f"select {', '.join(names)} from {table} order by {order_by('sqlite', table)}"  # noqa: S608
        with translated(self.path):
            cursor = self.db.execute(sql)
            while batch := cursor.fetchmany(batch_size):
                yield [dict(zip(names, row, strict=True)) for row in batch]

    def import_rows(self, table: str, rows: list[dict]) -> int:
        # Add rows exported by another store (of either backend) to ``table``; returns how many. For a copy
        # into an empty database: a row already here is a StorageError. Counters take the copied value; the
        # papers change counter is SQLite's own (the newest ``seq``), so it is left out.
        names = columns(table)
        sql = copied_rows_insert(table)
        if table == "counters":
            rows = [r for r in rows if r["name"] != "papers"]
        try:
            with self.transaction():
                self.db.conn.executemany(sql, [tuple(r[n] for n in names) for r in rows])
        except sqlite3.IntegrityError as exc:
            raise StorageError(f"{self.path}: rows of {table} could not be copied ({exc})") from exc
        return len(rows)


__all__ = ["BUSY_SECONDS", "PERSONAL_TABLES", "SqliteStore", "utcnow"]
