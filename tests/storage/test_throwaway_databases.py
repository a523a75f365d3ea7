"""The tests' throwaway PostgreSQL databases: a run drops the leftovers of this checkout's dead runs (a
server restarted under them, a run killed) and nobody else's, while other runs share the server."""

from __future__ import annotations

import subprocess
import sys

import psycopg
import pytest

from stand_ins.postgres_servers import (
    PREFIX,
    database_name,
    drop_leftovers,
    leftovers,
    owner_tag,
    process_alive,
    throwaway_database,
    with_database,
)
from tests.storage.conftest import _server


def dead_pid() -> int:
    """The id of a process that has ended (and been reaped)."""
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    assert not process_alive(proc.pid)
    return proc.pid


@pytest.fixture
def live_pid():
    """The id of a process that runs for the whole test (another run's worker, say)."""
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    yield proc.pid
    proc.kill()
    proc.wait()


def test_names_say_host_checkout_and_process():
    tag = owner_tag()
    name = database_name()
    assert name.startswith(f"{PREFIX}{tag}_") and len(name) <= 63  # PostgreSQL's limit on a name
    assert owner_tag(checkout="/elsewhere") != tag and owner_tag(host="other-host") != tag
    assert database_name() != name


def test_only_this_checkouts_names_of_dead_processes_are_leftovers(live_pid):
    dead, tag = dead_pid(), owner_tag()
    mine_dead = database_name(pid=dead)
    names = {
        mine_dead: True,
        database_name(pid=live_pid): False,  # a run still going (another worker, another session)
        database_name(): False,  # this very process
        database_name(pid=dead, tag=owner_tag(checkout="/another/checkout")): False,  # another checkout's
        database_name(pid=dead, tag=owner_tag(host="another-host")): False,  # another machine's
        f"{PREFIX}0123456789ab": False,  # the old unowned shape: nobody can tell whose
        "paperbot": False,
    }
    assert leftovers(names, tag) == [name for name, ours in names.items() if ours]


def _databases(server: str) -> set[str]:
    with psycopg.connect(server, autocommit=True, connect_timeout=3) as admin:
        return {r[0] for r in admin.execute("select datname from pg_database").fetchall()}


def test_a_run_drops_its_own_leftovers_on_the_server_and_nobody_elses(pg_database, live_pid):
    server = _server()
    dead = dead_pid()
    mine = database_name(pid=dead)
    elsewhere = owner_tag(checkout="/another/checkout")
    others = [database_name(pid=live_pid), database_name(pid=dead, tag=elsewhere)]
    with psycopg.connect(server, autocommit=True, connect_timeout=3) as admin:
        for name in [mine, *others]:
            admin.execute(f'create database "{name}"')
    try:
        # A leftover may still have a connection (an orphaned child of the dead run): it goes all the same.
        with psycopg.connect(with_database(server, mine), connect_timeout=3):
            assert mine in drop_leftovers(server)
        present = _databases(server)
        assert mine not in present and set(others) <= present
    finally:
        with psycopg.connect(server, autocommit=True, connect_timeout=3) as admin:
            for name in [mine, *others]:
                admin.execute(f'drop database if exists "{name}" with (force)')


def test_a_throwaway_database_is_dropped_on_the_way_out(pg_database):
    server = _server()
    with throwaway_database(server) as url:
        name = url.rsplit("/", 1)[1]
        assert name in _databases(server) and leftovers([name]) == []  # this process is alive: not a leftover
    assert name not in _databases(server)


def test_a_copy_of_a_throwaway_database_holds_its_rows_and_is_dropped_on_its_own(pg_database):
    server = _server()
    with throwaway_database(server) as original:
        with psycopg.connect(original, autocommit=True) as conn:
            conn.execute("create table t (x int)")
            conn.execute("insert into t values (1), (2)")
        with throwaway_database(server, copy_of=original) as copy:
            with psycopg.connect(copy, autocommit=True) as conn:
                assert conn.execute("select count(*) from t").fetchone()[0] == 2
                conn.execute("insert into t values (3)")
        assert copy.rsplit("/", 1)[1] not in _databases(server)
        with psycopg.connect(original, autocommit=True) as conn:
            assert conn.execute("select count(*) from t").fetchone()[0] == 2  # the copy's row stayed there


def _state(url: str) -> tuple:
    """Every table's rows and every sequence's place: what a test could have left in a database."""
    with psycopg.connect(url, autocommit=True) as conn:
        tables = [r[0] for r in conn.execute("select tablename from pg_tables where schemaname = 'public'"
                                             " order by 1").fetchall()]
        rows = {t: conn.execute(f'select json_agg(x order by x::text)::text from "{t}" x').fetchone()[0]
                for t in tables}
        sequences = conn.execute("select sequencename, last_value from pg_sequences"
                                 " where schemaname = 'public' order by 1").fetchall()
    return rows, sequences


def test_a_database_a_test_wrote_into_goes_back_to_what_a_new_store_leaves_unless_its_schema_changed():
    from stand_ins.corpus import make_corpus
    from storage import open_store
    from tests.storage.conftest import _back_to_pristine, _remember_pristine, dispose

    with throwaway_database(_server()) as url:
        dispose(open_store(url))
        new, pristine = _state(url), {}
        _remember_pristine(url, pristine)
        store = open_store(url)
        try:
            store.upsert_papers(make_corpus())
            store.add_topics("U1", ["feline cats"])  # moves a sequence too
        finally:
            dispose(store)
        assert _state(url) != new
        assert _back_to_pristine(url, pristine) and _state(url) == new
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("alter table papers add column left_by_a_test int")
        assert not _back_to_pristine(url, pristine)  # the schema changed: made again from nothing instead
