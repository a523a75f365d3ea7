"""The store contract suite's fixtures: every test that takes ``any_store`` runs on SQLite and on PostgreSQL.

PostgreSQL is the server at ``PAPERBOT_TEST_POSTGRES`` (a URL) when set, else the local default below if it
answers, else (where PostgreSQL is installed) a private cluster this test session starts itself
(tests/storage/private_cluster.py). Each test session makes its own throwaway database and drops it at
the end (stand_ins/postgres_servers.py names it, and first drops this checkout's leftovers of dead runs); each
test starts from an empty schema. Without any server the PostgreSQL cases skip, with one line naming
PAPERBOT_TEST_POSTGRES; with ``PAPERBOT_REQUIRE_POSTGRES=1`` (CI) they fail instead. The end-to-end and
fault suites use the same server (tests/e2e/harness.py::new_database).
"""

from __future__ import annotations

import functools
import os

import pytest

from stand_ins.postgres_servers import DEFAULT_SERVER, NO_DRIVER, throwaway_database
from stand_ins.postgres_servers import problem as _answers
from stand_ins.postgres_servers import with_database as with_database  # other tests import it from here
from storage import SqliteStore, open_store

#: Replaces DEFAULT_SERVER (e.g. with a dead port, to make the private-cluster fallback's test use it).
DEFAULT_VARIABLE = "PAPERBOT_TEST_POSTGRES_DEFAULT"


def _server() -> str:
    """The server the PostgreSQL tests use: PAPERBOT_TEST_POSTGRES, else the local default if it answers,
    else a private cluster if one can be started (see :func:`_choice`)."""
    return os.environ.get("PAPERBOT_TEST_POSTGRES") or _choice()[0]


@functools.cache
def _choice() -> tuple[str, str | None]:
    """Without PAPERBOT_TEST_POSTGRES: (the server's URL, None), or (the default's URL, why none can be
    had). Decided once per process; a private cluster started here lives until the process exits."""
    default = os.environ.get(DEFAULT_VARIABLE) or DEFAULT_SERVER
    problem = _answers(default)
    if problem is None or problem == NO_DRIVER:
        return default, problem
    from tests.storage import private_cluster

    try:
        cluster = private_cluster.start()
    except private_cluster.Unavailable as exc:
        return default, f"{problem}; no private cluster either: {exc}"
    return cluster.url, _answers(cluster.url)


@functools.cache
def _server_problem() -> str | None:
    """Why no PostgreSQL server can be used for the tests, or None when one answers (asked once)."""
    if os.environ.get("PAPERBOT_TEST_POSTGRES"):
        return _answers(os.environ["PAPERBOT_TEST_POSTGRES"])
    return _choice()[1]


def _skip_reason(why: str) -> str:
    return (f"no PostgreSQL server for the PostgreSQL tests ({why}):"
            " set PAPERBOT_TEST_POSTGRES to a postgresql:// URL")


def _uses_postgres(item) -> bool:
    callspec = getattr(item, "callspec", None)
    return "pg_database" in item.fixturenames or (callspec is not None and callspec.params.get("backend")
                                                  == "postgres")


def mark_postgres_skips(items) -> None:
    """Without a server, mark every PostgreSQL case among ``items`` (a ``backend`` parameter "postgres",
    or pg_database) skipped; with PAPERBOT_REQUIRE_POSTGRES=1 the fixtures fail them instead. The
    storage, end-to-end and fault conftests each call it from their collection hook (pytest hands every
    conftest's hook all the session's items; the first call marks, the others find them marked)."""
    # A skip mark, not a skip from the fixture: pytest folds the report of marked skips into one line
    # per file instead of one per test.
    if os.environ.get("PAPERBOT_REQUIRE_POSTGRES") == "1":
        return
    wanted = [item for item in items if not getattr(item, "_pg_checked", False) and _uses_postgres(item)]
    problem = _server_problem() if wanted else None
    for item in wanted:
        item._pg_checked = True
        if problem:
            item.add_marker(pytest.mark.skip(reason=_skip_reason(problem)))


def pytest_collection_modifyitems(config, items):
    mark_postgres_skips(items)


@pytest.fixture(scope="session")
def pg_database() -> str:
    """The URL of this session's throwaway database, dropped at the end."""
    problem = _server_problem()
    if problem:
        message = _skip_reason(problem)
        if os.environ.get("PAPERBOT_REQUIRE_POSTGRES") == "1":
            pytest.fail(message + " (PAPERBOT_REQUIRE_POSTGRES=1 makes this a failure)", pytrace=False)
        pytest.skip(message)
    with throwaway_database(_server()) as url:
        yield url


def reset_schema(url: str) -> None:
    """Empty the database: every table, function and the migrations record go with schema public."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("drop schema public cascade")
        conn.execute("create schema public")


@pytest.fixture
def pg_url(pg_database) -> str:
    """This session's database, emptied for this test."""
    reset_schema(pg_database)
    return pg_database


@pytest.fixture(params=["sqlite", "postgres"])
def backend(request) -> str:
    return request.param


@pytest.fixture
def store_target(backend, tmp_path, request) -> str:
    """What ``open_store`` opens for this backend: a fresh SQLite file, or an emptied PostgreSQL database."""
    if backend == "sqlite":
        return str(tmp_path / "test.db")
    return request.getfixturevalue("pg_url")


@pytest.fixture
def any_store(store_target):
    """A fresh store on each backend in turn."""
    store = open_store(store_target)
    yield store
    dispose(store)


@pytest.fixture
def pg_store(pg_url):
    """A fresh PostgreSQL store (for PostgreSQL-only tests)."""
    store = open_store(pg_url)
    yield store
    dispose(store)


def dispose(store) -> None:
    if isinstance(store, SqliteStore):
        store.close()
    else:
        store.dispose()


def sql_rows(store, sql: str) -> list[tuple]:
    """Run raw SQL (no parameters) on either backend, for checks the Store's methods don't offer."""
    if isinstance(store, SqliteStore):
        return [tuple(r) for r in store.db.execute(sql).fetchall()]
    with store._conn() as conn:
        cur = conn.execute(sql)
        return [tuple(r) for r in cur.fetchall()] if cur.description else []


def count_rows(store, table: str) -> int:
    return sql_rows(store, f"select count(*) from {table}")[0][0]


def tables_with_column(store, column: str) -> set[str]:
    """Every table of the store that has ``column``."""
    if isinstance(store, SqliteStore):
        return {t for t in store.db.table_names() if column in store.db[t].columns_dict}
    return {r[0] for r in sql_rows(store, "select table_name from information_schema.columns where"
                                          f" table_schema = 'public' and column_name = '{column}'")}


def database_before(backend: str, target: str, monkeypatch, migration: str, insert: str,
                    rows: list[tuple]) -> None:
    """Make ``target`` what an older paperbot left: migrated up to (not including) ``migration``, holding
    ``rows`` (``insert`` is the statement up to ``values``), for a test of what that migration does."""
    marks = ", ".join(["?"] * len(rows[0]))
    if backend == "sqlite":
        from sqlite_utils import Database

        from storage.migrations import migrations

        db = Database(target)
        migrations.apply(db, stop_before=migration)
        for row in rows:
            db.execute(f"{insert}({marks})", row)
        db.conn.commit()
        db.close()
        return
    import psycopg

    from storage import pg_migrations

    names = [name for name, _ in pg_migrations.MIGRATIONS]
    before = pg_migrations.MIGRATIONS[:names.index(migration)]
    with psycopg.connect(target, autocommit=True) as conn:
        with monkeypatch.context() as patch:
            patch.setattr(pg_migrations, "MIGRATIONS", before)
            pg_migrations.apply(conn)
        for row in rows:
            conn.execute(f"{insert}({marks.replace('?', '%s')})", row)


def rows_mentioning(store, text: str) -> dict[str, int]:
    """How many rows of each table (every column read as text, binary ones as hex too; the migrations'
    own records aside) mention ``text``; tables with none are left out."""
    if isinstance(store, SqliteStore):
        tables = {t: [c[1] for c in store.db.execute(f"pragma table_info('{t}')")]
                  for t in store.db.table_names() if not t.startswith(("_", "sqlite_"))}
        hexed = "lower(hex({c}))"
    else:
        tables = {}
        query = ("select table_name, column_name from information_schema.columns"
                 " where table_schema = 'public' and table_name <> 'schema_migrations'")
        for table, column in sql_rows(store, query):
            tables.setdefault(table, []).append(column)
        hexed = "cast({c} as text)"  # bytea reads as its hex
    found = {}
    needle, needle_hex = text.replace("'", "''"), text.encode().hex()
    for table, cols in tables.items():
        where = " or ".join(f"cast({c} as text) like '%{needle}%'"
                            f" or {hexed.format(c=c)} like '%{needle_hex}%'" for c in cols)
        n = sql_rows(store, f"select count(*) from {table} where {where}")[0][0]
        if n:
            found[table] = n
    return found
