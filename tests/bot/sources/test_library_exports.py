"""Library exports read into entries: BibTeX (an arXiv eprint, a DOI, a title alone, a broken entry, one
without title or id, a duplicate key), RIS, Zotero's CSV, and files that are no library export."""

from pathlib import Path

import pytest

from bot.sources.library_exports import (
    DUPLICATE,
    NO_TITLE_OR_ID,
    UNREADABLE,
    LibraryEntry,
    NotALibrary,
    library_kind,
    read_library,
)
from bot.sources.records import Rejected

FIXTURES = Path(__file__).parent / "fixtures" / "library"


def _read(name: str, kind: str):
    return read_library((FIXTURES / name).read_bytes(), kind)


def test_a_bibtex_library_gives_each_entry_or_why_it_was_left_out():
    items = _read("library.bib", "bibtex")
    entries = [i for i in items if isinstance(i, LibraryEntry)]
    assert [(r.where, r.reason) for r in items if isinstance(r, Rejected)] == [
        ("line 23", UNREADABLE), ("line 26", NO_TITLE_OR_ID), ("line 31", DUPLICATE)]
    arxiv, doi, title_only = (e.paper for e in entries)
    assert (arxiv.id, arxiv.arxiv_id) == ("arxiv:1706.03762", "1706.03762")
    assert arxiv.title == "Attention Is All You Need"
    assert arxiv.authors == ["Ashish Vaswani", "Noam Shazeer"] and arxiv.published == "2017-01-01"
    assert arxiv.abstract.startswith("The dominant sequence")
    assert (doi.id, doi.doi) == ("doi:10.1000/volc.42", "10.1000/volc.42")
    assert doi.url == "https://doi.org/10.1000/volc.42"
    assert doi.title == "Schrödinger's Cats in Magma Chambers"
    assert doi.authors == ["Anna Müller", "Ana Duarte"]
    assert doi.venue == "Proceedings of Volcanology" and doi.abstract == ""
    assert title_only.title == "Lava Flows Seen From Orbit" and title_only.id.startswith("sha1:")
    assert all(e.titled for e in entries)


def test_an_arxiv_id_is_found_in_a_journal_line_a_url_or_arxivs_own_doi():
    bib = rb"""@article{a, title={One}, journal={arXiv preprint arXiv:2401.01234}}
@article{b, title={Two}, url={https://arxiv.org/abs/2402.00001v2}}
@article{c, title={Three}, doi={10.48550/arXiv.2403.00002}}
@article{d, doi={10.1000/only.a.doi}}"""
    found = [i.paper for i in read_library(bib, "bibtex")]
    assert [p.arxiv_id for p in found] == ["2401.01234", "2402.00001", "2403.00002", None]
    assert found[2].doi is None  # arXiv's DOI is the arXiv id, said once
    assert (found[3].id, found[3].title, found[3].doi) == ("doi:10.1000/only.a.doi", "", "10.1000/only.a.doi")


def test_a_ris_library():
    items = _read("library.ris", "ris")
    first, second, third = items
    assert first.paper.arxiv_id == "1706.03762" and first.paper.authors == ["Ashish Vaswani"]
    assert (second.paper.doi, second.paper.venue, second.paper.published) == (
        "10.1000/magma.1", "Journal of Volcanoes", "2021-01-01")
    assert second.paper.abstract == "Seismic tomography of magma."
    assert third == Rejected("entry 3", NO_TITLE_OR_ID)


def test_a_zotero_csv_with_the_arxiv_id_in_extra():
    first, second, third = _read("zotero.csv", "zotero-csv")
    assert (first.paper.id, first.paper.title) == ("arxiv:2401.12345", "Sparse Attention for Long Documents")
    assert (first.paper.published, second.paper.published) == ("2024-01-20", "2019-01-01")
    assert first.paper.authors == ["Jane Doe", "Richard Roe"] and first.paper.url == "https://example.org/sparse"
    assert (second.paper.doi, second.paper.venue) == ("10.1000/ash.9", "Journal of Volcanoes")
    assert third == Rejected("line 4", NO_TITLE_OR_ID)


@pytest.mark.parametrize(("data", "kind", "says"), [
    (b"id,abstract\n1,some text\n", "zotero-csv", "Title column"),
    (b"", "zotero-csv", "no entry"),
    (b"just some words, no entries at all", "bibtex", "no entry"),
    (b"%PDF-1.4 binary stuff", "ris", "no entry"),
    (b"Title\n", "zotero-csv", "no entry"),
])
def test_a_file_that_is_no_library_export_says_so(data, kind, says):
    with pytest.raises(NotALibrary, match=says):
        read_library(data, kind)


def test_the_kind_comes_from_the_name_or_slacks_filetype():
    assert library_kind("My Library.BIB") == "bibtex" and library_kind("refs.bibtex") == "bibtex"
    assert library_kind("export.ris") == "ris" and library_kind("Exported Items.csv") == "zotero-csv"
    assert library_kind("library", "bib") == "bibtex"
    assert library_kind("paper.pdf", "pdf") is None and library_kind("", "") is None


def test_a_date_is_as_whole_as_the_export_has_it():
    bib = b"""@article{a, title={One}, year={2019}, month={mar}}
@article{b, title={Two}, date={2020-02-31}}
@article{c, title={Three}, year={2018}, month={11}}
@article{d, title={Four}}"""
    dates = [i.paper.published for i in read_library(bib, "bibtex")]
    assert dates == ["2019-03-01", "2020-02-01", "2018-11-01", None]
    ris = b"TY  - JOUR\nTI  - Dated\nDA  - 2021/03/15/\nPY  - 2021\nER  - \n"
    assert read_library(ris, "ris")[0].paper.published == "2021-03-15"
