"""Schema steps written once (storage/schema_steps.py), applied by both backends' migrators.

On each backend: the released steps (each backend's own m001-m010, then the shared ones up to m018)
still make the schema paperbot made before the steps were shared and record the same names; a step
declared once (a throw-away one here) upgrades a database today's paperbot made, exactly once, changing
exactly what it declares; a step that fails leaves nothing; a name already taken is refused. At the
end: the status Literals of storage/models.py name what the leases store.
"""

from __future__ import annotations

import hashlib
import sqlite3
from typing import get_args

import pytest
from sqlite_utils import Database

from storage import leases, open_store, pg_migrations
from storage.migrations import HISTORY, migration_set
from storage.models import DigestStatus, FeedbackValue, JobStatus, LeaseKindName, LeaseTaken, TrendingStatus
from storage.schema_steps import STEPS, AddColumn, Column, CreateIndex, CreateTable, Sql, Step, statements
from tests.storage.conftest import dispose

#: The names every database made so far has recorded, in order, on both backends: never renamed.
RELEASED = ["m001_core", "m002_slack", "m003_digests", "m004_feedback_counter", "m005_once_keys",
            "m006_digest_outages", "m007_job_leases", "m008_topics_unique_ignoring_case", "m009_workspaces",
            "m010_paper_identity", "m011_saved", "m012_feeds_authors_mutes", "m013_weekly_digests",
            "m015_channels", "m018_paper_vectors"]

#: The shared steps among them: what a database today's paperbot made has applied.
TODAY = STEPS[:[step.name for step in STEPS].index("m018_paper_vectors") + 1]

#: sha256 of :func:`schema`'s description of a database made by the released steps, measured on main
#: before the steps were shared (PostgreSQL 15). A released step is never edited, so these never change;
#: a step added to STEPS doesn't touch them.
HISTORY_SCHEMA = {
    "sqlite": "9eaae86a5f7d85b213833517d359d022fbf7857067dd88f69d0dfa03e21676d0",
    "postgres": "0fe17aaa661ef4a9ca65b11b8d95eec5570420099aac7ee2bb68bc330f54917a",
}

#: A step as a new per-person setting would bring, with a table, an index on an expression and data
#: written by SQL: an insert, so that running it twice would show as two rows.
THROWAWAY = Step("m900_throwaway", (
    AddColumn("people", Column("digest_format", "text", not_null=True, default="short")),
    CreateTable("reading_goals", (
        Column("ws", not_null=True, default=""),
        Column("user_id", not_null=True),
        Column("goal", "integer", not_null=True, default=0),
        Column("seq", "bigint"),
        Column("data", "blob"),
        Column("note", default="100% 'quoted'"),
    ), primary_key=("ws", "user_id")),
    CreateIndex("reading_goals", ("ws", "lower(user_id)"), unique=True, name="idx_reading_goals_lower"),
    CreateIndex("reading_goals", ("seq",)),
    Sql("insert into reading_goals (ws, user_id, goal, note) select ws, user_id, 3, 'both' from people",
        postgres="insert into reading_goals (ws, user_id, goal, note)"
                 " select ws, user_id, 3, 'postgres' from people"),
))


def rows(backend: str, target: str, sql: str) -> list[tuple]:
    if backend == "sqlite":
        with sqlite3.connect(target) as conn:
            found = [tuple(r) for r in conn.execute(sql).fetchall()]
        conn.close()
        return found
    import psycopg

    with psycopg.connect(target, autocommit=True) as conn:
        cursor = conn.execute(sql)
        return [tuple(r) for r in cursor.fetchall()] if cursor.description else []


def migrate(backend: str, target: str, steps: list[Step]) -> list[str]:
    """Bring ``target`` to the released history followed by ``steps``, as each backend's store does on
    opening; the names applied now."""
    if backend == "sqlite":
        db = Database(target)
        try:
            before = {r["name"] for r in db.query("select name from _sqlite_migrations")} \
                if db.table("_sqlite_migrations").exists() else set()
            migration_set(steps).apply(db)
            return [r["name"] for r in db.query("select name from _sqlite_migrations order by id")
                    if r["name"] not in before]
        finally:
            db.close()
    import psycopg

    with psycopg.connect(target, autocommit=True) as conn:
        return pg_migrations.apply(conn, pg_migrations.migration_list(steps))


def recorded(backend: str, target: str) -> list[str]:
    if backend == "sqlite":
        return [r[0] for r in rows(backend, target, "select name from _sqlite_migrations order by id")]
    return [r[0] for r in rows(backend, target,
                               "select name from schema_migrations order by applied_at, name")]


def schema(backend: str, target: str) -> list[tuple]:
    """Every table, column, key, index, trigger and function of the database, as sorted rows."""
    if backend == "sqlite":
        return sorted(rows(backend, target, "select type, name, tbl_name, sql from sqlite_master"),
                      key=repr)
    queries = [
        "select 'column', table_name, column_name, data_type, is_nullable, column_default, is_identity,"
        " ordinal_position from information_schema.columns where table_schema = 'public'",
        "select 'index', tablename, indexname, indexdef from pg_indexes where schemaname = 'public'",
        "select 'constraint', conrelid::regclass::text, conname, pg_get_constraintdef(oid) from pg_constraint"
        " where connamespace = 'public'::regnamespace",
        "select 'trigger', event_object_table, trigger_name, event_manipulation, action_timing,"
        " action_statement from information_schema.triggers where trigger_schema = 'public'",
        "select 'function', proname, prosrc from pg_proc where pronamespace = 'public'::regnamespace",
    ]
    return sorted((row for query in queries for row in rows(backend, target, query)), key=repr)


def fingerprint(description: list[tuple]) -> str:
    return hashlib.sha256("\n".join(map(repr, description)).encode()).hexdigest()


def test_the_released_steps_make_the_schema_of_before_under_the_same_names(backend, store_target):
    migrate(backend, store_target, TODAY)
    description = schema(backend, store_target)
    assert fingerprint(description) == HISTORY_SCHEMA[backend], "\n".join(map(repr, description))
    assert recorded(backend, store_target) == RELEASED
    shared = [step.name for step in TODAY]
    assert [step.__name__ for step in HISTORY] + shared == RELEASED
    assert [name for name, _ in pg_migrations.HISTORY] + shared == RELEASED


def test_a_fresh_store_is_the_released_history_then_the_shared_steps(backend, store_target):
    dispose(open_store(store_target))
    assert recorded(backend, store_target) == RELEASED + [step.name for step in STEPS[len(TODAY):]]


def test_a_step_declared_once_upgrades_an_old_database_once_on_either_backend(backend, store_target):
    # What today's paperbot leaves: the released steps, and a person.
    assert migrate(backend, store_target, TODAY) == RELEASED
    rows(backend, store_target, "insert into people (ws, user_id, tz) values ('T1', 'U_OLD', 'UTC')")
    # Steps appended to STEPS since this test was written run first, so that what follows compares the
    # throw-away step alone whatever STEPS holds by then.
    shared = [step.name for step in STEPS[len(TODAY):]]
    assert migrate(backend, store_target, STEPS) == shared
    before = schema(backend, store_target)

    assert migrate(backend, store_target, [*STEPS, THROWAWAY]) == [THROWAWAY.name]
    after = schema(backend, store_target)
    assert migrate(backend, store_target, [*STEPS, THROWAWAY]) == []  # opened again: nothing runs twice
    assert schema(backend, store_target) == after
    assert recorded(backend, store_target) == [*RELEASED, *shared, THROWAWAY.name]

    # The old row got the new column's default; the step's SQL ran once, in this backend's words.
    assert rows(backend, store_target, "select user_id, tz, digest_format from people") == [
        ("U_OLD", "UTC", "short")]
    said = "both" if backend == "sqlite" else "postgres"
    assert rows(backend, store_target, "select ws, user_id, goal, seq, data, note from reading_goals") == [
        ("T1", "U_OLD", 3, None, None, said)]
    rows(backend, store_target, "insert into reading_goals (user_id) values ('U2')")
    assert rows(backend, store_target, "select ws, goal, note from reading_goals where user_id = 'U2'") == [
        ("", 0, "100% 'quoted'")]
    with pytest.raises(Exception, match="(?i)unique"):  # the index on lower(user_id) holds
        rows(backend, store_target, "insert into reading_goals (user_id) values ('u2')")

    # Nothing else changed: what the step added is exactly what it declares.
    added = [row for row in after if row not in before]
    removed = [row for row in before if row not in after]
    if backend == "sqlite":
        assert {(r[0], r[1]) for r in added} == {
            ("table", "people"), ("table", "reading_goals"), ("index", "sqlite_autoindex_reading_goals_1"),
            ("index", "idx_reading_goals_lower"), ("index", "idx_reading_goals_seq")}
        assert [(r[0], r[1]) for r in removed] == [("table", "people")]  # its SQL gained the column
        people = next(r[3] for r in added if r[1] == "people")
        assert "\"digest_format\" TEXT NOT NULL DEFAULT 'short'" in people
    else:
        assert removed == []
        assert {r[:3] for r in added} == {
            ("column", "people", "digest_format"), ("index", "reading_goals", "idx_reading_goals_lower"),
            ("index", "reading_goals", "idx_reading_goals_seq"),
            ("index", "reading_goals", "reading_goals_pkey"),
            ("constraint", "reading_goals", "reading_goals_pkey"),
            *(("column", "reading_goals", c) for c in ("ws", "user_id", "goal", "seq", "data", "note"))}
        types = {r[2]: r[3] for r in added if r[0] == "column"}
        assert types == {"digest_format": "text", "ws": "text", "user_id": "text", "goal": "integer",
                         "seq": "bigint", "data": "bytea", "note": "text"}

    # The store opens a database a newer paperbot has stepped ahead: it leaves unknown records alone.
    store = open_store(store_target)
    try:
        assert store.count_papers() == 0
    finally:
        dispose(store)


def test_a_step_that_fails_leaves_no_trace_and_stays_pending(backend, store_target):
    migrate(backend, store_target, TODAY)
    broken = Step("m901_broken", (AddColumn("people", Column("half_done")),
                                  Sql("select * from no_such_table")))
    with pytest.raises(Exception, match="no_such_table"):
        migrate(backend, store_target, [*TODAY, broken])
    assert recorded(backend, store_target) == RELEASED
    columns = ("select name from pragma_table_info('people')" if backend == "sqlite" else
               "select column_name from information_schema.columns where table_name = 'people'")
    assert ("half_done",) not in rows(backend, store_target, columns)


def test_a_step_name_already_taken_is_refused():
    taken = Step("m009_workspaces", (AddColumn("people", Column("x")),))
    with pytest.raises(ValueError, match="m009_workspaces"):
        migration_set([taken])
    with pytest.raises(ValueError, match="m009_workspaces"):
        pg_migrations.migration_list([taken])
    twice = Step("m900_twice", (AddColumn("people", Column("x")),))
    with pytest.raises(ValueError, match="m900_twice"):
        pg_migrations.migration_list([twice, twice])


@pytest.mark.parametrize("declare, problem", [
    (lambda: AddColumn("people", Column("x", not_null=True)), "needs a default"),
    (lambda: CreateIndex("topics", ("lower(topic)",)), "needs a name"),
    (lambda: CreateTable("t", (Column("a"),), primary_key=("b",)), "primary key"),
    (lambda: Column("drop table people"), "plain lower-case"),
    (lambda: Column("x", "varchar"), "unknown type"),  # type: ignore[arg-type]
    (lambda: Column("x", "integer", default=True), "0 or 1"),
    (lambda: Step("m902_nothing", ()), "changes nothing"),
])
def test_a_step_that_can_t_be_the_same_on_both_backends_is_refused_when_declared(declare, problem):
    with pytest.raises(ValueError, match=problem):
        declare()


def test_each_dialect_spells_the_neutral_types_its_own_way():
    step = Step("m903_types", (CreateTable("t", (Column("a", "bigint", not_null=True), Column("b", "blob")),
                                           primary_key=("a",)),))
    assert statements(step, "sqlite") == ['create table t ("a" INTEGER NOT NULL PRIMARY KEY, "b" BLOB)']
    assert statements(step, "postgres") == ['create table t ("a" bigint NOT NULL PRIMARY KEY, "b" bytea)']


def test_the_status_literals_name_what_the_leases_store():
    assert set(leases.KINDS) == set(get_args(LeaseKindName))
    statuses = {leases.DIGEST: DigestStatus, leases.JOB: JobStatus, leases.TRENDING: TrendingStatus,
                leases.RECAP: TrendingStatus}
    for name, kind in leases.KINDS.items():
        assert kind.held in get_args(statuses[name]), name


def test_what_the_stores_hand_back_is_one_of_the_literals(any_store):
    early, late = "2026-01-01T00:00:00+00:00", "2026-01-01T01:00:00+00:00"
    taken = [any_store.take_lease(leases.JOB, ("refit",), "a", early, early),
             any_store.take_lease(leases.JOB, ("refit",), "b", late, late)]  # a's lease ran out
    assert taken == ["new", "taken"] and set(taken) == set(get_args(LeaseTaken))
    assert any_store.finish_lease(leases.JOB, ("refit",), "b", "done", late)
    job = any_store.get_job("refit")
    assert job is not None and job.status in get_args(JobStatus)
    assert any_store.start_digest("U1", "2026-01-01", "a", late, early)
    sending = any_store.get_digest("U1", "2026-01-01")
    assert sending is not None and sending.status == "sending"
    assert sending.status in get_args(DigestStatus)
    assert any_store.finish_digest("U1", "2026-01-01", "a", "empty", late)
    ended = any_store.get_digest("U1", "2026-01-01")
    assert ended is not None and ended.status == "empty"
    assert ended.status in get_args(DigestStatus)
    any_store.set_feedback("U1", "p1", -1)
    assert [f.value for f in any_store.get_feedback("U1")] == [-1]
    assert -1 in get_args(FeedbackValue)
