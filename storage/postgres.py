"""The PostgreSQL store: the same methods and records as :class:`~storage.sqlite.SqliteStore`, for
several processes on several hosts sharing one database. Here is what only PostgreSQL does (the pool
and transactions, person locks, the paper feed's queue, claims in one statement, copying in and out);
the statements both stores share are its mixins' (:mod:`storage.dialect`), its connections'
machinery :mod:`storage.pg_connections`.

What it guarantees:

- No global write lock. Outside :meth:`PostgresStore.transaction` each call runs on a pooled connection
  in autocommit (inside :meth:`PostgresStore.hold_person`, on the hold's connection, in autocommit too);
  inside it, on one connection that the thread holds until the end (nested levels are savepoints).
  Correctness comes from the database row by row: ``claim_once``, ``start_digest(s)``, ``ensure_person``,
  feedback and saved models are single ``INSERT ... ON CONFLICT`` statements; claimed
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
import logging
import threading
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import psycopg
import psycopg.errors
from psycopg_pool import PoolTimeout

from storage import leases, merging, pg_migrations, workspaces
from storage.activity import Activities
from storage.alerts import Alerts
from storage.artifacts import Artifacts
from storage.arxiv_cursors import ArxivCursors
from storage.channel_settings import ChannelSettings
from storage.conference import Conference
from storage.dialect import PostgresDialect, native
from storage.digests import Digests
from storage.errors import StorageError
from storage.fulltext import FullText
from storage.inbox import Inbox
from storage.library_imports import LibraryImports
from storage.models import Feedback, Paper, SharedPaper, UpsertCounts
from storage.moments import iso_utc
from storage.paper_events import EventDetector, Followups
from storage.paper_vectors import PaperVectorStore
from storage.papers import Papers
from storage.people import People
from storage.pg_connections import (
    BUSY_SECONDS,
    CONNECT_SECONDS,
    POOL_SIZE,
    HoldConnections,
    QuickPool,
    check_if_idle,
    check_url,
    lent,
    redacted,
    translate,
)
from storage.polls import Polls
from storage.preferences import Preferences
from storage.recaps import Recaps
from storage.records import paper_row, person_from_row, utcnow
from storage.saved import SavedPapers
from storage.shares import Shares
from storage.snapshot import PersonSnapshot, Snapshots
from storage.store import Store
from storage.suggestions import Suggestions
from storage.summaries import Summaries
from storage.tables import columns, copied_rows_insert, order_by
from storage.watches import Watches
from storage.workspaces import Workspaces

log = logging.getLogger(__name__)

#: How much of a saved blob one statement reads (see :meth:`PostgresStore.load_artifact`).
ARTIFACT_SLICE = 4 * 2**20


class PostgresStore(Papers, FullText, People, Preferences, Digests, ChannelSettings, PaperVectorStore,
                    SavedPapers, Followups, Suggestions, Artifacts, Workspaces, Snapshots, Inbox, Polls,
                    LibraryImports, Alerts, ArxivCursors, Summaries, Activities, Shares, Recaps,
                    Conference, Watches,
                    Store):
    """Papers, people, topics, feedback, what was shown, digests and saved models in one PostgreSQL
    database shared by any number of processes.

    The database may serve many Slack workspaces: :meth:`for_workspace` gives the view of one, whose
    person-level methods read and write only that workspace's rows. The store opened here is the view
    of workspace "" (rows not assigned to one yet). Papers, saved models, jobs, installations and OAuth
    states are shared by every view."""

    def __init__(self, url: str, pool_size: int = POOL_SIZE):
        check_url(url)
        self.url = url
        self.path = redacted(url)  # what errors and logs name; the SQLite store's file path
        self._ws = ""
        self._local = threading.local()
        self._sql = PostgresDialect(self._conn)
        # Every statement planned for its own arguments and the tables as they are now: psycopg prepares a
        # statement run five times, and PostgreSQL would then keep one generic plan, made while a table was
        # near empty (a seq scan of the day's first digests), for the rest of the morning as it grows.
        options = f"-c lock_timeout={int(BUSY_SECONDS * 1000)} -c plan_cache_mode=force_custom_plan"
        # Migrate on a connection of its own first: a refused login or an unknown database then fails
        # here with libpq's own reason, where a pool would only report that it timed out.
        with self._translated():
            with psycopg.connect(url, autocommit=True, connect_timeout=CONNECT_SECONDS) as conn:
                pg_migrations.apply(conn)
            self._pool = QuickPool(
                url, min_size=1, max_size=pool_size, timeout=CONNECT_SECONDS, open=False,
                kwargs={"autocommit": True, "connect_timeout": CONNECT_SECONDS, "options": options},
                check=check_if_idle)
            try:
                self._pool.open(wait=True, timeout=CONNECT_SECONDS)
            except BaseException:
                self._pool.close()
                raise
        self._holds = HoldConnections(url, keep=pool_size, options=options)

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
        """The thread's transaction connection; else, inside :meth:`hold_person`, the hold's own (in
        autocommit); else a pooled one in autocommit for one call."""
        conn = getattr(self._local, "conn", None) or getattr(self._local, "held", None)
        if conn is not None:
            with self._translated():
                yield conn
            return
        with self._translated(), lent(self._pool, getattr(self._local, "wait", None), self.path) as conn:
            yield conn

    @contextlib.contextmanager
    def waiting_at_most(self, seconds: float) -> Iterator[None]:
        previous = getattr(self._local, "wait", None)
        self._local.wait = seconds
        try:
            yield
        finally:
            self._local.wait = previous

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        # Group one use case's writes in one real transaction on one connection, held by this thread until the
        # end (inside a person's hold, the hold's connection); nested levels are savepoints. Nothing else is
        # locked: rows are, as written.
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            self._local.depth += 1
            try:
                with self._translated(), conn.transaction():
                    yield
            finally:
                self._local.depth -= 1
            return
        held = getattr(self._local, "held", None)
        lending = contextlib.nullcontext(held) if held is not None else lent(self._pool)
        with self._translated(), lending as conn:
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
        """The rows of a query in psycopg's own placeholder style, as dicts: for SQL of a caller's own
        (the end-to-end tests' checks), as the SQLite store's ``db.query``."""
        return self._sql.rows(sql, list(args or []))

    # -- papers ----------------------------------------------------------------------------------

    def upsert_papers(self, papers: Iterable[Paper], events: EventDetector | None = None) -> UpsertCounts:
        rows = [paper_row(p) for p in papers]
        with self.transaction(), self._conn() as conn:
            # The feed's counter row is locked first and kept until commit: another paper writer waits
            # here, so change numbers are given out in commit order. With a plain sequence a writer
            # holding number 9 could commit after another's 10 was read, and "changed since 10" would
            # never show it. Queuing also makes matching then writing safe: two sources bringing the
            # two versions of one paper at once make one paper.
            row = conn.execute("select value from counters where name = 'papers' for update").fetchone()
            start = int(row[0]) if row else 0
            counts, seq = merging.upsert(self._sql, rows, utcnow(), start, events)
            if seq != start:
                conn.execute("update counters set value = %s where name = 'papers'", [seq])
        return counts

    def max_paper_seq(self) -> int:
        return int(self._sql.all("select value from counters where name = 'papers'")[0][0])

    def lock_person(self, user_id: str) -> None:
        # Serialise this transaction with every other that locks the same person, in any process, until it
        # ends (call it first inside :meth:`transaction`): a transaction-scoped advisory lock on the person's
        # id, so reading what they have and writing what follows from it are one step. Outside a transaction
        # it would be released at once.
        key = self._person_key(user_id)
        in_transaction = getattr(self._local, "conn", None) is not None
        if in_transaction and key in self._local.locked:
            return  # held until this transaction ends: asking again is a round trip for nothing
        self._sql.all("select pg_advisory_xact_lock(?, hashtext(?))", [pg_migrations.PERSON_LOCK_SPACE, key])
        if in_transaction and self._local.depth == 1:  # one taken in a savepoint goes if it is rolled back
            self._local.locked.add(key)

    @property
    def local_file(self) -> str | None:
        return None  # a server's: it takes the inbox's writes whatever else holds locks

    @contextlib.contextmanager
    def hold_person(self, user_id: str) -> Iterator[None]:
        # Hold off every other process's ``hold_person`` for this person until the block ends: for work that
        # spans many transactions and Slack calls (a recommendation or digest being delivered, so two never
        # pick the same papers). A session advisory lock on a connection of its own, not a pooled one
        # (deliveries holding pooled connections while needing more could starve the pool), kept for a later
        # hold once the lock is released (:class:`~storage.pg_connections.HoldConnections`); a process that
        # dies loses its connection and so its lock. Waits as long as the holder takes.
        # Meanwhile the thread's statements run on that connection (in autocommit, as on a pooled one):
        # a digest's dozen statements then cost no lending from the pool each, which was a tenth of the
        # digests' own CPU (issue 24), and the hold needs nothing of the pool.
        with self._translated():
            conn = self._holds.take()
        try:
            with self._translated():
                conn = self._holds.run(conn, _HOLD, [pg_migrations.PERSON_HOLD_SPACE,
                                                     self._person_key(user_id)])
        except BaseException:
            conn.close()
            raise
        outer, self._local.held = getattr(self._local, "held", None), conn
        try:
            yield
        finally:
            self._local.held = outer
            self._holds.give_back(conn)

    def person_snapshot(self, user_id: str) -> PersonSnapshot:
        # What :meth:`person_view` answers from, in one statement (each part ordered as its own method orders
        # it).
        with self._conn() as conn:
            row: Any = conn.execute(_PERSON_SNAPSHOT, {"ws": self._ws, "user": user_id}).fetchone()
        person, topics, feedback, feeds, authors, mutes, shown, saved_ids, picked, alerts, shares = row
        named: dict[str, list[str]] = {}
        for feed, topic in feeds or []:
            named.setdefault(feed, []).append(topic)
        return PersonSnapshot(
            user_id, person_from_row(person) if person is not None else None, topics or [],
            [Feedback(pid, value, created_at) for pid, value, created_at in feedback or []], named,
            [(key, name) for key, name in authors or []], mutes or [], frozenset(shown or ()),
            frozenset(saved_ids or ()), dict(picked or []), [(key, phrase) for key, phrase in alerts or []],
            [SharedPaper(pid, at) for pid, at in shares or []])

    def load_artifact(self, name: str) -> tuple[int, bytes | None] | None:
        # (version, data) of a named blob, or None when there is none; ``data`` is None for NULL (judging
        # whether it is usable is the caller's business).
        # In slices of ARTIFACT_SLICE bytes: libpq reads a row whole into its connection's input buffer and
        # keeps that buffer as large for the connection's life, so one read of the index (tens of MB) left
        # a pooled connection holding as much again all run. In binary: as text the server hex-encodes it.
        with self._conn() as conn:
            while True:
                row = conn.execute("select coalesce(version, 0), octet_length(data) from artifacts"
                                   " where name = %s", [name]).fetchone()
                if row is None:
                    return None
                version, size = int(row[0]), row[1]
                if size is None:
                    return version, None
                data = self._artifact_slices(conn, name, version, size)
                if data is not None:
                    return version, data
                # a new version was saved while this one was read: read that one

    @staticmethod
    def _artifact_slices(conn: psycopg.Connection, name: str, version: int, size: int) -> bytes | None:
        """Version ``version`` of the blob ``name``, ``size`` bytes, slice by slice; None once it is gone."""
        slices = []
        for start in range(0, size, ARTIFACT_SLICE):
            row = conn.execute("select substring(data from %s for %s) from artifacts where name = %s"
                               " and coalesce(version, 0) = %s", [start + 1, ARTIFACT_SLICE, name, version],
                               binary=True).fetchone()
            if row is None:
                return None
            slices.append(bytes(row[0]))
        return b"".join(slices)

    def scrub_log(self) -> None:
        # After a forget or an uninstall: vacuum the tables holding people's rows now, rather than whenever
        # autovacuum's thresholds say (a few deleted rows in a big table may wait for days). The deleted
        # versions (and the old versions of a row that named the person) then leave the tables' pages and
        # their indexes, and their space is free for the next writes to overwrite. A VACUUM leaves those bytes
        # in the free space until they are, and never touches the WAL or backups: docs/operations.md says how
        # those age out. It can't run inside a transaction: when a caller's is open, autovacuum's pass does
        # it.
        # Errors are logged, not raised: the deletion is committed, and a lock wait or a lost server here
        # must not tell the person it failed.
        if getattr(self._local, "conn", None) is not None:
            return
        try:
            with self._conn() as conn:
                conn.execute(_VACUUM)
        except StorageError as exc:
            log.warning("deleted, but could not vacuum the tables afterwards (autovacuum will): %s", exc)

    def _adopt(self, ws: str) -> int:
        # Each table moves in one statement that deletes the old rows and inserts exactly those, so a row
        # written to "" meanwhile is either moved or left for next time, never lost; two adoptions at once
        # take turns (an advisory lock).
        moved = 0
        with self.transaction(), self._conn() as conn:
            conn.execute("select pg_advisory_xact_lock(%s)", [pg_migrations.ADOPT_LOCK])
            for table in workspaces.MOVED_TABLES:
                order = order_by("postgres", table)
                carried = ", ".join(dict.fromkeys([*workspaces.moved_columns(table), *order.split(", ")]))
                insert = native(workspaces.copy_into(table, "moved", "true", order))
                # Table and column names come from storage.tables, never from input.
                sql = (f"with moved as (delete from {table} where ws = '' returning {carried}),"  # noqa: S608
                       f" kept as ({insert} returning 1) select count(*) from moved")
                moved += sum(int(r[0]) for r in conn.execute(sql, [ws]).fetchall())
            conn.execute("delete from feedback_counters where ws = ''")
        return moved

    def claim_once(self, key: str, keep: timedelta) -> bool:
        # Not a lease (storage.leases): a key used up, not work held; nothing to renew, give back or finish.
        # Claim ``key`` in this workspace: True the first time, False while an earlier claim of it is kept
        # (``keep`` from now). One statement decides: a new key is inserted, an expired one is taken over, a
        # kept one is left alone; a racing claim of the same key waits for the first to commit, then loses.
        # Expired keys of every workspace are dropped on the way.
        now = datetime.now(UTC)
        now_text, until = iso_utc(now), iso_utc(now + keep)
        with self.transaction():
            # Expired keys go a few at a time, skipping those another claim is deleting: waiting for
            # them (or two claims deleting the same rows in different orders) would only slow claims.
            self._sql.run("delete from once_keys where (ws, key) in (select ws, key from once_keys"
                          " where expires_at < ? and (ws, key) <> (?, ?) limit 500 for update skip locked)",
                          [now_text, self._ws, key])
            claimed = self._sql.one(
                "insert into once_keys (ws, key, expires_at) values (?, ?, ?)"
                " on conflict (ws, key) do update set expires_at = excluded.expires_at"
                " where once_keys.expires_at < ? returning key",
                [self._ws, key, until, now_text])
        return claimed is not None

    def record_posted(self, user_id: str, local_date: str, owner: str, paper_id: str, reason: str,
                      channel: str | None, message_ts: str | None, lease_until: str,
                      finished_at: str | None = None) -> bool:
        # One statement, one round trip: the shown row is written only if the owner's update matched.
        # It locks the digest's row and no person lock, so it can't deadlock with a forget (which takes
        # the person's lock, then the rows); after a forget it finds no row and writes nothing.
        sql, args = leases.paper_posted((user_id, local_date), self._ws, owner, lease_until, finished_at)
        row = self._sql.one(
            f"with mine as ({sql} returning ws, user_id),"  # noqa: S608  (a constant of storage.leases)
            " noted as (insert into shown (ws, user_id, paper_id, shown_at, reason, channel, message_ts)"
            f" select ws, user_id, {merging.RESOLVED}, ?, ?, ?, ? from mine"
            " on conflict (ws, user_id, paper_id) do update set shown_at = excluded.shown_at,"
            " reason = excluded.reason, channel = excluded.channel, message_ts = excluded.message_ts)"
            " select count(*) from mine",
            [*args, paper_id, paper_id, utcnow(), reason, channel, message_ts])
        return bool(row and row[0])

    def record_digest_failure(self, user_id: str, local_date: str, owner: str, paper_id: str) -> int:
        # In one statement: two runs counting at once both count (a read, then a write, could lose one).
        with self._conn() as conn:
            row = conn.execute(
                "update digests set failures = (coalesce(failures, '{}')::jsonb || jsonb_build_object(%(p)s,"
                " coalesce((failures::jsonb ->> %(p)s)::int, 0) + 1))::text"
                " where ws = %(w)s and user_id = %(u)s and local_date = %(d)s and owner = %(o)s"
                " and status = 'sending' returning (failures::jsonb ->> %(p)s)::int",
                {"p": paper_id, "w": self._ws, "u": user_id, "d": local_date, "o": owner}).fetchone()
        if row is not None:
            return int(row[0])
        record = self.get_digest(user_id, local_date)  # not the owner's: counted nowhere, as on SQLite
        return record.failures.get(paper_id, 0) + 1 if record else 0

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
        sql = native(copied_rows_insert(table))
        if table == "counters":  # the papers change counter only goes forward (see upsert_papers)
            sql = ("insert into counters (name, value) values (%s, %s) on conflict (name) do update set"
                   " value = case when counters.name = 'papers' then greatest(counters.value, excluded.value)"
                   " else excluded.value end")
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
                if table == "inbox" and rows:  # new items number after the copied ones
                    conn.execute("select setval(pg_get_serial_sequence('inbox', 'seq'),"
                                 " (select max(seq) from inbox))")
        except (psycopg.errors.IntegrityError, psycopg.errors.DataError) as exc:
            reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise StorageError(f"{self.path}: rows of {table} could not be copied ({reason})") from exc
        return len(rows)


__all__ = ["BUSY_SECONDS", "PostgresStore", "redacted", "translate"]


# The tables a forget or an uninstall deletes from (every table with a workspace's rows, installations
# included). Table names come from storage.workspaces, never from input.
_VACUUM = "vacuum " + ", ".join(workspaces.DELETED_TABLES)

# A person's hold: its connection gives up waiting for a row lock as a pooled one does (the statements
# run there meanwhile), but this wait lasts as long as the other holder takes. A materialized CTE is
# evaluated first, so the setting (local to this one statement's transaction) is made before the wait.
_HOLD = ("with unlimited as materialized (select set_config('lock_timeout', '0', true))"
         " select pg_advisory_lock(%s, hashtext(%s)) from unlimited")

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
         where ws = %(ws)s and user_id = %(user)s),
      (select json_agg(json_build_array(key, phrase) order by added_at, key)
         from alerts where ws = %(ws)s and user_id = %(user)s),
      (select json_agg(json_build_array(paper_id, shared_at) order by shared_at desc, paper_id desc)
         from shares where ws = %(ws)s and user_id = %(user)s)
"""
