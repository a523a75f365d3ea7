"""What read_source accepts, and the one-line errors for what it can't read at all."""

from __future__ import annotations

import pytest

from bot.sources import read_source
from bot.sources.records import SourceError

from .conftest import FIXTURES

KINDS = (".txt, .jsonl, .json, .csv, .xml, .atom, .rss, arxiv:CAT, biorxiv:CAT, medrxiv:CAT, pubmed:QUERY, "
         "openreview:VENUE_ID, acl:VOLUME or an http(s) feed URL")


@pytest.mark.parametrize("source", ["x.pdf", "notes", "papers.JSONL.gz", "ftp://example.org/feed.xml"])
def test_unknown_kinds_name_what_would_work(source):
    with pytest.raises(SourceError) as info:
        read_source(source)
    assert str(info.value) == f"don't know how to read '{source}': use {KINDS}"


def test_missing_file():
    with pytest.raises(SourceError) as info:
        read_source("no/such/papers.jsonl")
    assert str(info.value) == "no such file: no/such/papers.jsonl"


def test_a_directory_is_not_a_file(tmp_path):
    folder = tmp_path / "papers.json"
    folder.mkdir()
    with pytest.raises(SourceError, match="not a file"):
        read_source(str(folder))


def test_unreadable_file(tmp_path, monkeypatch):
    path = tmp_path / "secret.jsonl"
    path.write_text('{"abstract": "x"}\n')

    def denied(self, *args, **kwargs):
        raise PermissionError(13, "Permission denied", str(self))

    # chmod 0 would not stop root (tests may run as root), so deny the open itself.
    monkeypatch.setattr(type(path), "open", denied)
    with pytest.raises(SourceError) as info:
        list(read_source(str(path)))
    assert str(info.value) == f"can't read {path}: Permission denied"


def test_extensions_are_case_insensitive(tmp_path):
    path = tmp_path / "ABSTRACTS.TXT"
    path.write_bytes((FIXTURES / "abstracts.txt").read_bytes())
    assert len(list(read_source(str(path)))) == 4


def test_error_messages_are_one_line():
    for source in ("x.pdf", "missing.csv", "arxiv:cs LG", str(FIXTURES / "garbage.xml")):
        with pytest.raises(SourceError) as info:
            list(read_source(source))
        assert "\n" not in str(info.value)


def test_title_only_records_are_let_in_only_when_asked(tmp_path):
    path = tmp_path / "eval.jsonl"
    path.write_text('{"id": "7", "title": "Only a title", "abstract": ""}\n{"id": "8"}\n')
    strict = list(read_source(str(path)))
    assert [type(x).__name__ for x in strict] == ["Rejected", "Rejected"]
    lenient = list(read_source(str(path), title_only=True))
    assert lenient[0].id == "7" and lenient[0].title == "Only a title" and lenient[0].abstract == ""
    assert lenient[1].reason == "no abstract"
