"""arXiv ids, authors, dates and ids: the clean-up every source shares (titles: tests/bot/text)."""

from __future__ import annotations

import pytest

from bot.sources.normalize import (
    build_paper,
    normalize_date,
    parse_arxiv_id,
    split_authors,
    split_categories,
    stable_id,
)
from bot.sources.records import BadRecord


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2401.12345", ("2401.12345", None)),
        ("2401.12345v3", ("2401.12345", 3)),
        ("0704.0001", ("0704.0001", None)),
        ("hep-th/9901001v2", ("hep-th/9901001", 2)),
        ("math.GT/0309136", ("math.GT/0309136", None)),
        ("arXiv:2401.12345v2", ("2401.12345", 2)),
        ("arxiv:hep-th/9901001", ("hep-th/9901001", None)),
        ("oai:arXiv.org:2401.06001v1", ("2401.06001", 1)),
        ("https://arxiv.org/abs/2401.12345", ("2401.12345", None)),
        ("http://arxiv.org/abs/2401.12345v2", ("2401.12345", 2)),
        ("https://arxiv.org/pdf/2401.12345v2.pdf", ("2401.12345", 2)),
        ("https://arxiv.org/pdf/2401.12345", ("2401.12345", None)),
        ("http://export.arxiv.org/abs/hep-th/9901001v1", ("hep-th/9901001", 1)),
        ("  2401.12345v1 \n", ("2401.12345", 1)),
    ],
)
def test_parse_arxiv_id_recognises_every_spelling(text, expected):
    assert parse_arxiv_id(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "",
        "0",
        "neurips2018-11127",
        "1234.5678",  # month 34: a decimal, not an id
        "posts/1234567",  # not an arXiv archive
        "see 2401.12345 for details",
        "https://example.org/abs/2401.12345",
        "2401.123",
    ],
)
def test_parse_arxiv_id_rejects_what_is_not_an_id(text):
    assert parse_arxiv_id(text) is None


def test_every_version_and_spelling_dedupes_to_one_key():
    spellings = [
        "2401.12345",
        "2401.12345v1",
        "arXiv:2401.12345v7",
        "https://arxiv.org/abs/2401.12345v2",
        "https://arxiv.org/pdf/2401.12345v3.pdf",
    ]
    assert {parse_arxiv_id(s)[0] for s in spellings} == {"2401.12345"}
    ids = {build_paper(abstract="Same paper.", id=s).id for s in spellings}
    ids |= {build_paper(abstract="Same paper.", url=s).id for s in spellings}
    assert ids == {"arxiv:2401.12345"}


def test_stable_id_ignores_whitespace_differences():
    assert stable_id("A  study of\ncats.") == stable_id(" A study of cats. ")
    assert stable_id("A study of cats.").startswith("sha1:")
    assert len(stable_id("x")) == len("sha1:") + 12
    assert stable_id("A study of cats.") != stable_id("A study of dogs.")


def test_dates_are_validated_and_normalised():
    assert normalize_date("2024-01-15") == "2024-01-15"
    assert normalize_date("2024-01-15T18:59:59Z") == "2024-01-15"
    assert normalize_date("2024-01-15 18:59:59+02:00") == "2024-01-15"
    assert normalize_date("") is None
    assert normalize_date(None) is None
    with pytest.raises(BadRecord, match=r"bad published date '2020-13-45'"):
        normalize_date("2020-13-45")
    with pytest.raises(BadRecord, match="not a number"):
        normalize_date(2020)


def test_authors_and_categories_split():
    assert split_authors("Ann Lee; Bo  Chen ;") == ["Ann Lee", "Bo Chen"]
    assert split_authors(["Ann Lee", " Bo Chen "]) == ["Ann Lee", "Bo Chen"]
    assert split_authors(None) == []
    with pytest.raises(BadRecord, match="authors"):
        split_authors([{"name": "Ann"}])
    assert split_categories("cs.LG; stat.ML,cs.CL cs.LG") == ["cs.LG", "stat.ML", "cs.CL"]
    assert split_categories(["cs.LG"]) == ["cs.LG"]
    with pytest.raises(BadRecord, match="categories"):
        split_categories(3)


def test_build_paper_fills_in_missing_fields():
    paper = build_paper(abstract="  We study   cats.\nThen dogs. ", url="https://arxiv.org/abs/2401.00001v4")
    assert paper.abstract == "We study cats. Then dogs."
    assert paper.title == "We study cats"
    assert paper.id == "arxiv:2401.00001"
    assert (paper.arxiv_id, paper.arxiv_version) == ("2401.00001", 4)
    assert paper.url == "https://arxiv.org/abs/2401.00001v4"

    by_id = build_paper(abstract="Text.", id="arXiv:2401.00001")
    assert by_id.url == "https://arxiv.org/abs/2401.00001"
    assert by_id.arxiv_version is None

    kept = build_paper(abstract="Text.", id="p3", url="https://arxiv.org/abs/2401.00001")
    assert kept.id == "p3"  # an explicit non-arXiv id is kept; the arXiv id still links sources
    assert kept.arxiv_id == "2401.00001"

    plain = build_paper(abstract="Text.", title="  A   title ", venue=" ")
    assert plain.id == stable_id("Text.")
    assert plain.title == "A title"
    assert plain.venue is None
    assert plain.url is None and plain.arxiv_id is None

    with pytest.raises(BadRecord, match="no abstract"):
        build_paper(abstract=" \n ")
