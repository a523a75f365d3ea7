"""A person's own numbers (what was shown, rated and saved since a moment) and a workspace's 👍 share,
on both backends (storage/stats.py)."""

from __future__ import annotations

from storage import Paper
from storage.activity import Activity
from tests.storage.conftest import sql_rows

OLD = "2026-10-01T09:00:00+00:00"
SINCE = "2026-11-01T00:00:00+00:00"
AT = "2026-11-10T09:00:00+00:00"
UNTIL = "2026-11-17T00:00:00+00:00"


def _papers(store, *ids):
    store.upsert_papers([Paper(id=i, abstract=f"text of {i}", title=f"Title {i}") for i in ids])


def _at(store, table: str, column: str, paper_id: str, when: str) -> None:
    sql_rows(store, f"update {table} set {column} = '{when}' where paper_id = '{paper_id}'")


def test_a_persons_activity_since_a_moment_holds_shown_rated_and_saved_with_the_reason(any_store):
    store = any_store.for_workspace("T1")
    _papers(any_store, "a", "b", "c", "d")
    store.mark_shown("U1", "a", "Matches your interest “robots”")
    store.mark_shown("U1", "b", "Close to your interests overall")
    store.mark_shown("U1", "d", "an old one")
    store.set_feedback("U1", "a", 1)
    store.set_feedback("U1", "b", -1)
    store.set_feedback("U1", "c", 1)  # never shown: a pasted link
    store.save_paper("U1", "b")
    for table, column in (("shown", "shown_at"), ("feedback", "created_at"), ("saved", "saved_at")):
        _at(any_store, table, column, "a", AT)
        _at(any_store, table, column, "b", AT)
        _at(any_store, table, column, "c", AT)
    _at(any_store, "shown", "shown_at", "d", OLD)
    store.mark_shown("U2", "a", "someone else's")
    any_store.for_workspace("T2").set_feedback("U1", "a", -1)  # another workspace's

    found = sorted(store.person_activity("U1", SINCE), key=repr)
    assert found == sorted([
        Activity("shown", AT, 0, None, False), Activity("shown", AT, 0, None, False),
        Activity("rated", AT, 1, "Matches your interest “robots”", True),
        Activity("rated", AT, -1, "Close to your interests overall", True),
        Activity("rated", AT, 1, None, False),
        Activity("saved", AT, 0, None, False),
    ], key=repr)
    assert store.person_activity("U1", UNTIL) == []
    assert store.person_activity("U3", SINCE) == []


def test_a_workspaces_ratings_count_people_and_shown_papers_only(any_store):
    t1, t2 = any_store.for_workspace("T1"), any_store.for_workspace("T2")
    _papers(any_store, "a", "b", "c")
    for user, paper, value in (("U1", "a", 1), ("U1", "b", -1), ("U2", "a", 1), ("C1", "a", -1)):
        t1.mark_shown(user, paper, "why")
        t1.set_feedback(user, paper, value)
    t1.set_feedback("U1", "c", 1)  # never shown to U1: says nothing of paperbot's picks
    t1.add_channel("C1")  # a channel's rating is nobody's
    t2.mark_shown("U9", "a", "why")
    t2.set_feedback("U9", "a", -1)
    sql_rows(any_store, f"update feedback set created_at = '{AT}'")

    assert t1.rating_counts(SINCE, UNTIL) == (2, 3)
    assert t2.rating_counts(SINCE, UNTIL) == (0, 1)
    assert t1.rating_counts(SINCE, UNTIL, everywhere=True) == (2, 4)
    assert t1.rating_counts(UNTIL, "2026-12-01T00:00:00+00:00") == (0, 0)
    assert any_store.for_workspace("T3").rating_counts(SINCE, UNTIL) == (0, 0)
