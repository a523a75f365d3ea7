"""What became of saved and liked papers (issue 42), on both backends: events written with the merge that
found them (once per paper, kind and detail, carried along when papers merge), and each person told of
each once, however many processes claim at once."""

import threading
from dataclasses import replace

from storage import Paper
from tests.storage.conftest import sql_rows

V1 = Paper(id="arxiv:2501.00001", arxiv_id="2501.00001", arxiv_version=1, title="Sparse graph transformers",
           abstract="We study sparse attention on graphs.", authors=["Ana Duarte"])
V2 = replace(V1, id="arxiv:2501.00001v2", arxiv_version=2,
             abstract="We study sparse attention on big graphs.")
SINCE = "2000-01-01T00:00:00+00:00"


def detector(before, after):
    """A stand-in for bot/text/paper_events.py: the abstract changed, the venue came."""
    found = []
    if before.abstract != after.abstract:
        found.append(("version", f"v{after.arxiv_version}"))
    if after.venue and after.venue != before.venue:
        found.append(("accepted", after.venue))
    return found


def test_an_ingest_records_what_became_of_a_known_paper_once(any_store):
    any_store.upsert_papers([V1], events=detector)
    assert any_store.paper_events([V1.id]) == []  # a new paper: nothing became of it yet
    any_store.upsert_papers([replace(V2, arxiv_version=2, abstract="Nobody holds it yet.")], events=detector)
    assert any_store.paper_events([V1.id]) == []  # nobody saved or liked it: nobody to tell
    any_store.for_workspace("T9").set_feedback("C1", V1.id, 1)  # a like anywhere (a channel's too) counts
    any_store.upsert_papers([V2], events=detector)
    any_store.upsert_papers([V2], events=detector)  # the same record again: no change, no event
    any_store.upsert_papers([replace(V2, venue="ICML 2025")], events=detector)
    found = {(e.paper_id, e.kind, e.detail) for e in any_store.paper_events([V1.id])}
    assert found == {(V1.id, "version", "v2"), (V1.id, "accepted", "ICML 2025")}
    assert all(e.found_at for e in any_store.paper_events([V1.id]))
    # Without a detector (a library import, m010) nothing is recorded.
    any_store.upsert_papers([replace(V2, arxiv_version=3, abstract="Third.")])
    assert len(any_store.paper_events([V1.id])) == 2


def test_a_person_is_told_of_each_event_of_a_paper_they_saved_or_liked_once(any_store):
    other = Paper(id="b", title="Another paper entirely here", abstract="Other text.")
    ignored = Paper(id="c", title="A paper nobody wanted here", abstract="Ignored text.")
    any_store.upsert_papers([V1, other, ignored])
    any_store.save_paper("U1", V1.id)
    any_store.set_feedback("U1", "b", 1)
    any_store.set_feedback("U1", "c", -1)  # disliked: not theirs to hear about
    any_store.upsert_papers([V2, replace(other, abstract="Other, newer."),
                             replace(ignored, abstract="Ignored, newer.")], events=detector)
    claimed = any_store.claim_followups("U1", "2026-12-08", "2026-12-08T08:00:00+00:00", SINCE, 10)
    assert sorted((e.paper_id, e.kind) for e in claimed) == [(V1.id, "version"), ("b", "version")]
    # The same message asked again (a resumed digest) gets the same events; another message, none.
    again = any_store.claim_followups("U1", "2026-12-08", "2026-12-08T08:05:00+00:00", SINCE, 10)
    assert again == claimed
    assert any_store.claim_followups("U1", "2026-12-09", "2026-12-09T08:00:00+00:00", SINCE, 10) == []
    assert any_store.followups_told_via("U1", "2026-12-08") == claimed
    # Someone else, elsewhere: their own.
    assert any_store.claim_followups("U2", "2026-12-08", "2026-12-08T08:00:00+00:00", SINCE, 10) == []
    assert any_store.for_workspace("T2").claim_followups("U1", "2026-12-08", "x", SINCE, 10) == []


def test_events_older_than_the_persons_interest_or_the_horizon_are_not_told(any_store):
    any_store.upsert_papers([V1])
    any_store.set_feedback("U2", V1.id, 1)  # someone else's interest: the event is kept
    any_store.upsert_papers([V2], events=detector)
    sql_rows(any_store, "update paper_events set found_at = '2020-01-01T00:00:00+00:00'")  # before the save
    any_store.save_paper("U1", V1.id)
    assert any_store.claim_followups("U1", "d1", "t", SINCE, 10) == []
    any_store.upsert_papers([replace(V2, arxiv_version=3, abstract="Third.")], events=detector)
    assert any_store.claim_followups("U1", "d1", "t", "2999-01-01T00:00:00+00:00", 10) == []  # too old
    assert [e.detail for e in any_store.claim_followups("U1", "d1", "t", SINCE, 10)] == ["v3"]


def test_a_claim_given_back_is_told_another_time(any_store):
    any_store.upsert_papers([V1])
    any_store.save_paper("U1", V1.id)
    any_store.upsert_papers([V2], events=detector)
    assert len(any_store.claim_followups("U1", "d1", "t", SINCE, 10)) == 1
    assert any_store.release_followups("U1", "d1") == 1
    assert len(any_store.claim_followups("U1", "d2", "t", SINCE, 10)) == 1


def test_two_processes_claiming_at_once_tell_each_event_once(any_store):
    papers = [Paper(id=f"p{i}", title=f"Paper number {i} of many", abstract=f"Text {i}.") for i in range(12)]
    any_store.upsert_papers(papers)
    for paper in papers:
        any_store.save_paper("U1", paper.id)
    any_store.upsert_papers([replace(p, abstract=p.abstract + " New.") for p in papers], events=detector)
    got: dict[str, list] = {}
    start = threading.Barrier(2)

    def claim(via):
        start.wait()
        got[via] = any_store.claim_followups("U1", via, "t", SINCE, 100)

    threads = [threading.Thread(target=claim, args=(via,)) for via in ("one", "two")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    told = [e.paper_id for via in got for e in got[via]]
    assert sorted(told) == sorted(p.id for p in papers)  # each once, none lost


def test_a_merge_carries_events_and_what_was_told_to_the_kept_paper(any_store):
    a = Paper(id="doi:10.1/x", doi="10.1/x", title="Kept paper about graphs", abstract="Short.",
              authors=["Li"])
    b = Paper(id="pmid:1", title="Other copy of the paper", abstract="Other.", authors=["Li"])
    any_store.upsert_papers([a, b])
    any_store.save_paper("U1", "pmid:1")
    any_store.upsert_papers([replace(b, abstract="Other, changed.")], events=detector)
    assert [e.kind for e in any_store.claim_followups("U1", "d1", "t", SINCE, 10)] == ["version"]
    # A record naming both (its DOI is a's, its title b's) merges them into the older, a.
    any_store.upsert_papers([replace(b, id="pmid:1", doi="10.1/x")], events=detector)
    kept = any_store.get_paper("pmid:1").id
    gone = "pmid:1" if kept == "doi:10.1/x" else "doi:10.1/x"
    assert any_store.paper_events([gone]) == [] or kept == gone
    assert [e.kind for e in any_store.paper_events([kept])].count("version") >= 1
    assert sql_rows(any_store, f"select count(*) from followups_told where paper_id = '{kept}'")[0][0] == 1


def test_forgetting_a_person_deletes_what_they_were_told_and_their_rows_hold_it(any_store):
    any_store.upsert_papers([V1])
    any_store.save_paper("U1", V1.id)
    any_store.upsert_papers([V2], events=detector)
    any_store.claim_followups("U1", "d1", "t", SINCE, 10)
    rows = any_store.person_rows("U1")["followups_told"]
    told = [(r["paper_id"], r["kind"], r["detail"], r["via"]) for r in rows]
    assert told == [(V1.id, "version", "v2", "d1")]
    assert any_store.forget_person("U1")["followups_told"] == 1
    assert any_store.person_rows("U1")["followups_told"] == []
    assert len(any_store.paper_events([V1.id])) == 1  # the paper's own history stays


def test_followups_off_is_a_setting_of_a_person(any_store):
    any_store.ensure_person("U1")
    assert any_store.get_person("U1").followups_off is False
    any_store.set_person_settings("U1", followups_off=True)
    assert any_store.get_person("U1").followups_off is True


def test_who_has_news_is_who_a_claim_would_tell(any_store):
    any_store.upsert_papers([V1, Paper(id="b", title="Another paper entirely here", abstract="Other.")])
    any_store.save_paper("U1", V1.id)
    any_store.set_feedback("U2", V1.id, 1)
    any_store.set_feedback("U3", V1.id, -1)
    any_store.save_paper("U4", "b")
    any_store.ensure_person("U2")
    any_store.set_person_settings("U2", followups_off=True)
    assert any_store.people_with_followups(SINCE) == []
    any_store.upsert_papers([V2], events=detector)
    assert any_store.people_with_followups(SINCE) == ["U1"]
    assert any_store.people_with_followups("2999-01-01T00:00:00+00:00") == []
    any_store.claim_followups("U1", "d1", "t", SINCE, 10)
    assert any_store.people_with_followups(SINCE) == []
    assert any_store.for_workspace("T2").people_with_followups(SINCE) == []
