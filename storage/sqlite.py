"""The SQLite store: every SQL statement paperbot runs lives here.

One connection per thread (sqlite3 objects must stay on the thread that made them); WAL so that
the bot, the scheduler and a `paperbot` command can read and write the same file at once.
"""

from __future__ import annotations

import contextlib
import copy
import json
import sqlite3
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Self

from sqlite_utils import Database

from storage import identity, leases, merging, saved, workspaces
from storage.channel_settings import ChannelSettings
from storage.digest_marks import DigestMarks
from storage.errors import StorageError, StoreBusy, translated
from storage.migrations import migrations
from storage.models import (
    DigestRecord,
    Feedback,
    JobRecord,
    Paper,
    Person,
    SavedPaper,
    UpsertCounts,
    WorkspaceSummary,
)
from storage.paper_vectors import PaperVectorStore
from storage.preferences import Preferences
from storage.snapshot import Snapshots
from storage.store import Store
from storage.tables import COPIED_TABLES, columns, order_by


def utcnow() -> str:
    """Now, as the ISO UTC text every timestamp column holds."""
    return datetime.now(UTC).isoformat(timespec="seconds")


#: How long a write waits for another to finish before giving up (StoreBusy). Long enough to outlast a
#: slow writer elsewhere (a big ingest, a backup); the bot never makes Slack wait on it (it works after
#: the ack).
BUSY_SECONDS = 90


class SqliteStore(Preferences, Snapshots, DigestMarks, ChannelSettings, PaperVectorStore, Store):
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
        with translated(self.path):
            migrations.apply(self.db)

    # -- workspaces ------------------------------------------------------------------------------

    @property
    def workspace(self) -> str:
        return self._ws

    def for_workspace(self, ws: str) -> Self:
        # The view of workspace ``ws`` (a team id, or the enterprise id of an org install): the same file,
        # thread connections, write lock and open transaction, nothing opened anew.
        if not isinstance(ws, str):
            raise TypeError(f"a workspace key is a string, not {type(ws).__name__}")
        view = copy.copy(self)
        view._ws = ws
        return view

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

    def _pref_rows(self, sql: str, args: list) -> list[tuple]:
        return self.db.execute(sql, args).fetchall()

    def _pref_run(self, sql: str, args: list) -> int:
        return self.db.execute(sql, args).rowcount

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

    # -- papers ----------------------------------------------------------------------------------

    def upsert_papers(self, papers: Iterable[Paper]) -> UpsertCounts:
        with self.transaction():  # the write lock: paper writers queue, reading and writing are one step
            counts, _ = merging.upsert(merging.Connection(self.db.execute), map(_paper_row, papers), utcnow(),
                                       self.max_paper_seq())
        return counts

    def max_paper_seq(self) -> int:
        row = self.db.execute("select coalesce(max(seq), 0) from papers").fetchone()
        return int(row[0])

    def count_papers(self) -> int:
        return self.db["papers"].count

    def get_papers(self, ids: Iterable[str]) -> dict[str, Paper]:
        ids = list(dict.fromkeys(ids))
        found: dict[str, Paper] = {}
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            marks = ",".join("?" * len(chunk))
            # Only placeholders are interpolated.
            for row in self.db.query(f"select * from papers where id in ({marks})", chunk):  # noqa: S608
                found[row["id"]] = _paper_from_row(row)
            missing = [pid for pid in chunk if pid not in found]
            if missing:
                marks = ",".join("?" * len(missing))
                sql = ("select a.alias, p.* from paper_aliases a join papers p on p.id = a.paper_id"  # noqa: S608
                       f" where a.alias in ({marks})")
                for row in self.db.query(sql, missing):
                    found[row["alias"]] = _paper_from_row(row)
        return found

    def get_paper(self, paper_id: str) -> Paper | None:
        return self.get_papers([paper_id]).get(paper_id)

    def find_paper_by_arxiv_id(self, arxiv_id: str) -> Paper | None:
        rows = list(self.db.query("select * from papers where arxiv_id = ?", [arxiv_id]))
        return _paper_from_row(rows[0]) if rows else self.get_paper(f"arxiv:{arxiv_id}")

    def find_paper_by_url(self, url: str) -> Paper | None:
        rows = list(self.db.query("select * from papers where url = ? limit 1", [url]))
        if rows:
            return _paper_from_row(rows[0])
        alias = self.db.execute(merging.FIND_ALIAS_BY_URL, [url]).fetchone()
        return self.get_paper(alias[0]) if alias else None

    def find_paper_by_doi(self, doi: str) -> Paper | None:
        key = identity.normal_doi(doi)
        rows = list(self.db.query("select * from papers where doi = ? order by added_at, id limit 1", [key]))
        return _paper_from_row(rows[0]) if rows else None

    def papers_merged_since(self, seq: int) -> list[str]:
        return [r[0] for r in self.db.execute(merging.MERGED_SINCE, [seq])]

    def papers_changed_since(self, seq: int) -> Iterator[tuple[int, Paper]]:
        for row in self.db.query("select * from papers where seq > ? order by seq", [seq]):
            yield row["seq"], _paper_from_row(row)

    def paper_dates(self) -> dict[str, str | None]:
        return {
            row["id"]: row["d"]
            for row in self.db.query("select id, coalesce(published, substr(added_at, 1, 10)) d from papers")
        }

    # -- people and topics -----------------------------------------------------------------------

    def get_person(self, user_id: str) -> Person | None:
        rows = list(self.db.query("select * from people where ws = ? and user_id = ?", [self._ws, user_id]))
        if not rows:
            return None
        return _person_from_row(rows[0])

    def ensure_person(self, user_id: str) -> Person:
        self.db.execute("insert into people (ws, user_id, digest_enabled, created_at) values (?, ?, 0, ?)"
                        " on conflict do nothing", [self._ws, user_id, utcnow()])
        return self.get_person(user_id)

    def list_people(self) -> list[Person]:
        rows = self.db.query("select * from people where ws = ? order by user_id", [self._ws])
        return [_person_from_row(r) for r in rows]

    def set_digest_schedule(self, user_id: str, digest_time: str | None, enabled: bool,
                            since: str | None = None) -> None:
        self.ensure_person(user_id)
        self.db.execute("update people set digest_time = ?, digest_enabled = ?, digest_since = ?"
                        " where ws = ? and user_id = ?",
                        [digest_time, int(enabled), since or utcnow(), self._ws, user_id])

    def set_timezone(self, user_id: str, tz: str | None) -> None:
        self.ensure_person(user_id)
        self.db.execute("update people set tz = ? where ws = ? and user_id = ?", [tz, self._ws, user_id])

    def get_topics(self, user_id: str) -> list[str]:
        rows = self.db.query("select topic from topics where ws = ? and user_id = ? order by added_at, rowid",
                             [self._ws, user_id])
        return [r["topic"] for r in rows]

    def add_topics(self, user_id: str, topics: Iterable[str]) -> list[str]:
        known = {t.casefold() for t in self.get_topics(user_id)}
        added = []
        now = utcnow()
        for topic in topics:
            if topic.casefold() in known:
                continue
            known.add(topic.casefold())
            # The unique index on (ws, user_id, lower(topic)) (m008, m009) has the last word.
            if self.db.execute("insert into topics (ws, user_id, topic, added_at) values (?, ?, ?, ?)"
                               " on conflict do nothing", [self._ws, user_id, topic, now]).rowcount:
                added.append(topic)
        return added

    @contextlib.contextmanager
    def hold_person(self, user_id: str) -> Iterator[None]:
        # Hold off every other process's ``hold_person`` for this person until the block ends (work spanning
        # many transactions and Slack calls: a delivery). A SQLite file serves one bot process, whose own
        # threads :class:`bot.slack.runtime.UserLocks` serialises; nothing to take here.
        yield

    def lock_person(self, user_id: str) -> None:
        # Serialise this transaction with every other that locks the same person, in any process, until it
        # ends (call it first inside :meth:`transaction`). Here the write transaction (BEGIN IMMEDIATE)
        # already excludes every other writer, so there is nothing more to take.
        pass

    def remove_topic(self, user_id: str, topic: str) -> list[str]:
        gone = [t for t in self.get_topics(user_id) if t.casefold() == topic.casefold()]
        for t in gone:
            self.db.execute("delete from topics where ws = ? and user_id = ? and topic = ?",
                            [self._ws, user_id, t])
        return gone

    def remove_all_topics(self, user_id: str) -> int:
        return self.db.execute("delete from topics where ws = ? and user_id = ?",
                               [self._ws, user_id]).rowcount

    # -- feedback --------------------------------------------------------------------------------

    def set_feedback(self, user_id: str, paper_id: str, value: int) -> None:
        # An id merged into another paper counts for that paper.
        self.db.execute("insert into feedback (ws, user_id, paper_id, value, created_at)"  # noqa: S608
                        f" values (?, ?, {merging.RESOLVED}, ?, ?)"
                        " on conflict (ws, user_id, paper_id) do update set value = excluded.value,"
                        " created_at = excluded.created_at",
                        [self._ws, user_id, paper_id, paper_id, value, utcnow()])

    def remove_feedback(self, user_id: str, paper_id: str, value: int | None = None) -> bool:
        sql = f"delete from feedback where ws = ? and user_id = ? and paper_id = {merging.RESOLVED}"  # noqa: S608
        args = [self._ws, user_id, paper_id, paper_id]
        if value is not None:
            sql, args = sql + " and value = ?", args + [value]
        return self.db.execute(sql, args).rowcount > 0

    def likes_by_person(self) -> list[list[str]]:
        likes: dict[str, list[str]] = {}
        for row in self.db.query("select user_id, paper_id from feedback where ws = ? and value > 0"
                                 " order by user_id, rowid", [self._ws]):
            likes.setdefault(row["user_id"], []).append(row["paper_id"])
        return list(likes.values())

    def feedback_version(self) -> int:
        # A number that changes whenever anyone's feedback in this workspace changes (a trigger counts every
        # write in the workspace's own counter).
        row = self.db.execute("select value from feedback_counters where ws = ?", [self._ws]).fetchone()
        return row[0] if row else 0

    def get_feedback(self, user_id: str) -> list[Feedback]:
        rows = self.db.query("select paper_id, value, created_at from feedback where ws = ? and user_id = ?"
                             " order by created_at, rowid", [self._ws, user_id])
        return [Feedback(r["paper_id"], r["value"], r["created_at"]) for r in rows]

    # -- what was shown --------------------------------------------------------------------------

    def mark_shown(self, user_id: str, paper_id: str, reason: str = "", channel: str | None = None,
                   message_ts: str | None = None) -> None:
        # Plain SQL: a digest run calls this for every message it posts.
        self.db.execute(
            "insert into shown (ws, user_id, paper_id, shown_at, reason, channel, message_ts)"  # noqa: S608
            f" values (?, ?, {merging.RESOLVED}, ?, ?, ?, ?)"
            " on conflict (ws, user_id, paper_id) do update set shown_at = excluded.shown_at,"
            " reason = excluded.reason, channel = excluded.channel, message_ts = excluded.message_ts",
            [self._ws, user_id, paper_id, paper_id, utcnow(), reason, channel, message_ts])

    def shown_paper_ids(self, user_id: str) -> set[str]:
        rows = self.db.query("select paper_id from shown where ws = ? and user_id = ?", [self._ws, user_id])
        return {r["paper_id"] for r in rows}

    def paper_for_message(self, channel: str, message_ts: str) -> tuple[str, str] | None:
        rows = list(self.db.query("select user_id, paper_id from shown where ws = ? and channel = ?"
                                  " and message_ts = ?", [self._ws, channel, message_ts]))
        return (rows[0]["user_id"], rows[0]["paper_id"]) if rows else None

    def shown_reason(self, user_id: str, paper_id: str) -> str | None:
        row = self.db.execute("select reason from shown where ws = ? and user_id = ? and paper_id = ?",
                              [self._ws, user_id, paper_id]).fetchone()
        return row[0] if row else None

    # -- the reading list ------------------------------------------------------------------------

    def save_paper(self, user_id: str, paper_id: str, like_from_save: bool = False) -> bool:
        # Put a paper on a person's reading list; ``like_from_save``: the like it comes with was made by this
        # save. True if it was not there yet (a second save changes nothing).
        return self.db.execute(saved.SAVE, [self._ws, user_id, paper_id, saved.saved_now(),
                                            int(like_from_save)]).rowcount > 0

    def unsave_paper(self, user_id: str, paper_id: str) -> bool | None:
        # In a transaction of its own (sqlite3 leaves one open after a RETURNING statement), every row
        # read (an unfinished RETURNING statement keeps the table locked).
        with self.transaction():
            rows = self.db.execute(saved.UNSAVE, [self._ws, user_id, paper_id]).fetchall()
        return bool(rows[0][0]) if rows else None

    def keep_saved_like(self, user_id: str, paper_id: str) -> None:
        self.db.execute(saved.KEEP_LIKE, [self._ws, user_id, paper_id])

    def saved_papers(self, user_id: str) -> list[SavedPaper]:
        return [SavedPaper(r[0], r[1]) for r in self.db.execute(saved.LIST, [self._ws, user_id])]

    def saved_paper_ids(self, user_id: str) -> set[str]:
        return {r[0] for r in self.db.execute(saved.IDS, [self._ws, user_id])}

    def person_rows(self, user_id: str) -> dict[str, list[dict]]:
        found = {}
        for table in PERSONAL_TABLES:
            sql, names = saved.rows_of_person("sqlite", table)
            found[table] = [dict(zip(names, row, strict=True))
                            for row in self.db.execute(sql, [self._ws, user_id])]
        return found

    # -- saved models ----------------------------------------------------------------------------

    def save_artifact(self, name: str, data: bytes) -> int:
        # Store a named blob (a fitted model); returns its new version number.
        with self.transaction():
            version = self.artifact_version(name) + 1
            self.db["artifacts"].upsert(
                {"name": name, "version": version, "created_at": utcnow(), "data": data}, pk="name")
        return version

    def artifact_version(self, name: str) -> int:
        # A damaged version (NULL, text) reads as 0: older than any model saved after it.
        row = self.db.execute("select coalesce(cast(version as integer), 0) from artifacts where name = ?",
                              [name]).fetchone()
        return int(row[0]) if row else 0

    def load_artifact(self, name: str) -> tuple[int, bytes | None] | None:
        # (version, data) of a named blob, or None when there is none. ``data`` is whatever the row holds, as
        # bytes (text as its UTF-8, a number as its digits), or None for NULL: judging whether it is usable is
        # the caller's business.
        row = self.db.execute("select coalesce(cast(version as integer), 0), data from artifacts"
                              " where name = ?", [name]).fetchone()
        if row is None:
            return None
        version, data = row
        if data is None or isinstance(data, bytes):
            return int(version), data
        return int(version), str(data).encode()

    # -- forgetting ------------------------------------------------------------------------------

    def forget_person(self, user_id: str) -> dict[str, int]:
        # Delete every row about a person from every table; returns rows deleted per table.
        # Deleted content is overwritten in the file (``secure_delete``), and the write-ahead log, which still
        # holds the old pages, is folded into the file and emptied, so nothing of the person lingers.
        deleted = {}
        with self.transaction():
            for table in PERSONAL_TABLES:
                # Table names come from PERSONAL_TABLES, never from input.
                sql = f"delete from {table} where ws = ? and user_id = ?"  # noqa: S608
                deleted[table] = self.db.execute(sql, [self._ws, user_id]).rowcount
        self.scrub_log()
        return deleted

    def scrub_log(self) -> None:
        # Fold the write-ahead log into the file and truncate it (waiting for readers, up to the busy
        # timeout), so rows deleted before now survive in neither.
        if self.path != ":memory:":
            with translated(self.path):
                self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def rows_about(self, user_id: str) -> dict[str, int]:
        return {t: self.db.execute(f"select count(*) from {t} where ws = ? and user_id = ?",  # noqa: S608
                                   [self._ws, user_id]).fetchone()[0]
                for t in PERSONAL_TABLES}

    # -- whole workspaces ------------------------------------------------------------------------

    def adopt_workspace(self, ws: str) -> int:
        # Move every row of workspace "" (a database from before workspaces) into ``ws``, in one transaction;
        # returns how many rows moved (0 the second time). Where ``ws`` has a row with the same key already,
        # its own is kept, a person's taking from the old what it lacks (:mod:`storage.workspaces`). The write
        # lock makes two adoptions at once one after the other.
        if ws == "":
            return 0  # already there (moving "" into itself would only delete it)
        moved = 0
        with self.transaction():
            for table in workspaces.MOVED_TABLES:
                insert = workspaces.copy_into(table, table, "ws = ''", order_by("sqlite", table))
                self.db.execute(insert, [ws])
                # Table names come from storage.workspaces, never from input.
                moved += self.db.execute(f"delete from {table} where ws = ''").rowcount  # noqa: S608
            self.db.execute("delete from feedback_counters where ws = ''")
        return moved

    def delete_workspace(self, ws: str) -> dict[str, int]:
        # Delete every row of workspace ``ws`` from every table holding workspace rows, its installations
        # included; returns rows deleted per table. Like :meth:`forget_person`, nothing of it is left in the
        # file or its log.
        deleted = {}
        with self.transaction():
            for table in workspaces.DELETED_TABLES:
                # Table names come from storage.workspaces, never from input.
                deleted[table] = self.db.execute(f"delete from {table} where ws = ?", [ws]).rowcount  # noqa: S608
        self.scrub_log()
        return deleted

    def workspaces(self) -> list[WorkspaceSummary]:
        with self.transaction():
            found = workspaces.summaries(self.db.execute(workspaces.INSTALLATION_ROWS).fetchall(),
                                         self.db.execute(workspaces.PEOPLE_COUNTS).fetchall(),
                                         self.db.execute(workspaces.LAST_DIGESTS).fetchall())
        return found

    # -- installations and OAuth states (shared) -------------------------------------------------

    def save_installation(self, ws: str, enterprise_id: str | None, team_id: str | None, user_id: str,
                          is_enterprise_install: bool, data: str, at: str) -> None:
        with self.transaction():
            self.db.execute(workspaces.SAVE_INSTALLATION, [ws, user_id or "", enterprise_id, team_id,
                                                           int(bool(is_enterprise_install)), data, at])

    def find_installation(self, ws: str, user_id: str | None = None) -> str | None:
        if user_id is None:
            row = self.db.execute(workspaces.FIND_LATEST_INSTALLATION, [ws]).fetchone()
        else:
            row = self.db.execute(workspaces.FIND_INSTALLATION, [ws, user_id]).fetchone()
        return row[0] if row else None

    def delete_installations(self, ws: str, user_id: str | None = None) -> int:
        if user_id is None:
            return self.db.execute(workspaces.DELETE_INSTALLATIONS, [ws]).rowcount
        return self.db.execute(workspaces.DELETE_INSTALLATION, [ws, user_id]).rowcount

    def installation_keys(self) -> list[str]:
        return [r[0] for r in self.db.execute(workspaces.INSTALLATION_KEYS)]

    def issue_oauth_state(self, state: str, expires_at: str) -> None:
        self.db.execute(workspaces.ISSUE_STATE, [state, expires_at])

    def consume_oauth_state(self, state: str, now: str) -> bool:
        with self.transaction():
            rows = self.db.execute(workspaces.TAKE_STATE, [state]).fetchall()  # all, or it can't commit
            self.db.execute(workspaces.DROP_EXPIRED_STATES, [now])
        return bool(rows) and rows[0][0] > now

    # -- Slack -----------------------------------------------------------------------------------

    def claim_once(self, key: str, keep: timedelta) -> bool:
        # Claim ``key`` in this workspace: True the first time, False while an earlier claim of it is kept
        # (``keep`` from now). Expired keys (of every workspace) are dropped on the way.
        now = datetime.now(UTC)
        with self.transaction():
            self.db.execute("delete from once_keys where expires_at < ?", [now.isoformat(timespec="seconds")])
            inserted = self.db.execute(
                "insert or ignore into once_keys (ws, key, expires_at) values (?, ?, ?)",
                [self._ws, key, (now + keep).isoformat(timespec="seconds")]).rowcount
        return inserted > 0

    def timezone_checked_at(self, user_id: str) -> str | None:
        row = self.db.execute("select tz_checked_at from people where ws = ? and user_id = ?",
                              [self._ws, user_id]).fetchone()
        return row[0] if row else None

    def record_timezone(self, user_id: str, tz: str | None) -> bool:
        return self.db.execute("update people set tz = ?, tz_checked_at = ? where ws = ? and user_id = ?",
                               [tz, utcnow(), self._ws, user_id]).rowcount > 0


    # -- leases ----------------------------------------------------------------------------------
    # Claimed work (digests, daily jobs, refits): one compare-and-set statement each, see storage.leases.

    def take_lease(self, kind: str, key: Sequence[str], owner: str, until: str, now: str,
                   dead: Iterable[str] = (), early: bool = False,
                   fresh: Mapping[str, object] | None = None) -> str | None:
        lease, key = leases.keyed(kind, key, self._ws)
        with self.transaction():
            if self.db.execute(*leases.take_insert(lease, key, owner, until, fresh)).rowcount > 0:
                return "new"
            sql, args = leases.take_update(lease, key, owner, until, now, dead, early, fresh)
            return "taken" if self.db.execute(sql, args).rowcount > 0 else None

    def renew_lease(self, kind: str, key: Sequence[str], owner: str, until: str) -> bool:
        return self._lease_write(leases.renew(*leases.keyed(kind, key, self._ws), owner, until)) is not None

    def release_lease(self, kind: str, key: Sequence[str], owner: str, retry_at: str, disown: bool = False,
                      count: str | None = None, error: str | None = None) -> int | None:
        statement = leases.release(*leases.keyed(kind, key, self._ws), owner, retry_at, disown, count, error)
        row = self._lease_write(statement)
        return None if row is None else int(row[0] if count else 0)

    def finish_lease(self, kind: str, key: Sequence[str], owner: str, status: str, at: str,
                     error: str | None = None, again_at: str | None = None) -> bool:
        statement = leases.finish(*leases.keyed(kind, key, self._ws), owner, status, at, error, again_at)
        return self._lease_write(statement) is not None

    def _lease_write(self, statement: leases.Statement) -> tuple | None:
        """Run an owner's compare-and-set; its first returned row, or None when nothing matched."""
        sql, args = statement
        with self.transaction():
            cursor = self.db.execute(sql, args)
            if cursor.description is None:
                return (1,) if cursor.rowcount > 0 else None
            rows = cursor.fetchall()  # all of them, or SQLite can't commit the statement
        return tuple(rows[0]) if rows else None

    # -- daily digests ---------------------------------------------------------------------------
    # A digest row is a lease (see above). Every write after the claim names the owner, so a process
    # that lost its claim changes nothing.

    def people_with_digests(self) -> list[Person]:
        rows = self.db.query("select * from people where ws = ? and digest_enabled = 1"
                             " and digest_time is not null order by user_id", [self._ws])
        return [_person_from_row(r) for r in rows]

    def digest_statuses(self, since_date: str) -> dict[tuple[str, str], str]:
        rows = self.db.execute("select user_id, local_date, status from digests where ws = ?"
                               " and local_date >= ?", [self._ws, since_date])
        return {(user, day): status for user, day, status in rows}

    def get_digest(self, user_id: str, local_date: str) -> DigestRecord | None:
        rows = list(self.db.query("select * from digests where ws = ? and user_id = ? and local_date = ?",
                                  [self._ws, user_id, local_date]))
        return _digest_from_row(rows[0]) if rows else None

    def start_digest(self, user_id: str, local_date: str, owner: str, lease_until: str, at: str) -> bool:
        # Claim a day's digest for ``owner`` (status "sending"). True if claimed; False, never an error, when
        # the row exists already (someone else claimed it first), as on PostgreSQL.
        lease, key = leases.keyed(leases.DIGEST, (user_id, local_date), self._ws)
        statement = leases.take_insert(lease, key, owner, lease_until, {"started_at": at})
        return self.db.execute(*statement).rowcount > 0

    def take_over_digest(self, user_id: str, local_date: str, owner: str, lease_until: str) -> None:
        self.db.execute("update digests set owner = ?, lease_until = ? where ws = ? and user_id = ?"
                        " and local_date = ? and status = 'sending'",
                        [owner, lease_until, self._ws, user_id, local_date])

    def renew_digest_lease(self, user_id: str, local_date: str, owner: str, lease_until: str) -> bool:
        return self.renew_lease(leases.DIGEST, (user_id, local_date), owner, lease_until)

    def record_posted(self, user_id: str, local_date: str, owner: str, paper_id: str, reason: str,
                      channel: str | None, message_ts: str | None, lease_until: str,
                      finished_at: str | None = None) -> bool:
        step = leases.paper_posted((user_id, local_date), self._ws, owner, lease_until, finished_at)
        with self.transaction():
            if self._lease_write(step) is None:
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

    def release_digest(self, user_id: str, local_date: str, owner: str, retry_at: str) -> int:
        attempts = self.release_lease(leases.DIGEST, (user_id, local_date), owner, retry_at, count="attempts")
        if attempts is not None:
            return attempts
        record = self.get_digest(user_id, local_date)  # not theirs: counted nowhere
        return record.attempts if record else 0

    def unfinished_digests(self, since_date: str) -> list[DigestRecord]:
        rows = self.db.query("select * from digests where ws = ? and local_date >= ? and status = 'sending'"
                             " order by local_date, user_id", [self._ws, since_date])
        return [_digest_from_row(r) for r in rows]

    def postpone_digest(self, user_id: str, local_date: str, owner: str, retry_at: str, error: str) -> bool:
        return self.release_lease(leases.DIGEST, (user_id, local_date), owner, retry_at, disown=True,
                                  count="outages", error=error) is not None

    def finish_digest(self, user_id: str, local_date: str, owner: str, status: str, at: str,
                      error: str | None = None) -> bool:
        return self.finish_lease(leases.DIGEST, (user_id, local_date), owner, status, at, error)

    def drop_digest(self, user_id: str, local_date: str, owner: str) -> None:
        self.db.execute("delete from digests where ws = ? and user_id = ? and local_date = ? and owner = ?"
                        " and status = 'sending'", [self._ws, user_id, local_date, owner])

    def _digest_update(self, user_id: str, local_date: str, owner: str, assignments: str, args: list) -> bool:
        # ``assignments`` is a constant string of this module or storage.digest_marks, never input.
        sql = (f"update digests set {assignments} where ws = ? and user_id = ? and local_date = ?"  # noqa: S608
               " and owner = ? and status = 'sending'")
        with self.transaction():  # one statement, so callers need no transaction (as on PostgreSQL)
            return self.db.execute(sql, [*args, self._ws, user_id, local_date, owner]).rowcount > 0

    def shown_among(self, user_id: str, paper_ids: Iterable[str]) -> set[str]:
        ids = list(dict.fromkeys(paper_ids))
        sql = ("select c.id from (select value as id,"
               " coalesce((select a.paper_id from paper_aliases a where a.alias = value), value) as paper"
               " from json_each(?)) c join shown s on s.paper_id = c.paper where s.ws = ? and s.user_id = ?")
        return {r[0] for r in self.db.execute(sql, [json.dumps(ids), self._ws, user_id])}

    def recent_paper_ids(self, since: str) -> set[str]:
        rows = self.db.execute(
            "select id from papers where coalesce(published, substr(added_at, 1, 10)) >= ?", [since])
        return {r[0] for r in rows}

    def dm_channel(self, user_id: str) -> str | None:
        row = self.db.execute("select dm_channel from people where ws = ? and user_id = ?",
                              [self._ws, user_id]).fetchone()
        return row[0] if row else None

    def remember_dm_channel(self, user_id: str, channel: str) -> None:
        with self.transaction():
            self.db.execute("update people set dm_channel = ? where ws = ? and user_id = ?",
                            [channel, self._ws, user_id])

    def forget_dm_channel(self, channel: str) -> None:
        self.db.execute("update people set dm_channel = null where ws = ? and dm_channel = ?",
                        [self._ws, channel])

    # -- daily jobs ------------------------------------------------------------------------------

    def get_job(self, name: str) -> JobRecord | None:
        rows = list(self.db.query("select * from jobs where name = ?", [name]))
        if not rows:
            return None
        r = rows[0]
        return JobRecord(r["name"], r["day"], r["status"], r["owner"], r["lease_until"], r["started_at"],
                         r["finished_at"], r["error"])

    def start_job(self, name: str, day: str, owner: str, lease_until: str, at: str) -> None:
        self.db["jobs"].upsert({"name": name, "day": day, "status": "running", "owner": owner,
                                "lease_until": lease_until, "started_at": at, "finished_at": None,
                                "error": None}, pk="name")

    def finish_job(self, name: str, owner: str, status: str, at: str, error: str | None = None,
                   again_at: str | None = None) -> bool:
        return self.finish_lease(leases.JOB, (name,), owner, status, at, error, again_at)

    # -- copying (paperbot db copy) --------------------------------------------------------------

    def table_counts(self) -> dict[str, int]:
        # Table names come from COPIED_TABLES, never from input.
        return {t: self.db.execute(f"select count(*) from {t}").fetchone()[0]  # noqa: S608
                for t in COPIED_TABLES}

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
        if table == "counters":
            rows = [r for r in rows if r["name"] != "papers"]
            sql = ("insert into counters (name, value) values (?, ?)"
                   " on conflict (name) do update set value = excluded.value")
        elif table == "feedback_counters":  # already counted by the feedback copied: the source's number wins
            sql = ("insert into feedback_counters (ws, value) values (?, ?)"
                   " on conflict (ws) do update set value = excluded.value")
        else:
            sql = f"insert into {table} ({', '.join(names)}) values ({', '.join('?' * len(names))})"  # noqa: S608
        try:
            with self.transaction():
                self.db.conn.executemany(sql, [tuple(r[n] for n in names) for r in rows])
        except sqlite3.IntegrityError as exc:
            raise StorageError(f"{self.path}: rows of {table} could not be copied ({exc})") from exc
        return len(rows)


#: Every table with rows about a person, keyed by ``ws`` and ``user_id``. A new personal table must be
#: added here (and to storage.tables.WORKSPACE_TABLES).
PERSONAL_TABLES = ("people", "topics", "feedback", "shown", "digests", "saved", "feed_topics",
                   "followed_authors", "mutes", "feed_papers")


def _person_from_row(row: dict) -> Person:
    return Person(row["user_id"], row["tz"], row["digest_time"], bool(row["digest_enabled"]),
                  row.get("digest_since"), row.get("digest_weekday"))


def _digest_from_row(row: dict) -> DigestRecord:
    return DigestRecord(
        user_id=row["user_id"],
        local_date=row["local_date"],
        status=row["status"],
        owner=row["owner"],
        lease_until=row["lease_until"],
        papers=json.loads(row["papers"]) if row["papers"] is not None else None,
        reasons=json.loads(row["reasons"] or "{}"),
        header_ts=row["header_ts"],
        failures=json.loads(row["failures"] or "{}"),
        attempts=row["attempts"] or 0,
        outages=row.get("outages") or 0,
        error=row["error"],
        started_at=row["started_at"],
        finished_at=row["finished_at"],
    )


def _paper_row(paper: Paper) -> dict:
    return {
        "id": paper.id,
        "arxiv_id": paper.arxiv_id,
        "arxiv_version": paper.arxiv_version,
        "title": paper.title,
        "abstract": paper.abstract,
        "authors": json.dumps(paper.authors, ensure_ascii=False),
        "url": paper.url,
        "venue": paper.venue,
        "published": paper.published,
        "categories": json.dumps(paper.categories, ensure_ascii=False),
        "doi": identity.normal_doi(paper.doi),
    }


def _paper_from_row(row: dict) -> Paper:
    return Paper(
        id=row["id"],
        abstract=row["abstract"],
        title=row["title"] or "",
        authors=json.loads(row["authors"] or "[]"),
        url=row["url"],
        venue=row["venue"],
        published=row["published"],
        categories=json.loads(row["categories"] or "[]"),
        arxiv_id=row["arxiv_id"],
        arxiv_version=row["arxiv_version"],
        doi=row.get("doi"),
    )

