"""The store contract for a person's snapshot view (:mod:`storage.snapshot`), on both backends: it
answers each read of that person as the store itself does, and leaves other people to the store."""

from __future__ import annotations

from storage import Paper


def _person_with_everything(store, user: str) -> None:
    store.upsert_papers([Paper(f"p{i}", "An abstract.", title=f"Paper {i}") for i in range(6)])
    store.set_digest_schedule(user, "08:30", True)
    store.set_digest_weekday(user, 2)
    store.add_topics(user, ["bandits", "Robot grasping"])
    store.set_feedback(user, "p1", 1)
    store.set_feedback(user, "p2", -1)
    store.set_feedback(user, "p0", 1)
    store.add_feed_topics(user, "theory", ["regret", "online learning"])
    store.add_feed_topics(user, "Robots", ["locomotion"])
    store.follow_author(user, "andrea bajcsy", "Andrea Bajcsy")
    store.follow_author(user, "yann lecun", "Yann LeCun")
    store.add_mutes(user, ["blockchain", "large language model"])
    store.mark_shown(user, "p3", "because")
    store.mark_shown(user, "p4", "because")
    store.save_paper(user, "p5")
    store.set_paper_feeds(user, {"p3": "theory", "p4": ""})
    store.add_alert(user, "graph", "Graph")
    store.add_share(user, "p1", "C1")
    store.add_share(user, "p0", "C1")


READS = ("get_person", "get_topics", "get_feedback", "get_feeds", "get_followed_authors", "get_mutes",
         "shown_paper_ids", "saved_paper_ids", "paper_feeds", "get_alerts", "shared_papers")


def test_a_person_view_reads_as_the_store_does(any_store):
    store = any_store.for_workspace("T1")
    _person_with_everything(store, "U1")
    store.add_topics("U2", ["someone else"])
    view = store.person_view("U1")
    for read in READS:
        assert getattr(view, read)("U1") == getattr(store, read)("U1"), read
    assert view.get_topics("U1") == ["bandits", "Robot grasping"]
    assert [f.paper_id for f in view.get_feedback("U1")] == ["p1", "p2", "p0"]
    assert [s.paper_id for s in view.shared_papers("U1")] == ["p0", "p1"]  # newest first
    assert view.get_person("U1").digest_weekday == 2 and view.get_person("U1").digest_time == "08:30"
    # Other people, and everything that is not a person's read, go to the store.
    assert view.get_topics("U2") == ["someone else"]
    assert view.get_papers(["p0"])["p0"].title == "Paper 0"


def test_a_view_of_someone_unknown_is_empty(any_store):
    store = any_store.for_workspace("T1")
    _person_with_everything(store, "U1")
    view = store.person_view("U9")
    assert view.get_person("U9") is None
    for read in READS[1:]:
        assert not getattr(view, read)("U9"), read


def test_a_view_holds_only_its_workspace(any_store):
    _person_with_everything(any_store.for_workspace("T1"), "U1")
    view = any_store.for_workspace("T2").person_view("U1")
    assert view.get_person("U1") is None
    for read in READS[1:]:
        assert not getattr(view, read)("U1"), read


def test_a_view_is_a_snapshot(any_store):
    store = any_store.for_workspace("T1")
    store.add_topics("U1", ["bandits"])
    view = store.person_view("U1")
    store.add_topics("U1", ["regret"])
    assert view.get_topics("U1") == ["bandits"]
    assert store.person_view("U1").get_topics("U1") == ["bandits", "regret"]
