"""DOIs read from every kind of source, kept bare and lower case so one paper has one DOI."""

from __future__ import annotations

import pytest

from bot.sources import Rejected, read_source
from bot.sources.normalize import build_paper
from bot.sources.records import BadRecord

ATOM = """<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom" xmlns:arxiv="http://arxiv.org/schemas/atom">
  <title>arXiv Query</title>
  <entry>
    <id>http://arxiv.org/abs/2401.10001v2</id>
    <title>Published Later</title>
    <summary>An arXiv paper whose published version has a DOI.</summary>
    <author><name>Ana Duarte</name></author>
    <arxiv:doi>10.1145/ABC.42</arxiv:doi>
  </entry>
  <entry>
    <id>http://arxiv.org/abs/2401.10002v1</id>
    <title>Not Yet</title>
    <summary>No DOI here.</summary>
  </entry>
</feed>
"""


@pytest.mark.parametrize("spelling", ["10.1145/ABC.42", " doi:10.1145/abc.42", "https://doi.org/10.1145/abc.42",
                                      "http://dx.doi.org/10.1145/Abc.42", "DOI: 10.1145/abc.42"])
def test_every_spelling_of_a_doi_is_kept_bare_and_lower_case(spelling):
    assert build_paper(abstract="x", doi=spelling).doi == "10.1145/abc.42"


def test_a_value_that_is_no_doi_rejects_the_record_and_none_is_fine():
    with pytest.raises(BadRecord, match="bad DOI"):
        build_paper(abstract="x", doi="see the journal")
    assert build_paper(abstract="x", doi="  ").doi is None
    assert build_paper(abstract="x").doi is None


def test_jsonl_and_csv_records_carry_their_doi(tmp_path):
    jsonl = tmp_path / "p.jsonl"
    jsonl.write_text('{"id": "a", "abstract": "x", "doi": "doi:10.1/A"}\n'
                     '{"id": "b", "abstract": "y", "doi": 7}\n'
                     '{"id": "c", "abstract": "z", "doi": "nope"}\n')
    first, second, third = read_source(str(jsonl))
    assert first.doi == "10.1/a"
    assert second == Rejected("line 2", "doi is a number, not a string")
    assert third == Rejected("line 3", "bad DOI 'nope'")
    csv = tmp_path / "p.csv"
    csv.write_text("id,abstract,DOI\na,x,https://doi.org/10.1/B\nb,y,\n")
    assert [p.doi for p in read_source(str(csv))] == ["10.1/b", None]


def test_an_arxiv_entry_carries_the_doi_of_its_published_version(tmp_path):
    feed = tmp_path / "api.atom"
    feed.write_text(ATOM)
    first, second = read_source(str(feed))
    assert (first.id, first.doi) == ("arxiv:2401.10001", "10.1145/abc.42")
    assert second.doi is None
