"""The lease primitive (storage.leases) on both backends: take, renew, release, finish, and takeover of a
lapsed or dead owner, each decided by the database. PostgreSQL's races with one transaction held open are
in test_postgres.py."""

import threading

import pytest

from storage import leases, open_store
from storage.leases import DIGEST, JOB
from tests.storage.conftest import database_before, dispose

T0, T1, T2, T3 = (f"2026-07-15T08:{m:02d}:00+00:00" for m in (0, 10, 20, 30))
KEY = ("U1", "2026-07-15")


def test_a_lease_is_taken_once_and_held_against_others(any_store):
    assert any_store.take_lease(DIGEST, KEY, "a:1:1", T1, T0, fresh={"started_at": T0}) == "new"
    assert any_store.take_lease(DIGEST, KEY, "b:2:2", T1, T0) is None
    record = any_store.get_digest(*KEY)
    assert (record.status, record.owner, record.lease_until) == ("sending", "a:1:1", T1)
    assert record.started_at == T0
    assert (record.failures, record.attempts, record.papers) == ({}, 0, None)  # as start_digest begins one


def test_a_new_lease_may_carry_its_first_columns(any_store):
    fresh = {"started_at": T0, "papers": ["p2", "p1"], "reasons": {"p2": "Tópico", "p1": "x"}}
    assert any_store.take_lease(DIGEST, KEY, "a:1:1", T1, T0, fresh=fresh) == "new"
    record = any_store.get_digest(*KEY)
    assert record.papers == ["p2", "p1"] and list(record.reasons.items()) == [("p2", "Tópico"), ("p1", "x")]


def test_renew_release_and_finish_by_anyone_but_the_owner_change_nothing(any_store):
    any_store.take_lease(DIGEST, KEY, "a:1:1", T1, T0)
    assert not any_store.renew_lease(DIGEST, KEY, "b:2:2", T3)
    assert any_store.release_lease(DIGEST, KEY, "b:2:2", T3, count="attempts") is None
    assert not any_store.finish_lease(DIGEST, KEY, "b:2:2", "sent", T0)
    record = any_store.get_digest(*KEY)
    assert (record.status, record.owner, record.lease_until, record.attempts) == ("sending", "a:1:1", T1, 0)
    assert any_store.renew_lease(DIGEST, KEY, "a:1:1", T2)
    assert any_store.get_digest(*KEY).lease_until == T2


def test_a_lease_that_ran_out_is_taken_over_and_its_old_owner_is_shut_out(any_store):
    any_store.take_lease(DIGEST, KEY, "a:1:1", T1, T0)
    assert any_store.take_lease(DIGEST, KEY, "b:2:2", T2, T0) is None  # still running at 08:00
    assert any_store.take_lease(DIGEST, KEY, "b:2:2", T3, T1) == "taken"  # ran out at 08:10
    assert not any_store.renew_lease(DIGEST, KEY, "a:1:1", T3)
    assert not any_store.finish_lease(DIGEST, KEY, "a:1:1", "sent", T1)
    record = any_store.get_digest(*KEY)
    assert (record.owner, record.lease_until, record.started_at) == ("b:2:2", T3, None)  # not restarted


def test_a_dead_owner_s_lease_is_taken_over_at_once_and_only_that_owner_s(any_store):
    any_store.take_lease(DIGEST, KEY, "a:1:1", T3, T0)
    assert any_store.take_lease(DIGEST, KEY, "b:2:2", T3, T0, dead={"someone:else:1"}) is None
    assert any_store.take_lease(DIGEST, KEY, "b:2:2", T3, T0, dead={"a:1:1"}) == "taken"
    # The dead owner's id is not b's: a third process told "a is dead" gets nothing now.
    assert any_store.take_lease(DIGEST, KEY, "c:3:3", T3, T0, dead={"a:1:1"}) is None
    assert any_store.get_digest(*KEY).owner == "b:2:2"


def test_a_released_lease_waits_for_its_retry_time(any_store):
    any_store.take_lease(DIGEST, KEY, "a:1:1", T1, T0)
    assert any_store.release_lease(DIGEST, KEY, "a:1:1", T2, count="attempts") == 1
    assert any_store.take_lease(DIGEST, KEY, "b:2:2", T3, T1) is None  # retry at 08:20, not before
    assert any_store.take_lease(DIGEST, KEY, "b:2:2", T3, T2) == "taken"
    assert any_store.release_lease(DIGEST, KEY, "b:2:2", T3, count="attempts") == 2
    assert any_store.release_lease(DIGEST, KEY, "b:2:2", T3) == 0  # counting nothing: still theirs


def test_a_lease_given_back_without_owner_is_anyone_s_after_its_retry_or_early_when_asked(any_store):
    any_store.take_lease(DIGEST, KEY, "a:1:1", T1, T0)
    assert any_store.release_lease(DIGEST, KEY, "a:1:1", T3, disown=True, count="outages", error="down") == 1
    record = any_store.get_digest(*KEY)
    assert (record.owner, record.lease_until, record.outages, record.error) == (None, T3, 1, "down")
    assert not any_store.renew_lease(DIGEST, KEY, "a:1:1", T3)  # given back: no longer a's either
    assert any_store.take_lease(DIGEST, KEY, "a:1:1", T3, T1) is None
    assert any_store.take_lease(DIGEST, KEY, "b:2:2", T3, T1, early=True) == "taken"
    assert any_store.take_lease(DIGEST, KEY, "c:3:3", T3, T1, early=True) is None  # b owns it now


def test_a_finished_digest_is_never_taken_again(any_store):
    any_store.take_lease(DIGEST, KEY, "a:1:1", T1, T0)
    assert any_store.finish_lease(DIGEST, KEY, "a:1:1", "sent", T0, "note")
    for now in (T1, T3, "2099-01-01T00:00:00+00:00"):
        assert any_store.take_lease(DIGEST, KEY, "b:2:2", T3, now, dead={"a:1:1"}, early=True) is None
    record = any_store.get_digest(*KEY)
    assert (record.status, record.finished_at, record.error, record.lease_until) == ("sent", T0, "note", None)
    assert not any_store.finish_lease(DIGEST, KEY, "a:1:1", "failed", T1)  # ended: not even its owner's


def test_a_finished_job_runs_again_from_its_again_at_as_a_fresh_run(any_store):
    key = ("feeds",)
    fresh = {"day": "2026-07-15", "started_at": T0, "finished_at": None, "error": None}
    assert any_store.take_lease(JOB, key, "a:1:1", T1, T0, fresh=fresh) == "new"
    assert any_store.finish_lease(JOB, key, "a:1:1", "failed", T0, "boom", again_at=T2)
    assert any_store.take_lease(JOB, key, "b:2:2", T3, T1, fresh=fresh) is None
    again = {"day": "2026-07-16", "started_at": T2, "finished_at": None, "error": None}
    assert any_store.take_lease(JOB, key, "b:2:2", T3, T2, fresh=again) == "taken"
    job = any_store.get_job("feeds")
    assert (job.day, job.status, job.owner, job.lease_until, job.started_at, job.finished_at, job.error) == (
        "2026-07-16", "running", "b:2:2", T3, T2, None, None)


def test_unknown_kinds_keys_and_columns_are_refused(any_store):
    with pytest.raises(ValueError, match="no lease kind"):
        any_store.take_lease("nope", KEY, "a:1:1", T1, T0)
    with pytest.raises(ValueError, match="keyed by"):
        any_store.take_lease(DIGEST, ("U1",), "a:1:1", T1, T0)
    with pytest.raises(ValueError, match="can't set"):
        any_store.take_lease(DIGEST, KEY, "a:1:1", T1, T0, fresh={"owner": "x; drop table digests"})
    with pytest.raises(ValueError, match="can't count"):
        any_store.release_lease(DIGEST, KEY, "a:1:1", T1, count="status")


def _race(stores, key):
    """Every store takes the lease at once; what each got."""
    start = threading.Barrier(len(stores))
    won = [None] * len(stores)

    def contend(i):
        start.wait(10)
        won[i] = stores[i].take_lease(DIGEST, key, f"p:{i}:{i}", T3, T1)

    threads = [threading.Thread(target=contend, args=(i,)) for i in range(len(stores))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    return won


@pytest.mark.parametrize("lapsed", [False, True], ids=["absent", "ran out"])
def test_processes_racing_for_one_lease_exactly_one_wins(store_target, lapsed):
    # Each contender has its own store (its own connections), as separate processes would.
    stores = [open_store(store_target) for _ in range(4)]
    try:
        for round_ in range(10):
            key = ("U1", f"2026-07-{round_ + 1:02d}")
            if lapsed:
                stores[0].take_lease(DIGEST, key, "old:0:0", T0, T0)  # its lease runs out at once
            won = _race(stores, key)
            winners = [i for i, w in enumerate(won) if w is not None]
            assert len(winners) == 1, won
            assert won[winners[0]] == ("taken" if lapsed else "new")
            assert stores[0].get_digest(*key).owner == f"p:{winners[0]}:{winners[0]}"
    finally:
        for store in stores:
            dispose(store)


def test_m007_gives_jobs_finished_before_it_their_time_to_run_again(backend, store_target, monkeypatch):
    done = ("feeds", "2026-07-15", "done", "a:1:1", None, T0, T1, None)
    failed = ("other", "2026-07-15", "failed", "a:1:1", None, T0, T1, "boom")
    insert = ("insert into jobs (name, day, status, owner, lease_until, started_at, finished_at, error)"
              " values ")
    database_before(backend, store_target, monkeypatch, "m007_job_leases", insert, [done, failed])
    store = open_store(store_target)
    try:
        assert store.get_job("feeds").lease_until == "2026-07-16T00:00:00+00:00"  # done today: tomorrow
        assert store.get_job("other").lease_until == T1  # failed: may be tried again
        assert store.take_lease(JOB, ("feeds",), "b:2:2", T3, T3) is None
        assert store.take_lease(JOB, ("feeds",), "b:2:2", "2026-07-16T00:10:00+00:00",
                                "2026-07-16T00:00:00+00:00") == "taken"
    finally:
        dispose(store)


def test_digests_not_begun_are_claimed_at_once_each_as_a_lease_of_its_own(any_store):
    any_store.take_lease(DIGEST, ("U2", "2026-07-15"), "a:1:1", T1, T0)  # begun already: left alone
    any_store.take_lease(DIGEST, ("U3", "2026-07-15"), "a:1:1", T1, T0)
    any_store.finish_lease(DIGEST, ("U3", "2026-07-15"), "a:1:1", "sent", T0)  # ended: left alone too
    keys = [("U4", "2026-07-15"), ("U2", "2026-07-15"), ("U1", "2026-07-15"), ("U3", "2026-07-15"),
            ("U1", "2026-07-16"), ("U1", "2026-07-15")]
    assert any_store.start_digests(keys, "b:2:2", T2, T0) == {("U1", "2026-07-15"), ("U1", "2026-07-16"),
                                                              ("U4", "2026-07-15")}
    for key in [("U1", "2026-07-15"), ("U1", "2026-07-16"), ("U4", "2026-07-15")]:
        record = any_store.get_digest(*key)
        assert (record.status, record.owner, record.lease_until, record.started_at) == ("sending", "b:2:2",
                                                                                          T2, T0)
        assert (record.failures, record.attempts, record.papers) == ({}, 0, None)  # as start_digest
        assert any_store.renew_lease(DIGEST, key, "b:2:2", T3)  # each its own: renewed alone
    assert any_store.get_digest("U2", "2026-07-15").owner == "a:1:1"
    assert any_store.get_digest("U3", "2026-07-15").status == "sent"
    assert any_store.start_digests(keys, "c:3:3", T2, T0) == set()  # every one begun now
    assert any_store.start_digests([], "c:3:3", T2, T0) == set()
    # Only this workspace's: another's rows of the same people and day are its own.
    assert any_store.for_workspace("T2").start_digests(keys[:1], "c:3:3", T2, T0) == {keys[0]}



def test_the_digests_of_a_batch_are_read_in_one_statement_each_as_get_digest_reads_it(any_store):
    any_store.take_lease(DIGEST, ("U1", "2026-07-15"), "a:1:1", T1, T0)
    any_store.take_lease(DIGEST, ("U2", "2026-07-15"), "a:1:1", T1, T0)
    any_store.finish_lease(DIGEST, ("U2", "2026-07-15"), "a:1:1", "sent", T0)
    any_store.take_lease(DIGEST, ("U1", "2026-07-14"), "a:1:1", T1, T0)  # another day: not asked
    any_store.take_lease(DIGEST, ("U3", "2026-07-16"), "a:1:1", T1, T0)  # nor this one
    any_store.for_workspace("T2").take_lease(DIGEST, ("U4", "2026-07-15"), "a:1:1", T1, T0)  # another's
    keys = [("U1", "2026-07-15"), ("U2", "2026-07-15"), ("U3", "2026-07-15"), ("U4", "2026-07-15"),
            ("U1", "2026-07-16")]
    found = any_store.get_digests(keys)
    assert found == {key: any_store.get_digest(*key) for key in [("U1", "2026-07-15"), ("U2", "2026-07-15")]}
    assert (found["U1", "2026-07-15"].owner, found["U2", "2026-07-15"].status) == ("a:1:1", "sent")
    assert any_store.get_digests([]) == {}

def test_processes_claiming_overlapping_digests_at_once_claim_each_exactly_once(store_target):
    # Each its own store (connections), the same people in orders of their own, as run_daily's processes.
    stores = [open_store(store_target) for _ in range(4)]
    keys = [(f"U{i:02d}", "2026-07-15") for i in range(40)]
    try:
        start = threading.Barrier(len(stores))
        got: list[set] = [set() for _ in stores]

        def claim(i):
            start.wait(10)
            mine = keys[i::2] + keys[::3]  # overlapping, in different orders
            for at in range(0, len(mine), 7):
                got[i] |= stores[i].start_digests(mine[at:at + 7][::-1 if i % 2 else 1], f"p:{i}:{i}", T3, T1)

        threads = [threading.Thread(target=claim, args=(i,)) for i in range(len(stores))]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        claimed = [key for mine in got for key in mine]
        assert sorted(claimed) == sorted(set(claimed)) == keys  # each once, by someone
        for i, mine in enumerate(got):
            assert all(stores[0].get_digest(*key).owner == f"p:{i}:{i}" for key in mine)
    finally:
        for store in stores:
            dispose(store)


def test_an_inbox_item_is_a_lease_only_once_claimed_by_the_inbox(any_store):
    # The inbox claims its items itself (many at a time, each subject's in order): take_lease refuses them.
    with pytest.raises(ValueError):
        any_store.take_lease("inbox", ("T1", "k"), "a", "2026-07-15T09:00:00+00:00",  # type: ignore[arg-type]
                             "2026-07-15T08:00:00+00:00")
    assert leases.INBOX_ITEM.table == "inbox" and leases.INBOX_ITEM not in leases.KINDS.values()
