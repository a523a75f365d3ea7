"""What `/papers why` reads of the store (storage/papers.py: paper_held; storage/people.py: shown_at), on
both backends: since when a paper is held, every id it was known by (a merged record's too), and when it
was shown to a person."""

from storage import Paper
from tests.storage.test_paper_identity import CONFERENCE, PREPRINT


def test_a_paper_is_held_since_it_was_first_stored_under_every_id_it_had(any_store):
    assert any_store.paper_held("arxiv:2401.00001") is None
    any_store.upsert_papers([PREPRINT])
    added, updated, aliases = any_store.paper_held("arxiv:2401.00001")
    assert added == updated and aliases == []
    any_store.upsert_papers([CONFERENCE])  # the same paper: merged into the preprint, its id an alias
    again, later, aliases = any_store.paper_held("arxiv:2401.00001")
    assert again == added and later >= updated and aliases == ["conf:icml-17"]
    assert any_store.paper_held("conf:icml-17") is None  # by the paper's own id only


def test_when_a_paper_was_shown_to_a_person(any_store):
    any_store.upsert_papers([Paper(id="p1", title="One", abstract="x")])
    assert any_store.shown_at("U1", "p1") is None
    any_store.mark_shown("U1", "p1", "a reason")
    at = any_store.shown_at("U1", "p1")
    assert at is not None and at[:4].isdigit() and "T" in at
    assert any_store.shown_at("U2", "p1") is None
