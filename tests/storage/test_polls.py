"""Reading-group polls (``polls``, ``poll_votes``) on both backends: one open poll a channel, one vote a
person (a new one replaces theirs), votes only while open, a close decided once, and the rows going with
the workspace, a forgotten voter's vote with them."""

from __future__ import annotations

import threading

from storage import PERSONAL_TABLES
from storage.tables import COPIED_TABLES, KEYS, NAMING_COLUMNS, WORKSPACE_TABLES
from storage.workspaces import DELETED_TABLES, MOVED_TABLES
from tests.storage.conftest import count_rows, sql_rows

AT, LATER = "2026-12-01T10:00:00+00:00", "2026-12-01T11:00:00+00:00"


def test_a_channel_has_at_most_one_open_poll_and_a_new_one_once_it_is_closed(any_store):
    store = any_store.for_workspace("T1")
    first = store.start_poll("C1", ["a", "b", "c"], AT)
    assert first is not None
    assert store.start_poll("C1", ["d", "e"], AT) is None  # the database refuses a second open one
    other = store.start_poll("C2", ["a", "b"], AT)  # another channel's is its own
    assert other is not None and other != first
    assert any_store.for_workspace("T2").start_poll("C1", ["a", "b"], AT) is not None  # another workspace
    poll = store.open_poll("C1")
    assert poll is not None and poll.poll_id == first and poll.papers == ["a", "b", "c"]
    assert poll.status == "open" and poll.message_ts is None and poll.version == 0 and poll.opened_at == AT
    assert store.set_poll_message(first, "1700000000.000100")
    assert store.get_poll(first).message_ts == "1700000000.000100"
    closed = store.close_poll("C1", LATER)
    assert closed is not None and closed.poll_id == first and closed.status == "closed"
    assert closed.closed_at == LATER and closed.message_ts == "1700000000.000100"
    assert store.open_poll("C1") is None
    again = store.start_poll("C1", ["d", "e"], LATER)  # closed: the channel may open the next
    assert again is not None and again != first
    assert store.get_poll(first).status == "closed"


def test_one_vote_a_person_a_new_one_replaces_theirs_and_each_counts_in_the_version(any_store):
    store = any_store.for_workspace("T1")
    poll = store.start_poll("C1", ["a", "b", "c"], AT)
    assert store.poll_counts(poll) == (0, {})
    assert store.vote_in_poll(poll, "U1", "a", AT)
    assert store.vote_in_poll(poll, "U2", "a", AT)
    assert store.vote_in_poll(poll, "U3", "b", AT)
    assert store.poll_counts(poll) == (3, {"a": 2, "b": 1})
    assert store.vote_in_poll(poll, "U1", "c", LATER)  # changed their mind
    assert store.poll_counts(poll) == (4, {"a": 1, "b": 1, "c": 1})
    assert store.poll_vote(poll, "U1") == "c" and store.poll_vote(poll, "U9") is None
    assert count_rows(store, "poll_votes") == 3
    assert store.poll_counts("nope") == (0, {})


def test_a_vote_on_a_closed_or_unknown_poll_writes_nothing(any_store):
    store = any_store.for_workspace("T1")
    poll = store.start_poll("C1", ["a", "b"], AT)
    assert store.vote_in_poll(poll, "U1", "a", AT)
    assert store.close_poll("C1", LATER) is not None
    assert not store.vote_in_poll(poll, "U2", "b", LATER)
    assert not store.vote_in_poll(poll, "U1", "b", LATER)  # nor changes one
    assert not store.vote_in_poll("no-such-poll", "U1", "a", LATER)
    assert store.poll_counts(poll) == (1, {"a": 1})
    assert not any_store.for_workspace("T2").vote_in_poll(poll, "U1", "b", LATER)  # another workspace's


def test_a_poll_is_closed_once_even_by_closes_at_the_same_moment(any_store):
    store = any_store.for_workspace("T1")
    poll = store.start_poll("C1", ["a", "b"], AT)
    results: list = []

    def close() -> None:
        results.append(store.close_poll("C1", LATER))
        store.close()  # this thread's connection

    threads = [threading.Thread(target=close) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert [r.poll_id for r in results if r is not None] == [poll]
    assert store.close_poll("C1", LATER) is None  # nothing open any more


def test_polls_opened_at_the_same_moment_leave_one_open(any_store):
    store = any_store.for_workspace("T1")
    results: list = []

    def start(i: int) -> None:
        results.append(store.start_poll("C1", [f"p{i}", "x"], AT))
        store.close()

    threads = [threading.Thread(target=start, args=(i,)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    started = [r for r in results if r is not None]
    assert len(started) == 1 and store.open_poll("C1").poll_id == started[0]
    assert count_rows(store, "polls") == 1


def test_the_winner_is_recorded_and_a_dropped_poll_goes_with_its_votes(any_store):
    store = any_store.for_workspace("T1")
    poll = store.start_poll("C1", ["a", "b"], AT)
    store.vote_in_poll(poll, "U1", "b", AT)
    store.close_poll("C1", LATER)
    assert store.set_poll_winner(poll, "b", "1700000000.000200")
    found = store.get_poll(poll)
    assert (found.winner, found.winner_ts) == ("b", "1700000000.000200")
    dropped = store.start_poll("C2", ["a", "b"], AT)
    store.vote_in_poll(dropped, "U1", "a", AT)
    assert store.drop_poll(dropped) and not store.drop_poll(dropped)
    assert store.get_poll(dropped) is None and store.open_poll("C2") is None
    assert sql_rows(store, "select poll_id from poll_votes") == [(poll,)]


def test_the_poll_tables_are_registered_votes_are_personal_and_go_with_a_forget(any_store):
    for table in ("polls", "poll_votes"):
        assert table in COPIED_TABLES and table in KEYS and table in WORKSPACE_TABLES
        assert table in MOVED_TABLES and table in DELETED_TABLES
    assert "poll_votes" in PERSONAL_TABLES and "polls" not in PERSONAL_TABLES
    assert "polls" not in NAMING_COLUMNS  # nobody's id is kept on a poll
    store = any_store.for_workspace("T1")
    poll = store.start_poll("C1", ["a", "b"], AT)
    store.vote_in_poll(poll, "UVOTER1", "a", AT)
    store.vote_in_poll(poll, "U2", "a", AT)
    assert store.rows_about("UVOTER1")["poll_votes"] == 1
    assert [r["paper_id"] for r in store.person_rows("UVOTER1")["poll_votes"]] == ["a"]
    assert store.forget_person("UVOTER1")["poll_votes"] == 1
    assert store.poll_counts(poll)[1] == {"a": 1}  # the other vote stays; theirs is gone
    assert not any(store.rows_about("UVOTER1").values())


def test_a_workspace_deleted_or_adopted_takes_its_polls_along(any_store):
    one = any_store.for_workspace("T1")
    poll = one.start_poll("C1", ["a", "b"], AT)
    one.vote_in_poll(poll, "U1", "a", AT)
    kept = any_store.for_workspace("T2").start_poll("C1", ["a", "b"], AT)
    any_store.delete_workspace("T1")
    assert one.get_poll(poll) is None and count_rows(any_store, "poll_votes") == 0
    assert any_store.for_workspace("T2").get_poll(kept) is not None
    early = any_store.start_poll("C5", ["a", "b"], AT)  # workspace "", before the bot knew its team
    any_store.vote_in_poll(early, "U1", "b", AT)
    any_store.adopt_workspace("T3")
    adopted = any_store.for_workspace("T3")
    assert adopted.open_poll("C5").poll_id == early and adopted.poll_counts(early) == (1, {"b": 1})
