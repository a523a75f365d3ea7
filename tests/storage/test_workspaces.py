"""One database, many Slack workspaces (issue 11): ``for_workspace`` views keep each workspace's people to
themselves, the paper corpus and saved models stay shared, ``adopt_workspace`` moves a database from before
workspaces into one, ``delete_workspace`` leaves nothing of one behind, and the installations and OAuth
states behind Bolt's stores. Every test taking ``any_store`` runs on SQLite and on PostgreSQL."""

from __future__ import annotations

import contextlib
import threading
import time
from datetime import timedelta

import pytest

from storage import Paper, SqliteStore, StoredInstallation, WorkspaceSummary, open_store
from storage.leases import DIGEST, JOB
from tests.storage.conftest import database_before, dispose, rows_mentioning, sql_rows

LEASE, AT = "2026-07-15T08:10:00+00:00", "2026-07-15T08:00:00+00:00"
DAY = "2026-07-15"


def fill(view, user: str = "U1", paper: str = "p1") -> None:
    """Everything a person has in one workspace: schedule, timezone, DM channel, topics, feedback, what
    was shown (in a message), a digest, an event key, a saved paper."""
    view.set_digest_schedule(user, "09:00", True, since=AT)
    view.set_timezone(user, "Europe/Berlin")
    view.record_timezone(user, "Europe/Berlin")
    view.remember_dm_channel(user, "D1")
    view.add_topics(user, ["graphs"])
    view.set_feedback(user, paper, 1)
    view.mark_shown(user, paper, "matches graphs", "D1", "1.1")
    assert view.start_digest(user, DAY, "a:1:1", LEASE, AT)
    assert view.claim_once(f"event:{user}", timedelta(days=1))
    assert view.save_paper(user, paper)


# -- views --------------------------------------------------------------------------------------------


def test_the_opened_store_is_workspace_blank_and_a_view_names_its_own(any_store):
    assert any_store.workspace == ""
    view = any_store.for_workspace("T1")
    assert view.workspace == "T1" and type(view) is type(any_store)
    assert view.for_workspace("T2").workspace == "T2" and view.workspace == "T1"
    with pytest.raises(TypeError):
        any_store.for_workspace(None)


def test_the_same_user_id_in_two_workspaces_is_two_people(any_store):
    one, two = any_store.for_workspace("T1"), any_store.for_workspace("T2")
    one.upsert_papers([Paper(id="p1", abstract="a"), Paper(id="p2", abstract="b")])
    fill(one)
    assert two.get_person("U1") is None and two.list_people() == [] and two.people_with_digests() == []
    assert two.get_topics("U1") == [] and two.get_feedback("U1") == [] and two.likes_by_person() == []
    assert two.shown_paper_ids("U1") == set() and two.shown_among("U1", ["p1"]) == set()
    assert two.paper_for_message("D1", "1.1") is None
    assert two.get_digest("U1", DAY) is None and two.digest_statuses(DAY) == {}
    assert two.unfinished_digests(DAY) == []
    assert two.dm_channel("U1") is None and two.timezone_checked_at("U1") is None
    assert not two.record_timezone("U1", "Asia/Tokyo")  # not a person there: nothing written
    assert not any(two.rows_about("U1").values())
    # The other U1 lives a life of its own, with the same keys.
    two.ensure_person("U1")
    two.add_topics("U1", ["Graphs", "robots"])  # the same topic: a topic of another person
    two.set_feedback("U1", "p1", -1)
    two.set_feedback("U1", "p2", 1)
    two.mark_shown("U1", "p2", "", "D1", "1.1")  # channel ids are not unique across workspaces
    assert two.start_digest("U1", DAY, "b:2:2", LEASE, AT)  # a claim of its own
    assert two.claim_once("event:U1", timedelta(days=1))  # an event of one does not block the other's
    two.remember_dm_channel("U1", "D1")
    two.forget_dm_channel("D1")
    assert one.dm_channel("U1") == "D1" and two.dm_channel("U1") is None
    assert one.get_topics("U1") == ["graphs"] and two.get_topics("U1") == ["Graphs", "robots"]
    assert [(f.paper_id, f.value) for f in one.get_feedback("U1")] == [("p1", 1)]
    assert sorted(two.likes_by_person()) == [["p2"]] and one.likes_by_person() == [["p1"]]
    assert one.paper_for_message("D1", "1.1") == ("U1", "p1")
    assert two.paper_for_message("D1", "1.1") == ("U1", "p2")
    assert one.get_digest("U1", DAY).owner == "a:1:1" and two.get_digest("U1", DAY).owner == "b:2:2"
    assert not one.claim_once("event:U1", timedelta(days=1))
    assert one.get_person("U1").tz == "Europe/Berlin" and two.get_person("U1").tz is None
    assert one.timezone_checked_at("U1") and two.timezone_checked_at("U1") is None
    # Forgetting one forgets only that one.
    one.forget_person("U1")
    assert not any(one.rows_about("U1").values())
    assert {t: n for t, n in two.rows_about("U1").items() if n} == {"people": 1, "topics": 2, "feedback": 2,
                                                                  "shown": 1, "digests": 1}
    assert any_store.list_people() == []  # and workspace "" never saw any of them


def test_each_workspace_has_its_own_feedback_version(any_store):
    one, two = any_store.for_workspace("T1"), any_store.for_workspace("T2")
    before = (one.feedback_version(), two.feedback_version(), any_store.feedback_version())
    one.set_feedback("U1", "p", 1)
    assert one.feedback_version() != before[0]
    assert (two.feedback_version(), any_store.feedback_version()) == before[1:]
    seen = one.feedback_version()
    two.set_feedback("U1", "p", 1)
    two.remove_feedback("U1", "p")
    assert one.feedback_version() == seen and two.feedback_version() != before[1]


def test_a_workspace_deleted_and_installed_again_never_repeats_a_feedback_version(any_store):
    # A process may hold the deleted workspace's likes under its last version: a new counter starting
    # at 0 again would, after as many writes, claim those likes were current.
    one = any_store.for_workspace("T1")
    one.set_feedback("U1", "p", 1)
    seen = one.feedback_version()
    any_store.delete_workspace("T1")
    time.sleep(0.01)  # SQLite's clock counts milliseconds
    one.set_feedback("U2", "p", 1)
    assert one.feedback_version() > seen


def test_papers_models_and_jobs_are_shared_by_every_view(any_store):
    one, two = any_store.for_workspace("T1"), any_store.for_workspace("T2")
    one.upsert_papers([Paper(id="p1", abstract="a", published="2026-07-14")])
    one.save_artifact("paper-index", b"model")
    assert two.get_paper("p1").abstract == "a" and any_store.count_papers() == 1
    assert two.max_paper_seq() == one.max_paper_seq()
    assert [p.id for _, p in two.papers_changed_since(0)] == ["p1"]
    assert two.recent_paper_ids("2026-07-01") == {"p1"}
    assert two.load_artifact("paper-index") == (1, b"model")
    assert one.take_lease(JOB, ("feeds",), "a:1:1", LEASE, AT) == "new"
    assert two.take_lease(JOB, ("feeds",), "b:2:2", LEASE, AT) is None  # one feed job for everyone
    assert two.get_job("feeds").owner == "a:1:1"
    # A digest lease is a workspace's own: the same person and day is another digest next door.
    assert one.take_lease(DIGEST, ("U1", DAY), "a:1:1", LEASE, AT) == "new"
    assert two.take_lease(DIGEST, ("U1", DAY), "b:2:2", LEASE, AT) == "new"
    assert not two.renew_lease(DIGEST, ("U1", DAY), "a:1:1", LEASE)
    assert two.finish_digest("U1", DAY, "b:2:2", "sent", AT) and one.get_digest("U1", DAY).status == "sending"


def test_a_view_writes_in_the_transaction_of_the_store_it_came_from(any_store):
    view = any_store.for_workspace("T1")
    with pytest.raises(RuntimeError), any_store.transaction():
        view.set_feedback("U1", "p", 1)
        any_store.set_feedback("U1", "p", 1)
        raise RuntimeError("boom")
    assert view.get_feedback("U1") == [] and any_store.get_feedback("U1") == []
    with view.transaction():
        view.add_topics("U1", ["kept"])
        any_store.add_topics("U1", ["also kept"])
    assert view.get_topics("U1") == ["kept"] and any_store.get_topics("U1") == ["also kept"]


# -- adopting a database from before workspaces -------------------------------------------------------

OLD = "2026-01-01T00:00:00+00:00"


def old_database(backend: str, target: str, monkeypatch) -> None:
    """What paperbot left before workspaces (migrated up to m009): two people with a bit of everything,
    and a feedback counter at 7."""
    rows = {
        "people (user_id, tz, digest_time, digest_enabled, created_at, tz_checked_at, digest_since,"
        " dm_channel)": [("U1", "Europe/Paris", "08:00", 1, OLD, OLD, OLD, "DOLD1"),
                         ("U2", None, None, 0, OLD, None, None, None)],
        "topics (user_id, topic, added_at)": [("U1", "zebras", OLD), ("U1", "Cats", OLD),
                                              ("U2", "robots", OLD)],
        "feedback (user_id, paper_id, value, created_at)": [("U1", "p1", 1, OLD), ("U1", "p2", -1, OLD),
                                                            ("U2", "p1", 1, OLD)],
        "shown (user_id, paper_id, shown_at, reason, channel, message_ts)": [
            ("U1", "p1", OLD, "old", "DOLD1", "9.9"), ("U1", "p3", OLD, "", "DOLD1", "9.8")],
        "digests (user_id, local_date, status, started_at, finished_at, papers)": [
            ("U1", "2026-01-01", "sent", OLD, OLD, '["p1"]'),
            ("U1", "2026-01-02", "sent", OLD, OLD, '["p3"]')],
        "once_keys (key, expires_at)": [("event:OLD", "2999-01-01T00:00:00+00:00")],
    }
    for table, values in rows.items():
        database_before(backend, target, monkeypatch, "m009_workspaces", f"insert into {table} values ",
                        values)
    old_counter = "update counters set value = 7 where name = 'feedback'"
    if backend == "sqlite":
        import sqlite3

        with contextlib.closing(sqlite3.connect(target)) as conn, conn:
            conn.execute(old_counter)
    else:
        import psycopg

        with psycopg.connect(target, autocommit=True) as conn:
            conn.execute(old_counter)


def test_migration_keeps_old_rows_in_workspace_blank_with_their_counter(backend, store_target, monkeypatch):
    old_database(backend, store_target, monkeypatch)
    store = open_store(store_target)
    try:
        assert [p.user_id for p in store.list_people()] == ["U1", "U2"]
        assert store.get_topics("U1") == ["zebras", "Cats"]  # in the order they were added
        assert store.feedback_version() == 7
        assert store.paper_for_message("DOLD1", "9.9") == ("U1", "p1")
        assert not store.claim_once("event:OLD", timedelta(days=1))
        assert store.workspaces() == [WorkspaceSummary("", None, None, False, None, 2, OLD)]
    finally:
        dispose(store)


def test_adopting_moves_every_old_row_into_the_workspace_once(backend, store_target, monkeypatch):
    old_database(backend, store_target, monkeypatch)
    store = open_store(store_target)
    try:
        team = store.for_workspace("T1")
        assert store.adopt_workspace("T1") == 2 + 3 + 3 + 2 + 2 + 1
        assert store.adopt_workspace("T1") == 0  # nothing left to move
        assert store.list_people() == [] and store.get_topics("U1") == [] and store.likes_by_person() == []
        assert store.feedback_version() == 0
        person = team.get_person("U1")
        assert (person.tz, person.digest_time, person.digest_enabled, person.digest_since) == (
            "Europe/Paris", "08:00", True, OLD)
        assert team.dm_channel("U1") == "DOLD1" and team.timezone_checked_at("U1") == OLD
        assert team.get_topics("U1") == ["zebras", "Cats"]
        assert sorted(team.likes_by_person()) == [["p1"], ["p1"]]
        assert team.feedback_version() != 0
        assert team.paper_for_message("DOLD1", "9.9") == ("U1", "p1")
        assert team.get_digest("U1", "2026-01-02").papers == ["p3"]
        assert not team.claim_once("event:OLD", timedelta(days=1))
        assert not any(store.rows_about("U1").values())
        assert sql_rows(store, "select count(*) from people where ws = ''") == [(0,)]
    finally:
        dispose(store)


def test_adopting_keeps_the_workspace_s_own_rows_and_merges_what_it_lacks(backend, store_target, monkeypatch):
    old_database(backend, store_target, monkeypatch)
    store = open_store(store_target)
    try:
        team = store.for_workspace("T1")
        # Already there before the old rows came: a U1 without timezone or schedule, their own
        # spelling of an old topic, their own opinion of p1 and p2, p1 shown again, a digest that day.
        team.ensure_person("U1")
        team.add_topics("U1", ["cats", "owls"])
        team.set_feedback("U1", "p1", -1)
        team.set_feedback("U1", "p9", 1)
        team.mark_shown("U1", "p1", "new", "DNEW", "1.0")
        assert team.start_digest("U1", "2026-01-01", "a:1:1", LEASE, AT)
        version = team.feedback_version()
        assert store.adopt_workspace("T1") == 2 + 3 + 3 + 2 + 2 + 1  # collisions count as moved too
        person = team.get_person("U1")
        assert (person.tz, person.digest_time, person.digest_enabled, person.digest_since) == (
            "Europe/Paris", "08:00", True, OLD)  # taken from the old row: the workspace's had none
        assert team.dm_channel("U1") == "DOLD1"
        assert sorted(team.get_topics("U1")) == ["cats", "owls", "zebras"]  # their "cats", not the old "Cats"
        assert {(f.paper_id, f.value) for f in team.get_feedback("U1")} == {("p1", -1), ("p2", -1), ("p9", 1)}
        assert team.shown_paper_ids("U1") == {"p1", "p3"}
        assert team.paper_for_message("DNEW", "1.0") == ("U1", "p1")  # the workspace's own kept
        assert team.paper_for_message("DOLD1", "9.9") is None
        assert team.get_digest("U1", "2026-01-01").status == "sending"  # the workspace's claim kept
        assert team.get_digest("U1", "2026-01-02").status == "sent"
        assert team.feedback_version() != version
        assert store.list_people() == []
    finally:
        dispose(store)


def test_a_schedule_set_in_the_workspace_wins_over_the_old_one(any_store):
    any_store.set_digest_schedule("U1", "08:00", True, since=OLD)
    team = any_store.for_workspace("T1")
    team.set_digest_schedule("U1", None, False, since=AT)  # turned off there: a choice, kept
    team.set_timezone("U1", "Asia/Tokyo")
    any_store.set_timezone("U1", "Europe/Paris")
    assert any_store.adopt_workspace("T1") == 1
    person = team.get_person("U1")
    assert (person.digest_time, person.digest_enabled, person.digest_since, person.tz) == (
        None, False, AT, "Asia/Tokyo")


def test_adopting_into_workspace_blank_moves_nothing_and_keeps_everything(any_store):
    any_store.set_feedback("U1", "p", 1)
    any_store.add_topics("U1", ["x"])
    assert any_store.adopt_workspace("") == 0
    assert any_store.likes_by_person() == [["p"]] and any_store.get_topics("U1") == ["x"]


def test_two_processes_adopting_at_once_move_each_row_once(store_target):
    setup = open_store(store_target)
    for i in range(30):
        setup.set_feedback(f"U{i}", "p1", 1)
        setup.add_topics(f"U{i}", ["a", "b"])
    dispose(setup)
    stores = [open_store(store_target) for _ in range(3)]
    start, moved, errors = threading.Barrier(3), [0, 0, 0], []

    def adopt(i: int) -> None:
        try:
            start.wait(10)
            moved[i] = stores[i].adopt_workspace("T1")
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)
        finally:
            stores[i].close()

    threads = [threading.Thread(target=adopt, args=(i,)) for i in range(3)]
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        assert errors == []
        assert sorted(moved) == [0, 0, 30 + 60]  # feedback, topics
        team = stores[0].for_workspace("T1")
        assert len(team.likes_by_person()) == 30 and team.get_topics("U7") == ["a", "b"]
    finally:
        for store in stores:
            dispose(store)


# -- deleting a workspace -----------------------------------------------------------------------------

GONE, KEPT = "TGONE7Q", "TKEPT7Q"


def test_deleting_a_workspace_leaves_no_row_naming_it_and_the_other_intact(any_store):
    gone, kept = any_store.for_workspace(GONE), any_store.for_workspace(KEPT)
    any_store.upsert_papers([Paper(id="p1", abstract="a")])
    for view in (gone, kept):
        fill(view)
        fill(view, user="U2")
        view.save_installation(view.workspace, None, view.workspace, "U1", False, "sealed", AT)
    kept_before = kept.rows_about("U1")
    deleted = any_store.delete_workspace(GONE)
    assert {t: n for t, n in deleted.items() if n} == {
        "people": 2, "topics": 2, "feedback": 2, "shown": 2, "digests": 2, "once_keys": 2,
        "feedback_counters": 1, "saved": 2, "installations": 1}
    assert rows_mentioning(any_store, GONE) == {}
    assert gone.find_installation(GONE) is None and gone.list_people() == []
    assert kept.rows_about("U1") == kept_before and kept.find_installation(KEPT) == "sealed"
    assert rows_mentioning(any_store, KEPT) and any_store.get_paper("p1") is not None
    assert any_store.delete_workspace(GONE) == dict.fromkeys(deleted, 0)


def test_a_deleted_workspace_leaves_no_bytes_in_the_sqlite_file_or_its_log(tmp_path):
    store = SqliteStore(tmp_path / "scrub.db")
    team = store.for_workspace(GONE)
    with store.transaction():
        for i in range(30):
            fill(team, user=f"U{i}", paper=f"p{i}")
        team.save_installation(GONE, None, GONE, "U1", False, "sealed", AT)
    raw = b"".join(p.read_bytes() for p in tmp_path.glob("scrub.db*"))
    assert raw.count(GONE.encode()) > 100
    store.delete_workspace(GONE)
    raw = b"".join(p.read_bytes() for p in tmp_path.glob("scrub.db*"))
    assert raw.count(GONE.encode()) == 0
    store.close()


# -- summaries ----------------------------------------------------------------------------------------


def test_workspaces_are_listed_with_their_installation_people_and_last_digest(any_store):
    assert any_store.workspaces() == []
    one, org = any_store.for_workspace("T1"), any_store.for_workspace("E1")
    one.save_installation("T1", None, "T1", "U1", False, "d1", "2026-07-01T00:00:00+00:00")
    org.save_installation("E1", "E1", None, "W9", True, "d2", "2026-07-02T00:00:00+00:00")
    for user in ("U1", "U2", "U3"):
        one.ensure_person(user)
    assert one.start_digest("U1", "2026-07-14", "a:1:1", LEASE, AT)
    assert one.finish_digest("U1", "2026-07-14", "a:1:1", "sent", "2026-07-14T09:00:00+00:00")
    assert one.start_digest("U2", "2026-07-15", "a:1:1", LEASE, AT)
    assert one.finish_digest("U2", "2026-07-15", "a:1:1", "empty", "2026-07-15T09:00:00+00:00")
    assert one.start_digest("U3", "2026-07-16", "a:1:1", LEASE, AT)  # still sending: not finished
    any_store.for_workspace("T2").ensure_person("U1")  # people, no installation (single-token mode)
    assert any_store.workspaces() == [
        WorkspaceSummary("E1", None, "E1", True, "2026-07-02T00:00:00+00:00", 0, None),
        WorkspaceSummary("T1", "T1", None, False, "2026-07-01T00:00:00+00:00", 3,
                         "2026-07-15T09:00:00+00:00"),
        WorkspaceSummary("T2", None, None, False, None, 1, None),
    ]


# -- a workspace's settings: saved counts ------------------------------------------------------------


def test_saved_counts_are_per_workspace_and_paper_and_none_once_the_workspace_turns_them_off(any_store):
    any_store.upsert_papers([Paper(id=p, abstract="a") for p in ("p1", "p2", "p3")])
    one, two = any_store.for_workspace("T1"), any_store.for_workspace("T2")
    for user in ("U1", "U2", "U3"):
        one.ensure_person(user)
        one.save_paper(user, "p1")
    one.save_paper("U1", "p2")
    two.ensure_person("U9")
    two.save_paper("U9", "p1")
    assert one.social_counts_on() and two.social_counts_on()  # the default, without a row
    assert one.shown_saved_counts(["p1", "p2", "p3", "p1", "nope"]) == {"p1": 3, "p2": 1}
    assert two.shown_saved_counts(["p1", "p2"]) == {"p1": 1}
    assert one.shown_saved_counts([]) == {}
    one.unsave_paper("U2", "p1")
    assert one.shown_saved_counts(["p1"]) == {"p1": 2}

    one.set_social_counts(False, AT)
    assert not one.social_counts_on() and two.social_counts_on()
    assert one.shown_saved_counts(["p1", "p2"]) == {} and two.shown_saved_counts(["p1"]) == {"p1": 1}
    assert {w.ws: w.social for w in any_store.workspaces()} == {"T1": False, "T2": True}
    one.set_social_counts(True, AT)
    assert one.social_counts_on() and one.shown_saved_counts(["p1"]) == {"p1": 2}

    one.set_social_counts(False, AT)
    assert any_store.delete_workspace("T1")["workspace_settings"] == 1
    assert one.social_counts_on()  # an install afresh starts from the defaults


# -- installations and OAuth states -------------------------------------------------------------------


def test_installations_are_saved_found_replaced_and_deleted(any_store):
    assert any_store.find_installation("T1") is None and any_store.installation_keys() == []
    any_store.save_installation("T1", None, "T1", "U1", False, "first by U1", "2026-07-01T00:00:00+00:00")
    any_store.save_installation("T2", None, "T2", "", False, "bot only", "2026-07-01T00:00:00+00:00")
    assert any_store.find_installation("T1") == "first by U1"
    assert any_store.find_installation("T1", "U1") == "first by U1"
    assert any_store.find_installation("T1", "U2") is None
    assert any_store.find_installation("T2", "") == "bot only"
    # Another user installs: theirs is the workspace's latest; each user keeps their own.
    any_store.save_installation("T1", None, "T1", "U2", False, "by U2", "2026-07-02T00:00:00+00:00")
    assert any_store.find_installation("T1") == "by U2"
    assert any_store.find_installation("T1", "U1") == "first by U1"
    # The first installs again in the same second: the latest saved wins, whatever the ids.
    any_store.save_installation("T1", None, "T1", "U1", False, "again by U1", "2026-07-02T00:00:00+00:00")
    assert any_store.find_installation("T1") == "again by U1"
    # Saved last on a host whose clock is behind: still the latest saved.
    any_store.save_installation("T1", None, "T1", "U3", False, "by U3", "2026-06-30T00:00:00+00:00")
    assert any_store.find_installation("T1") == "by U3"
    assert any_store.delete_installations("T1", "U3") == 1
    # Every view sees the same installations.
    assert any_store.for_workspace("T9").find_installation("T1") == "again by U1"
    assert any_store.installation_keys() == ["T1", "T2"]
    assert any_store.delete_installations("T1", "U1") == 1
    assert any_store.find_installation("T1") == "by U2"
    assert any_store.delete_installations("T1") == 1 and any_store.delete_installations("T1") == 0
    assert any_store.find_installation("T1") is None and any_store.installation_keys() == ["T2"]


def test_every_installation_row_is_listed_and_replaced_only_while_it_holds_what_was_read(any_store):
    any_store.save_installation("T2", None, "T2", "", False, "bot only", "2026-07-01T00:00:00+00:00")
    any_store.save_installation("T1", None, "T1", "U2", False, "by U2", "2026-07-01T00:00:00+00:00")
    any_store.save_installation("T1", None, "T1", "U1", False, "by U1", "2026-07-02T00:00:00+00:00")
    assert any_store.installations() == [StoredInstallation("T1", "U1", "by U1"),
                                         StoredInstallation("T1", "U2", "by U2"),
                                         StoredInstallation("T2", "", "bot only")]
    # Replacing an older installer's row keeps the latest saved the workspace's.
    assert any_store.replace_installation("T1", "U2", "by U2", "by U2, again")
    assert any_store.find_installation("T1") == "by U1"
    assert any_store.find_installation("T1", "U2") == "by U2, again"
    # Only while the row holds what was read: a second replacement of the same, or one of a row saved
    # anew since, changes nothing.
    assert not any_store.replace_installation("T1", "U2", "by U2", "stale")
    any_store.save_installation("T2", None, "T2", "", False, "installed again", "2026-07-03T00:00:00+00:00")
    assert not any_store.replace_installation("T2", "", "bot only", "stale")
    assert any_store.find_installation("T2") == "installed again"
    assert not any_store.replace_installation("T9", "", "bot only", "nowhere")
    assert [i.ws for i in any_store.installations()] == ["T1", "T1", "T2"]


def test_of_two_processes_replacing_one_installation_at_once_one_wins(any_store, store_target):
    any_store.save_installation("T1", None, "T1", "U1", False, "old", "2026-07-01T00:00:00+00:00")
    other = open_store(store_target)  # another process's connection to the same database
    try:
        won: dict[str, bool] = {}
        barrier = threading.Barrier(2)

        def replace(store, data: str) -> None:
            barrier.wait()
            won[data] = store.replace_installation("T1", "U1", "old", data)

        threads = [threading.Thread(target=replace, args=(s, d)) for s, d in ((any_store, "a"), (other, "b"))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert sorted(won.values()) == [False, True]
        assert any_store.find_installation("T1") == ("a" if won["a"] else "b")
    finally:
        dispose(other)


def test_an_oauth_state_is_used_once_and_only_before_it_expires(any_store):
    any_store.issue_oauth_state("s1", "2026-07-15T08:10:00+00:00")
    any_store.issue_oauth_state("old", "2026-07-15T07:00:00+00:00")
    assert not any_store.consume_oauth_state("never-issued", AT)
    assert any_store.for_workspace("T1").consume_oauth_state("s1", AT)
    assert not any_store.consume_oauth_state("s1", AT)  # used up
    assert not any_store.consume_oauth_state("old", AT)  # expired
    any_store.issue_oauth_state("late", "2026-07-15T08:10:00+00:00")
    assert not any_store.consume_oauth_state("late", "2026-07-15T08:10:00+00:00")  # expires at that instant
    any_store.issue_oauth_state("stale", "2026-07-15T07:30:00+00:00")
    any_store.issue_oauth_state("fresh", "2026-07-15T09:00:00+00:00")
    any_store.consume_oauth_state("anything", AT)
    # The expired ones went on the way.
    assert [r[0] for r in sql_rows(any_store, "select state from oauth_states")] == ["fresh"]


def _consume_at_once(stores, state: str) -> list[bool | None]:
    """Every store consumes ``state`` at once; what each got."""
    start, got = threading.Barrier(len(stores)), [None] * len(stores)

    def consume(i: int) -> None:
        start.wait(10)
        got[i] = stores[i].consume_oauth_state(state, AT)
        stores[i].close()

    threads = [threading.Thread(target=consume, args=(i,)) for i in range(len(stores))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    return got


def test_two_processes_consuming_one_state_at_once_one_gets_it(store_target):
    # Each consumer has its own store (its own connections), as separate processes would.
    stores = [open_store(store_target) for _ in range(4)]
    try:
        for round_ in range(10):
            state = f"state-{round_}"
            stores[0].issue_oauth_state(state, "2999-01-01T00:00:00+00:00")
            got = _consume_at_once(stores, state)
            assert sorted(got) == [False, False, False, True], got
    finally:
        for store in stores:
            dispose(store)


# -- PostgreSQL: one workspace's person lock is not another's -----------------------------------------


def test_one_workspace_s_person_lock_does_not_hold_off_another_s(pg_url):
    first, second = open_store(pg_url), open_store(pg_url)  # two processes, as far as the server knows
    holding, release, done = threading.Event(), threading.Event(), threading.Event()

    def hold() -> None:
        with first.for_workspace("T1").hold_person("U1"), first.transaction():
            first.for_workspace("T1").lock_person("U1")
            holding.set()
            release.wait(30)

    holder = threading.Thread(target=hold)
    try:
        holder.start()
        assert holding.wait(30)

        def other() -> None:
            other_u1 = second.for_workspace("T2")
            with other_u1.hold_person("U1"), other_u1.transaction():
                other_u1.lock_person("U1")
            done.set()

        threading.Thread(target=other, daemon=True).start()
        assert done.wait(10), "T2's U1 waited for T1's"
        # The same person of the same workspace does wait (until the first lets go).
        same = threading.Event()

        def same_person() -> None:
            with second.for_workspace("T1").hold_person("U1"):
                same.set()

        threading.Thread(target=same_person, daemon=True).start()
        assert not same.wait(0.5)
        release.set()
        assert same.wait(30)
    finally:
        release.set()
        holder.join(30)
        dispose(first)
        dispose(second)
