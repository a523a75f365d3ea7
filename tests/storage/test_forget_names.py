"""Forgetting a person reaches the rows of the workspace's that name them (an installation they made, a
channel they set up): the rows stay, their id goes; ``person_rows`` hands those rows over; and on
PostgreSQL a forget or an uninstall vacuums the tables it deleted from. Every test taking ``any_store``
runs on SQLite and on PostgreSQL."""

from __future__ import annotations

import pytest

from storage import PERSONAL_TABLES, SqliteStore
from storage.tables import NAMING_COLUMNS, TABLES_ABOUT_A_PERSON
from storage.workspaces import DELETED_TABLES
from tests.storage.conftest import rows_mentioning, sql_rows

AT, LATER = "2026-07-01T00:00:00+00:00", "2026-07-02T00:00:00+00:00"
USER = "UNAMED4FORGET"


def test_forget_takes_the_installer_s_id_and_keeps_the_workspace_served(any_store):
    view = any_store.for_workspace("T1")
    view.ensure_person(USER)
    any_store.save_installation("T1", None, "T1", USER, False, "sealed by them", AT)
    any_store.save_installation("T2", None, "T2", USER, False, "another workspace's", AT)
    assert view.rows_about(USER)["installations"] == 1
    assert view.forget_person(USER)["installations"] == 1
    assert view.rows_about(USER)["installations"] == 0
    assert any_store.find_installation("T1") == "sealed by them"  # the token still serves the workspace
    assert any_store.find_installation("T1", USER) is None and any_store.find_installation("T1", "") == (
        "sealed by them")
    assert any_store.installation_keys() == ["T1", "T2"]
    assert any_store.find_installation("T2", USER) == "another workspace's"  # another workspace's person
    assert rows_mentioning(any_store, USER) == {"installations": 1}
    # Installing again, by anyone, works as before: a row of their own, the latest.
    any_store.save_installation("T1", None, "T1", USER, False, "again", LATER)
    assert any_store.find_installation("T1") == "again"


@pytest.mark.parametrize("forgotten_later", [True, False])
def test_forgetting_an_installer_where_a_nameless_installation_exists_keeps_the_later(any_store,
                                                                                     forgotten_later):
    view = any_store.for_workspace("T1")
    first, second = ("", USER) if forgotten_later else (USER, "")
    any_store.save_installation("T1", None, "T1", first, False, "first", AT)
    any_store.save_installation("T1", None, "T1", second, False, "second", AT)  # saved after: the latest
    any_store.save_installation("T1", None, "T1", "UOTHER", False, "someone else's", AT)
    view.forget_person(USER)
    assert sql_rows(any_store, "select installer_id, data from installations order by installer_id") == [
        ("", "second"), ("UOTHER", "someone else's")]
    assert any_store.find_installation("T1") == "someone else's"  # the workspace's latest, untouched


def test_forget_takes_the_setter_s_id_from_the_channels_and_keeps_their_settings(any_store):
    view = any_store.for_workspace("T1")
    with view.transaction():
        view.add_channel("C1", USER)
        view.add_channel("C2", "UOTHER")
        view.set_trending("C1", True)
    any_store.for_workspace("T2").add_channel("C9", USER)
    assert view.rows_about(USER)["channels"] == 1
    assert view.forget_person(USER)["channels"] == 1
    kept = view.get_channel("C1")
    assert kept is not None and kept.set_by is None and kept.trending
    assert view.get_channel("C2").set_by == "UOTHER"
    assert any_store.for_workspace("T2").get_channel("C9").set_by == USER
    assert view.rows_about(USER)["channels"] == 0


def test_person_rows_hold_the_rows_naming_the_person_without_the_sealed_tokens(any_store):
    view = any_store.for_workspace("T1")
    view.ensure_person(USER)
    view.add_channel("C1", USER)
    view.add_channel("C2", "UOTHER")
    any_store.save_installation("T1", None, "T1", USER, False, "sealed tokens", AT)
    any_store.save_installation("T1", None, "T1", "UOTHER", False, "theirs", AT)
    rows = view.person_rows(USER)
    assert set(rows) == set(TABLES_ABOUT_A_PERSON) == set(PERSONAL_TABLES) | set(NAMING_COLUMNS)
    assert {t: len(r) for t, r in rows.items()} == view.rows_about(USER)
    assert [r["channel_id"] for r in rows["channels"]] == ["C1"] and rows["channels"][0]["set_by"] == USER
    (installation,) = rows["installations"]
    assert installation["installer_id"] == USER and installation["team_id"] == "T1"
    assert installation["installed_at"] == AT
    assert "data" not in installation and "sealed tokens" not in str(rows)
    view.forget_person(USER)
    assert not any(view.person_rows(USER).values())


def test_a_forgotten_installer_and_setter_leave_no_bytes_in_the_sqlite_file(tmp_path):
    store = SqliteStore(tmp_path / "names.db")
    view = store.for_workspace("T1")
    view.ensure_person(USER)
    view.add_channel("C1", USER)
    store.save_installation("T1", None, "T1", USER, False, "sealed", AT)
    raw = b"".join(p.read_bytes() for p in tmp_path.glob("names.db*"))
    assert raw.count(USER.encode()) >= 3
    view.forget_person(USER)
    raw = b"".join(p.read_bytes() for p in tmp_path.glob("names.db*"))
    assert raw.count(USER.encode()) == 0
    store.close()


def _vacuums(url: str) -> dict[str, int]:
    """How often each table was vacuumed by hand, read on a connection of its own (the statistics a
    session reads are a snapshot taken at its first read)."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        rows = conn.execute("select relname, vacuum_count from pg_stat_user_tables").fetchall()
    return {r[0]: int(r[1]) for r in rows}


@pytest.mark.parametrize("how", ["forget", "uninstall"])
def test_postgres_vacuums_the_tables_of_people_after_a_forget_or_an_uninstall(pg_store, pg_url, how):
    view = pg_store.for_workspace("T1")
    view.ensure_person(USER)
    view.add_topics(USER, ["graphs"])
    view.add_channel("C1", USER)
    pg_store.save_installation("T1", None, "T1", USER, False, "sealed", AT)
    before = _vacuums(pg_url)
    if how == "forget":
        view.forget_person(USER)
    else:
        pg_store.delete_workspace("T1")
    after = _vacuums(pg_url)
    # That the vacuum ran on each table is forget_person's doing; whether it could remove the dead rows
    # depends on every other snapshot on the server (a parallel test's CREATE DATABASE holds them back).
    assert {t for t in DELETED_TABLES if after[t] > before.get(t, 0)} == set(DELETED_TABLES)


def test_postgres_leaves_the_vacuum_to_autovacuum_inside_a_caller_s_transaction(pg_store, pg_url):
    view = pg_store.for_workspace("T1")
    view.ensure_person(USER)
    before = _vacuums(pg_url)
    with view.transaction():  # VACUUM can't run here: the forget still happens, nothing fails
        view.forget_person(USER)
    assert view.get_person(USER) is None
    assert _vacuums(pg_url).get("people", 0) == before.get("people", 0)
