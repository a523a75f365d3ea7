"""Who has opened paperbot's Home tab (storage/people.py, step m032_home_opened): written once per person
and workspace, whoever records it, read with one cheap query, and gone when the person is forgotten or
their workspace deleted. Both backends."""

from __future__ import annotations

import threading

from storage import open_store
from tests.storage.conftest import dispose


def test_an_opening_is_recorded_once_per_person_and_workspace(any_store):
    team, other = any_store.for_workspace("T1"), any_store.for_workspace("T2")
    assert not team.opened_home("U1")
    assert team.record_home_opened("U1") is True
    assert team.record_home_opened("U1") is False  # the second opening writes nothing
    assert team.opened_home("U1") and not team.opened_home("U2") and not other.opened_home("U1")
    assert team.get_person("U1") is None  # opening Home makes no one a person of paperbot's


def test_two_processes_recording_one_opening_at_once_write_one_row(any_store, store_target):
    second = open_store(store_target)
    try:
        results: list[bool] = []
        views = [any_store.for_workspace("T1"), second.for_workspace("T1")]
        threads = [threading.Thread(target=lambda v=v: results.append(v.record_home_opened("U1")))
                   for v in views]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert sorted(results) == [False, True]
        assert views[0].rows_about("U1")["home_opened"] == 1
    finally:
        dispose(second)


def test_forgetting_and_deleting_the_workspace_take_the_opening_away(any_store):
    team, other = any_store.for_workspace("T1"), any_store.for_workspace("T2")
    for view in (team, other):
        view.record_home_opened("U1")
        view.record_home_opened("U2")
    assert team.forget_person("U1")["home_opened"] == 1
    assert not team.opened_home("U1") and team.opened_home("U2") and other.opened_home("U1")
    assert any_store.delete_workspace("T1")["home_opened"] == 1
    assert not team.opened_home("U2") and other.opened_home("U2")
