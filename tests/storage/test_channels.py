"""A channel's settings, its weekly trending lease and the trending counts, on both backends."""

from datetime import UTC, datetime, timedelta

from storage import PERSONAL_TABLES, Paper
from storage.leases import TRENDING
from storage.tables import COPIED_TABLES, KEYS, WORKSPACE_TABLES
from storage.workspaces import DELETED_TABLES, MOVED_TABLES
from tests.storage.conftest import count_rows, sql_rows

WEEK = "2026-11-30"
LONG_AGO = "2000-01-01T00:00:00+00:00"


def _iso(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="seconds")


def _papers(store, *ids):
    store.upsert_papers([Paper(id=i, abstract=f"text of {i}", title=f"Title {i}") for i in ids])


def test_a_channel_is_kept_once_with_who_set_it_up_last(any_store):
    store = any_store.for_workspace("T1")
    assert store.get_channel("C1") is None
    with store.transaction():
        assert store.add_channel("C1", "U1") is True
        assert store.add_channel("C1", "U2") is False
    channel = store.get_channel("C1")
    assert channel.channel_id == "C1" and channel.set_by == "U2" and not channel.trending
    assert any_store.for_workspace("T2").get_channel("C1") is None  # per workspace


def test_trending_on_and_off_and_who_may_be_due(any_store):
    store = any_store.for_workspace("T1")
    assert store.set_trending("C9", True) is False  # unknown channel: nothing written
    with store.transaction():
        store.add_channel("C1")
        store.add_channel("C2")
        store.add_channel("C3")
        assert store.set_trending("C1", True, since=LONG_AGO)
        assert store.set_trending("C2", True, since="2026-12-01T00:00:00+00:00")  # after the week began
    assert store.get_channel("C1").trending and store.get_channel("C1").trending_since == LONG_AGO
    assert store.trending_channels(WEEK, "2026-11-30T09:00:00+00:00") == ["C1"]
    assert store.trending_channels(WEEK, "2026-12-07T09:00:00+00:00") == ["C1", "C2"]
    with store.transaction():
        store.set_trending("C1", False)
    assert store.get_channel("C1").trending is False and store.get_channel("C1").trending_since is None
    assert store.trending_channels(WEEK, "2026-12-07T09:00:00+00:00") == ["C2"]
    assert any_store.for_workspace("T2").trending_channels(WEEK, "2030-01-01") == []


def test_a_weeks_trending_post_is_taken_once_and_ends_for_the_week(any_store):
    store = any_store.for_workspace("T1")
    with store.transaction():
        store.add_channel("C1")
        store.set_trending("C1", True, since=LONG_AGO)
    now = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)
    until, at = _iso(now + timedelta(minutes=5)), _iso(now)
    assert store.take_lease(TRENDING, ("C1", WEEK), "me", until, at, fresh={"started_at": at}) == "new"
    assert store.take_lease(TRENDING, ("C1", WEEK), "other", until, at) is None  # held
    assert store.trending_channels(WEEK, _iso(now)) == ["C1"]  # still posting: may be taken over later
    assert store.record_trending_message("C1", WEEK, "me", "111.222")
    assert not store.record_trending_message("C1", WEEK, "other", "333.444")
    assert store.finish_lease(TRENDING, ("C1", WEEK), "me", "posted", at)
    record = store.get_trending_post("C1", WEEK)
    assert (record.status, record.message_ts, record.owner) == ("posted", "111.222", "me")
    later = _iso(now + timedelta(hours=3))
    assert store.take_lease(TRENDING, ("C1", WEEK), "other", later, later) is None  # ended: once a week
    assert store.trending_channels(WEEK, _iso(now)) == []
    assert store.get_trending_post("C1", "2026-12-07") is None
    # Another workspace's channel of the same id has its own week.
    other = any_store.for_workspace("T2")
    assert other.take_lease(TRENDING, ("C1", WEEK), "me", until, at) == "new"


def test_a_lapsed_trending_lease_is_taken_over_and_a_release_counts_attempts(any_store):
    store = any_store.for_workspace("T1")
    now = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)
    at = _iso(now)
    assert store.take_lease(TRENDING, ("C1", WEEK), "me", _iso(now + timedelta(minutes=1)), at) == "new"
    assert store.release_lease(TRENDING, ("C1", WEEK), "me", _iso(now + timedelta(minutes=2)),
                               count="attempts", error="Slack down") == 1
    assert store.get_trending_post("C1", WEEK).error == "Slack down"
    assert store.take_lease(TRENDING, ("C1", WEEK), "other", _iso(now + timedelta(minutes=9)), at) is None
    late = now + timedelta(minutes=3)
    assert store.take_lease(TRENDING, ("C1", WEEK), "other", _iso(late + timedelta(minutes=5)),
                            _iso(late)) == "taken"
    assert store.get_trending_post("C1", WEEK).owner == "other"


def test_liked_since_counts_people_per_paper_in_one_workspace_never_channels(any_store):
    _papers(any_store, "a", "b", "c", "d")
    one, two = any_store.for_workspace("T1"), any_store.for_workspace("T2")
    with one.transaction():
        one.add_channel("C1")
        for user in ("U1", "U2", "U3"):
            one.set_feedback(user, "a", 1)
        one.set_feedback("U1", "b", 1)
        one.set_feedback("U2", "b", 1)
        one.set_feedback("U3", "c", 1)
        one.set_feedback("U1", "d", -1)  # a dislike is no like
        one.set_feedback("C1", "c", 1)  # the channel's own like counts for nobody
        one.set_feedback("C1", "d", 1)
    with two.transaction():
        for user in ("U7", "U8", "U9", "U10"):
            two.set_feedback(user, "d", 1)  # another workspace's likes
    assert one.liked_since(LONG_AGO, 10) == [("a", 3), ("b", 2), ("c", 1)]
    assert one.liked_since(LONG_AGO, 2) == [("a", 3), ("b", 2)]
    assert two.liked_since(LONG_AGO, 10) == [("d", 4)]
    future = _iso(datetime.now(UTC) + timedelta(hours=1))
    assert one.liked_since(future, 10) == []  # nothing liked since then


def test_the_channel_tables_are_registered_and_go_with_the_workspace_not_with_a_person(any_store):
    for table in ("channels", "trending_posts"):
        assert table in COPIED_TABLES and table in KEYS and table in WORKSPACE_TABLES
        assert table in MOVED_TABLES and table in DELETED_TABLES
        assert table not in PERSONAL_TABLES
    store = any_store.for_workspace("T1")
    now = _iso(datetime.now(UTC))
    with store.transaction():
        store.add_channel("C1", "U1")
        store.set_trending("C1", True)
    store.take_lease(TRENDING, ("C1", WEEK), "me", now, now)
    store.forget_person("U1")  # the person who set it up: the channel keeps its settings
    assert store.get_channel("C1") is not None and store.get_trending_post("C1", WEEK) is not None
    store.delete_workspace("T1")
    assert count_rows(any_store, "channels") == 0 and count_rows(any_store, "trending_posts") == 0


def test_adopting_a_workspace_moves_channel_rows(any_store):
    old = any_store.for_workspace("")
    with old.transaction():
        old.add_channel("C1", "U1")
    assert any_store.adopt_workspace("T1") > 0
    assert any_store.for_workspace("T1").get_channel("C1").set_by == "U1"
    assert sql_rows(any_store, "select count(*) from channels where ws = ''")[0][0] == 0


def test_a_workspace_summary_counts_people_not_channels(any_store):
    store = any_store.for_workspace("T1")
    with store.transaction():
        store.ensure_person("U1")
        store.add_channel("C1")
        store.ensure_person("C1")  # the channel's own digest schedule lives in people
    summary = next(w for w in any_store.workspaces() if w.ws == "T1")
    assert summary.people == 1
