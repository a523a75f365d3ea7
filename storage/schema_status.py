"""Whether a database's schema is current, asked without changing it (``paperbot doctor``): opening a
store applies the steps it lacks, which a check must not do behind its caller's back."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from pathlib import Path

from storage.errors import StoreUnavailable, translated
from storage.opening import database_target, is_postgres_url


@dataclass(frozen=True)
class SchemaStatus:
    """The steps this paperbot knows and the database lacks (``pending``, applied when a store opens it),
    and those the database has that this paperbot does not know (a newer paperbot migrated it)."""

    applied: int
    pending: list[str] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)

    @property
    def current(self) -> bool:
        """Whether the database holds exactly the steps this paperbot knows."""
        return not self.pending and not self.unknown


def schema_status(target: str) -> SchemaStatus:
    """The schema of the database at ``target`` (a SQLite file or a PostgreSQL URL), read only. Raises
    StoreUnavailable (one line, no password) when it can't be opened or is not a database."""
    target = database_target(target)
    if is_postgres_url(target):
        return _postgres(target)
    if target != ":memory:" and not Path(target).is_file():
        raise StoreUnavailable(f"there is no database at {target} (`paperbot ingest` makes one)")
    return _sqlite(target)


def _compare(known: list[str], done: set[str]) -> SchemaStatus:
    return SchemaStatus(len(done), [n for n in known if n not in done], sorted(done - set(known)))


def _sqlite(path: str) -> SchemaStatus:
    from storage import schema_steps
    from storage.migrations import HISTORY, MIGRATION_SET

    known = [step.__name__ for step in HISTORY] + [step.name for step in schema_steps.STEPS]
    with translated(path):  # mode=rw: never creates a file; writes nothing but a crashed writer's recovery
        conn = sqlite3.connect(Path(path).resolve().as_uri() + "?mode=rw", uri=True, timeout=10)
        try:
            tables = {row[0] for row in conn.execute("select name from sqlite_master where type = 'table'")}
            if "_sqlite_migrations" not in tables:
                return _compare(known, set())
            done = {row[0] for row in conn.execute(
                "select name from _sqlite_migrations where migration_set = ?", [MIGRATION_SET])}
        finally:
            conn.close()
    return _compare(known, done)


def _postgres(url: str) -> SchemaStatus:
    try:
        import psycopg

        from storage.pg_connections import CONNECT_SECONDS, check_url, translate
        from storage.pg_migrations import MIGRATIONS
    except ImportError as exc:
        raise StoreUnavailable(f"can't open a PostgreSQL database without psycopg ({exc.name} is missing):"
                               " install paperbot with its postgres extra, paperbot[postgres]") from exc
    from storage.pg_connections import redacted

    check_url(url)
    try:
        with psycopg.connect(url, autocommit=True, connect_timeout=CONNECT_SECONDS) as conn:
            exists = conn.execute("select to_regclass('schema_migrations') is not null").fetchone()
            done = {row[0] for row in conn.execute("select name from schema_migrations")} \
                if exists and exists[0] else set()
    except psycopg.Error as exc:
        raise translate(exc, redacted(url)) from None
    return _compare([name for name, _ in MIGRATIONS], done)
