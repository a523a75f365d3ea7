"""The inbox (storage.inbox, issue 24) on both backends: an idempotent put, claims that never hand one item
to two stores, one subject's items in arrival order, a lapsed lease taken over, and the owner-checked
done, failed, renew and release."""

import threading

from storage import open_store
from storage.copy import copy_database
from storage.models import InboxEntry
from tests.storage.conftest import dispose

T0, T1, T2, T3 = (f"2026-07-15T08:{m:02d}:00+00:00" for m in (0, 10, 20, 30))


def entry(key: str, subject: str = "U1", ws: str = "T1", kind: str = "command") -> InboxEntry:
    return InboxEntry(ws, key, kind, subject, '{"text": "follow ' + key + '"}', T0)  # type: ignore[arg-type]


def keys(items) -> list[str]:
    return [i.entry.key for i in items]


def test_a_put_keeps_each_key_once_per_workspace_and_says_which_were_new(any_store):
    assert any_store.inbox_put([entry("a"), entry("b")]) == [entry("a"), entry("b")]
    again = [entry("b"), entry("c"), entry("c"), entry("a", ws="T2")]
    assert any_store.inbox_put(again) == [entry("c"), entry("a", ws="T2")]
    assert any_store.inbox_pending_count() == 4
    item = any_store.inbox_item("T1", "a")
    assert item is not None and item.entry == entry("a")
    assert (item.status, item.owner, item.attempts) == ("waiting", None, 0)
    assert any_store.inbox_item("T1", "nope") is None


def test_unfinished_names_the_subjects_with_work_waiting_or_running_in_a_workspace(any_store):
    any_store.inbox_put([entry("w", "U1"), entry("r", "U2"), entry("d", "U3"), entry("f", "U4"),
                         entry("x", "U5", ws="T2")])
    for item in any_store.inbox_claim("a", T2, T0, 10):
        if item.entry.key == "d":
            any_store.inbox_done("T1", "d", "a", T1)
        elif item.entry.key == "f":
            any_store.inbox_failed("T1", "f", "a", "boom", None, T1)
        elif item.entry.key == "w":
            any_store.inbox_failed("T1", "w", "a", "busy", T3, T1)  # waiting again, from T3
    assert any_store.inbox_unfinished("T1", ["U1", "U2", "U3", "U4", "U5", "U6"]) == {"U1", "U2"}
    assert any_store.inbox_unfinished("T2", ["U5", "U1"]) == {"U5"}
    assert any_store.inbox_unfinished("T1", []) == set()


def test_a_claim_takes_the_oldest_item_of_each_subject_and_nothing_of_a_later_one(any_store):
    any_store.inbox_put([entry("u1-1", "U1"), entry("u2-1", "U2"), entry("u1-2", "U1"), entry("u1-3", "U1")])
    claimed = any_store.inbox_claim("a", T2, T0, 10)
    assert keys(claimed) == ["u1-1", "u2-1"]
    assert all((i.status, i.owner, i.lease_until, i.attempts) == ("running", "a", T2, 1) for i in claimed)
    assert any_store.inbox_claim("b", T2, T0, 10) == []  # U1's next waits for its first
    assert any_store.inbox_done("T1", "u1-1", "a", T1)
    assert keys(any_store.inbox_claim("b", T2, T0, 10)) == ["u1-2"]
    assert any_store.inbox_claim("b", T2, T0, 10) == []


def test_the_same_subject_in_another_workspace_is_another_line(any_store):
    any_store.inbox_put([entry("x", "U1", ws="T1"), entry("y", "U1", ws="T2")])
    assert keys(any_store.inbox_claim("a", T2, T0, 10)) == ["x", "y"]


def test_a_claim_takes_at_most_its_limit_oldest_first(any_store):
    any_store.inbox_put([entry(f"k{i}", f"U{i}") for i in range(5)])
    assert keys(any_store.inbox_claim("a", T2, T0, 2)) == ["k0", "k1"]
    assert keys(any_store.inbox_claim("a", T2, T0, 0)) == []
    assert keys(any_store.inbox_claim("b", T2, T0, 9)) == ["k2", "k3", "k4"]


def test_a_lapsed_lease_is_taken_over_and_its_first_owner_can_no_longer_finish(any_store):
    any_store.inbox_put([entry("a")])
    assert keys(any_store.inbox_claim("dead", T1, T0, 10)) == ["a"]
    assert any_store.inbox_claim("b", T3, T0, 10) == []  # held until T1
    taken = any_store.inbox_claim("b", T3, T1, 10)
    assert keys(taken) == ["a"] and (taken[0].owner, taken[0].attempts) == ("b", 2)
    assert not any_store.inbox_done("T1", "a", "dead")
    assert not any_store.inbox_renew("T1", "a", "dead", T3)
    assert any_store.inbox_renew("T1", "a", "b", T3)
    assert any_store.inbox_claim("c", T3, T2, 10) == []  # renewed past T2
    assert any_store.inbox_done("T1", "a", "b", T2)
    item = any_store.inbox_item("T1", "a")
    assert (item.status, item.owner, item.lease_until) == ("done", "b", None)
    assert any_store.inbox_pending_count() == 0
    assert any_store.inbox_claim("c", T3, T3, 10) == []  # done is done


def test_a_failure_is_retried_from_its_time_and_one_for_good_lets_the_subject_go_on(any_store):
    any_store.inbox_put([entry("a"), entry("b")])
    any_store.inbox_claim("x", T1, T0, 10)
    assert not any_store.inbox_failed("T1", "a", "y", "not mine", T1)
    assert any_store.inbox_failed("T1", "a", "x", "Slack said no", T1)
    item = any_store.inbox_item("T1", "a")
    assert (item.status, item.owner, item.lease_until, item.error) == ("waiting", None, T1, "Slack said no")
    assert any_store.inbox_claim("y", T3, T0, 10) == []  # not before T1, and "b" waits behind it
    assert keys(any_store.inbox_claim("y", T3, T1, 10)) == ["a"]
    assert any_store.inbox_failed("T1", "a", "y", "still no", None, T2)
    assert any_store.inbox_item("T1", "a").status == "failed"
    assert keys(any_store.inbox_claim("y", T3, T2, 10)) == ["b"]
    assert any_store.inbox_pending_count() == 1


def test_a_stopping_process_hands_back_what_it_holds_and_only_that(any_store):
    any_store.inbox_put([entry("a", "U1"), entry("b", "U2"), entry("c", "U3")])
    any_store.inbox_claim("stopping", T3, T0, 2)
    any_store.inbox_claim("other", T3, T0, 5)
    assert any_store.inbox_release("stopping") == 2
    assert any_store.inbox_release("stopping") == 0
    assert keys(any_store.inbox_claim("next", T3, T0, 10)) == ["a", "b"]  # at once, not at T3
    assert any_store.inbox_item("T1", "c").owner == "other"


def test_two_stores_claiming_at_once_never_carry_out_one_item_twice_and_keep_each_subjects_order(
        any_store, store_target):
    # 40 subjects of 5 items each, arrivals interleaved; four threads, each with a store (and connections)
    # of its own, claim, carry out and finish until nothing is left.
    subjects = [f"U{s}" for s in range(40)]
    any_store.inbox_put([entry(f"{u}-{n}", u) for n in range(5) for u in subjects])
    done: list[str] = []
    log = threading.Lock()
    errors: list[BaseException] = []

    def worker(name: str) -> None:
        store = open_store(store_target)
        try:
            idle = 0
            while idle < 3:
                claimed = store.inbox_claim(name, T3, T0, 7)
                idle = 0 if claimed else idle + 1
                for item in claimed:
                    with log:
                        done.append(item.entry.key)
                    assert store.inbox_done(item.entry.ws, item.entry.key, name, T1)
        except BaseException as exc:  # reported by the test below
            errors.append(exc)
        finally:
            dispose(store)

    threads = [threading.Thread(target=worker, args=(f"w{i}",)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors
    assert sorted(done) == sorted(f"{u}-{n}" for n in range(5) for u in subjects)  # each once
    for u in subjects:
        assert [k for k in done if k.startswith(f"{u}-")] == [f"{u}-{n}" for n in range(5)]
    assert any_store.inbox_pending_count() == 0


def test_finished_items_are_purged_after_a_time_and_unfinished_ones_never(any_store):
    any_store.inbox_put([entry("a", "U1"), entry("b", "U2"), entry("c", "U3")])
    any_store.inbox_claim("x", T3, T0, 10)
    any_store.inbox_done("T1", "a", "x", T0)
    any_store.inbox_failed("T1", "b", "x", "no", None, T2)
    assert any_store.inbox_purge(T1) == 1  # "b" ended at T2, "c" runs still
    assert any_store.inbox_item("T1", "a") is None and any_store.inbox_item("T1", "b") is not None
    assert any_store.inbox_purge(T3) == 1
    assert keys([any_store.inbox_item("T1", "c")]) == ["c"]


def test_on_postgresql_a_claim_skips_what_an_open_claim_holds_and_waits_for_nothing(pg_store, pg_url):
    # Store ``a`` claims in a transaction left open (its rows locked, its changes unseen); ``b`` claims
    # meanwhile: it takes neither a's item nor the later item of a's subject, and it does not wait.
    pg_store.inbox_put([entry("u1-1", "U1"), entry("u2-1", "U2"), entry("u1-2", "U1")])
    other = open_store(pg_url)
    got: list[list[str]] = []
    try:
        with pg_store.transaction():
            assert keys(pg_store.inbox_claim("a", T3, T0, 1)) == ["u1-1"]
            claimer = threading.Thread(target=lambda: got.append(keys(other.inbox_claim("b", T3, T0, 10))))
            claimer.start()
            claimer.join(10)
            assert not claimer.is_alive()
        assert got == [["u2-1"]]
        assert other.inbox_claim("b", T3, T0, 10) == []  # u1-2 waits for u1-1, now running for a
        assert pg_store.inbox_done("T1", "u1-1", "a", T1)
        assert keys(other.inbox_claim("b", T3, T0, 10)) == ["u1-2"]
    finally:
        dispose(other)


def test_a_copy_to_postgresql_carries_the_inbox_and_new_items_arrive_after_it(tmp_path, pg_store):
    source = open_store(str(tmp_path / "source.db"))
    try:
        source.inbox_put([entry("a", "U1"), entry("b", "U1"), entry("c", "U2")])
        source.inbox_claim("x", T3, T0, 1)
        source.inbox_done("T1", "a", "x", T1)
        copy_database(source, pg_store)
    finally:
        dispose(source)
    assert pg_store.inbox_item("T1", "a").status == "done"
    assert pg_store.inbox_put([entry("d", "U1")]) == [entry("d", "U1")]  # numbered after the copied
    assert keys(pg_store.inbox_claim("y", T3, T0, 10)) == ["b", "c"]
    pg_store.inbox_done("T1", "b", "y", T1)
    assert keys(pg_store.inbox_claim("y", T3, T0, 10)) == ["d"]


def test_deleting_a_workspace_drops_its_unfinished_work_and_no_other(any_store):
    any_store.inbox_put([entry("a", ws="T1"), entry("b", ws="T2")])
    assert any_store.delete_workspace("T1")["inbox"] == 1
    assert any_store.inbox_item("T1", "a") is None and any_store.inbox_item("T2", "b") is not None


def test_forgetting_a_person_deletes_their_requests_and_no_one_elses(any_store):
    any_store.inbox_put([entry("a", subject="U1"), entry("b", subject="U2"),
                         entry("c", subject="U1", ws="T2")])
    store = any_store.for_workspace("T1")
    assert store.forget_person("U1")["inbox"] == 1
    assert any_store.inbox_item("T1", "a") is None
    assert any_store.inbox_item("T1", "b") is not None and any_store.inbox_item("T2", "c") is not None


def taken(key: str, subject: str = "U1", taker: str = "p1") -> InboxEntry:
    return InboxEntry("T1", key, "command", subject, "{}", T0, taker)


def test_an_entry_held_back_is_left_to_its_taker_until_its_hold_runs_out(any_store):
    from datetime import timedelta

    any_store.inbox_put([taken("a")], hold=timedelta(minutes=15))  # held until 08:15
    item = any_store.inbox_item("T1", "a")
    assert item is not None and (item.status, item.owner) == ("waiting", "p1")
    assert any_store.inbox_claim("other", T3, T1, 10) == []  # 08:10: still the taker's
    claimed = any_store.inbox_claim_one("T1", "a", "p1", T3)  # the taker claims it at once, held or not
    assert claimed is not None and (claimed.status, claimed.owner, claimed.attempts) == ("running", "p1", 1)
    assert any_store.inbox_claim_one("T1", "a", "p2", T3) is None  # once
    assert any_store.inbox_claim_one("T1", "nope", "p1", T3) is None
    any_store.inbox_put([taken("b", "U2")], hold=timedelta(minutes=15))
    assert keys(any_store.inbox_claim("other", T3, T2, 10)) == ["b"]  # 08:20: the hold is over


def test_a_taker_waits_for_an_earlier_waiting_item_of_its_subject_not_a_running_one(any_store):
    any_store.inbox_put([taken("first"), taken("second")])
    assert any_store.inbox_claim_one("T1", "second", "p1", T3) is None  # "first" was never claimed
    assert any_store.inbox_claim_one("T1", "first", "p1", T3) is not None
    assert any_store.inbox_claim_one("T1", "second", "p2", T3) is not None  # "first" runs elsewhere


def test_a_dead_takers_entries_and_claims_are_handed_back_and_renewed_only_by_their_owner(any_store):
    any_store.inbox_put([taken("a", "U1", "dead"), taken("b", "U2", "dead"), taken("c", "U3", "live")])
    assert any_store.inbox_claim_one("T1", "a", "dead", T1) is not None
    assert sorted(any_store.inbox_owners()) == ["dead", "live"]
    assert any_store.inbox_renew_all("dead", T3) == 1 and any_store.inbox_item("T1", "a").lease_until == T3
    assert any_store.inbox_renew_all("live", T3) == 0  # nothing running
    assert any_store.inbox_release("dead") == 2  # the running one and the one only taken
    assert any_store.inbox_owners() == ["live"]
    assert keys(any_store.inbox_claim("new", T3, T0, 10)) == ["a", "b", "c"]


def test_a_finished_item_keeps_its_key_but_not_what_it_said_nor_whose_it_was(any_store):
    any_store.inbox_put([taken("a"), taken("b", "U2")])
    any_store.inbox_claim_one("T1", "a", "p1", T3)
    any_store.inbox_claim_one("T1", "b", "p1", T3)
    assert any_store.inbox_done("T1", "a", "p1") and any_store.inbox_failed("T1", "b", "p1", "boom", None)
    for key in ("a", "b"):
        item = any_store.inbox_item("T1", key)
        assert item is not None and (item.entry.payload, item.entry.subject) == ("", "")
    assert any_store.inbox_put([taken("a")]) == []  # a replay is still turned away
