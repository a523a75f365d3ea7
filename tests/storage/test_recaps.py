"""A channel's weekly recap: its setting, its once-a-week lease and which papers nobody claimed, on both
backends."""

from datetime import UTC, datetime, timedelta

from storage import PERSONAL_TABLES, Paper
from storage.leases import RECAP
from storage.tables import COPIED_TABLES, KEYS, WORKSPACE_TABLES
from storage.workspaces import DELETED_TABLES, MOVED_TABLES
from tests.storage.conftest import count_rows, sql_rows

WEEK = "2026-12-04"
LONG_AGO = "2000-01-01T00:00:00+00:00"


def _iso(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="seconds")


def test_a_recap_is_set_changed_listed_and_turned_off_per_workspace(any_store):
    store = any_store.for_workspace("T1")
    assert store.get_recap("C1") is None and store.recap_off("C1") is False
    store.set_recap("C1", 4, "16:00", "Europe/Berlin", LONG_AGO)
    store.set_recap("C2", 0, "09:30", None, LONG_AGO)
    store.set_recap("C1", 2, "08:15", "America/New_York", "2026-12-01T00:00:00+00:00")  # set again
    one = store.get_recap("C1")
    assert (one.weekday, one.at_time, one.tz, one.since, one.last_week) == (
        2, "08:15", "America/New_York", "2026-12-01T00:00:00+00:00", None)
    assert [r.channel_id for r in store.recap_settings()] == ["C1", "C2"]
    assert any_store.for_workspace("T2").recap_settings() == []
    assert store.recap_off("C2") is True
    assert [r.channel_id for r in store.recap_settings()] == ["C1"]


def test_a_weeks_recap_is_taken_once_and_its_end_is_the_latest_week(any_store):
    store = any_store.for_workspace("T1")
    store.set_recap("C1", 4, "16:00", None, LONG_AGO)
    now = datetime(2026, 12, 4, 16, 0, tzinfo=UTC)
    until, at = _iso(now + timedelta(minutes=5)), _iso(now)
    assert store.take_lease(RECAP, ("C1", WEEK), "me", until, at, fresh={"started_at": at}) == "new"
    assert store.take_lease(RECAP, ("C1", WEEK), "other", until, at) is None  # held
    assert store.get_recap("C1").last_week is None  # still posting: not ended
    assert store.record_recap_message("C1", WEEK, "me", "111.222")
    assert not store.record_recap_message("C1", WEEK, "other", "333.444")
    assert store.finish_lease(RECAP, ("C1", WEEK), "me", "posted", at)
    post = store.get_recap_post("C1", WEEK)
    assert (post.status, post.message_ts, post.owner) == ("posted", "111.222", "me")
    later = _iso(now + timedelta(hours=3))
    assert store.take_lease(RECAP, ("C1", WEEK), "other", later, later) is None  # ended: once a week
    assert store.get_recap("C1").last_week == WEEK
    assert store.get_recap_post("C1", "2026-12-11") is None
    assert any_store.for_workspace("T2").take_lease(RECAP, ("C1", WEEK), "me", until, at) == "new"


def test_unclaimed_are_the_papers_nobody_in_the_workspace_was_shown_rated_or_saved(any_store):
    any_store.upsert_papers([Paper(id=i, abstract=f"text of {i}", title=f"Title {i}") for i in "abcdef"])
    store, other = any_store.for_workspace("T1"), any_store.for_workspace("T2")
    with store.transaction():
        store.mark_shown("U1", "a")
        store.mark_shown("C7", "b")  # shown in a channel: its people saw it
        store.set_feedback("U2", "c", -1)
        store.save_paper("U3", "d")
    with other.transaction():
        other.mark_shown("U9", "e")  # another workspace's
    assert store.unclaimed(["a", "b", "c", "d", "e", "f", "f"]) == {"e", "f"}
    assert other.unclaimed(["a", "e", "f"]) == {"a", "f"}
    assert store.unclaimed([]) == set()


def test_the_recap_tables_are_registered_and_go_with_the_workspace_not_with_a_person(any_store):
    for table in ("channel_recaps", "recap_posts"):
        assert table in COPIED_TABLES and table in KEYS and table in WORKSPACE_TABLES
        assert table in MOVED_TABLES and table in DELETED_TABLES
        assert table not in PERSONAL_TABLES
    old = any_store.for_workspace("")
    old.set_recap("C1", 4, "16:00", None, LONG_AGO)
    assert any_store.adopt_workspace("T1") > 0
    assert any_store.for_workspace("T1").get_recap("C1") is not None
    assert sql_rows(any_store, "select count(*) from channel_recaps where ws = ''")[0][0] == 0
    store = any_store.for_workspace("T1")
    now = _iso(datetime.now(UTC))
    store.take_lease(RECAP, ("C1", WEEK), "me", now, now)
    store.forget_person("U1")
    assert store.get_recap("C1") is not None and store.get_recap_post("C1", WEEK) is not None
    any_store.delete_workspace("T1")
    assert count_rows(any_store, "channel_recaps") == 0 and count_rows(any_store, "recap_posts") == 0
