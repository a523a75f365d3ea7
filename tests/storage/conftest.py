"""The store contract suite's fixtures: every test that takes ``any_store`` runs on SQLite and on PostgreSQL.

PostgreSQL is the server at ``PAPERBOT_TEST_POSTGRES`` (a URL) when set, else the local default below if it
answers, else (where PostgreSQL is installed) a private cluster this test session starts itself
(tests/storage/private_cluster.py). Each test session makes its own throwaway database and drops it at
the end (stand_ins/postgres_servers.py names it, and first drops this checkout's leftovers of dead runs); each
test starts from an empty schema, or, when its fixtures open a store on it first, from a migrated schema
emptied of rows (``pg_url``). Without any server the PostgreSQL cases skip, with one line naming
PAPERBOT_TEST_POSTGRES; with ``PAPERBOT_REQUIRE_POSTGRES=1`` (CI) they fail instead. The end-to-end and
fault suites use the same server (tests/e2e/harness.py::new_database).
"""

from __future__ import annotations

import functools
import os
from pathlib import Path

import pytest

from stand_ins.postgres_servers import DEFAULT_SERVER, NO_DRIVER, throwaway_database
from stand_ins.postgres_servers import problem as _answers
from stand_ins.postgres_servers import with_database as with_database  # other tests import it from here
from storage import SqliteStore, open_store
from tests.conftest import new_sqlite

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


#: The fixtures that open a store on ``pg_url`` before the test runs: such a test never sees the database
#: before its schema is made, so it may start from a migrated database emptied of rows (see ``pg_url``).
#: Not ``pg_store``: its tests are about PostgreSQL itself, and some about what it does with tables it has
#: never analysed (plans), which emptied tables are not.
OPENED_BEFORE_THE_TEST = frozenset({"any_store"})

#: One line for each thing the migrations make, and what a test could change in it: tables and their columns,
#: indexes, constraints, triggers, functions, views, policies, types, extensions, privileges and the
#: database's own settings. Two databases with the same print have the same schema.
SCHEMA_PRINT = r"""
select md5(coalesce(string_agg(line, E'\n' order by line), '')) from (
  select 'col ' || c.relname || '.' || a.attname || ' ' || format_type(a.atttypid, a.atttypmod) || ' '
         || a.attnotnull || ' ' || coalesce(pg_get_expr(d.adbin, d.adrelid), '') || ' '
         || a.attgenerated::text || ' ' || a.attidentity::text || ' ' || coalesce(a.attacl::text, '') as line
    from pg_attribute a join pg_class c on c.oid = a.attrelid
    left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
    where c.relnamespace = 'public'::regnamespace and a.attnum > 0 and not a.attisdropped
  union all select 'rel ' || relname || ' ' || relkind::text || ' ' || relpersistence::text || ' '
         || relrowsecurity || ' ' || coalesce(array_to_string(reloptions, ','), '') || ' '
         || coalesce(relacl::text, '')
    from pg_class where relnamespace = 'public'::regnamespace
  union all select 'idx ' || indexdef from pg_indexes where schemaname = 'public'
  union all select 'con ' || conrelid::regclass::text || ' ' || conname || ' ' || pg_get_constraintdef(oid)
    from pg_constraint where connamespace = 'public'::regnamespace
  union all select 'trg ' || pg_get_triggerdef(oid) || ' ' || tgenabled::text from pg_trigger
    where not tgisinternal
  union all select 'fn ' || pg_get_functiondef(oid) || ' ' || coalesce(proacl::text, '')
    from pg_proc where pronamespace = 'public'::regnamespace and prokind in ('f', 'p')
  union all select 'fn ' || oid::regprocedure::text from pg_proc
    where pronamespace = 'public'::regnamespace and prokind not in ('f', 'p')
  union all select 'view ' || viewname || ' ' || definition from pg_views where schemaname = 'public'
  union all select 'pol ' || tablename || ' ' || policyname || ' ' || coalesce(qual, '') || ' '
         || coalesce(with_check, '') from pg_policies where schemaname = 'public'
  union all select 'type ' || typname || ' ' || typtype::text from pg_type
    where typnamespace = 'public'::regnamespace and typtype <> 'c'
  union all select 'ext ' || extname || ' ' || extversion || ' ' || extnamespace::regnamespace::text
    from pg_extension
  union all select 'nsp ' || nspname || ' ' || coalesce(nspacl::text, '') from pg_namespace
    where nspname !~ '^pg_' and nspname <> 'information_schema'
  union all select 'set ' || setrole || ' ' || array_to_string(setconfig, ',') from pg_db_role_setting
    where setdatabase = (select oid from pg_database where datname = current_database())
) lines
"""


#: By database URL, what it held right after a store first migrated it: its schema's print
#: (:data:`SCHEMA_PRINT`), the rows the migrations wrote (as JSON, by table) and its sequences' places. (Not
#: a fixture: the files that take ``pg_url`` import it by name from here, and would need this too.)
_PRISTINE: dict[str, dict] = {}


def _remember_pristine(url: str, pristine: dict) -> None:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        tables = [r[0] for r in conn.execute(
            "select relname from pg_class where relnamespace = 'public'::regnamespace"
            " and relkind in ('r', 'p') order by relname").fetchall()]
        rows = {}
        for table in tables:
            data = conn.execute(f'select json_agg(t)::text from "{table}" t').fetchone()[0]
            if data is not None:
                rows[table] = data
        sequences = {}
        names = conn.execute("select sequencename from pg_sequences where schemaname = 'public'").fetchall()
        for (name,) in names:
            sequences[name] = conn.execute(f'select last_value, is_called from "{name}"').fetchone()
        pristine.clear()
        pristine.update(print=conn.execute(SCHEMA_PRINT).fetchone()[0], tables=tables, rows=rows,
                        sequences=sequences)


def _back_to_pristine(url: str, pristine: dict) -> bool:
    """Empty the database of every row a test wrote and put back what the migrations wrote, with the
    sequences where they were; False (nothing done) when the schema is not the pristine one or the user
    may not skip the foreign keys while emptying (not a superuser)."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        if not pristine or conn.execute(SCHEMA_PRINT).fetchone()[0] != pristine["print"]:
            return False
        if conn.execute("select current_setting('is_superuser')").fetchone()[0] != "on":
            return False
        with conn.transaction():
            conn.execute("set local session_replication_role = replica")  # no foreign keys, no triggers
            for table in pristine["tables"]:
                conn.execute(f'delete from "{table}"')
            for table, data in pristine["rows"].items():
                conn.execute(f'insert into "{table}"'
                             f' select * from json_populate_recordset(null::"{table}", %s)', [data])
            for name, (last_value, is_called) in pristine["sequences"].items():
                conn.execute("select setval(%s, %s, %s)", [f'"{name}"', last_value, is_called])
    return True


@pytest.fixture
def pg_url(pg_database, request) -> str:
    """This session's database, emptied for this test. When the test's own fixtures open a store on it before
    it runs (:data:`OPENED_BEFORE_THE_TEST`), which would make the schema again at once, it is instead left
    as that store's opening leaves a new database: the current schema, only the rows the migrations write,
    the sequences unused. That takes some 20 ms where dropping the schema and migrating again took 250; a
    database whose schema a test changed is made again from nothing."""
    if OPENED_BEFORE_THE_TEST.isdisjoint(request.fixturenames):
        reset_schema(pg_database)
    elif not _back_to_pristine(pg_database, _PRISTINE.setdefault(pg_database, {})):
        reset_schema(pg_database)
        dispose(open_store(pg_database))
        _remember_pristine(pg_database, _PRISTINE[pg_database])
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
def any_store(store_target, backend, sqlite_template):
    """A fresh store on each backend in turn (on SQLite a copy of the worker's new database)."""
    if backend == "sqlite":
        new_sqlite(sqlite_template, Path(store_target))
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
