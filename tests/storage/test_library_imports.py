"""Library exports shared in the DM: each file claimed once per person however many requests race for it,
taken again after a failure or a dead process, and forgotten with the person; and the matching of records
to stored papers the import uses. On both backends."""

import threading

from storage import Paper

#: Cut-offs no claim is older than: nothing claimed is taken over.
LONG_AGO = ("2000-01-01", "2000-01-01")


def test_a_file_is_claimed_once_and_its_end_is_said_by_its_claim(any_store):
    assert any_store.claim_library_import("U1", "F1", "2026-01-01T10:00:00", "2026-01-01T09:59:00",
                                          "2026-01-01T09:45:00")
    assert not any_store.claim_library_import("U1", "F1", "2026-01-01T10:00:01", "2026-01-01T09:59:01",
                                              "2026-01-01T09:45:01")
    assert any_store.claim_library_import("U2", "F1", "2026-01-01T10:00:00", *LONG_AGO)  # another's
    assert any_store.for_workspace("T2").claim_library_import("U1", "F1", "2026-01-01T10:00:00", *LONG_AGO)
    assert not any_store.finish_library_import("U1", "F1", "2026-01-01T10:00:05", "done",
                                               "2026-01-01T10:01:00")
    assert any_store.finish_library_import("U1", "F1", "2026-01-01T10:00:00", "done", "2026-01-01T10:01:00",
                                           {"read": 3, "liked": 2})
    record = any_store.library_import("U1", "F1")
    assert (record.status, record.counts, record.finished_at) == ("done", {"liked": 2, "read": 3},
                                                                  "2026-01-01T10:01:00")
    # Done is done: a later share of the same file reads nothing again, however late.
    assert not any_store.claim_library_import("U1", "F1", "2027-01-01T00:00:00", "2027-01-01", "2027-01-01")
    assert any_store.library_import("U1", "F9") is None


def test_a_failed_read_is_claimed_again_only_after_a_while_and_a_dead_ones_after_longer(any_store):
    any_store.claim_library_import("U1", "F1", "2026-01-01T10:00:00", *LONG_AGO)
    any_store.finish_library_import("U1", "F1", "2026-01-01T10:00:00", "failed", "2026-01-01T10:00:10",
                                    error="download failed")
    assert any_store.library_import("U1", "F1").error == "download failed"
    # The second event of the same share, a moment later: the failure is too fresh to read again.
    assert not any_store.claim_library_import("U1", "F1", "2026-01-01T10:00:11", "2026-01-01T09:59:11",
                                              "2026-01-01T09:45:11")
    assert any_store.claim_library_import("U1", "F1", "2026-01-01T10:02:00", "2026-01-01T10:01:00",
                                          "2026-01-01T09:47:00")
    record = any_store.library_import("U1", "F1")
    assert (record.status, record.started_at, record.error) == ("running", "2026-01-01T10:02:00", None)
    # Running: taken over only once it has run longer than a live read would.
    assert not any_store.claim_library_import("U1", "F1", "2026-01-01T10:05:00", "2026-01-01T10:04:00",
                                              "2026-01-01T09:50:00")
    assert any_store.claim_library_import("U1", "F1", "2026-01-01T10:20:00", "2026-01-01T10:19:00",
                                          "2026-01-01T10:05:00")
    # The dead claim's late word changes nothing.
    assert not any_store.finish_library_import("U1", "F1", "2026-01-01T10:02:00", "done",
                                               "2026-01-01T10:21:00")


def test_of_racing_claims_exactly_one_wins(any_store):
    wins, start = [], threading.Barrier(6)

    def claim():
        start.wait()
        wins.append(any_store.claim_library_import("U1", "FRACE", "2026-01-01T10:00:00", *LONG_AGO))
        any_store.close()

    threads = [threading.Thread(target=claim) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(wins) == [False] * 5 + [True]


def test_forget_takes_a_persons_imports_and_export_hands_them_over(any_store):
    any_store.claim_library_import("U1", "F1", "2026-01-01T10:00:00", *LONG_AGO)
    any_store.claim_library_import("U2", "F1", "2026-01-01T10:00:00", *LONG_AGO)
    assert [r["file_id"] for r in any_store.person_rows("U1")["library_imports"]] == ["F1"]
    any_store.forget_person("U1")
    assert any_store.library_import("U1", "F1") is None
    assert any_store.library_import("U2", "F1") is not None


def test_records_are_matched_to_stored_papers_by_the_ingests_rules_without_writing(any_store):
    any_store.upsert_papers([
        Paper(id="arxiv:1706.03762", abstract="Sequence models.", title="Attention Is All You Need",
              authors=["Ashish Vaswani"], arxiv_id="1706.03762"),
        Paper(id="doi-paper", abstract="Magma.", title="Magma chambers", doi="10.1000/volc.42"),
        Paper(id="titled", abstract="Lava.", title="Lava Flows Seen From Orbit", authors=["Ann Smith"]),
    ])
    before = any_store.count_papers()
    asked = [
        Paper(id="x1", abstract="", title="whatever", arxiv_id="1706.03762"),
        Paper(id="x2", abstract="", title="Another title entirely", doi="10.1000/VOLC.42"),
        Paper(id="x3", abstract="", title="Lava flows seen from orbit!", authors=["A. Smith"]),
        Paper(id="x4", abstract="", title="Lava flows seen from orbit", authors=["Someone Else"]),
        Paper(id="titled", abstract="", title="Renamed"),
    ]
    assert any_store.match_papers(asked) == ["arxiv:1706.03762", "doi-paper", "titled", None, "titled"]
    assert any_store.count_papers() == before
    assert any_store.match_papers([]) == []
