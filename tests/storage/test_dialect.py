"""The dialect seam (storage.dialect): the shared statements' qmark text runs alike on each backend, and
what differs (lists of values, what SQLite serialises) gives the same answers."""

from __future__ import annotations

import pytest

from storage.dialect import native

ODD = ["it's", "50% off", "a?b", "ünïcode", "", "x" * 300]


def test_each_way_of_running_a_statement_answers_alike(any_store):
    sql = any_store._sql
    assert sql.run("insert into mutes (ws, user_id, word, added_at) values (?, ?, ?, ?)",
                   ["", "U1", "cats", "2026-01-01T00:00:00+00:00"]) == 1
    assert sql.one("select word, user_id from mutes where user_id = ?", ["U1"]) == ("cats", "U1")
    assert sql.one("select word from mutes where user_id = ?", ["nobody"]) is None
    assert sql.all("select word from mutes where user_id = ?", ["U1"]) == [("cats",)]
    assert sql.rows("select word, user_id from mutes") == [{"word": "cats", "user_id": "U1"}]
    assert sql.write("update mutes set added_at = ? where word = ?", ["2026-01-02", "cats"]) == 1
    assert sql.returning("delete from mutes where word = ? returning user_id", ["cats"]) == [("U1",)]
    assert sql.returning("delete from mutes where word = ? returning user_id", ["cats"]) == []


@pytest.mark.parametrize("values", [["one"], ODD, [f"p{i}" for i in range(2500)]])
def test_a_list_of_values_is_one_parameter_however_many_and_whatever_they_hold(any_store, values):
    sql = any_store._sql
    listed, args = sql.listed(values)
    assert len(args) == 1
    found = sql.all(f"select c.id from {listed}", args)
    assert sorted(r[0] for r in found) == sorted(values)


def test_serialised_writes_are_one_step_and_roll_back_together(any_store):
    sql = any_store._sql
    with pytest.raises(RuntimeError), any_store.transaction(), sql.serialised():
        sql.run("insert into mutes (ws, user_id, word, added_at) values ('', 'U1', 'gone', 'x')")
        raise RuntimeError("rolled back")
    assert sql.all("select word from mutes") == []


def test_native_placeholders_are_psycopg_s():
    assert native("select ? where a = ? and b = 'c'") == "select %s where a = %s and b = 'c'"
