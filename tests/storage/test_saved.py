"""The reading list (``saved``), the week's likes and saves trending ranks by, and a person's own rows,
on both backends."""

import threading
from datetime import UTC, datetime, timedelta

from storage import PERSONAL_TABLES, Paper
from storage.tables import TABLES_ABOUT_A_PERSON
from tests.storage.conftest import sql_rows


def _papers(store, *ids):
    store.upsert_papers([Paper(id=i, abstract=f"text of {i}", title=f"Title {i}") for i in ids])


def test_a_paper_is_saved_once_and_listed_newest_first(any_store):
    _papers(any_store, "a", "b", "c")
    assert any_store.save_paper("U1", "a")
    assert any_store.save_paper("U1", "b")
    assert any_store.save_paper("U1", "c")
    assert not any_store.save_paper("U1", "a")  # already there: nothing changes
    assert [s.paper_id for s in any_store.saved_papers("U1")] == ["c", "b", "a"]
    assert any_store.saved_paper_ids("U1") == {"a", "b", "c"}
    assert any_store.saved_papers("U2") == []


def test_the_reading_list_is_read_a_page_at_a_time_newest_first(any_store):
    _papers(any_store, "a", "b", "c", "d", "e")
    for paper_id in ("a", "b", "c", "d", "e", "gone"):  # "gone": a paper no longer stored
        any_store.save_paper("U1", paper_id)
    any_store.save_paper("U2", "a")
    assert any_store.count_saved("U1") == 5 and any_store.count_saved("U2") == 1
    assert any_store.count_saved("U3") == 0
    page = lambda limit, offset=0: [s.paper_id for s in any_store.saved_page("U1", limit, offset)]  # noqa: E731
    assert page(2) == ["e", "d"] and page(2, 2) == ["c", "b"] and page(2, 4) == ["a"]
    assert page(10) == ["e", "d", "c", "b", "a"] and page(10, 5) == [] and page(0) == []
    listed = [(s.paper_id, s.saved_at) for s in any_store.saved_papers("U1") if s.paper_id != "gone"]
    assert [(s.paper_id, s.saved_at) for s in any_store.saved_page("U1", 10)] == listed
    assert any_store.for_workspace("T2").count_saved("U1") == 0
    assert any_store.for_workspace("T2").saved_page("U1", 10) == []


def test_a_save_writes_no_feedback_and_unsaving_takes_only_the_save(any_store):
    _papers(any_store, "a", "b")
    any_store.set_feedback("U1", "b", -1)
    any_store.save_paper("U1", "a")
    any_store.save_paper("U1", "b")  # a disliked paper may be saved: it stays disliked
    assert {f.paper_id: f.value for f in any_store.get_feedback("U1")} == {"b": -1}
    any_store.set_feedback("U1", "a", 1)
    assert any_store.unsave_paper("U1", "a") is True
    assert any_store.unsave_paper("U1", "b") is True
    assert any_store.unsave_paper("U1", "a") is False  # not saved any more
    assert any_store.saved_papers("U1") == []
    assert {f.paper_id: f.value for f in any_store.get_feedback("U1")} == {"a": 1, "b": -1}
    assert sql_rows(any_store, "select count(*) from saved where like_from_save <> 0")[0][0] == 0


def test_the_reading_list_is_per_workspace_and_forget_deletes_it(any_store):
    _papers(any_store, "a")
    one, two = any_store.for_workspace("T1"), any_store.for_workspace("T2")
    one.save_paper("U1", "a")
    assert two.saved_papers("U1") == [] and two.unsave_paper("U1", "a") is False
    assert "saved" in PERSONAL_TABLES
    assert one.rows_about("U1")["saved"] == 1
    one.forget_person("U1")
    assert one.saved_papers("U1") == [] and not any(one.rows_about("U1").values())


def test_two_unsaves_at_once_take_the_row_once(any_store):
    _papers(any_store, "a")
    any_store.save_paper("U1", "a")
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
    assert sorted(results) == [False, True]


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
    assert set(rows) == set(TABLES_ABOUT_A_PERSON)
    assert {t: len(r) for t, r in rows.items()} == ws.rows_about("U1")
    assert rows["topics"][0]["topic"] == "cats" and rows["saved"][0]["paper_id"] == "b"
    assert all(r["user_id"] == "U1" and r["ws"] == "T1" for table in PERSONAL_TABLES for r in rows[table])


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


LONG_AGO = "2000-01-01T00:00:00+00:00"


def test_the_week_s_likes_and_saves_count_each_person_once_in_one_workspace_never_channels(any_store):
    _papers(any_store, "a", "b", "c", "d", "e")
    one, two = any_store.for_workspace("T1"), any_store.for_workspace("T2")
    with one.transaction():
        one.add_channel("C1")
        for user in ("U1", "U2"):
            one.set_feedback(user, "a", 1)
        one.set_feedback("U3", "b", 1)
        one.set_feedback("U1", "c", -1)
        one.set_feedback("C1", "e", 1)  # a channel's like counts for nobody
    for user in ("U1", "U2", "U4"):
        one.save_paper(user, "b")  # U1, U2 and U4 save b: three saves, U3's is a like
    one.save_paper("U3", "b")  # liked too: counted once, as the like
    one.save_paper("U1", "c")  # disliked: no save counted
    one.save_paper("U2", "d")
    two.save_paper("U9", "e")  # another workspace's
    assert one.liked_or_saved_since(LONG_AGO, 10) == [("a", 2, 0), ("b", 1, 3), ("d", 0, 1)]
    assert one.liked_or_saved_since(LONG_AGO, 1) == [("a", 2, 0)]
    assert two.liked_or_saved_since(LONG_AGO, 10) == [("e", 0, 1)]
    future = (datetime.now(UTC) + timedelta(hours=1)).isoformat(timespec="seconds")
    assert one.liked_or_saved_since(future, 10) == []  # nothing since then


def test_likes_rank_first_then_saves(any_store):
    _papers(any_store, "a", "b", "c")
    one = any_store.for_workspace("T1")
    one.set_feedback("U1", "a", 1)
    one.set_feedback("U1", "b", 1)
    for user in ("U2", "U3"):
        one.save_paper(user, "b")
    for user in ("U2", "U3", "U4", "U5"):
        one.save_paper(user, "c")  # more saves than anything, no like: after every liked paper
    assert [pid for pid, _, _ in one.liked_or_saved_since(LONG_AGO, 10)] == ["b", "a", "c"]
