"""The one seam between the statements both stores share and the backend that runs them.

Shared statements (:mod:`storage.papers`, :mod:`storage.people`, :mod:`storage.digests`, …) are written
once, in qmark style (``?`` placeholders, no literal ``?`` or ``%``), and run through the store's
:class:`Dialect`: one object per backend that knows its placeholders, how a list of values is passed,
which column keeps insertion order, which writes it serialises, and how a statement runs (run for a
row count, one row, all rows, rows as dicts, a ``RETURNING`` write). Every method runs on the connection
of the calling thread's transaction when there is one.

Both backends speak ``INSERT … ON CONFLICT`` and ``RETURNING`` alike (SQLite 3.35 or newer), so an
upsert is the same text on each; what differs is said here, nowhere else.
"""

from __future__ import annotations

import contextlib
import copy
import json
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any, Self

if TYPE_CHECKING:
    import psycopg
    from sqlite_utils import Database

Args = Sequence[Any]


class Dialect(ABC):
    """How one backend writes and runs the shared statements (see the module)."""

    #: The backend's name in :mod:`storage.tables` ("sqlite" or "postgres").
    name: str
    #: The column that orders a table's rows as they were inserted (topics, feedback).
    insertion_order: str

    @abstractmethod
    def listed(self, values: Sequence[str]) -> tuple[str, list]:
        """A relation ``c(id)`` of ``values`` for a ``from`` clause, and its arguments: one parameter
        however many values, so a statement's text and plan do not change with their number."""

    @abstractmethod
    def alias_urls(self, paper_id: str) -> str:
        """An expression: the URLs of the ids paper ``paper_id`` (a column name, never input) is also known by
        (``paper_aliases``), oldest first, as a JSON array in text; ``[]`` for none."""

    @abstractmethod
    def text_matches(self, phrases: Sequence[Sequence[str]], every: bool) -> tuple[str, list]:
        """A relation ``m(paper_id, score)`` of the papers whose full text (``paper_text``) holds each of
        ``phrases`` (``every``) or any of them, each a run of lowercase words (:func:`storage.fulltext.words`)
        matched as a phrase; higher scores match better. Every word goes in as data, quoted: nothing a
        person types is ever the index's query syntax."""

    @abstractmethod
    def new_text_matches(self, phrases: Sequence[Sequence[str]], since: str) -> tuple[str, list]:
        """A relation ``m(paper_id)`` of the papers added at or after ``since`` (ISO UTC) whose full text
        holds any of ``phrases`` (as :meth:`text_matches` reads them): a few days' papers found without
        reading every match in the corpus."""

    @abstractmethod
    def serialised(self) -> AbstractContextManager[None]:
        """A block whose reads and writes no other writer may interleave with where the backend needs
        it for a compare-and-set (SQLite: its write lock); where rows are locked as written (PostgreSQL)
        nothing more is taken."""

    @abstractmethod
    def _cursor(self, sql: str, args: Args) -> AbstractContextManager[Any]:
        """A DB-API cursor that ran ``sql`` (qmark style) with ``args``."""

    def run(self, sql: str, args: Args = ()) -> int:
        """Run one statement; how many rows it changed."""
        with self._cursor(sql, args) as cursor:
            return int(cursor.rowcount)

    def one(self, sql: str, args: Args = ()) -> tuple | None:
        """The first row of a query (a tuple), or None."""
        rows = self.all(sql, args)
        return rows[0] if rows else None

    def all(self, sql: str, args: Args = ()) -> list[tuple]:
        """Every row of a query, as tuples."""
        with self._cursor(sql, args) as cursor:
            return [tuple(row) for row in cursor.fetchall()]

    def rows(self, sql: str, args: Args = ()) -> list[dict]:
        """Every row of a query, as dicts by column name (what :class:`storage.merging.Sql` asks)."""
        with self._cursor(sql, args) as cursor:
            names = [column[0] for column in cursor.description]
            return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]

    def write(self, sql: str, args: Args = ()) -> int:
        """Run one write that callers rely on being atomic alone (a lease's compare-and-set); how many
        rows it changed."""
        with self.serialised():
            return self.run(sql, args)

    def returning(self, sql: str, args: Args = ()) -> list[tuple]:
        """Run a write with a ``RETURNING`` clause, atomic alone; the rows it returned."""
        with self.serialised():
            return self.all(sql, args)


class SqliteDialect(Dialect):
    """SQLite through sqlite-utils: qmark placeholders as they are, lists as JSON (``json_each``)."""

    name = "sqlite"
    insertion_order = "rowid"

    def __init__(self, database: Callable[[], Database],
                 transaction: Callable[[], AbstractContextManager[None]]):
        self._database = database
        self._transaction = transaction

    def listed(self, values: Sequence[str]) -> tuple[str, list]:
        return "(select value as id from json_each(?)) c", [json.dumps(list(values))]

    def alias_urls(self, paper_id: str) -> str:
        # The aggregate takes the rows in the order the subquery gives them.
        return ("(select json_group_array(url) from (select a.url from paper_aliases a"  # noqa: S608
                f" where a.paper_id = {paper_id} and a.url is not null order by a.seq))")

    @staticmethod
    def _expression(phrases: Sequence[Sequence[str]], every: bool) -> str:
        """One FTS5 expression, each phrase a string in double quotes (whose words hold no quote)."""
        return f" {'AND' if every else 'OR'} ".join('"' + " ".join(p) + '"' for p in phrases)

    def text_matches(self, phrases: Sequence[Sequence[str]], every: bool) -> tuple[str, list]:
        # bm25() is lower for a better match, and weighs a title's words most.
        return ("(select p.id paper_id, -bm25(paper_text, 4.0, 1.0, 2.0) score from paper_text"
                " join papers p on p.rowid = paper_text.rowid where paper_text match ?) m"), [
                    self._expression(phrases, every)]

    def new_text_matches(self, phrases: Sequence[Sequence[str]], since: str) -> tuple[str, list]:
        # FTS5 skips to a rowid floor in its doclists: the first rowid of the papers added since then
        # (read by the added_at index; a min() left to the planner walks the table in rowid order). Every
        # paper added since has a rowid at least that; new papers get the highest rowids, so the floor
        # leaves out nearly all the corpus (0.7 ms, not 33, for 5 common phrases in 100,000 papers).
        return ("(select p.id paper_id from paper_text join papers p on p.rowid = paper_text.rowid"
                " where paper_text match ? and paper_text.rowid >= (select min(rowid) from papers"
                " indexed by idx_papers_added_at where added_at >= ?) and p.added_at >= ?) m"), [
                    self._expression(phrases, every=False), since, since]

    def serialised(self) -> AbstractContextManager[None]:
        # Every RETURNING row must be read before SQLite can commit the statement, and sqlite3 leaves a
        # transaction open after one: a transaction of its own ends both. Inside one already (its write
        # lock held, its end the caller's), a statement is atomic alone: a savepoint around it would
        # only add two statements to every write of a step (a digest's paper recorded: four, not two).
        if self._database().conn.in_transaction:
            return contextlib.nullcontext()
        return self._transaction()

    @contextlib.contextmanager
    def _cursor(self, sql: str, args: Args) -> Iterator[Any]:
        yield self._database().execute(sql, list(args))


class PostgresDialect(Dialect):
    """PostgreSQL through psycopg: ``%s`` placeholders, lists as arrays (``unnest``)."""

    name = "postgres"
    insertion_order = "pos"

    def __init__(self, connection: Callable[[], AbstractContextManager[psycopg.Connection]]):
        self._connection = connection

    def listed(self, values: Sequence[str]) -> tuple[str, list]:
        return "unnest(?::text[]) c(id)", [list(values)]

    def alias_urls(self, paper_id: str) -> str:
        return ("(select coalesce(json_agg(a.url order by a.seq), '[]'::json)::text"  # noqa: S608
                f" from paper_aliases a where a.paper_id = {paper_id} and a.url is not null)")

    @staticmethod
    def _query(phrases: Sequence[Sequence[str]], every: bool) -> tuple[str, list]:
        """The tsquery of ``phrases`` (all of them, or any) and its arguments: phraseto_tsquery reads its
        argument as plain text (no operators), one parameter per phrase."""
        query = f" {'&&' if every else '||'} ".join(["phraseto_tsquery('simple', ?)"] * len(phrases))
        return query, [" ".join(p) for p in phrases]

    def text_matches(self, phrases: Sequence[Sequence[str]], every: bool) -> tuple[str, list]:
        query, args = self._query(phrases, every)
        # Only the fixed call of _query is repeated into the statement.
        relation = ("(select t.paper_id, ts_rank(t.doc, q.q) score from paper_text t,"  # noqa: S608
                    f" (select {query} q) q where t.doc @@ q.q) m")
        return relation, args

    def new_text_matches(self, phrases: Sequence[Sequence[str]], since: str) -> tuple[str, list]:
        # The planner chooses: the few recent papers by the added_at index, each tested against the query,
        # or the GIN index's matches joined to them.
        query, args = self._query(phrases, every=False)
        # Only the fixed call of _query is repeated into the statement.
        relation = ("(select t.paper_id from paper_text t join papers p on p.id = t.paper_id,"  # noqa: S608
                    f" (select {query} q) q where t.doc @@ q.q and p.added_at >= ?) m")
        return relation, [*args, since]

    def serialised(self) -> AbstractContextManager[None]:
        # Each compare-and-set is one statement whose WHERE the server re-checks on the newest row.
        return contextlib.nullcontext()

    @contextlib.contextmanager
    def _cursor(self, sql: str, args: Args) -> Iterator[Any]:
        with self._connection() as conn:
            yield conn.execute(native(sql), list(args))


def native(sql: str) -> str:
    """A qmark statement (no literal ``?`` or ``%``) in psycopg's placeholder style."""
    return sql.replace("?", "%s")


class Shared:
    """What the shared parts of a store (its mixins) need of it: its dialect, its workspace, and the few
    methods each backend writes itself."""

    _sql: Dialect
    _ws: str

    @property
    def workspace(self) -> str:
        return self._ws

    def for_workspace(self, ws: str) -> Self:
        # The view of workspace ``ws`` (a team id, or the enterprise id of an org install): a copy sharing
        # the store's connections, locks and the thread's open transaction, nothing opened anew (so
        # ``dispose`` of any view closes them for all).
        if not isinstance(ws, str):
            raise TypeError(f"a workspace key is a string, not {type(ws).__name__}")
        view = copy.copy(self)
        view._ws = ws
        return view

    def transaction(self) -> AbstractContextManager[None]:  # pragma: no cover - each store's own
        raise NotImplementedError

    def lock_person(self, user_id: str) -> None:  # pragma: no cover - each store's own
        raise NotImplementedError

    def scrub_log(self) -> None:  # pragma: no cover - each store's own
        raise NotImplementedError
