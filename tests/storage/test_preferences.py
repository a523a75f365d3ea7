"""The store contract for feeds, followed authors, muted words, paper feeds and weekly digests: on both
backends (``any_store``), each workspace's own, forgotten with the person, moved and deleted with the
workspace."""

from __future__ import annotations

import pytest

from storage import Paper

AT = "2026-03-02T08:00:00+00:00"


def test_feeds_keep_their_topics_once_ignoring_case_and_go_whole(any_store):
    store = any_store.for_workspace("T1")
    assert store.get_feeds("U1") == {}
    assert store.add_feed_topics("U1", "Robots", ["grasping", "locomotion"]) == ["grasping", "locomotion"]
    assert store.add_feed_topics("U1", "Robots", ["Grasping", "sim2real"]) == ["sim2real"]
    assert store.add_feed_topics("U1", "theory", ["bandits"]) == ["bandits"]
    assert store.get_feeds("U1") == {"Robots": ["grasping", "locomotion", "sim2real"], "theory": ["bandits"]}
    assert store.get_topics("U1") == []  # the main feed is not touched
    store.set_paper_feeds("U1", {"p1": "Robots", "p2": ""})
    store.set_paper_feeds("U1", {"p2": "theory"})  # picked again, for another feed: the latest counts
    assert store.paper_feeds("U1") == {"p1": "Robots", "p2": "theory"}
    assert store.remove_feed("U1", "Robots") == 3
    assert store.remove_feed("U1", "Robots") == 0
    assert store.get_feeds("U1") == {"theory": ["bandits"]} and store.paper_feeds("U1") == {"p2": "theory"}
    assert any_store.for_workspace("T2").get_feeds("U1") == {}


def test_followed_authors_are_kept_by_their_match_key(any_store):
    store = any_store.for_workspace("T1")
    assert store.follow_author("U1", "andrea bajcsy", "Andrea Bajcsy")
    assert not store.follow_author("U1", "andrea bajcsy", "andrea  BAJCSY")
    assert store.follow_author("U1", "yann lecun", "Yann LeCun")
    assert store.get_followed_authors("U1") == [("andrea bajcsy", "Andrea Bajcsy"),
                                                ("yann lecun", "Yann LeCun")]
    assert store.unfollow_author("U1", "andrea bajcsy") == "Andrea Bajcsy"
    assert store.unfollow_author("U1", "andrea bajcsy") is None
    assert store.get_followed_authors("U1") == [("yann lecun", "Yann LeCun")]
    assert any_store.for_workspace("T2").get_followed_authors("U1") == []


def test_mutes_are_added_once_and_removed_one_or_all(any_store):
    store = any_store.for_workspace("T1")
    assert store.add_mutes("U1", ["transformer", "large language model"]) == ["transformer",
                                                                              "large language model"]
    assert store.add_mutes("U1", ["transformer", "crypto"]) == ["crypto"]
    assert sorted(store.get_mutes("U1")) == ["crypto", "large language model", "transformer"]
    assert store.remove_mute("U1", "crypto") and not store.remove_mute("U1", "crypto")
    assert sorted(store.remove_all_mutes("U1")) == ["large language model", "transformer"]
    assert store.get_mutes("U1") == [] and store.remove_all_mutes("U1") == []


def test_a_weekly_digest_keeps_its_day_until_set_daily(any_store):
    store = any_store.for_workspace("T1")
    store.set_digest_schedule("U1", "09:00", True)
    assert store.get_person("U1").digest_weekday is None
    store.set_digest_weekday("U1", 4)
    store.set_digest_schedule("U1", "09:00", False)  # digests off: the day stays for when they come back
    assert store.get_person("U1").digest_weekday == 4
    store.set_digest_schedule("U1", "10:00", True)
    assert [p.digest_weekday for p in store.people_with_digests()] == [4]
    store.set_digest_weekday("U1", None)
    assert store.get_person("U1").digest_weekday is None


def test_recent_authors_and_papers_holding_words(any_store):
    any_store.upsert_papers([
        Paper(id="p1", title="Transformers for robots", abstract="We grasp.", authors=["Andrea Bajcsy"],
              published="2026-03-01"),
        Paper(id="p2", title="Old", abstract="A 100% study_of things", authors=["B. Müller"],
              published="2020-01-01"),
    ])
    recent = any_store.recent_paper_authors("2026-02-25")
    assert list(recent) == ["p1"] and "Andrea Bajcsy" in recent["p1"][0] and recent["p1"][1] == "2026-03-01"
    assert set(any_store.papers_containing(["transformer"])) == {"p1"}
    assert set(any_store.papers_containing(["grasp", "old"])) == {"p1", "p2"}
    assert any_store.papers_containing(["100%"]) == {"p2": "Old. A 100% study_of things"}
    assert any_store.papers_containing(["1%"]) == {} and any_store.papers_containing(["stud_"]) == {}
    assert any_store.papers_containing([]) == {}


def fill_preferences(store, user: str = "U1") -> None:
    store.ensure_person(user)
    store.add_feed_topics(user, "robots", ["grasping"])
    store.follow_author(user, "andrea bajcsy", "Andrea Bajcsy")
    store.add_mutes(user, ["crypto"])
    store.set_paper_feeds(user, {"p1": "robots"})


def test_forget_deletes_every_preference_and_leaves_others(any_store):
    store = any_store.for_workspace("T1")
    fill_preferences(store)
    fill_preferences(store, "U2")
    about = store.rows_about("U1")
    assert all(about[t] == 1 for t in ("feed_topics", "followed_authors", "mutes", "feed_papers"))
    store.forget_person("U1")
    assert not any(store.rows_about("U1").values())
    assert store.get_mutes("U2") == ["crypto"] and store.get_feeds("U2") == {"robots": ["grasping"]}


def test_workspaces_move_and_delete_with_their_preferences(any_store):
    fill_preferences(any_store)  # workspace "": a database from before workspaces
    team = any_store.for_workspace("T1")
    assert any_store.adopt_workspace("T1") > 0
    assert team.get_mutes("U1") == ["crypto"] and team.get_followed_authors("U1") == [("andrea bajcsy",
                                                                                        "Andrea Bajcsy")]
    assert team.get_feeds("U1") == {"robots": ["grasping"]} and team.paper_feeds("U1") == {"p1": "robots"}
    assert any_store.get_mutes("U1") == []
    deleted = any_store.delete_workspace("T1")
    assert all(deleted[t] == 1 for t in ("feed_topics", "followed_authors", "mutes", "feed_papers"))
    assert team.get_mutes("U1") == [] and team.get_feeds("U1") == {}


def test_topics_leave_a_feed_one_by_one_and_its_papers_stay_picked_for_it(any_store):
    store = any_store.for_workspace("T1")
    store.add_feed_topics("U1", "Robots", ["grasping", "locomotion", "sim2real"])
    store.set_paper_feeds("U1", {"p1": "Robots"})
    assert store.remove_feed_topics("U1", "Robots", ["locomotion", "nothing", "sim2real"]) == [
        "locomotion", "sim2real"]
    assert store.get_feeds("U1") == {"Robots": ["grasping"]}
    assert any_store.for_workspace("T2").remove_feed_topics("U1", "Robots", ["grasping"]) == []
    assert store.remove_feed_topics("U1", "Robots", ["grasping"]) == ["grasping"]
    assert store.get_feeds("U1") == {} and store.paper_feeds("U1") == {"p1": "Robots"}


def test_a_person_s_settings_are_written_and_read_by_their_field_names(any_store):
    # A new per-person setting is its column and its Person field: the store writes and reads it by name,
    # and copies and moves it with the person, with no code of its own.
    from dataclasses import fields

    from storage.models import Person
    from storage.tables import COPIED_TABLES, PERSON_SETTINGS

    assert set(PERSON_SETTINGS) == {f.name for f in fields(Person)} - {"user_id"}
    assert set(PERSON_SETTINGS) <= set(COPIED_TABLES["people"])
    any_store.set_person_settings("U1", tz="Asia/Tokyo", digest_time="07:30", digest_enabled=True,
                                  digest_weekday=4)
    person = any_store.get_person("U1")
    assert (person.tz, person.digest_time, person.digest_enabled, person.digest_weekday) == (
        "Asia/Tokyo", "07:30", True, 4)
    any_store.set_person_settings("U1", digest_enabled=False, digest_weekday=None)
    person = any_store.get_person("U1")
    assert (person.tz, person.digest_enabled, person.digest_weekday) == ("Asia/Tokyo", False, None)
    with pytest.raises(ValueError, match="no setting dm_channel"):
        any_store.set_person_settings("U2", dm_channel="D1")  # a column, but no setting of a Person
    assert any_store.get_person("U2") is None  # refused before the person was made
