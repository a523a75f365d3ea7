"""`paperbot show`'s lookup: each name, in order, by paper id (or an id the paper was once known by), arXiv id
or link, or DOI, on each backend."""

from __future__ import annotations

from bot.usecases.show import Held, NotHeld, looks_like_doi, show_papers
from stand_ins.corpus import make_corpus
from storage import Paper


def test_each_name_finds_its_paper_in_the_order_asked_and_the_unknown_are_named(app):
    app.store.upsert_papers([
        Paper(id="arxiv:2401.00001", title="Sparse lattices", arxiv_id="2401.00001",
              abstract="We count sparse lattices in high dimension and bound their number."),
        Paper(id="doi-paper", title="Tidal pools", doi="10.1234/abc.5",
              abstract="Tidal pools hold more species of snail than the open shore around them.")])
    names = ["doi-paper", "https://arxiv.org/abs/2401.00001v2", " ", "doi:10.1234/ABC.5", "2401.99999",
             "10.1/nothing", make_corpus()[3].id, "nope"]
    shown = show_papers(app, names)
    assert [type(s).__name__ for s in shown] == ["Held", "Held", "Held", "NotHeld", "NotHeld", "Held",
                                                 "NotHeld"]
    assert [s.paper.id for s in shown if isinstance(s, Held)] == [
        "doi-paper", "arxiv:2401.00001", "doi-paper", make_corpus()[3].id]
    assert [s.asked for s in shown if isinstance(s, NotHeld)] == ["2401.99999", "10.1/nothing", "nope"]


def test_a_thousand_names_are_read_in_batches(app):
    ids = [p.id for p in make_corpus()] * (1000 // len(make_corpus()) + 1)
    shown = show_papers(app, ids[:1000])
    assert len(shown) == 1000 and all(isinstance(s, Held) for s in shown)


def test_what_reads_as_a_doi():
    assert all(map(looks_like_doi, ["10.1000/x", "doi:10.1000/x", "https://doi.org/10.1000/x"]))
    assert not any(map(looks_like_doi, ["10.1000", "2401.00001", "sha1:abc", "https://example.org/10.1/x"]))
