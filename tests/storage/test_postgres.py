"""What only the PostgreSQL store has to show: several connections at once (races decided by the database,
no global write lock, a change feed that misses nothing), migrations run once, and its errors.

Races are made deterministic: one thread holds its transaction open at the contested point, the other is
started against it, and the test waits (bounded) until the server reports that second one waiting for a
lock before letting the first commit or roll back.
"""

from __future__ import annotations

import threading
import time

import pytest

pytest.importorskip("psycopg", reason="psycopg is not installed (the postgres extra)")

import psycopg
import psycopg.errors

import storage.pg_connections
import storage.postgres
from storage import Paper, StoreBusy, StoreFull, StoreUnavailable, open_store
from storage.leases import DIGEST
from storage.pg_migrations import MIGRATIONS
from storage.postgres import PostgresStore, redacted, translate
from tests.storage.conftest import sql_rows, with_database

LEASE, AT = "2026-07-15T08:10:00+00:00", "2026-07-15T08:00:00+00:00"
KEY = ("U1", "2026-07-15")


def waiting_for_a_lock(store, at_least: int = 1, within: float = 10.0) -> bool:
    """Whether (soon) ``at_least`` sessions of this database wait for a lock another holds."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        waiting = sql_rows(store, "select count(*) from pg_stat_activity where datname = current_database()"
                                  " and wait_event_type = 'Lock'")[0][0]
        if waiting >= at_least:
            return True
        time.sleep(0.01)
    return False


class Holder:
    """Runs ``work`` inside a transaction on its own thread and keeps it open until :meth:`end`."""

    def __init__(self, store, work):
        self.store, self.work = store, work
        self.inside, self.release = threading.Event(), threading.Event()
        self.rollback = False
        self.result = None
        self.thread = threading.Thread(target=self._run)
        self.thread.start()
        assert self.inside.wait(10)

    def _run(self):
        try:
            with self.store.transaction():
                self.result = self.work()
                self.inside.set()
                self.release.wait(20)
                if self.rollback:
                    raise _RolledBack
        except _RolledBack:
            pass

    def end(self, rollback: bool = False):
        self.rollback = rollback
        self.release.set()
        self.thread.join(20)


class _RolledBack(Exception):
    pass


def in_thread(fn):
    """Start ``fn`` on a thread; returns (thread, box) where box[0] is its result or exception."""
    box = []

    def run():
        try:
            box.append(fn())
        except Exception as exc:
            box.append(exc)

    thread = threading.Thread(target=run)
    thread.start()
    return thread, box


# -- races ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("first_commits", [True, False])
def test_two_claims_of_one_key_at_once_one_wins(pg_store, first_commits):
    from datetime import timedelta

    holder = Holder(pg_store, lambda: pg_store.claim_once("event:E1", timedelta(minutes=15)))
    assert holder.result is True
    second, box = in_thread(lambda: pg_store.claim_once("event:E1", timedelta(minutes=15)))
    assert waiting_for_a_lock(pg_store)  # the second waits on the first's uncommitted row...
    holder.end(rollback=not first_commits)
    second.join(20)
    assert box == [not first_commits]  # ...then loses, or wins if the first rolled back


def test_two_processes_starting_one_digest_at_once_one_gets_it_and_neither_fails(pg_store):
    holder = Holder(pg_store, lambda: pg_store.start_digest("U1", "2026-07-15", "a:1:1", LEASE, AT))
    assert holder.result is True
    second, box = in_thread(lambda: pg_store.start_digest("U1", "2026-07-15", "b:2:2", LEASE, AT))
    assert waiting_for_a_lock(pg_store)
    holder.end()
    second.join(20)
    assert box == [False]
    assert pg_store.get_digest("U1", "2026-07-15").owner == "a:1:1"


def test_the_change_feed_misses_no_paper_committed_out_of_order(pg_store):
    # A slow ingest takes its change numbers first; a quick one starts while it is still open. A reader
    # that reads in between and then asks "changed since the last I saw" must get both papers.
    slow = Holder(pg_store, lambda: pg_store.upsert_papers([Paper(id="slow", abstract="first in")]))
    quick, box = in_thread(lambda: pg_store.upsert_papers([Paper(id="quick", abstract="second in")]))
    assert waiting_for_a_lock(pg_store) or box  # the quick writer queues behind the slow one
    seen, last = [], 0
    for seq, paper in pg_store.papers_changed_since(last):
        seen.append(paper.id)
        last = max(last, seq)
    slow.end()
    quick.join(20)
    assert box and box[0].added == 1
    for seq, paper in pg_store.papers_changed_since(last):
        seen.append(paper.id)
        last = seq
    assert sorted(seen) == ["quick", "slow"]
    assert last == pg_store.max_paper_seq()


def test_writers_and_readers_racing_on_papers_lose_nothing(pg_store):
    # Four writers, one reader following the feed the way a running process does.
    stop = threading.Event()
    seen: set[str] = set()

    def follow():
        last = 0
        while True:
            done = stop.is_set()
            for seq, paper in pg_store.papers_changed_since(last):
                seen.add(paper.id)
                last = max(last, seq)
            if done:
                return

    def write(n):
        for i in range(15):
            pg_store.upsert_papers([Paper(id=f"w{n}-{i}", abstract="text"),
                                    Paper(id=f"w{n}-{i}b", abstract="t")])

    reader = threading.Thread(target=follow)
    reader.start()
    writers = [in_thread(lambda n=n: write(n)) for n in range(4)]
    for thread, box in writers:
        thread.join(60)
        assert box == [None]
    stop.set()
    reader.join(20)
    assert len(seen) == pg_store.count_papers() == 4 * 15 * 2
    seqs = [seq for seq, _ in pg_store.papers_changed_since(0)]
    assert len(set(seqs)) == len(seqs)


def test_two_sources_adding_one_new_arxiv_paper_at_once_make_one_paper(pg_store):
    first = Paper(id="arxiv:2607.00001", abstract="v1", arxiv_id="2607.00001", arxiv_version=1)
    other = Paper(id="feed:xyz", abstract="v2", arxiv_id="2607.00001", arxiv_version=2)
    holder = Holder(pg_store, lambda: pg_store.upsert_papers([first]))
    second, box = in_thread(lambda: pg_store.upsert_papers([other]))
    assert waiting_for_a_lock(pg_store)
    holder.end()
    second.join(20)
    assert (box[0].added, box[0].updated) == (0, 1)  # not a unique-key error
    paper = pg_store.find_paper_by_arxiv_id("2607.00001")
    assert (paper.id, paper.abstract, pg_store.count_papers()) == ("arxiv:2607.00001", "v2", 1)


def test_saving_a_model_from_several_processes_at_once_gives_each_its_own_version(pg_store):
    runs = [in_thread(lambda n=n: [pg_store.save_artifact("model", b"x%d" % n) for _ in range(5)])
            for n in range(4)]
    versions = []
    for thread, box in runs:
        thread.join(30)
        versions += box[0]
    assert sorted(versions) == list(range(1, 21))


@pytest.mark.parametrize("first_commits", [True, False])
def test_two_takers_of_one_absent_lease_at_once_one_wins(pg_store, first_commits):
    holder = Holder(pg_store, lambda: pg_store.take_lease(DIGEST, KEY, "a:1:1", LEASE, AT))
    assert holder.result == "new"
    second, box = in_thread(lambda: pg_store.take_lease(DIGEST, KEY, "b:2:2", LEASE, AT))
    assert waiting_for_a_lock(pg_store)  # its insert waits on the first's uncommitted row...
    holder.end(rollback=not first_commits)
    second.join(20)
    assert box == [None if first_commits else "new"]  # ...then loses (the lease runs), or starts it
    assert pg_store.get_digest(*KEY).owner == ("a:1:1" if first_commits else "b:2:2")


@pytest.mark.parametrize("first_commits", [True, False])
def test_two_takers_of_one_lapsed_lease_at_once_one_wins(pg_store, first_commits):
    # Both read the lease as run out; the second's compare-and-set waits for the first's row and is
    # then checked again against the row as the first left it (READ COMMITTED re-reads the newest).
    pg_store.take_lease(DIGEST, KEY, "old:0:0", AT, AT)
    holder = Holder(pg_store, lambda: pg_store.take_lease(DIGEST, KEY, "a:1:1", LEASE, AT))
    assert holder.result == "taken"
    second, box = in_thread(lambda: pg_store.take_lease(DIGEST, KEY, "b:2:2", LEASE, AT, dead={"old:0:0"}))
    assert waiting_for_a_lock(pg_store)
    holder.end(rollback=not first_commits)
    second.join(20)
    assert box == [None if first_commits else "taken"]
    assert pg_store.get_digest(*KEY).owner == ("a:1:1" if first_commits else "b:2:2")


def test_an_owner_renewing_while_its_lease_is_taken_over_is_told_it_lost(pg_store):
    pg_store.take_lease(DIGEST, KEY, "a:1:1", AT, AT)
    holder = Holder(pg_store, lambda: pg_store.take_lease(DIGEST, KEY, "b:2:2", LEASE, AT))
    assert holder.result == "taken"
    renewing, box = in_thread(lambda: pg_store.renew_lease(DIGEST, KEY, "a:1:1", LEASE))
    assert waiting_for_a_lock(pg_store)
    holder.end()
    renewing.join(20)
    assert box == [False]
    assert pg_store.get_digest(*KEY).lease_until == LEASE


def test_there_is_no_global_write_lock(pg_store):
    # One person's open transaction holds back nobody else's writes, nor any reader.
    holder = Holder(pg_store, lambda: (pg_store.add_topics("U1", ["graphs"]),
                                       pg_store.set_feedback("U1", "p1", 1),
                                       pg_store.upsert_papers([Paper(id="p1", abstract="held")])))

    def someone_else():
        with pg_store.transaction():
            pg_store.set_digest_schedule("U2", "09:00", True)
            pg_store.add_topics("U2", ["robots"])
            pg_store.mark_shown("U2", "p0", "why", "D2", "1.2")
            pg_store.start_digest("U2", "2026-07-15", "b:2:2", LEASE, AT)
        return (pg_store.get_topics("U1"), list(pg_store.papers_changed_since(0)), pg_store.get_topics("U2"))

    other, box = in_thread(someone_else)
    other.join(10)
    finished = not other.is_alive()
    holder.end()
    other.join(10)
    assert finished, "another person's writes waited for the open transaction"
    assert box == [([], [], ["robots"])]  # and the held writes were not visible before their commit


def test_a_write_waiting_on_a_held_row_past_busy_seconds_is_store_busy(pg_url, monkeypatch):
    monkeypatch.setattr(storage.postgres, "BUSY_SECONDS", 0.2)
    store = PostgresStore(pg_url)
    try:
        holder = Holder(store, lambda: store.upsert_papers([Paper(id="p1", abstract="held")]))
        with pytest.raises(StoreBusy, match="busy") as caught:
            store.upsert_papers([Paper(id="p2", abstract="waits")])
        holder.end()
        assert "\n" not in str(caught.value)
        store.upsert_papers([Paper(id="p2", abstract="free again")])
        assert store.count_papers() == 2
    finally:
        store.dispose()



def test_a_statement_waiting_at_most_a_while_for_a_connection_is_unavailable_after_it(pg_url):
    # What an ack needs while the database is away or every connection busy: an answer in time (Slack then
    # delivers the request again), not the pool's own wait of CONNECT_SECONDS.
    store = PostgresStore(pg_url, pool_size=1)
    try:
        holder = Holder(store, store.count_papers)  # the pool's one connection, held
        started = time.monotonic()
        with pytest.raises(StoreUnavailable, match="no connection in time"), store.waiting_at_most(0.3):
            store.count_papers()
        waited = time.monotonic() - started
        holder.end()
        assert waited < storage.pg_connections.CONNECT_SECONDS, waited  # not the pool's own timeout
        assert store.count_papers() == 0  # and after the block, as before
    finally:
        store.dispose()

def test_a_statement_waiting_at_most_a_while_gives_up_on_a_locked_table_and_then_has_its_limits_back(pg_url):
    # A DBA's LOCK TABLE (or a long migration) holds the inbox: an ack's write must fail within its
    # bound, so that Slack delivers the request again, not wait out lock_timeout's 90 s.
    store = PostgresStore(pg_url, pool_size=1)
    try:
        with psycopg.connect(pg_url) as dba:
            dba.execute("lock table papers in access exclusive mode")
            started = time.monotonic()
            with pytest.raises(StoreBusy, match=r"did not answer within 0\.5 s") as caught, \
                    store.waiting_at_most(0.5):
                store.count_papers()
            waited = time.monotonic() - started
            dba.rollback()
        assert waited < 3, waited
        assert "\n" not in str(caught.value) and store.path in str(caught.value)
        with store._conn() as conn:  # the pool's one connection, its own limits back
            limit = conn.execute("show lock_timeout").fetchone()[0]
            assert limit == f"{storage.pg_connections.BUSY_SECONDS}s"
            assert conn.execute("show statement_timeout").fetchone()[0] == "0"
        assert store.count_papers() == 0
    finally:
        store.dispose()

# -- migrations -------------------------------------------------------------------------------------

def test_several_processes_starting_together_migrate_once(pg_url):
    barrier = threading.Barrier(5)

    def start():
        barrier.wait(10)
        return PostgresStore(pg_url, pool_size=1)

    runs = [in_thread(start) for _ in range(5)]
    stores = []
    for thread, box in runs:
        thread.join(30)
        assert len(box) == 1 and isinstance(box[0], PostgresStore), box
        stores.append(box[0])
    try:
        names = [r[0] for r in sql_rows(stores[0], "select name from schema_migrations order by name")]
        assert names == [name for name, _ in MIGRATIONS]
        stores[0].upsert_papers([Paper(id="p", abstract="x")])
        assert stores[1].count_papers() == 1
    finally:
        for store in stores:
            store.dispose()


def test_restarting_applies_nothing_twice_and_keeps_the_rows(pg_store, pg_url):
    pg_store.set_feedback("U1", "p", 1)
    again = PostgresStore(pg_url)
    try:
        assert [f.paper_id for f in again.get_feedback("U1")] == ["p"]
        assert sql_rows(again, "select count(*) from schema_migrations")[0][0] == len(MIGRATIONS)
    finally:
        again.dispose()


# -- errors ---------------------------------------------------------------------------------------

def test_a_refused_connection_is_one_line_naming_the_url_without_its_password():
    url = "postgresql://paperbot:s3cret-pw@127.0.0.1:1/paperbot"
    with pytest.raises(StoreUnavailable) as caught:
        open_store(url)
    message = str(caught.value)
    assert "\n" not in message and "s3cret-pw" not in message
    assert "postgresql://paperbot@127.0.0.1:1/paperbot" in message and "refused" in message


def test_an_unknown_database_or_role_is_one_line(pg_url):
    with pytest.raises(StoreUnavailable) as caught:
        open_store(with_database(pg_url, "paperbot_no_such_db"))
    message = str(caught.value)
    assert "\n" not in message and 'database "paperbot_no_such_db" does not exist' in message
    stranger = pg_url.replace("//postgres@", "//paperbot_no_such_role:pw@", 1)
    if stranger != pg_url:
        with pytest.raises(StoreUnavailable) as caught:
            open_store(stranger)
        assert "\n" not in str(caught.value) and ":pw@" not in str(caught.value)


def test_passwords_are_taken_out_of_urls_wherever_they_are():
    assert redacted("postgresql://u:p@h:5432/db") == "postgresql://u@h:5432/db"
    assert redacted("postgres://u:p@h/db?password=p&sslmode=require") == "postgres://u@h/db?sslmode=require"
    assert redacted("postgresql://h/db") == "postgresql://h/db"
    assert redacted("host=h dbname=db password=p user=u") == "host=h dbname=db password=*** user=u"
    assert "pw" not in redacted("host=h password='p w' user=u")


def test_server_errors_become_storage_errors():
    where = "postgresql://u@h/db"
    assert isinstance(translate(psycopg.errors.DiskFull("could not extend file"), where), StoreFull)
    for exc in (psycopg.errors.LockNotAvailable("lock timeout"), psycopg.errors.DeadlockDetected("deadlock"),
                psycopg.errors.SerializationFailure("could not serialize")):
        assert isinstance(translate(exc, where), StoreBusy)
    assert isinstance(translate(psycopg.OperationalError("server closed the connection"), where),
                      StoreUnavailable)
    assert isinstance(translate(psycopg.errors.InsufficientPrivilege("permission denied"), where),
                      StoreUnavailable)
    refused_login = psycopg.OperationalError('connection failed: connection to server at "10.0.0.5", port 1'
                                             ' failed: FATAL:  password authentication failed for user "u"')
    assert str(translate(refused_login, where)) == f"can't open the database {where} (wrong password)"
    unique = psycopg.errors.UniqueViolation("duplicate key")
    assert translate(unique, where) is unique  # a programming error stays one



@pytest.mark.parametrize(("url", "named"), [
    ("postgresql://user:S3cret@[host:5432/db", "can't read the database URL (end of string reached"),
    ("postgresql://user:S3cret@127.0.0.1:5432/db?sslmod=require",
     "can't read the database URL postgresql://user@127.0.0.1:5432/db?sslmod=require (invalid URI query"
     " parameter: \"sslmod\")"),
])
def test_a_malformed_database_url_is_one_line_without_its_password(url, named):
    with pytest.raises(StoreUnavailable) as caught:
        PostgresStore(url)
    said = str(caught.value)
    assert said.startswith(named) and "S3cret" not in said and "\n" not in said, said


def test_a_statement_timeout_says_so_and_a_lock_timeout_names_the_other_transaction():
    where = "postgresql://u@h/db"
    timeout = translate(psycopg.errors.QueryCanceled("canceling statement due to statement timeout"), where)
    assert isinstance(timeout, StoreBusy) and "statement_timeout" in str(timeout)
    lock = translate(psycopg.errors.LockNotAvailable("canceling statement due to lock timeout"), where)
    assert isinstance(lock, StoreBusy) and "another transaction" in str(lock)

def test_a_blob_set_to_null_loads_as_none(pg_store):
    pg_store.save_artifact("m", b"\x00\xffbinary")
    assert pg_store.load_artifact("m") == (1, b"\x00\xffbinary")
    sql_rows(pg_store, "update artifacts set data = null where name = 'm'")
    assert pg_store.load_artifact("m") == (1, None)



def test_a_blob_larger_than_a_slice_loads_whole(pg_store, monkeypatch):
    # Read in slices, so that no connection's input buffer grows to the whole blob and stays so.
    monkeypatch.setattr(storage.postgres, "ARTIFACT_SLICE", 5)
    blob = bytes(range(256)) * 3 + b"tail"
    pg_store.save_artifact("m", blob)
    assert pg_store.load_artifact("m") == (1, blob)
    pg_store.save_artifact("m", b"")
    assert pg_store.load_artifact("m") == (2, b"")


def test_a_blob_saved_again_while_read_in_slices_loads_as_the_new_version(pg_store, monkeypatch):
    monkeypatch.setattr(storage.postgres, "ARTIFACT_SLICE", 4)
    pg_store.save_artifact("m", b"old version, read in slices")
    read_slices = PostgresStore._artifact_slices
    saved = []

    def saved_meanwhile(conn, name, version, size):
        if not saved:  # another process saves a new model after this one asked the version
            saved.append(pg_store.save_artifact("m", b"the new one"))
        return read_slices(conn, name, version, size)

    monkeypatch.setattr(PostgresStore, "_artifact_slices", staticmethod(saved_meanwhile))
    assert pg_store.load_artifact("m") == (2, b"the new one")


def _terminate_sessions(url: str) -> int:
    """Cut every other session of the database, as a server restart does; how many were cut."""
    with psycopg.connect(url, autocommit=True) as admin:
        return admin.execute("select count(pg_terminate_backend(pid)) from pg_stat_activity"
                             " where datname = current_database() and pid <> pg_backend_pid()").fetchone()[0]


def test_connections_cut_while_idle_are_replaced_not_reported(pg_store, pg_url, monkeypatch):
    # The pool lends a connection that just came back without a check (a round trip per call); one
    # that sat idle is checked, so a server restart while it waited costs no call an error.
    monkeypatch.setattr(storage.pg_connections, "CHECK_IDLE_SECONDS", 0.2)
    pg_store.ensure_person("U1")
    with pg_store.hold_person("U1"):  # a kept hold connection, cut below too
        pass
    assert _terminate_sessions(pg_url) >= 2
    time.sleep(0.3)  # longer than CHECK_IDLE_SECONDS: the pooled connection is idle
    assert pg_store.get_person("U1") is not None
    with pg_store.hold_person("U1"):  # the kept one is found broken and replaced once
        assert pg_store.get_person("U1") is not None


def test_a_hold_replaces_a_cut_connection_without_a_pause(pg_store, pg_url):
    with pg_store.hold_person("U1"):
        pass
    _terminate_sessions(pg_url)
    with pg_store.hold_person("U1"), pg_store.hold_person("U2"):
        pass


def test_a_hold_s_statements_and_transactions_run_on_its_own_connection_not_the_pool_s(pg_store):
    # A digest's dozen statements, each lent a pooled connection, cost a tenth of its CPU (issue 24).
    def backend() -> int:
        return pg_store._sql.one("select pg_backend_pid()")[0]

    pooled = backend()
    with pg_store.hold_person("U1"):
        held = pg_store._sql.one("select pid from pg_locks where locktype = 'advisory' and granted"
                                 " and pid = pg_backend_pid()")
        assert held is not None  # the statement ran on the session holding the person
        with pg_store.hold_person("U2"):  # a hold within a hold: the inner one's, then the outer's again
            inner = backend()
        assert backend() == held[0] != inner
        with pg_store.transaction():
            pg_store.ensure_person("U1")
            assert backend() == held[0]
            pg_store.lock_person("U1")
        with pytest.raises(RuntimeError), pg_store.transaction():
            pg_store.ensure_person("U9")
            raise RuntimeError("rolled back")
        assert pg_store.get_person("U9") is None and pg_store.get_person("U1") is not None
    assert backend() != held[0] and pg_store._sql.one("select count(*) from pg_locks where locktype ="
                                                      " 'advisory' and pid = ?", [held[0]])[0] == 0
    assert pooled != held[0]


def test_a_hold_waits_as_long_as_the_other_holder_takes_while_its_statements_give_up_as_pooled_ones_do(
        pg_url, monkeypatch):
    monkeypatch.setattr(storage.postgres, "BUSY_SECONDS", 1)  # the stores' lock timeout: one second
    first, second = open_store(pg_url), open_store(pg_url)
    try:
        done: list[str] = []

        def other_process() -> None:
            with second.hold_person("U1"):
                done.append(second._sql.one("show lock_timeout")[0])

        with first.hold_person("U1"):
            assert first._sql.one("show lock_timeout")[0] == "1s"  # the hold's statements: as pooled ones
            waiter = threading.Thread(target=other_process, daemon=True)
            waiter.start()
            assert waiting_for_a_lock(first)
            time.sleep(2.5)  # longer than the lock timeout: the other hold still waits, no error
            assert done == [] and waiter.is_alive()
        waiter.join(30)
        assert done == ["1s"]
    finally:
        first.dispose()
        second.dispose()


def test_a_digests_updates_find_its_row_by_index_however_empty_the_table_looked(pg_store):
    # A first morning: the digests table starts empty and never analysed, then a day's digests arrive. Each
    # digest's update must go straight to its row: not read the whole day's digests (an index on the day
    # without the person), and not through a generic plan made while the table was empty (psycopg prepares
    # a statement run five times; PostgreSQL would keep the plan it first found cheapest).
    day = "2026-07-15"
    with pg_store.hold_person("U0000"):  # the hold's own connection: where psycopg prepares statements
        assert pg_store.start_digests([("U0000", day)], "a:1:1", LEASE, AT)
        for _ in range(8):
            assert pg_store.set_digest_papers("U0000", day, "a:1:1", ["P1"], {"P1": "why"})
        users = [f"U{i:04d}" for i in range(1, 600)]
        assert len(pg_store.start_digests([(u, day) for u in users], "a:1:1", LEASE, AT)) == len(users)
        for _ in range(4):
            assert pg_store.set_digest_papers("U0000", day, "a:1:1", ["P1"], {"P1": "why"})
        plans = pg_store._sql.all("select generic_plans, custom_plans from pg_prepared_statements"
                                  " where starts_with(statement, ?)", ["update digests set papers"])
        plan = "\n".join(row[0] for row in pg_store._sql.all(
            "explain update digests set papers = '[]' where ws = '' and user_id = 'U0001'"
            " and local_date = '2026-07-15' and owner = 'a:1:1' and status = 'sending'"))
    assert plans and all(generic == 0 and custom > 0 for generic, custom in plans), plans
    assert "Index Cond" in plan and "user_id" in plan.split("Index Cond", 1)[1], plan
