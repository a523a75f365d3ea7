"""The reading list (``saved``) and a person's own rows, on both backends."""

import threading

from storage import PERSONAL_TABLES, Paper
from tests.storage.conftest import sql_rows


def _papers(store, *ids):
    store.upsert_papers([Paper(id=i, abstract=f"text of {i}", title=f"Title {i}") for i in ids])


def test_a_paper_is_saved_once_and_listed_newest_first(any_store):
    _papers(any_store, "a", "b", "c")
    assert any_store.save_paper("U1", "a", like_from_save=True)
    assert any_store.save_paper("U1", "b")
    assert any_store.save_paper("U1", "c")
    assert not any_store.save_paper("U1", "a")  # already there: nothing changes
    assert [s.paper_id for s in any_store.saved_papers("U1")] == ["c", "b", "a"]
    assert any_store.saved_paper_ids("U1") == {"a", "b", "c"}
    assert any_store.saved_papers("U2") == []


def test_unsaving_says_whether_the_like_came_with_the_save(any_store):
    _papers(any_store, "a", "b")
    any_store.save_paper("U1", "a", like_from_save=True)
    any_store.save_paper("U1", "b", like_from_save=True)
    any_store.keep_saved_like("U1", "b")  # liked on its own since
    assert any_store.unsave_paper("U1", "a") is True
    assert any_store.unsave_paper("U1", "b") is False
    assert any_store.unsave_paper("U1", "a") is None  # not saved any more
    assert any_store.saved_papers("U1") == []


def test_the_reading_list_is_per_workspace_and_forget_deletes_it(any_store):
    _papers(any_store, "a")
    one, two = any_store.for_workspace("T1"), any_store.for_workspace("T2")
    one.save_paper("U1", "a")
    assert two.saved_papers("U1") == [] and two.unsave_paper("U1", "a") is None
    assert "saved" in PERSONAL_TABLES
    assert one.rows_about("U1")["saved"] == 1
    one.forget_person("U1")
    assert one.saved_papers("U1") == [] and not any(one.rows_about("U1").values())


def test_two_unsaves_at_once_take_the_row_once(any_store):
    _papers(any_store, "a")
    any_store.save_paper("U1", "a", like_from_save=True)
    results, barrier = [], threading.Barrier(2)

    def unsave():
        barrier.wait()
        results.append(any_store.unsave_paper("U1", "a"))
        any_store.close()

    threads = [threading.Thread(target=unsave) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results, key=str) == [None, True]


def test_person_rows_hold_every_row_about_the_person_and_no_one_elses(any_store):
    _papers(any_store, "a", "b")
    ws = any_store.for_workspace("T1")
    ws.ensure_person("U1")
    ws.add_topics("U1", ["cats"])
    ws.set_feedback("U1", "a", 1)
    ws.mark_shown("U1", "a", "why", "D1", "1.1")
    ws.save_paper("U1", "b")
    ws.ensure_person("U2")
    ws.add_topics("U2", ["dogs"])
    any_store.for_workspace("T2").add_topics("U1", ["not this workspace"])
    rows = ws.person_rows("U1")
    assert set(rows) == set(PERSONAL_TABLES)
    assert {t: len(r) for t, r in rows.items()} == ws.rows_about("U1")
    assert rows["topics"][0]["topic"] == "cats" and rows["saved"][0]["paper_id"] == "b"
    assert all(r["user_id"] == "U1" and r["ws"] == "T1" for table in rows.values() for r in table)


def test_the_saved_table_is_keyed_by_workspace(any_store):
    _papers(any_store, "a")
    any_store.for_workspace("T1").save_paper("U1", "a")
    any_store.for_workspace("T2").save_paper("U1", "a")
    assert sql_rows(any_store, "select count(*) from saved")[0][0] == 2


def test_the_reason_a_paper_was_shown_is_kept(any_store):
    any_store.mark_shown("U1", "a", "Matches “cats”", "D1", "1.1")
    assert any_store.shown_reason("U1", "a") == "Matches “cats”"
    assert any_store.shown_reason("U1", "b") is None
    assert any_store.for_workspace("T1").shown_reason("U1", "a") is None
