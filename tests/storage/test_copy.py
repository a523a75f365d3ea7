"""``storage.copy``: a whole database copied between the backends, with the same content, into empty
targets only, all or nothing."""

from __future__ import annotations

from datetime import timedelta

import pytest

from storage import Paper, SqliteStore, StorageError, open_store
from storage.copy import CopyMismatch, TargetNotEmpty, copy_database
from storage.tables import COPIED_TABLES, DERIVED_TABLES, derived
from tests.storage.conftest import dispose, sql_rows

LEASE, AT = "2026-07-15T08:10:00+00:00", "2026-07-15T08:00:00+00:00"
#: Tables a freshly migrated database already has rows in.
COUNTERS = ("counters", "feedback_counters")


def populate(store) -> None:
    """A little of everything: papers (one updated, so change numbers skip), people, topics in their
    order, feedback, what was shown, digests, a daily job, a binary model, a once key."""
    store.upsert_papers([Paper(id=f"p{i}", abstract=f"Abstract {i} ü", title=f"T{i}", authors=["A", "B"],
                               categories=["cs.LG"], arxiv_id=f"2607.0000{i}", arxiv_version=1)
                         for i in range(6)])
    store.upsert_papers([Paper(id="p2", abstract="Revised", arxiv_id="2607.00002", arxiv_version=2)])
    store.set_digest_schedule("U1", "09:00", True, since=AT)
    store.set_timezone("U1", "Europe/Berlin")
    store.record_timezone("U1", "Europe/Berlin")
    store.remember_dm_channel("U1", "D1")
    store.ensure_person("U2")
    store.add_topics("U1", ["zebras", "graphs", "Mamba"])  # not alphabetical: the order must survive
    store.add_topics("U2", ["robots"])
    store.set_feedback("U1", "p3", 1)
    store.set_feedback("U1", "p1", -1)
    store.set_feedback("U2", "p3", 1)
    store.remove_feedback("U2", "p3")  # the feedback version counts this too
    store.mark_shown("U1", "p3", "matches graphs", "D1", "1.1")
    store.mark_shown("U1", "p1", "")
    assert store.start_digest("U1", "2026-07-15", "a:1:1", LEASE, AT)
    store.set_digest_papers("U1", "2026-07-15", "a:1:1", ["p3", "p1"], {"p3": "why ✓", "p1": "and why"})
    store.record_digest_failure("U1", "2026-07-15", "a:1:1", "p1")
    store.finish_digest("U1", "2026-07-15", "a:1:1", "sent", AT)
    assert store.start_digest("U2", "2026-07-16", "b:2:2", LEASE, AT)
    store.start_job("feeds", "2026-07-15", "a:1:1", LEASE, AT)
    store.save_artifact("paper-index", b"\x00\xff model bytes")
    store.save_artifact("paper-index", b"\x00\xff newer")
    store.claim_once("event:E1", timedelta(days=1))
    store.record_home_opened("U1")


def contents(store) -> dict[str, list[dict]]:
    """Every copied row, in each store's own order, and the two counters the application reads."""
    rows = {table: [r for batch in store.export_rows(table, batch_size=4) for r in batch]
            for table in COPIED_TABLES if table != "counters"}
    rows["counters"] = [{"papers": store.max_paper_seq(), "feedback": store.feedback_version()}]
    return rows


def as_seen(store) -> tuple:
    """What the application reads back through the store's own methods."""
    return (
        [(seq, p) for seq, p in store.papers_changed_since(0)],
        store.list_people(), store.get_topics("U1"), store.get_topics("U2"), store.get_feedback("U1"),
        store.likes_by_person(), store.shown_paper_ids("U1"), store.paper_for_message("D1", "1.1"),
        store.get_digest("U1", "2026-07-15"), store.get_digest("U2", "2026-07-16"), store.get_job("feeds"),
        store.load_artifact("paper-index"), store.dm_channel("U1"), store.timezone_checked_at("U1"),
        store.claim_once("event:E1", timedelta(days=1)),  # False: the key came along
        store.opened_home("U1"), store.opened_home("U2"),
    )


@pytest.fixture
def stores(tmp_path, pg_url):
    opened = []

    def open_(target):
        store = open_store(target)
        opened.append(store)
        return store

    yield open_
    for store in opened:
        dispose(store)


def test_sqlite_to_postgres_and_back_keeps_every_row_and_its_order(stores, tmp_path, pg_url):
    source = stores(str(tmp_path / "source.db"))
    populate(source)
    postgres = stores(pg_url)
    seen = []
    copied = copy_database(source, postgres, progress=lambda *step: seen.append(step), batch_size=3)
    assert copied == source.table_counts()
    assert ("papers", 6, 6) in seen and seen[0] == ("papers", 0, 6)
    assert contents(postgres) == contents(source)
    back = stores(str(tmp_path / "back.db"))
    copy_database(postgres, back)
    assert contents(back) == contents(source)
    assert as_seen(postgres) == as_seen(source) == as_seen(back)
    # The copy works on as a store: change numbers go on from where the source was.
    postgres.upsert_papers([Paper(id="new", abstract="after the move")])
    assert [p.id for _, p in postgres.papers_changed_since(source.max_paper_seq())] == ["new"]


def test_postgres_to_sqlite_keeps_every_row(stores, tmp_path, pg_url):
    source = stores(pg_url)
    populate(source)
    target = stores(str(tmp_path / "copy.db"))
    copy_database(source, target)
    assert contents(target) == contents(source)
    assert as_seen(target) == as_seen(source)


def test_a_target_that_holds_data_is_refused_and_left_alone(any_store, tmp_path):
    any_store.ensure_person("U9")
    any_store.set_feedback("U9", "x", 1)
    before = contents(any_store)
    source = SqliteStore(tmp_path / "source.db")
    populate(source)
    with pytest.raises(TargetNotEmpty, match=r"already holds data \(1 people, 1 feedback\)") as caught:
        copy_database(source, any_store)
    assert "\n" not in str(caught.value)
    assert contents(any_store) == before


def test_a_copy_that_fails_half_way_leaves_the_target_empty(any_store, tmp_path, monkeypatch):
    source = SqliteStore(tmp_path / "source.db")
    populate(source)
    real = SqliteStore.export_rows

    def broken(self, table, batch_size=1000):
        if table == "digests":
            raise StorageError(f"{self.path} is not a usable database (disk I/O error)")
        yield from real(self, table, batch_size)

    monkeypatch.setattr(SqliteStore, "export_rows", broken)
    with pytest.raises(StorageError, match="disk I/O"):
        copy_database(source, any_store)
    assert not any(n for t, n in any_store.table_counts().items() if t not in COUNTERS)
    monkeypatch.undo()
    copy_database(source, any_store)  # and it can be copied again
    assert contents(any_store) == contents(source)


def test_counts_that_differ_after_copying_keep_nothing(any_store, tmp_path, monkeypatch):
    source = SqliteStore(tmp_path / "source.db")
    populate(source)
    target_class = type(any_store)
    real = target_class.import_rows

    def loses_a_topic(self, table, rows):
        if table == "topics":
            real(self, table, rows[1:])
            return len(rows)
        return real(self, table, rows)

    monkeypatch.setattr(target_class, "import_rows", loses_a_topic)
    with pytest.raises(CopyMismatch, match="topics has 3 rows after copying 4 of 4; nothing was kept"):
        copy_database(source, any_store)
    assert not any(n for t, n in any_store.table_counts().items() if t not in COUNTERS)


def test_every_table_and_column_of_the_schema_is_copied(any_store):
    # A new table or column must join storage.tables.COPIED_TABLES, or paperbot db copy would drop it.
    if isinstance(any_store, SqliteStore):
        schema = {t: set(any_store.db[t].columns_dict) for t in any_store.db.table_names()
                  if not t.startswith(("_", "sqlite_")) and not derived(t)}
    else:
        schema = {}
        query = "select table_name, column_name from information_schema.columns where table_schema = 'public'"
        for table, column in sql_rows(any_store, query):
            schema.setdefault(table, set()).add(column)
        schema.pop("schema_migrations")
        for table in DERIVED_TABLES:
            schema.pop(table)  # the database indexes the papers copied into it
        for table in ("topics", "feedback"):
            schema[table].discard("pos")  # generated again in copy order
    assert schema == {t: set(c) for t, c in COPIED_TABLES.items()}


def test_a_copy_carries_every_workspace_its_installations_and_oauth_states(any_store, tmp_path):
    source = SqliteStore(tmp_path / "source.db")
    populate(source)  # workspace "" (a database from before workspaces)
    for ws in ("T1", "E1"):
        view = source.for_workspace(ws)
        view.set_digest_schedule("U1", "07:00", True, since=AT)
        view.add_topics("U1", [f"topic of {ws}"])
        view.set_feedback("U1", "p3", 1 if ws == "T1" else -1)
        view.mark_shown("U1", "p3", "", "D1", "1.1")
        assert view.start_digest("U1", "2026-07-15", "a:1:1", LEASE, AT)
        view.claim_once("event:E1", timedelta(days=1))
    source.save_installation("T1", None, "T1", "U1", False, "sealed T1", AT)
    source.save_installation("E1", "E1", None, "W1", True, "sealed E1", AT)
    source.issue_oauth_state("s1", "2999-01-01T00:00:00+00:00")
    copy_database(source, any_store)
    assert contents(any_store) == contents(source)
    assert any_store.workspaces() == source.workspaces()
    for ws in ("", "T1", "E1"):
        assert as_seen(any_store.for_workspace(ws)) == as_seen(source.for_workspace(ws)), ws
        assert any_store.for_workspace(ws).feedback_version() == source.for_workspace(ws).feedback_version()
    assert any_store.find_installation("E1") == "sealed E1" and any_store.installation_keys() == ["E1", "T1"]
    assert any_store.consume_oauth_state("s1", AT)
    source.close()
