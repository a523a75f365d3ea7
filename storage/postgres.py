"""The PostgreSQL store: the same methods and records as the SQLite :class:`~storage.sqlite.Store`, for
several processes on several hosts sharing one database.

What it guarantees:

- No global write lock. Outside :meth:`PostgresStore.transaction` each call runs on a pooled connection
  in autocommit; inside it, on one connection that the thread holds until the end (nested levels are
  savepoints). Correctness comes from the database row by row: ``claim_once``, ``start_digest``,
  ``ensure_person``, feedback and saved models are single ``INSERT ... ON CONFLICT`` statements; claimed
  work (digests, daily jobs, refits) goes through the lease primitive (:mod:`storage.leases`), each
  operation one compare-and-set statement; every digest and job write names its owner; counters are
  bumped in the writer's own transaction.
- The paper change feed never misses a paper committed out of order: every paper writer locks the one
  ``counters`` row of the feed first, so paper writers queue, and change numbers are handed out in
  commit order (see :meth:`PostgresStore.upsert_papers`).
- Rows that are queues on purpose, each held only until its writer commits: the feed's counter (paper
  writers) and each workspace's feedback counter (that workspace's feedback writers; it moves in the
  writer's transaction so that a reader never sees the new number before the feedback). A transaction
  taking two in opposite orders may deadlock; PostgreSQL then cancels one, which arrives as
  :class:`StoreBusy`.
- The schema is migrated at start, once, even when several processes start together (advisory lock).
- Backend errors arrive as storage's own: an unreachable server, a refused login or an unknown database
  as :class:`StoreUnavailable` (one line naming the URL without its password), a lock wait past
  ``BUSY_SECONDS``, a deadlock or a serialisation failure as :class:`StoreBusy`, a full disk as
  :class:`StoreFull`.

Not done yet (issue 10's later steps): this store is not wired to ``PAPERBOT_DB`` / ``Context.open``
(only :func:`storage.open_store` opens it). The use cases' claims (a digest, the daily feed job, the
background refit) no longer rely on an exclusive transaction: they take leases.
"""

from __future__ import annotations

import contextlib
import copy
import re
import threading
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import Self
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import psycopg
import psycopg.errors
from psycopg.rows import dict_row
from psycopg_pool import ConnectionPool, PoolTimeout

from storage import identity, leases, merging, pg_migrations, saved, workspaces
from storage.channel_settings import ChannelSettings
from storage.digest_marks import DigestMarks
from storage.errors import StorageError, StoreBusy, StoreFull, StoreUnavailable
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
from storage.snapshot import PersonSnapshot, Snapshots

# One list of personal tables and one way to turn rows into records, shared with the SQLite store.
from storage.sqlite import (
    PERSONAL_TABLES,
    _digest_from_row,
    _paper_from_row,
    _paper_row,
    _person_from_row,
    utcnow,
)
from storage.store import Store
from storage.tables import COPIED_TABLES, columns, order_by

#: How long a statement waits for a row lock another transaction holds before giving up (StoreBusy);
#: as long as the SQLite store waits for its write lock.
BUSY_SECONDS = 90
#: How long opening a connection (or waiting for a free one in the pool) may take.
CONNECT_SECONDS = 10
POOL_SIZE = 10
#: A pooled connection given back less than this long ago is lent again without asking the server
#: whether it still answers (a round trip per call otherwise); one idle longer is checked first.
CHECK_IDLE_SECONDS = 1.0



def redacted(url: str) -> str:
    """``url`` without its password (in the authority or as a ``password=`` parameter)."""
    if "://" not in url:  # a key=value connection string
        return re.sub(r"password\s*=\s*('(?:[^'\\]|\\.)*'|\S+)", "password=***", url)
    try:
        parts = urlsplit(url)
    except ValueError:
        return "the PostgreSQL database"
    netloc = parts.netloc
    if "@" in netloc:
        auth, host = netloc.rsplit("@", 1)
        netloc = f"{auth.split(':', 1)[0]}@{host}"
    query = urlencode([(k, v) for k, v in parse_qsl(parts.query) if k != "password"])
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def _reason(exc: BaseException) -> str:
    """Why a connection failed, in a few words (libpq's message is several lines and names hosts)."""
    text = str(exc)
    lowered = text.lower()
    for needle, reason in (("password authentication failed", "wrong password"),
                           ("no password supplied", "a password is required"),
                           ("does not exist", None),
                           ("connection refused", "connection refused"),
                           ("timeout expired", "no answer from the server"),
                           ("could not translate host name", "unknown host")):
        if needle in lowered:
            if reason is None:  # 'database "x" does not exist', 'role "y" does not exist'
                line = next(ln for ln in text.splitlines() if needle in ln.lower())
                return line.split("FATAL:", 1)[-1].strip()
            return reason
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    return lines[0][-200:] if lines else type(exc).__name__


def translate(exc: BaseException, where: str) -> BaseException:
    """The storage error for a psycopg (or pool) error ``exc``; other errors come back unchanged."""
    if isinstance(exc, PoolTimeout):
        return StoreUnavailable(f"can't reach the database {where}: no connection within {CONNECT_SECONDS} s"
                                " (the server is down, or every connection is in use)")
    if isinstance(exc, psycopg.errors.DiskFull):
        return StoreFull(f"{where}: the disk is full, so nothing more could be saved")
    if isinstance(exc, psycopg.errors.LockNotAvailable | psycopg.errors.QueryCanceled
                  | psycopg.errors.DeadlockDetected | psycopg.errors.SerializationFailure):
        return StoreBusy(f"{where} is busy: another transaction has held the rows it needs too long")
    if isinstance(exc, psycopg.errors.InsufficientPrivilege | psycopg.errors.ReadOnlySqlTransaction):
        return StoreUnavailable(f"can't write to the database {where} ({_reason(exc)})")
    if isinstance(exc, psycopg.OperationalError):
        return StoreUnavailable(f"can't open the database {where} ({_reason(exc)})")
    if isinstance(exc, psycopg.DataError):  # a value PostgreSQL can't hold (a NUL in text, say)
        return StorageError(f"{where} can't store that value ({_reason(exc)})")
    return exc


@contextlib.contextmanager
def _lent(pool: ConnectionPool) -> Iterator[psycopg.Connection]:
    """A connection from ``pool``, noting when it goes back (for :func:`_check_if_idle`). Not the pool's
    ``reset`` callback: with one, the pool hands every return to a worker thread."""
    with pool.connection() as conn:
        try:
            yield conn
        finally:
            conn._paperbot_returned = time.monotonic()


def _check_if_idle(conn: psycopg.Connection) -> None:
    """The pool's check before lending ``conn``: ask the server only when the connection sat idle for
    :data:`CHECK_IDLE_SECONDS` or more, since a server restart or an idle timeout breaks connections
    that wait, while a busy pool's connections came back from a statement that just succeeded (a
    broken one is never given back: the pool discards it). Raises for a connection that doesn't answer,
    so the pool replaces it."""
    returned = getattr(conn, "_paperbot_returned", None)
    if returned is None or time.monotonic() - returned >= CHECK_IDLE_SECONDS:
        ConnectionPool.check_connection(conn)


class _HoldConnections:
    """The connections :meth:`PostgresStore.hold_person` takes its session locks on: opened when none is
    idle (never waited for, so a hold never times out behind other deliveries), and kept for the next
    hold once every lock on them is released, since opening one costs a server process start for each
    delivery. Closing a connection releases its locks; a kept one found broken when used is replaced once."""

    def __init__(self, url: str, keep: int):
        self.url, self.keep = url, keep
        self._idle: list[psycopg.Connection] = []
        self._lock = threading.Lock()
        self._closed = False

    def take(self) -> psycopg.Connection:
        """An idle kept connection (unchecked: see :meth:`run`), else a new one."""
        with self._lock:
            conn = self._idle.pop() if self._idle else None
        if conn is None:
            conn = self.connect()
        return conn

    def connect(self) -> psycopg.Connection:
        """A new connection for holds."""
        return psycopg.connect(self.url, autocommit=True, connect_timeout=CONNECT_SECONDS)

    def run(self, conn: psycopg.Connection, sql: str, args: list) -> psycopg.Connection:
        """Run ``sql`` on a taken ``conn``; if that connection turns out broken (the server restarted
        since it was kept), once more on a new one, which is returned. Safe only for statements whose
        effect dies with a broken connection (session locks): a kept connection is not checked first,
        which would cost a round trip per hold."""
        try:
            conn.execute(sql, args)
            return conn
        except psycopg.OperationalError:
            if not conn.broken:
                raise
            conn.close()
        conn = self.connect()
        try:
            conn.execute(sql, args)
        except BaseException:
            conn.close()
            raise
        return conn

    def give_back(self, conn: psycopg.Connection) -> None:
        """Release every lock ``conn`` holds, then keep it, or close it (which releases them too)."""
        try:
            if not conn.closed:
                conn.execute("select pg_advisory_unlock_all()")
        except psycopg.Error:
            conn.close()
        with self._lock:
            if not conn.closed and not self._closed and len(self._idle) < self.keep:
                self._idle.append(conn)
                return
        conn.close()

    def close(self) -> None:
        with self._lock:
            self._closed = True
            idle, self._idle = self._idle, []
        for conn in idle:
            conn.close()


class PostgresStore(Preferences, Snapshots, DigestMarks, ChannelSettings, PaperVectorStore, Store):
    """Papers, people, topics, feedback, what was shown, digests and saved models in one PostgreSQL
    database shared by any number of processes.

    The database may serve many Slack workspaces: :meth:`for_workspace` gives the view of one, whose
    person-level methods read and write only that workspace's rows. The store opened here is the view
    of workspace "" (rows not assigned to one yet). Papers, saved models, jobs, installations and OAuth
    states are shared by every view."""

    def __init__(self, url: str, pool_size: int = POOL_SIZE):
        self.url = url
        self.path = redacted(url)  # what errors and logs name; the SQLite store's file path
        self._ws = ""
        self._local = threading.local()
        options = f"-c lock_timeout={int(BUSY_SECONDS * 1000)}"
        # Migrate on a connection of its own first: a refused login or an unknown database then fails
        # here with libpq's own reason, where a pool would only report that it timed out.
        with self._translated():
            with psycopg.connect(url, autocommit=True, connect_timeout=CONNECT_SECONDS) as conn:
                pg_migrations.apply(conn)
            self._pool = ConnectionPool(
                url, min_size=1, max_size=pool_size, timeout=CONNECT_SECONDS, open=False,
                kwargs={"autocommit": True, "connect_timeout": CONNECT_SECONDS, "options": options},
                check=_check_if_idle)
            try:
                self._pool.open(wait=True, timeout=CONNECT_SECONDS)
            except BaseException:
                self._pool.close()
                raise
        self._holds = _HoldConnections(url, keep=pool_size)

    # -- workspaces ------------------------------------------------------------------------------

    @property
    def workspace(self) -> str:
        return self._ws

    def for_workspace(self, ws: str) -> Self:
        # The view of workspace ``ws`` (a team id, or the enterprise id of an org install): the same pool,
        # hold connections and thread's open transaction, nothing opened anew (so :meth:`dispose` of any view
        # closes them for all).
        if not isinstance(ws, str):
            raise TypeError(f"a workspace key is a string, not {type(ws).__name__}")
        view = copy.copy(self)
        view._ws = ws
        return view

    def _person_key(self, user_id: str) -> str:
        """What a person's advisory locks hash: their id within their workspace (the bare id in "", as
        before workspaces, so a process from before and one from after take the same lock)."""
        return f"{self._ws}:{user_id}" if self._ws else user_id

    # -- connections and transactions ------------------------------------------------------------

    @contextlib.contextmanager
    def _translated(self) -> Iterator[None]:
        try:
            yield
        except (psycopg.Error, PoolTimeout) as exc:
            named = translate(exc, self.path)
            if named is exc:
                raise
            raise named from exc

    @contextlib.contextmanager
    def _conn(self) -> Iterator[psycopg.Connection]:
        """The thread's transaction connection, or a pooled one in autocommit for one call."""
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            with self._translated():
                yield conn
            return
        with self._translated(), _lent(self._pool) as conn:
            yield conn

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        # Group one use case's writes in one real transaction on one connection, held by this thread until the
        # end; nested levels are savepoints. Nothing else is locked: rows are, as written.
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            self._local.depth += 1
            try:
                with self._translated(), conn.transaction():
                    yield
            finally:
                self._local.depth -= 1
            return
        with self._translated(), _lent(self._pool) as conn:
            self._local.conn, self._local.depth, self._local.locked = conn, 1, set()
            try:
                with conn.transaction():
                    yield
            finally:
                self._local.conn, self._local.locked = None, set()

    def close(self) -> None:
        # Nothing to do for one thread: outside a transaction no connection is held (they are pooled). Kept so
        # callers can treat both stores alike; :meth:`dispose` closes the pool.
        pass

    def dispose(self) -> None:
        # Close every pooled connection; the store can't be used afterwards.
        self._pool.close()
        self._holds.close()

    def _rows(self, sql: str, args: Iterable | None = None) -> list[dict]:
        with self._conn() as conn, conn.cursor(row_factory=dict_row) as cur:
            cur.execute(sql, args)
            return cur.fetchall()

    def _one(self, sql: str, args: Iterable | None = None) -> tuple | None:
        with self._conn() as conn:
            return conn.execute(sql, args).fetchone()

    def _pref_rows(self, sql: str, args: list) -> list[tuple]:
        with self._conn() as conn:
            return conn.execute(_pg(sql), args).fetchall()

    def _pref_run(self, sql: str, args: list) -> int:
        with self._conn() as conn:
            return conn.execute(_pg(sql), args).rowcount

    def _run(self, sql: str, args: Iterable | None = None) -> int:
        """Run one statement; how many rows it changed."""
        with self._conn() as conn:
            return conn.execute(sql, args).rowcount

    # -- papers ----------------------------------------------------------------------------------

    def upsert_papers(self, papers: Iterable[Paper]) -> UpsertCounts:
        rows = [_paper_row(p) for p in papers]
        with self.transaction(), self._conn() as conn:
            # The feed's counter row is locked first and kept until commit: another paper writer waits
            # here, so change numbers are given out in commit order. With a plain sequence a writer
            # holding number 9 could commit after another's 10 was read, and "changed since 10" would
            # never show it. Queuing also makes matching then writing safe: two sources bringing the
            # two versions of one paper at once make one paper.
            start = conn.execute("select value from counters where name = 'papers' for update").fetchone()[0]
            counts, seq = merging.upsert(merging.Connection(conn.execute, format_marks=True), rows, utcnow(),
                                         start)
            if seq != start:
                conn.execute("update counters set value = %s where name = 'papers'", [seq])
        return counts

    def max_paper_seq(self) -> int:
        return int(self._one("select value from counters where name = 'papers'")[0])

    def count_papers(self) -> int:
        return int(self._one("select count(*) from papers")[0])

    def get_papers(self, ids: Iterable[str]) -> dict[str, Paper]:
        ids = list(dict.fromkeys(ids))
        if not ids:
            return {}
        # Two lookups by key, in one statement: an "or" across the alias join would scan every paper.
        rows = self._rows("select p.id asked, p.* from papers p where p.id = any(%s)"
                          " union all select a.alias asked, p.* from paper_aliases a"
                          " join papers p on p.id = a.paper_id where a.alias = any(%s)", [ids, ids])
        found = {r["id"]: _paper_from_row(r) for r in rows if r["id"] in ids}
        for r in rows:
            found.setdefault(r["asked"], _paper_from_row(r))
        return found

    def get_paper(self, paper_id: str) -> Paper | None:
        return self.get_papers([paper_id]).get(paper_id)

    def find_paper_by_arxiv_id(self, arxiv_id: str) -> Paper | None:
        rows = self._rows("select * from papers where arxiv_id = %s", [arxiv_id])
        return _paper_from_row(rows[0]) if rows else self.get_paper(f"arxiv:{arxiv_id}")

    def find_paper_by_url(self, url: str) -> Paper | None:
        rows = self._rows("select * from papers where url = %s limit 1", [url])
        if rows:
            return _paper_from_row(rows[0])
        alias = self._one(_pg(merging.FIND_ALIAS_BY_URL), [url])
        return self.get_paper(alias[0]) if alias else None

    def find_paper_by_doi(self, doi: str) -> Paper | None:
        rows = self._rows("select * from papers where doi = %s order by added_at, id limit 1",
                          [identity.normal_doi(doi)])
        return _paper_from_row(rows[0]) if rows else None

    def papers_merged_since(self, seq: int) -> list[str]:
        return [r["alias"] for r in self._rows(_pg(merging.MERGED_SINCE), [seq])]

    def papers_changed_since(self, seq: int) -> Iterator[tuple[int, Paper]]:
        for row in self._rows("select * from papers where seq > %s order by seq", [seq]):
            yield row["seq"], _paper_from_row(row)

    def paper_dates(self) -> dict[str, str | None]:
        return {r["id"]: r["d"] for r in
                self._rows("select id, coalesce(published, substr(added_at, 1, 10)) d from papers")}

    # -- people and topics -----------------------------------------------------------------------

    def get_person(self, user_id: str) -> Person | None:
        rows = self._rows("select * from people where ws = %s and user_id = %s", [self._ws, user_id])
        return _person_from_row(rows[0]) if rows else None

    def ensure_person(self, user_id: str) -> Person:
        self._run("insert into people (ws, user_id, digest_enabled, created_at) values (%s, %s, 0, %s)"
                  " on conflict (ws, user_id) do nothing", [self._ws, user_id, utcnow()])
        return self.get_person(user_id)

    def list_people(self) -> list[Person]:
        return [_person_from_row(r) for r in self._rows("select * from people where ws = %s order by user_id",
                                                        [self._ws])]

    def set_digest_schedule(self, user_id: str, digest_time: str | None, enabled: bool,
                            since: str | None = None) -> None:
        self.ensure_person(user_id)
        self._run("update people set digest_time = %s, digest_enabled = %s, digest_since = %s"
                  " where ws = %s and user_id = %s",
                  [digest_time, int(enabled), since or utcnow(), self._ws, user_id])

    def set_timezone(self, user_id: str, tz: str | None) -> None:
        self.ensure_person(user_id)
        self._run("update people set tz = %s where ws = %s and user_id = %s", [tz, self._ws, user_id])

    def get_topics(self, user_id: str) -> list[str]:
        rows = self._rows("select topic from topics where ws = %s and user_id = %s order by added_at, pos",
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
            if self._run("insert into topics (ws, user_id, topic, added_at) values (%s, %s, %s, %s)"
                         " on conflict do nothing", [self._ws, user_id, topic, now]):
                added.append(topic)
        return added

    def lock_person(self, user_id: str) -> None:
        # Serialise this transaction with every other that locks the same person, in any process, until it
        # ends (call it first inside :meth:`transaction`): a transaction-scoped advisory lock on the person's
        # id, so reading what they have and writing what follows from it are one step. Outside a transaction
        # it would be released at once.
        key = self._person_key(user_id)
        in_transaction = getattr(self._local, "conn", None) is not None
        if in_transaction and key in self._local.locked:
            return  # held until this transaction ends: asking again is a round trip for nothing
        self._one("select pg_advisory_xact_lock(%s, hashtext(%s))", [pg_migrations.PERSON_LOCK_SPACE, key])
        if in_transaction and self._local.depth == 1:  # one taken in a savepoint goes if it is rolled back
            self._local.locked.add(key)

    @contextlib.contextmanager
    def hold_person(self, user_id: str) -> Iterator[None]:
        # Hold off every other process's ``hold_person`` for this person until the block ends: for work that
        # spans many transactions and Slack calls (a recommendation or digest being delivered, so two never
        # pick the same papers). A session advisory lock on a connection of its own, not a pooled one
        # (deliveries holding pooled connections while needing more could starve the pool), kept for a later
        # hold once the lock is released (:class:`_HoldConnections`); a process that dies loses its connection
        # and so its lock. Waits as long as the holder takes.
        with self._translated():
            conn = self._holds.take()
        try:
            with self._translated():
                conn = self._holds.run(conn, "select pg_advisory_lock(%s, hashtext(%s))",
                                       [pg_migrations.PERSON_HOLD_SPACE, self._person_key(user_id)])
        except BaseException:
            conn.close()
            raise
        try:
            yield
        finally:
            self._holds.give_back(conn)

    def remove_topic(self, user_id: str, topic: str) -> list[str]:
        gone = [t for t in self.get_topics(user_id) if t.casefold() == topic.casefold()]
        if gone:
            self._run("delete from topics where ws = %s and user_id = %s and topic = any(%s)",
                      [self._ws, user_id, gone])
        return gone

    def remove_all_topics(self, user_id: str) -> int:
        return self._run("delete from topics where ws = %s and user_id = %s", [self._ws, user_id])

    # -- feedback --------------------------------------------------------------------------------

    def set_feedback(self, user_id: str, paper_id: str, value: int) -> None:
        # An id merged into another paper counts for that paper.
        self._run("insert into feedback (ws, user_id, paper_id, value, created_at)"  # noqa: S608
                  f" values (%s, %s, {_pg(merging.RESOLVED)}, %s, %s)"
                  " on conflict (ws, user_id, paper_id) do update set value = excluded.value,"
                  " created_at = excluded.created_at",
                  [self._ws, user_id, paper_id, paper_id, value, utcnow()])

    def remove_feedback(self, user_id: str, paper_id: str, value: int | None = None) -> bool:
        sql = f"delete from feedback where ws = %s and user_id = %s and paper_id = {_pg(merging.RESOLVED)}"  # noqa: S608
        args = [self._ws, user_id, paper_id, paper_id]
        if value is not None:
            sql, args = sql + " and value = %s", args + [value]
        return self._run(sql, args) > 0

    def likes_by_person(self) -> list[list[str]]:
        likes: dict[str, list[str]] = {}
        for r in self._rows("select user_id, paper_id from feedback where ws = %s and value > 0"
                            " order by user_id, pos", [self._ws]):
            likes.setdefault(r["user_id"], []).append(r["paper_id"])
        return list(likes.values())

    def feedback_version(self) -> int:
        row = self._one("select value from feedback_counters where ws = %s", [self._ws])
        return int(row[0]) if row else 0

    def get_feedback(self, user_id: str) -> list[Feedback]:
        rows = self._rows("select paper_id, value, created_at from feedback where ws = %s and user_id = %s"
                          " order by created_at, pos", [self._ws, user_id])
        return [Feedback(r["paper_id"], r["value"], r["created_at"]) for r in rows]

    # -- what was shown --------------------------------------------------------------------------

    def mark_shown(self, user_id: str, paper_id: str, reason: str = "", channel: str | None = None,
                   message_ts: str | None = None) -> None:
        self._run(
            "insert into shown (ws, user_id, paper_id, shown_at, reason, channel, message_ts)"  # noqa: S608
            f" values (%s, %s, {_pg(merging.RESOLVED)}, %s, %s, %s, %s)"
            " on conflict (ws, user_id, paper_id) do update set shown_at = excluded.shown_at,"
            " reason = excluded.reason, channel = excluded.channel, message_ts = excluded.message_ts",
            [self._ws, user_id, paper_id, paper_id, utcnow(), reason, channel, message_ts])

    def shown_paper_ids(self, user_id: str) -> set[str]:
        return {r["paper_id"] for r in self._rows("select paper_id from shown where ws = %s and user_id = %s",
                                                  [self._ws, user_id])}

    def paper_for_message(self, channel: str, message_ts: str) -> tuple[str, str] | None:
        row = self._one("select user_id, paper_id from shown where ws = %s and channel = %s"
                        " and message_ts = %s limit 1", [self._ws, channel, message_ts])
        return (row[0], row[1]) if row else None

    def shown_among(self, user_id: str, paper_ids: Iterable[str]) -> set[str]:
        ids = list(dict.fromkeys(paper_ids))
        if not ids:
            return set()
        rows = self._rows("select c.id from unnest(%s::text[]) c(id)"
                          " left join paper_aliases a on a.alias = c.id"
                          " join shown s on s.paper_id = coalesce(a.paper_id, c.id)"
                          " where s.ws = %s and s.user_id = %s", [ids, self._ws, user_id])
        return {r["id"] for r in rows}

    def shown_reason(self, user_id: str, paper_id: str) -> str | None:
        row = self._one("select reason from shown where ws = %s and user_id = %s and paper_id = %s",
                        [self._ws, user_id, paper_id])
        return row[0] if row else None

    # -- the reading list ------------------------------------------------------------------------

    def save_paper(self, user_id: str, paper_id: str, like_from_save: bool = False) -> bool:
        return self._run(_pg(saved.SAVE), [self._ws, user_id, paper_id, saved.saved_now(),
                                           int(like_from_save)]) > 0

    def unsave_paper(self, user_id: str, paper_id: str) -> bool | None:
        row = self._one(_pg(saved.UNSAVE), [self._ws, user_id, paper_id])
        return None if row is None else bool(row[0])

    def keep_saved_like(self, user_id: str, paper_id: str) -> None:
        self._run(_pg(saved.KEEP_LIKE), [self._ws, user_id, paper_id])

    def saved_papers(self, user_id: str) -> list[SavedPaper]:
        return [SavedPaper(r["paper_id"], r["saved_at"]) for r in self._rows(_pg(saved.LIST),
                                                                             [self._ws, user_id])]

    def person_snapshot(self, user_id: str) -> PersonSnapshot:
        # What :meth:`person_view` answers from, in one statement (each part ordered as its own method orders
        # it).
        row = self._one(_PERSON_SNAPSHOT, {"ws": self._ws, "user": user_id})
        person, topics, feedback, feeds, authors, mutes, shown, saved_ids, picked = row
        named: dict[str, list[str]] = {}
        for feed, topic in feeds or []:
            named.setdefault(feed, []).append(topic)
        return PersonSnapshot(
            user_id, _person_from_row(person) if person is not None else None, topics or [],
            [Feedback(pid, value, created_at) for pid, value, created_at in feedback or []], named,
            [(key, name) for key, name in authors or []], mutes or [], frozenset(shown or ()),
            frozenset(saved_ids or ()), dict(picked or []))

    def saved_paper_ids(self, user_id: str) -> set[str]:
        return {r["paper_id"] for r in self._rows(_pg(saved.IDS), [self._ws, user_id])}

    def person_rows(self, user_id: str) -> dict[str, list[dict]]:
        found = {}
        for table in PERSONAL_TABLES:
            sql, names = saved.rows_of_person("postgres", table)
            found[table] = [{n: r[n] for n in names} for r in self._rows(_pg(sql), [self._ws, user_id])]
        return found

    # -- saved models ----------------------------------------------------------------------------

    def save_artifact(self, name: str, data: bytes) -> int:
        # Store a named blob (a fitted model); returns its new version number (one statement, so two processes
        # saving at once get two versions).
        row = self._one("insert into artifacts (name, version, created_at, data) values (%s, 1, %s, %s)"
                        " on conflict (name) do update set version = coalesce(artifacts.version, 0) + 1,"
                        " created_at = excluded.created_at, data = excluded.data returning version",
                        [name, utcnow(), data])
        return int(row[0])

    def artifact_version(self, name: str) -> int:
        row = self._one("select coalesce(version, 0) from artifacts where name = %s", [name])
        return int(row[0]) if row else 0

    def load_artifact(self, name: str) -> tuple[int, bytes | None] | None:
        # (version, data) of a named blob, or None when there is none; ``data`` is None for NULL (judging
        # whether it is usable is the caller's business).
        # In binary: as text the server hex-encodes the blob (the index: megabytes) and the client
        # decodes it again, which cost every process a few tenths of a second at start.
        with self._conn() as conn:
            row = conn.execute("select coalesce(version, 0), data from artifacts where name = %s", [name],
                               binary=True).fetchone()
        if row is None:
            return None
        version, data = row
        return int(version), (bytes(data) if data is not None else None)

    # -- forgetting ------------------------------------------------------------------------------

    def forget_person(self, user_id: str) -> dict[str, int]:
        # Delete every row about a person from every table; returns rows deleted per table. Holds the person's
        # lock (:meth:`lock_person`): a write for them under way elsewhere (a paper recorded as shown, a like)
        # finishes first, or waits and then finds them gone, never adding a row after.
        deleted = {}
        with self.transaction():
            self.lock_person(user_id)
            for table in PERSONAL_TABLES:
                # Table names come from PERSONAL_TABLES, never from input.
                deleted[table] = self._run(f"delete from {table} where ws = %s and user_id = %s",  # noqa: S608
                                           [self._ws, user_id])
        self.scrub_log()
        return deleted

    def scrub_log(self) -> None:
        # Nothing, on PostgreSQL. SQLite's version empties its write-ahead log so deleted rows survive nowhere
        # in the file. Here deleted rows linger as dead tuples until autovacuum reclaims them, and in the
        # server's WAL until it is recycled; neither is reachable through SQL, and a VACUUM would not
        # overwrite the freed space nor touch the WAL, so it is left to the server.
        pass

    def rows_about(self, user_id: str) -> dict[str, int]:
        return {t: int(self._one(f"select count(*) from {t} where ws = %s and user_id = %s",  # noqa: S608
                                 [self._ws, user_id])[0])
                for t in PERSONAL_TABLES}

    # -- whole workspaces ------------------------------------------------------------------------

    def adopt_workspace(self, ws: str) -> int:
        # Move every row of workspace "" (a database from before workspaces) into ``ws``, in one transaction;
        # returns how many rows moved (0 the second time). Where ``ws`` has a row with the same key already,
        # its own is kept, a person's taking from the old what it lacks (:mod:`storage.workspaces`). Each
        # table moves in one statement that deletes the old rows and inserts exactly those, so a row written
        # to "" meanwhile is either moved or left for next time, never lost; two adoptions at once take turns
        # (an advisory lock).
        if ws == "":
            return 0  # already there (moving "" into itself would only delete it)
        moved = 0
        with self.transaction(), self._conn() as conn:
            conn.execute("select pg_advisory_xact_lock(%s)", [pg_migrations.ADOPT_LOCK])
            for table in workspaces.MOVED_TABLES:
                order = order_by("postgres", table)
                carried = ", ".join(dict.fromkeys([*workspaces.moved_columns(table), *order.split(", ")]))
                insert = _pg(workspaces.copy_into(table, "moved", "true", order))
                # Table and column names come from storage.tables, never from input.
                sql = (f"with moved as (delete from {table} where ws = '' returning {carried}),"  # noqa: S608
                       f" kept as ({insert} returning 1) select count(*) from moved")
                moved += int(conn.execute(sql, [ws]).fetchone()[0])
            conn.execute("delete from feedback_counters where ws = ''")
        return moved

    def delete_workspace(self, ws: str) -> dict[str, int]:
        # Delete every row of workspace ``ws`` from every table holding workspace rows, its installations
        # included, in one transaction; returns rows deleted per table.
        deleted = {}
        with self.transaction():
            for table in workspaces.DELETED_TABLES:
                # Table names come from storage.workspaces, never from input.
                deleted[table] = self._run(f"delete from {table} where ws = %s", [ws])  # noqa: S608
        self.scrub_log()
        return deleted

    def workspaces(self) -> list[WorkspaceSummary]:
        with self.transaction(), self._conn() as conn:
            return workspaces.summaries(conn.execute(workspaces.INSTALLATION_ROWS).fetchall(),
                                        conn.execute(workspaces.PEOPLE_COUNTS).fetchall(),
                                        conn.execute(workspaces.LAST_DIGESTS).fetchall())

    # -- installations and OAuth states (shared) -------------------------------------------------

    def save_installation(self, ws: str, enterprise_id: str | None, team_id: str | None, user_id: str,
                          is_enterprise_install: bool, data: str, at: str) -> None:
        self._run(_pg(workspaces.SAVE_INSTALLATION), [ws, user_id or "", enterprise_id, team_id,
                                                      int(bool(is_enterprise_install)), data, at])

    def find_installation(self, ws: str, user_id: str | None = None) -> str | None:
        if user_id is None:
            row = self._one(_pg(workspaces.FIND_LATEST_INSTALLATION), [ws])
        else:
            row = self._one(_pg(workspaces.FIND_INSTALLATION), [ws, user_id])
        return row[0] if row else None

    def delete_installations(self, ws: str, user_id: str | None = None) -> int:
        if user_id is None:
            return self._run(_pg(workspaces.DELETE_INSTALLATIONS), [ws])
        return self._run(_pg(workspaces.DELETE_INSTALLATION), [ws, user_id])

    def installation_keys(self) -> list[str]:
        return [r["ws"] for r in self._rows(workspaces.INSTALLATION_KEYS)]

    def issue_oauth_state(self, state: str, expires_at: str) -> None:
        self._run(_pg(workspaces.ISSUE_STATE), [state, expires_at])

    def consume_oauth_state(self, state: str, now: str) -> bool:
        # Use up ``state``: True exactly once for a state issued and unexpired at ``now`` (ISO UTC), however
        # many consume it at once (one statement takes it away). Expired states are dropped on the way.
        row = self._one(_pg(workspaces.TAKE_STATE), [state])
        self._run(_pg(workspaces.DROP_EXPIRED_STATES), [now])
        return row is not None and row[0] > now

    # -- Slack -----------------------------------------------------------------------------------

    def claim_once(self, key: str, keep: timedelta) -> bool:
        # Claim ``key`` in this workspace: True the first time, False while an earlier claim of it is kept
        # (``keep`` from now). One statement decides: a new key is inserted, an expired one is taken over, a
        # kept one is left alone; a racing claim of the same key waits for the first to commit, then loses.
        # Expired keys of every workspace are dropped on the way.
        now = datetime.now(UTC)
        now_text, until = now.isoformat(timespec="seconds"), (now + keep).isoformat(timespec="seconds")
        with self.transaction():
            # Expired keys go a few at a time, skipping those another claim is deleting: waiting for
            # them (or two claims deleting the same rows in different orders) would only slow claims.
            self._run("delete from once_keys where (ws, key) in (select ws, key from once_keys"
                      " where expires_at < %s and (ws, key) <> (%s, %s) limit 500 for update skip locked)",
                      [now_text, self._ws, key])
            claimed = self._one(
                "insert into once_keys (ws, key, expires_at) values (%s, %s, %s)"
                " on conflict (ws, key) do update set expires_at = excluded.expires_at"
                " where once_keys.expires_at < %s returning key",
                [self._ws, key, until, now_text])
        return claimed is not None

    def timezone_checked_at(self, user_id: str) -> str | None:
        row = self._one("select tz_checked_at from people where ws = %s and user_id = %s",
                        [self._ws, user_id])
        return row[0] if row else None

    def record_timezone(self, user_id: str, tz: str | None) -> bool:
        return self._run("update people set tz = %s, tz_checked_at = %s where ws = %s and user_id = %s",
                         [tz, utcnow(), self._ws, user_id]) > 0

    # -- daily digests ---------------------------------------------------------------------------
    # A digest row is a claim: every write after it names the owner, so a process that lost its claim
    # changes nothing.

    def people_with_digests(self) -> list[Person]:
        rows = self._rows("select * from people where ws = %s and digest_enabled = 1"
                          " and digest_time is not null order by user_id", [self._ws])
        return [_person_from_row(r) for r in rows]

    def digest_statuses(self, since_date: str) -> dict[tuple[str, str], str]:
        rows = self._rows("select user_id, local_date, status from digests where ws = %s"
                          " and local_date >= %s", [self._ws, since_date])
        return {(r["user_id"], r["local_date"]): r["status"] for r in rows}

    def get_digest(self, user_id: str, local_date: str) -> DigestRecord | None:
        rows = self._rows("select * from digests where ws = %s and user_id = %s and local_date = %s",
                          [self._ws, user_id, local_date])
        return _digest_from_row(rows[0]) if rows else None

    def start_digest(self, user_id: str, local_date: str, owner: str, lease_until: str, at: str) -> bool:
        # Claim a day's digest for ``owner`` (status "sending"). True if claimed; False, never an error, when
        # the row exists already (another process won the race: it owns the digest).
        lease, key = leases.keyed(leases.DIGEST, (user_id, local_date), self._ws)
        return self._lease_run(leases.take_insert(lease, key, owner, lease_until, {"started_at": at})) > 0

    def take_over_digest(self, user_id: str, local_date: str, owner: str, lease_until: str) -> None:
        self._run("update digests set owner = %s, lease_until = %s where ws = %s and user_id = %s"
                  " and local_date = %s and status = 'sending'",
                  [owner, lease_until, self._ws, user_id, local_date])

    def renew_digest_lease(self, user_id: str, local_date: str, owner: str, lease_until: str) -> bool:
        return self.renew_lease(leases.DIGEST, (user_id, local_date), owner, lease_until)

    def record_posted(self, user_id: str, local_date: str, owner: str, paper_id: str, reason: str,
                      channel: str | None, message_ts: str | None, lease_until: str,
                      finished_at: str | None = None) -> bool:
        # One statement, one round trip: the shown row is written only if the owner's update matched.
        # It locks the digest's row and no person lock, so it can't deadlock with a forget (which takes
        # the person's lock, then the rows); after a forget it finds no row and writes nothing.
        sql, args = leases.paper_posted((user_id, local_date), self._ws, owner, lease_until, finished_at)
        row = self._one(
            f"with mine as ({_pg(sql)} returning ws, user_id),"  # noqa: S608  (a constant of storage.leases)
            " noted as (insert into shown (ws, user_id, paper_id, shown_at, reason, channel, message_ts)"
            f" select ws, user_id, {_pg(merging.RESOLVED)}, %s, %s, %s, %s from mine"
            " on conflict (ws, user_id, paper_id) do update set shown_at = excluded.shown_at,"
            " reason = excluded.reason, channel = excluded.channel, message_ts = excluded.message_ts)"
            " select count(*) from mine",
            [*args, paper_id, paper_id, utcnow(), reason, channel, message_ts])
        return bool(row and row[0])

    def record_digest_failure(self, user_id: str, local_date: str, owner: str, paper_id: str) -> int:
        # In one statement: two runs counting at once both count (a read, then a write, could lose one).
        row = self._one(
            "update digests set failures = (coalesce(failures, '{}')::jsonb || jsonb_build_object(%(p)s,"
            " coalesce((failures::jsonb ->> %(p)s)::int, 0) + 1))::text"
            " where ws = %(w)s and user_id = %(u)s and local_date = %(d)s and owner = %(o)s"
            " and status = 'sending' returning (failures::jsonb ->> %(p)s)::int",
            {"p": paper_id, "w": self._ws, "u": user_id, "d": local_date, "o": owner})
        if row is not None:
            return int(row[0])
        record = self.get_digest(user_id, local_date)  # not the owner's: counted nowhere, as on SQLite
        return record.failures.get(paper_id, 0) + 1 if record else 0

    def release_digest(self, user_id: str, local_date: str, owner: str, retry_at: str) -> int:
        attempts = self.release_lease(leases.DIGEST, (user_id, local_date), owner, retry_at, count="attempts")
        if attempts is not None:
            return attempts
        record = self.get_digest(user_id, local_date)  # not theirs: counted nowhere
        return record.attempts if record else 0

    def unfinished_digests(self, since_date: str) -> list[DigestRecord]:
        rows = self._rows("select * from digests where ws = %s and local_date >= %s and status = 'sending'"
                          " order by local_date, user_id", [self._ws, since_date])
        return [_digest_from_row(r) for r in rows]

    def postpone_digest(self, user_id: str, local_date: str, owner: str, retry_at: str, error: str) -> bool:
        return self.release_lease(leases.DIGEST, (user_id, local_date), owner, retry_at, disown=True,
                                  count="outages", error=error) is not None

    def finish_digest(self, user_id: str, local_date: str, owner: str, status: str, at: str,
                      error: str | None = None) -> bool:
        return self.finish_lease(leases.DIGEST, (user_id, local_date), owner, status, at, error)

    def drop_digest(self, user_id: str, local_date: str, owner: str) -> None:
        self._run("delete from digests where ws = %s and user_id = %s and local_date = %s and owner = %s"
                  " and status = 'sending'", [self._ws, user_id, local_date, owner])

    def _digest_update(self, user_id: str, local_date: str, owner: str, assignments: str, args: list) -> bool:
        # ``assignments`` is a constant string of this module or storage.digest_marks, never input.
        sql = (f"update digests set {assignments} where ws = ? and user_id = ? and local_date = ?"  # noqa: S608
               " and owner = ? and status = 'sending'")
        return self._run(_pg(sql), [*args, self._ws, user_id, local_date, owner]) > 0

    def recent_paper_ids(self, since: str) -> set[str]:
        rows = self._rows("select id from papers where coalesce(published, substr(added_at, 1, 10)) >= %s",
                          [since])
        return {r["id"] for r in rows}

    def dm_channel(self, user_id: str) -> str | None:
        row = self._one("select dm_channel from people where ws = %s and user_id = %s", [self._ws, user_id])
        return row[0] if row else None

    def remember_dm_channel(self, user_id: str, channel: str) -> None:
        self._run("update people set dm_channel = %s where ws = %s and user_id = %s",
                  [channel, self._ws, user_id])

    def forget_dm_channel(self, channel: str) -> None:
        self._run("update people set dm_channel = null where ws = %s and dm_channel = %s",
                  [self._ws, channel])

    # -- leases ----------------------------------------------------------------------------------
    # Claimed work (digests, daily jobs, refits): one compare-and-set statement each, see storage.leases.
    # Outside a transaction each runs in autocommit; inside one, a competing writer waits for the row.

    def take_lease(self, kind: str, key: Sequence[str], owner: str, until: str, now: str,
                   dead: Iterable[str] = (), early: bool = False,
                   fresh: Mapping[str, object] | None = None) -> str | None:
        lease, key = leases.keyed(kind, key, self._ws)
        if self._lease_run(leases.take_insert(lease, key, owner, until, fresh)) > 0:
            return "new"
        statement = leases.take_update(lease, key, owner, until, now, dead, early, fresh)
        return "taken" if self._lease_run(statement) > 0 else None

    def renew_lease(self, kind: str, key: Sequence[str], owner: str, until: str) -> bool:
        return self._lease_run(leases.renew(*leases.keyed(kind, key, self._ws), owner, until)) > 0

    def release_lease(self, kind: str, key: Sequence[str], owner: str, retry_at: str, disown: bool = False,
                      count: str | None = None, error: str | None = None) -> int | None:
        sql, args = leases.release(*leases.keyed(kind, key, self._ws), owner, retry_at, disown, count, error)
        row = self._one(_pg(sql), args)
        return None if row is None else int(row[0] if count else 0)

    def finish_lease(self, kind: str, key: Sequence[str], owner: str, status: str, at: str,
                     error: str | None = None, again_at: str | None = None) -> bool:
        statement = leases.finish(*leases.keyed(kind, key, self._ws), owner, status, at, error, again_at)
        return self._lease_run(statement) > 0

    def _lease_run(self, statement: leases.Statement) -> int:
        sql, args = statement
        return self._run(_pg(sql), args)

    # -- daily jobs ------------------------------------------------------------------------------

    def get_job(self, name: str) -> JobRecord | None:
        rows = self._rows("select * from jobs where name = %s", [name])
        if not rows:
            return None
        r = rows[0]
        return JobRecord(r["name"], r["day"], r["status"], r["owner"], r["lease_until"], r["started_at"],
                         r["finished_at"], r["error"])

    def start_job(self, name: str, day: str, owner: str, lease_until: str, at: str) -> None:
        self._run("insert into jobs (name, day, status, owner, lease_until, started_at, finished_at, error)"
                  " values (%s, %s, 'running', %s, %s, %s, null, null) on conflict (name) do update set"
                  " day = excluded.day, status = excluded.status, owner = excluded.owner,"
                  " lease_until = excluded.lease_until, started_at = excluded.started_at,"
                  " finished_at = null, error = null", [name, day, owner, lease_until, at])

    def finish_job(self, name: str, owner: str, status: str, at: str, error: str | None = None,
                   again_at: str | None = None) -> bool:
        return self.finish_lease(leases.JOB, (name,), owner, status, at, error, again_at)


    # -- copying (paperbot db copy) --------------------------------------------------------------

    def table_counts(self) -> dict[str, int]:
        # Table names come from COPIED_TABLES, never from input.
        sql = " union all ".join(f"select '{t}', count(*) from {t}" for t in COPIED_TABLES)  # noqa: S608
        with self._conn() as conn:
            found = dict(conn.execute(sql).fetchall())
        return {t: int(found[t]) for t in COPIED_TABLES}

    def export_rows(self, table: str, batch_size: int = 1000) -> Iterator[list[dict]]:
        names = columns(table)
        sql = f"select {', '.join(names)} from {table} order by {order_by('postgres', table)}"  # noqa: S608
        # A server-side cursor, in a transaction of its own: one consistent read however big the table,
        # without holding it all in memory.
        with self._translated(), self._pool.connection() as conn, conn.transaction(), \
                conn.cursor(name=f"export_{table}") as cur:
            cur.execute(sql)
            while batch := cur.fetchmany(batch_size):
                yield [{n: bytes(v) if isinstance(v, memoryview) else v
                        for n, v in zip(names, row, strict=True)} for row in batch]

    def import_rows(self, table: str, rows: list[dict]) -> int:
        names = columns(table)
        if table == "counters":
            sql = ("insert into counters (name, value) values (%s, %s) on conflict (name) do update set"
                   " value = case when counters.name = 'papers' then greatest(counters.value, excluded.value)"
                   " else excluded.value end")
        elif table == "feedback_counters":  # already counted by the feedback copied: the source's number wins
            sql = ("insert into feedback_counters (ws, value) values (%s, %s)"
                   " on conflict (ws) do update set value = excluded.value")
        else:
            marks = ", ".join(["%s"] * len(names))
            sql = f"insert into {table} ({', '.join(names)}) values ({marks})"  # noqa: S608
        values = [tuple(r[n] for n in names) for r in rows]
        if table == "artifacts":  # SQLite may hold text in its blob column (see load_artifact)
            values = [(*v[:3], v[3].encode() if isinstance(v[3], str) else v[3]) for v in values]
        try:
            with self.transaction(), self._conn() as conn:
                with conn.cursor() as cur:
                    cur.executemany(sql, values)
                if table == "papers" and rows:
                    conn.execute("update counters set value = greatest(value, %s) where name = 'papers'",
                                 [max(int(r["seq"]) for r in rows)])
        except (psycopg.errors.IntegrityError, psycopg.errors.DataError) as exc:
            reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise StorageError(f"{self.path}: rows of {table} could not be copied ({reason})") from exc
        return len(rows)


def _pg(sql: str) -> str:
    """A statement of :mod:`storage.leases` (qmark placeholders, no literal ``?`` or ``%``) in psycopg's
    placeholder style."""
    return sql.replace("?", "%s")


__all__ = ["BUSY_SECONDS", "PostgresStore", "redacted", "translate"]


# A person's rows for :meth:`PostgresStore.person_snapshot`: one subselect per table, each as that
# table's own method reads it.
_PERSON_SNAPSHOT = """
    select
      (select to_jsonb(p) from people p where p.ws = %(ws)s and p.user_id = %(user)s),
      (select array_agg(topic order by added_at, pos) from topics where ws = %(ws)s and user_id = %(user)s),
      (select json_agg(json_build_array(paper_id, value, created_at) order by created_at, pos)
         from feedback where ws = %(ws)s and user_id = %(user)s),
      (select json_agg(json_build_array(feed, topic) order by lower(feed), added_at, lower(topic))
         from feed_topics where ws = %(ws)s and user_id = %(user)s),
      (select json_agg(json_build_array(key, name) order by added_at, key)
         from followed_authors where ws = %(ws)s and user_id = %(user)s),
      (select array_agg(word order by added_at, word) from mutes where ws = %(ws)s and user_id = %(user)s),
      (select array_agg(paper_id) from shown where ws = %(ws)s and user_id = %(user)s),
      (select array_agg(paper_id) from saved where ws = %(ws)s and user_id = %(user)s),
      (select json_agg(json_build_array(paper_id, feed)) from feed_papers
         where ws = %(ws)s and user_id = %(user)s)
"""
