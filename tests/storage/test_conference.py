"""Conference plans (``paper_sessions``, ``conference_plans``, ``conference_reminders``) on both backends:
sessions stored and replaced, venues counted, a plan kept in rank order with its choices, Going papers
found by when their sessions start, a reminder claimed once, and a person's rows forgotten and exported."""

from __future__ import annotations

from storage import PERSONAL_TABLES, Paper
from storage.models import PaperSession
from storage.tables import COPIED_TABLES, KEYS, WORKSPACE_TABLES

AT = "2026-07-14T10:00:00+00:00"
LATER = "2026-07-14T11:00:00+00:00"


def _papers(store) -> None:
    store.upsert_papers([Paper(id=f"p{i}", title=f"Paper {i}", abstract=f"Abstract number {i} words.",
                               venue="ICML 2025 poster" if i < 3 else "NeurIPS 2024") for i in range(5)])


def test_sessions_are_stored_replaced_and_read_by_paper(any_store):
    _papers(any_store)
    assert any_store.set_paper_sessions([("p0", PaperSession("Poster 1", AT, "Hall A #12")),
                                         ("p1", PaperSession(None, LATER, None))]) == 2
    assert any_store.paper_sessions(["p0", "p1", "p2"]) == {"p0": PaperSession("Poster 1", AT, "Hall A #12"),
                                                           "p1": PaperSession(None, LATER, None)}
    any_store.set_paper_sessions([("p0", PaperSession("Poster 2", LATER, "Hall B"))])
    assert any_store.paper_sessions(["p0"])["p0"].location == "Hall B"
    assert any_store.paper_sessions([]) == {}


def test_venues_are_counted_biggest_first_and_read_by_name(any_store):
    _papers(any_store)
    assert any_store.venues() == [("ICML 2025 poster", 3), ("NeurIPS 2024", 2)]
    assert any_store.venue_paper_ids("ICML 2025 poster") == ["p0", "p1", "p2"]
    assert any_store.venue_paper_ids("icml 2025 poster") == []  # exact: matching is the use case's


def test_a_plan_keeps_its_order_and_choices_per_person_and_venue(any_store):
    _papers(any_store)
    store = any_store.for_workspace("T1")
    assert store.add_to_plan("U1", "icml 2025", ["p2", "p0"]) == 2
    assert store.add_to_plan("U1", "icml 2025", ["p0", "p1"], first_place=2) == 1  # p0 stays where it was
    assert [(p.paper_id, p.place, p.choice) for p in store.plan("U1", "icml 2025")] == [
        ("p2", 0, None), ("p0", 1, None), ("p1", 3, None)]
    assert store.choose_in_plan("U1", "icml 2025", "p0", "going")
    assert store.choose_in_plan("U1", "icml 2025", "p2", "skip")
    assert not store.choose_in_plan("U1", "icml 2025", "p4", "going")  # not in the plan
    assert [p.choice for p in store.plan("U1", "icml 2025")] == ["skip", "going", None]
    assert store.plan("U2", "icml 2025") == [] and any_store.for_workspace("T2").plan("U1", "icml 2025") == []


def test_going_papers_starting_soon_and_a_reminder_claimed_once(any_store):
    _papers(any_store)
    any_store.set_paper_sessions([("p0", PaperSession("Poster 1", AT, "Hall A")),
                                  ("p1", PaperSession("Poster 2", LATER, "Hall B"))])
    store = any_store.for_workspace("T1")
    store.add_to_plan("U1", "icml", ["p0", "p1"])
    store.add_to_plan("U1", "icml 2025", ["p0"])  # the same paper in two of their plans: one reminder
    store.add_to_plan("U2", "icml", ["p0"])
    store.choose_in_plan("U1", "icml", "p0", "going")
    store.choose_in_plan("U1", "icml 2025", "p0", "going")
    store.choose_in_plan("U1", "icml", "p1", "going")
    store.choose_in_plan("U2", "icml", "p0", "skip")
    due = store.going_between("2026-07-14T09:45:00+00:00", "2026-07-14T10:00:00+00:00")
    assert [(d.user_id, d.paper_id, d.session.location) for d in due] == [("U1", "p0", "Hall A")]
    assert store.going_between("2026-07-14T10:00:00+00:00", "2026-07-14T10:15:00+00:00") == []  # started
    assert any_store.for_workspace("T2").going_between("2026-07-14T09:00:00+00:00", LATER) == []
    claim = store.claim_reminder("U1", "p0", AT)
    assert claim
    assert store.claim_reminder("U1", "p0", AT) is None  # once, whoever asks again
    assert store.claim_reminder("U1", "p0", LATER)  # the session moved: its own reminder
    store.release_reminder("U1", "p0", AT, "an older claim")  # someone else's claim: left alone
    assert store.claim_reminder("U1", "p0", AT) is None
    store.release_reminder("U1", "p0", AT, claim)  # not sent: given back
    assert store.claim_reminder("U1", "p0", AT)


def test_plans_are_a_person_s_rows_forgotten_and_exported(any_store):
    for table in ("conference_plans", "conference_reminders"):
        assert table in PERSONAL_TABLES and table in WORKSPACE_TABLES and table in KEYS
    assert "paper_sessions" in COPIED_TABLES and "paper_sessions" not in WORKSPACE_TABLES
    _papers(any_store)
    store = any_store.for_workspace("T1")
    any_store.set_paper_sessions([("p0", PaperSession("Poster 1", AT, "Hall A"))])
    store.add_to_plan("U1", "icml", ["p0"])
    store.choose_in_plan("U1", "icml", "p0", "going")
    store.claim_reminder("U1", "p0", AT)
    store.add_to_plan("U2", "icml", ["p0"])
    rows = store.person_rows("U1")
    assert [(r["paper_id"], r["choice"]) for r in rows["conference_plans"]] == [("p0", "going")]
    assert [r["starts_at"] for r in rows["conference_reminders"]] == [AT]
    gone = store.forget_person("U1")
    assert gone["conference_plans"] == 1 and gone["conference_reminders"] == 1
    assert store.plan("U1", "icml") == [] and len(store.plan("U2", "icml")) == 1
    assert any_store.paper_sessions(["p0"])  # the papers' sessions are no one's


def test_a_merge_gives_the_kept_paper_the_dropped_one_s_session(any_store):
    any_store.upsert_papers([Paper(id="doi:10.1/x", doi="10.1/x", title="One", abstract="First text here."),
                             Paper(id="arxiv:2401.00001", arxiv_id="2401.00001", title="Two",
                                   abstract="Second text here.")])
    any_store.set_paper_sessions([("doi:10.1/x", PaperSession("Poster 9", AT, "Hall Z"))])
    # One record that is both: the two stored papers become one.
    any_store.upsert_papers([Paper(id="arxiv:2401.00001", arxiv_id="2401.00001", doi="10.1/x", title="Two",
                                   abstract="Second text here.")])
    kept = any_store.get_papers(["arxiv:2401.00001", "doi:10.1/x"])
    assert len({p.id for p in kept.values()}) == 1
    [kept_id] = {p.id for p in kept.values()}
    assert any_store.paper_sessions([kept_id]) == {kept_id: PaperSession("Poster 9", AT, "Hall Z")}
