"""Plain-text, JSON Lines, JSON and CSV files: good records in, bad ones rejected with a line number."""

from __future__ import annotations

import json

import pytest

from bot.sources import Rejected, read_source
from bot.sources.records import SourceError
from storage.models import Paper

from .conftest import FIXTURES


def _read(path) -> list[Paper | Rejected]:
    return list(read_source(str(path)))


def _papers(records):
    return [r for r in records if isinstance(r, Paper)]


def _rejected(records):
    return [(r.where, r.reason) for r in records if isinstance(r, Rejected)]


# --- .txt


def test_txt_names_the_venue_derives_titles_and_rejects_short_paragraphs():
    records = _read(FIXTURES / "abstracts.txt")
    papers = _papers(records)
    assert len(papers) == 3
    assert {p.venue for p in papers} == {"Workshop on Tiny Models 2024"}
    assert (
        papers[0].title == "How far small language models can be pushed with careful data curation"
    )
    # A paragraph over several lines is one abstract.
    assert papers[1].abstract.startswith(
        "Quantization-aware training is often skipped for tiny models. We show"
    )
    # A long first sentence gives its first clause, uncut.
    assert papers[2].title == "Distillation from a large teacher helps small students"
    assert all(p.id.startswith("sha1:") for p in papers)
    assert _rejected(records) == [("line 9", "too short for an abstract (7 characters)")]


def test_txt_ids_are_stable_across_reingests_and_reformatting(tmp_path):
    first = _papers(_read(FIXTURES / "abstracts.txt"))
    again = _papers(_read(FIXTURES / "abstracts.txt"))
    assert [p.id for p in first] == [p.id for p in again]
    rewrapped = tmp_path / "rewrapped.txt"
    rewrapped.write_text(
        "Quantization-aware training is often skipped for tiny models. We show that it matters\n"
        "even more there, and give a recipe that costs one extra epoch.\n"
    )
    assert _papers(_read(rewrapped))[0].id == first[1].id


def test_txt_without_a_header_has_no_venue(tmp_path):
    path = tmp_path / "plain.txt"
    long_line = "A single long paragraph that is clearly an abstract and not a header. " * 3
    path.write_text(f"\n\n{long_line}\n\nAnother abstract that is long enough to count.\n")
    papers = _papers(_read(path))
    assert len(papers) == 2
    assert papers[0].venue is None


def test_real_icml2025_sample(shared_data):
    records = _read(shared_data / "icml2025-abstracts.txt")
    papers = _papers(records)
    assert not _rejected(records)
    # The data README says 20; the file holds a header line and 19 paragraphs.
    assert len(papers) == 19
    assert {p.venue for p in papers} == {"ICML 2025 Papers"}
    for paper in papers:  # titles are derived: a title-like line from the contribution or first sentence
        assert 0 < len(paper.title) <= 90 and len(paper.title.split()) <= 12
        words = {word.strip(".,;:").lower() for word in paper.abstract.split()}
        assert all(w.strip(".,;:").lower() in words or w.endswith("ing") or w in ("A", "An")
                   for w in paper.title.split())
        assert paper.title.removesuffix("…").split()[-1].lower() not in {"of", "the", "as", "such", "and"}
    assert papers[0].title == "Leveraging the representational power of generative models for exploration"
    assert len({p.id for p in papers}) == 19


# --- .jsonl


def test_jsonl_good_and_bad_lines():
    records = _read(FIXTURES / "papers.jsonl")
    assert _rejected(records) == [
        ("line 5", "invalid JSON: Expecting ',' delimiter"),
        ("line 6", "not a JSON object but a list"),
        ("line 7", "no abstract"),
        ("line 8", "no abstract"),
        ("line 9", "bad published date '2020-13-45'"),
        ("line 10", "authors must be a list of names or a ';'-separated string, not a number"),
    ]
    arxiv, semicolons, numeric, plain = _papers(records)
    assert arxiv.id == "arxiv:2401.12345"
    assert (arxiv.arxiv_id, arxiv.arxiv_version) == ("2401.12345", 2)
    assert arxiv.url == "https://arxiv.org/abs/2401.12345"
    assert arxiv.authors == ["Alice Smith", "Bob Jones"]
    assert arxiv.categories == ["cs.LG", "cs.CL"]
    assert arxiv.published == "2024-01-15"

    assert semicolons.id == "arxiv:2401.12001"  # no id, but the url is an arXiv one
    assert semicolons.authors == ["Carol Chen", "Dan Brown"]
    assert semicolons.categories == ["stat.ML", "cs.LG"]
    assert semicolons.published == "2024-01-15"
    assert semicolons.abstract == (
        "Gaussian process bandits rely on calibrated posteriors. We show that a simple recalibration step "
        "gives robust regret bounds."
    )
    assert semicolons.title == "A recalibration step gives robust regret bounds"  # what "we show that" says

    assert numeric.id == "0"
    assert numeric.venue == "PNAS"
    assert plain.id.startswith("sha1:")


def test_jsonl_type_errors_are_rejected_not_crashes(tmp_path):
    path = tmp_path / "types.jsonl"
    lines = [
        {"abstract": 12},
        {"abstract": "Fine.", "id": 1.5},
        {"abstract": "Fine.", "id": True},
        {"abstract": "Fine.", "title": ["a"]},
        {"abstract": "Fine.", "categories": {"a": 1}},
        {"abstract": "Fine.", "published": 20200101},
        "a string",
        None,
    ]
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    records = _read(path)
    assert not _papers(records)
    assert _rejected(records) == [
        ("line 1", "abstract is a number, not a string"),
        ("line 2", "id is a number, not a string or a whole number"),
        ("line 3", "id is true/false, not a string or a whole number"),
        ("line 4", "title is a list, not a string"),
        ("line 5", "categories must be a list or a string, not an object"),
        ("line 6", "published must be an ISO date string, not a number"),
        ("line 7", "not a JSON object but a string"),
        ("line 8", "not a JSON object but null"),
    ]


def test_undecodable_bytes_are_replaced_not_fatal(tmp_path):
    path = tmp_path / "latin1.jsonl"
    path.write_bytes(
        b'\xef\xbb\xbf{"id": "a", "abstract": "Caf\xe9 culture and its effect on research output."}\n'
        b'{"id": "b", "abstract": "A clean second line."}\n'
    )
    first, second = _read(path)
    assert first.id == "a" and "\ufffd" in first.abstract
    assert second.id == "b"


def test_jsonl_progress_reports_bytes_every_500_records_and_at_the_end(tmp_path):
    path = tmp_path / "many.jsonl"
    path.write_text(
        "".join(json.dumps({"id": str(i), "abstract": f"Abstract {i}."}) + "\n" for i in range(1200))
    )
    size = path.stat().st_size
    calls = []
    records = list(read_source(str(path), progress=lambda done, total: calls.append((done, total))))
    assert len(records) == 1200
    assert len(calls) == 3
    assert all(total == size for _, total in calls)
    assert calls[0][0] < calls[1][0] < calls[2][0] == size


def test_real_neurips2018(shared_data):
    records = _read(shared_data / "neurips2018.jsonl")
    papers = _papers(records)
    assert len(papers) == 1008
    assert not _rejected(records)
    assert len({p.id for p in papers}) == 1008
    assert all(p.title and p.authors and p.venue == "NeurIPS 2018" for p in papers)


def test_real_citeulike_keeps_numeric_ids_and_rejects_papers_without_abstracts(shared_data):
    records = _read(shared_data / "citeulike-a" / "papers.jsonl")
    papers = _papers(records)
    assert len(records) == 16980
    assert len(papers) == 1906
    assert {reason for _, reason in _rejected(records)} == {"no abstract"}
    assert all(p.id.isdigit() for p in papers)


# --- .json


def test_json_array_records():
    records = _read(FIXTURES / "papers.json")
    assert _rejected(records) == [("record 3", "not a JSON object but a string"), ("record 4", "no abstract")]
    first, old_style, numeric = _papers(records)
    assert first.id == "neurips2018-1" and first.venue == "NeurIPS 2018"
    assert old_style.id == "arxiv:hep-th/9901001"
    assert (old_style.arxiv_id, old_style.arxiv_version) == ("hep-th/9901001", 2)
    assert numeric.id == "7" and numeric.published == "2019-05-01"


def test_json_object_with_papers_list(tmp_path):
    path = tmp_path / "wrapped.json"
    path.write_text(json.dumps({"papers": [{"abstract": "Wrapped abstract."}], "source": "x"}))
    (paper,) = _read(path)
    assert paper.abstract == "Wrapped abstract."


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[{", "is not valid JSON"),
        ('{"items": []}', "should hold a JSON array of papers"),
        ("42", "should hold a JSON array of papers"),
    ],
)
def test_json_that_cannot_be_read_at_all_is_a_source_error(tmp_path, text, message):
    path = tmp_path / "bad.json"
    path.write_text(text)
    with pytest.raises(SourceError, match=message):
        _read(path)


# --- .csv


def test_csv_rows_with_semicolon_authors_and_a_bad_date():
    records = _read(FIXTURES / "papers.csv")
    # Line numbers are where each record starts: the quoted abstract of p3 spans lines 4-5.
    assert _rejected(records) == [("line 3", "bad published date '2020-13-45'"), ("line 7", "no abstract")]
    p1, p3, anonymous = _papers(records)
    assert p1.authors == ["Frank Wu", "Grace Kim"]
    assert p1.categories == ["cs.LG", "stat.ML"]
    assert (p1.venue, p1.published, p1.url) == ("ICML 2024", "2024-07-21", None)
    assert p3.id == "p3"
    assert p3.abstract == "A multi-line abstract that spans two lines of the file, as quoted CSV fields may."
    assert (p3.arxiv_id, p3.arxiv_version) == ("2312.09999", 2)
    assert anonymous.id.startswith("sha1:")
    assert anonymous.title == "Record without an id or title"


def test_csv_header_is_case_insensitive_and_long_rows_are_rejected(tmp_path):
    path = tmp_path / "loose.csv"
    path.write_text(" Abstract ,Title\nFirst abstract here.,T1\nSecond abstract.,T2,extra\nThird, short\n")
    records = _read(path)
    assert [p.title for p in _papers(records)] == ["T1", "short"]
    assert _rejected(records) == [("line 3", "3 fields but the header has 2")]


def test_csv_without_an_abstract_column_is_a_source_error(tmp_path):
    path = tmp_path / "titles.csv"
    path.write_text("id,title\n1,Just a title\n")
    with pytest.raises(SourceError, match="has no 'abstract' column"):
        _read(path)


def test_empty_files_yield_nothing(tmp_path):
    for name in ("empty.csv", "empty.jsonl", "empty.txt"):
        (tmp_path / name).write_text("")
        assert _read(tmp_path / name) == []
