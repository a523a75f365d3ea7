"""Papers' summaries by a model (storage/summaries.py, step m035_summaries): asked for once per paper and
model whichever process claims first, taken over when a claim lapses, asked again when the paper's text
changes, moved with a merged paper, and the day's calls counted under a limit across threads. Both
backends."""

from __future__ import annotations

import threading

from storage import Paper

MODEL = "llama3.1:8b"
T0 = "2026-12-07T06:00:00+00:00"
T1 = "2026-12-07T06:05:00+00:00"  # the claims' lease end
T2 = "2026-12-07T06:10:00+00:00"


def claim(store, ids, owner="host:1:1", now=T0, until=T1, sources=None, dead=()):
    return store.claim_summaries(ids, MODEL, sources or dict.fromkeys(ids, "src"), owner, until, now, dead)


def test_a_paper_is_claimed_once_per_model_and_finished_by_its_owner_only(any_store):
    assert claim(any_store, ["a", "b"]) == ["a", "b"]
    assert claim(any_store, ["b", "a", "c"], owner="host:2:2") == ["c"]  # held: not again
    # Another model's summary of the same paper is a claim of its own.
    assert any_store.claim_summaries(["a"], "other:7b", {"a": "src"}, "host:2:2", T1, T0) == ["a"]
    assert not any_store.finish_summary("a", MODEL, "host:2:2", "ok", T0, text="Not theirs.")
    assert any_store.finish_summary("a", MODEL, "host:1:1", "ok", T0, text="A summary.", source="src")
    assert any_store.finish_summary("b", MODEL, "host:1:1", "rejected", T0, text="Made up 7.",
                                    reason="invented_number", source="src")
    found = any_store.summaries_of(["a", "b", "c", "nope"], MODEL)
    assert (found["a"].status, found["a"].text, found["a"].finished_at) == ("ok", "A summary.", T0)
    assert (found["b"].status, found["b"].reason) == ("rejected", "invented_number")
    assert found["c"].status == "claimed" and "nope" not in found
    # Finished: never claimed again, even once every lease has run out.
    assert claim(any_store, ["a", "b"], owner="host:3:3", now=T2, until="2026-12-07T07:00:00+00:00") == []
    # Shared by every workspace, as papers are.
    assert any_store.for_workspace("T1").summaries_of(["a"], MODEL)["a"].text == "A summary."


def test_a_lapsed_or_dead_claim_is_taken_over_and_a_given_back_one_waits_for_its_retry(any_store):
    claim(any_store, ["a", "b", "c"])
    assert claim(any_store, ["a"], owner="host:2:2", now=T1, until=T2) == ["a"]  # its lease ran out
    assert claim(any_store, ["b"], owner="host:2:2", dead={"host:1:1"}) == ["b"]  # its owner died
    assert not any_store.finish_summary("a", MODEL, "host:1:1", "ok", T1, text="Too late.")  # lost it
    assert any_store.release_summary("c", MODEL, "host:1:1", T2, error="HTTP 500") == 1
    assert claim(any_store, ["c"], owner="host:2:2", now=T1, until=T2) == []  # not before its retry
    assert claim(any_store, ["c"], owner="host:2:2", now=T2, until="2026-12-07T07:00:00+00:00") == ["c"]
    assert any_store.release_summary("c", MODEL, "host:2:2", T2, count=False) == 0  # the limit, not a failure
    stored = any_store.summaries_of(["c"], MODEL)["c"]
    assert (stored.status, stored.attempts, stored.error) == ("claimed", 1, "HTTP 500")
    assert any_store.release_summary("c", MODEL, "host:9:9", T2) is None  # not theirs


def test_a_changed_abstract_is_asked_again_and_a_failed_one_after_its_time(any_store):
    claim(any_store, ["a", "b"], sources={"a": "v1", "b": "v1"})
    any_store.finish_summary("a", MODEL, "host:1:1", "ok", T0, text="Old.", source="v1")
    any_store.finish_summary("b", MODEL, "host:1:1", "failed", T0, source="v1", error="timed out",
                             again_at=T2)
    assert claim(any_store, ["a", "b"], owner="host:2:2", now=T1, sources={"a": "v1", "b": "v1"}) == []
    assert claim(any_store, ["a"], owner="host:2:2", now=T1, until=T2, sources={"a": "v2"}) == ["a"]
    assert claim(any_store, ["a"], owner="host:3:3", now=T1, sources={"a": "v2"}) == []  # one reopens it
    reopened = any_store.summaries_of(["a"], MODEL)["a"]
    assert (reopened.status, reopened.text, reopened.finished_at) == ("claimed", None, None)
    assert claim(any_store, ["b"], owner="host:2:2", now=T2, until="2026-12-07T07:00:00+00:00",
                 sources={"b": "v1"}) == ["b"]


def test_of_racing_claims_each_paper_goes_to_one(any_store):
    ids = [f"p{i}" for i in range(30)]
    won: dict[str, list[str]] = {}
    start = threading.Barrier(4)

    def race(owner: str) -> None:
        start.wait()
        won[owner] = claim(any_store, ids, owner=owner)
        any_store.close()

    threads = [threading.Thread(target=race, args=(f"host:{n}:{n}",)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    everyone = [paper for papers in won.values() for paper in papers]
    assert sorted(everyone) == sorted(ids)


def test_the_day_s_calls_stop_at_the_limit_across_threads(any_store):
    counted: list[bool] = []
    lock = threading.Lock()
    start = threading.Barrier(4)

    def call(n: int) -> None:
        start.wait()
        for _ in range(n):
            ok = any_store.count_summary_call("2026-12-07", 10)
            with lock:
                counted.append(ok)
        any_store.close()

    threads = [threading.Thread(target=call, args=(6,)) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert counted.count(True) == 10 and len(counted) == 24
    assert any_store.summary_calls("2026-12-07") == 10
    assert any_store.count_summary_call("2026-12-08", 10)  # a new day, a new count
    assert not any_store.count_summary_call("2026-12-09", 0)  # a limit of 0 makes no call
    assert any_store.summary_calls("2026-12-09") == 0


def test_the_day_s_outcomes_are_counted_by_status_and_reason(any_store):
    claim(any_store, ["a", "b", "c", "d", "e"])
    owner = "host:1:1"
    any_store.finish_summary("a", MODEL, owner, "ok", T0, text="Fine.")
    any_store.finish_summary("b", MODEL, owner, "rejected", T0, reason="invented_number")
    any_store.finish_summary("c", MODEL, owner, "rejected", T1, reason="invented_number")
    any_store.finish_summary("d", MODEL, owner, "failed", T1, error="HTTP 500")
    any_store.finish_summary("e", MODEL, owner, "failed", "2026-12-08T01:00:00+00:00", error="next day")
    found = any_store.summary_outcomes("2026-12-07T00:00:00+00:00", "2026-12-08T00:00:00+00:00")
    assert found == {("ok", None): 1, ("rejected", "invented_number"): 2, ("failed", None): 1}
    day, next_day = "2026-12-07T00:00:00+00:00", "2026-12-08T00:00:00+00:00"
    assert any_store.latest_summary_error(day, next_day) == "HTTP 500"
    assert any_store.latest_summary_error(next_day, "2026-12-09T00:00:00+00:00") == "next day"
    assert any_store.latest_summary_error("2026-12-09T00:00:00+00:00", "2026-12-10T00:00:00+00:00") is None


def test_a_merge_keeps_the_summary_with_the_paper_kept(any_store):
    any_store.upsert_papers([Paper(id="a", title="Graph things", abstract="x", arxiv_id="2401.00001")])
    any_store.upsert_papers([Paper(id="b", title="Quite another title", abstract="y", doi="10.1/b")])
    claim(any_store, ["b"])
    any_store.finish_summary("b", MODEL, "host:1:1", "ok", T0, text="B's summary.", source="fp-b")
    # A record tying both merges them into the older, "a": the dropped paper's summary goes with it.
    any_store.upsert_papers([Paper(id="c", title="Graph things", abstract="x", arxiv_id="2401.00001",
                                   doi="10.1/b")])
    found = any_store.summaries_of(["a", "b"], MODEL)
    assert list(found) == ["a"] and found["a"].source == "fp-b"  # its source says which text it was of


def test_summaries_are_copied_with_the_papers(any_store, tmp_path):
    from storage import open_store
    from storage.copy import copy_database

    any_store.upsert_papers([Paper(id="a", title="T", abstract="x")])
    claim(any_store, ["a"])
    any_store.finish_summary("a", MODEL, "host:1:1", "ok", T0, text="Kept.", source="fp")
    any_store.count_summary_call("2026-12-07", 5)
    target = str(tmp_path / "copy.db")
    copy_database(any_store, open_store(target))
    copied = open_store(target)
    try:
        assert copied.summaries_of(["a"], MODEL)["a"].text == "Kept."
        assert copied.summary_calls("2026-12-07") == 1
    finally:
        copied.dispose()
