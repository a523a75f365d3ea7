"""Suggestions ("Who should read this?"): who may be suggested a paper, one suggestion of a paper to a
person, the ``suggest`` setting, and forgetting either side of a suggestion, on both backends."""

import threading

from storage import PERSONAL_TABLES, Paper
from storage.tables import NAMING_COLUMNS, TABLES_ABOUT_A_PERSON
from tests.storage.conftest import rows_mentioning


def _papers(store, *ids):
    store.upsert_papers([Paper(id=i, abstract=f"text of {i}", title=f"Title {i}") for i in ids])


def _opted_in(store, *people):
    for user in people:
        store.set_person_settings(user, suggest=True)


def test_suggest_is_a_setting_off_by_default(any_store):
    assert any_store.ensure_person("U1").suggest is False
    any_store.set_person_settings("U1", suggest=True)
    assert any_store.get_person("U1").suggest is True
    any_store.set_person_settings("U1", suggest=False)
    assert any_store.get_person("U1").suggest is False


def test_only_opted_in_people_who_never_met_the_paper_are_open_to_it(any_store):
    _papers(any_store, "a", "b")
    _opted_in(any_store, "UASK", "USHOWN", "USAVED", "ULIKED", "UDISLIKED", "UFREE", "CCHAN", "USUGG")
    any_store.ensure_person("UOFF")  # never opted in
    any_store.mark_shown("USHOWN", "a")
    any_store.save_paper("USAVED", "a")
    any_store.set_feedback("ULIKED", "a", 1)
    any_store.set_feedback("UDISLIKED", "a", -1)
    any_store.add_channel("CCHAN", "UASK")
    any_store.record_suggestion("USUGG", "a", "UOTHER")
    assert any_store.open_to_suggestion("a", "UASK") == ["UFREE"]
    assert any_store.open_to_suggestion("b", "UASK") == ["UDISLIKED", "UFREE", "ULIKED", "USAVED",
                                                          "USHOWN", "USUGG"]
    assert any_store.open_to_suggestion("a", "UFREE") == ["UASK"]  # never the asker: UFREE asks
    assert any_store.open_to_suggestion("a", "UASK", among=["UFREE", "USHOWN", "UOFF"]) == ["UFREE"]
    assert any_store.open_to_suggestion("a", "UASK", among=[]) == []
    assert any_store.for_workspace("T2").open_to_suggestion("b", "UASK") == []  # another workspace's


def test_a_paper_is_suggested_to_a_person_once_whoever_asks(any_store):
    _papers(any_store, "a")
    _opted_in(any_store, "U2")
    results = []
    def suggest(who):
        results.append(any_store.record_suggestion("U2", "a", who))

    threads = [threading.Thread(target=suggest, args=(who,)) for who in ("U1", "U3", "U4")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(results) == [False, False, True]
    asker = any_store.suggested_by("U2", "a")
    assert asker in ("U1", "U3", "U4")
    assert not any_store.drop_suggestion("U2", "a", "UNOBODY")  # only the asker's own is taken back
    assert any_store.drop_suggestion("U2", "a", asker)
    assert any_store.suggested_by("U2", "a") is None
    assert any_store.record_suggestion("U2", "a", "U1")


def test_forgetting_the_colleague_deletes_their_suggestions_and_the_asker_only_leaves(any_store):
    _papers(any_store, "a", "b")
    assert "suggestions" in PERSONAL_TABLES and NAMING_COLUMNS["suggestions"] == "by_user"
    assert TABLES_ABOUT_A_PERSON.count("suggestions") == 1
    any_store.record_suggestion("UCOLL", "a", "UASK")
    any_store.record_suggestion("UASK", "b", "UCOLL")
    any_store.record_suggestion("UTHIRD", "b", "UASK")
    assert any_store.rows_about("UASK")["suggestions"] == 3  # two made, one received
    rows = any_store.person_rows("UASK")["suggestions"]
    assert sorted((r["user_id"], r["paper_id"], r["by_user"]) for r in rows) == [
        ("UASK", "b", "UCOLL"), ("UCOLL", "a", "UASK"), ("UTHIRD", "b", "UASK")]
    assert any_store.forget_person("UASK")["suggestions"] == 3
    assert rows_mentioning(any_store, "UASK") == {}
    assert any_store.suggested_by("UCOLL", "a") is None  # the colleague keeps it, nameless
    assert not any_store.record_suggestion("UCOLL", "a", "UOTHER")  # still sent once
    assert any_store.rows_about("UCOLL")["suggestions"] == 1
