"""Bring your library, the use case: entries matched to stored papers or stored anew, each liked (a paper
disliked before stays disliked), skipped entries counted by reason, new papers in the live index at once,
a file read once per person; on both backends."""

from datetime import UTC, datetime, timedelta
from pathlib import Path

from bot.sources.library_exports import DUPLICATE, NO_TITLE_OR_ID, UNREADABLE, read_library
from bot.usecases.feedback import record_feedback
from bot.usecases.library import DISLIKED, NOT_STORED, claim_import, finish_import, import_library
from storage import Paper

FIXTURES = Path(__file__).parents[1] / "sources" / "fixtures" / "library"


def _liked(app, user):
    return {f.paper_id for f in app.store.get_feedback(user) if f.value > 0}


def test_a_bibtex_library_becomes_the_persons_likes(app):
    app.store.upsert_papers([Paper(id="attention", abstract="Sequence transduction with attention.",
                                   title="Attention is all you need", arxiv_id="1706.03762")])
    items = read_library((FIXTURES / "library.bib").read_bytes(), "bibtex")
    report = import_library(app, "U1", items)
    assert (report.read, report.matched, report.added, report.liked) == (6, 1, 2, 3)
    assert report.skipped == {UNREADABLE: 1, NO_TITLE_OR_ID: 1, DUPLICATE: 1}
    cats = app.store.find_paper_by_doi("10.1000/volc.42")
    orbit = app.store.get_paper(items[2].paper.id).id  # a title alone: stored under its own id
    assert _liked(app, "U1") == {"attention", cats.id, orbit}
    assert cats.abstract == "" and cats.title == "Schrödinger's Cats in Magma Chambers"
    with app.engine.index() as index:  # new papers are searched and recommended from now on
        assert cats.id in index.row_of and orbit in index.row_of


def test_a_paper_disliked_stays_disliked_one_liked_counts_as_matched_and_an_id_alone_only_matches(app):
    app.store.upsert_papers([Paper(id="doi-cats", abstract="Cats.", title="Cats", doi="10.1000/volc.42")])
    record_feedback(app, "U1", "doi-cats", -1)
    record_feedback(app, "U1", "cats-0", 1)
    bib = b"""@article{a, title={Schr\\"odinger's Cats}, doi={10.1000/VOLC.42}}
@article{b, doi={10.9999/nobody.has.it}}
@article{c, title={On something}, url={https://example.org/c}}
@article{d, eprint={1706.03762}}
"""
    items = read_library(bib, "bibtex")
    cats0 = app.store.get_paper("cats-0")
    items += read_library(f"@misc{{again, title={{{cats0.title}}}, author={{{cats0.authors[0]}}}}}".encode(),
                          "bibtex")
    report = import_library(app, "U1", items)
    assert (report.read, report.matched, report.added, report.liked) == (5, 1, 1, 1)
    assert report.skipped == {DISLIKED: 1, NOT_STORED: 2}
    values = {f.paper_id: f.value for f in app.store.get_feedback("U1")}
    assert values["doi-cats"] == -1 and values["cats-0"] == 1 and len(values) == 3


def test_the_same_library_again_adds_and_likes_nothing_new(app):
    data = (FIXTURES / "zotero.csv").read_bytes()
    first = import_library(app, "U2", read_library(data, "zotero-csv"))
    again = import_library(app, "U2", read_library(data, "zotero-csv"))
    assert (first.added, first.liked) == (2, 2)
    assert (again.read, again.matched, again.added, again.liked) == (3, 2, 0, 0)


def test_a_big_library_is_written_in_batches(app):
    entries = "\n".join(f"@article{{k{i}, title={{Volcanic study number {i} of many}}, author={{Smith, Ann}},"
                        f" doi={{10.1000/big.{i}}}}}" for i in range(1200))
    report = import_library(app, "U3", read_library(entries.encode(), "bibtex"))
    assert (report.read, report.added, report.liked) == (1200, 1200, 1200)
    assert len(_liked(app, "U3")) == 1200


def test_a_file_is_read_once_and_a_failed_read_again_a_minute_later(app):
    now = datetime(2026, 1, 1, 10, tzinfo=UTC)
    claimed = claim_import(app, "U1", "F1", now)
    assert claimed and claim_import(app, "U1", "F1", now) is None
    finish_import(app, "U1", "F1", claimed, "failed", error="download failed")
    assert claim_import(app, "U1", "F1", datetime.now(UTC)) is None
    later = claim_import(app, "U1", "F1", datetime.now(UTC) + timedelta(minutes=2))
    assert later is not None
    finish_import(app, "U1", "F1", later, "done")
    assert app.store.library_import("U1", "F1").status == "done"
    assert claim_import(app, "U1", "F1", datetime.now(UTC) + timedelta(days=9)) is None
