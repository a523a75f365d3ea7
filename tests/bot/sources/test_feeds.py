"""Saved and fetched RSS/Atom feeds: arXiv API responses, arXiv RSS, any blog feed."""

from __future__ import annotations

import pytest

from bot.sources import Rejected, read_source
from bot.sources.feeds import strip_html
from bot.sources.records import SourceError
from storage.models import Paper

from .conftest import FIXTURES


def _read(path, **kwargs) -> list[Paper | Rejected]:
    return list(read_source(str(path), **kwargs))


def test_arxiv_api_response_saved_to_a_file():
    first, second, third = _read(FIXTURES / "arxiv-api-page1.xml")
    assert first.id == "arxiv:2401.12345"
    assert (first.arxiv_id, first.arxiv_version) == ("2401.12345", 2)
    assert first.title == "Sparse Attention Routing for Very Long Documents"  # title's line break collapsed
    assert first.abstract.startswith("We propose a sparse attention scheme that routes each query")
    assert "\n" not in first.abstract and "  " not in first.abstract
    assert first.authors == ["Alice Smith", "Bob Jones"]
    assert first.published == "2024-01-15"
    assert first.categories == ["cs.LG", "cs.CL"]  # primary category first
    assert first.url == "http://arxiv.org/abs/2401.12345v2"
    assert first.venue == "arXiv"
    assert second.categories == ["stat.ML", "cs.LG"]
    assert (third.arxiv_id, third.arxiv_version) == ("2401.11999", 3)


def test_entry_without_a_summary_is_rejected():
    records = _read(FIXTURES / "arxiv-api-page2.xml")
    assert [r for r in records if isinstance(r, Rejected)] == [Rejected("entry 3", "no abstract")]


def test_arxiv_rss_feed_loses_its_preamble_and_splits_authors():
    new, replaced, cross = _read(FIXTURES / "arxiv-rss.xml")
    assert new.abstract.startswith("We connect message passing to optimal transport")
    assert "Announce Type" not in new.abstract and "arXiv:" not in new.abstract
    assert new.id == "arxiv:2401.06001"
    assert (new.arxiv_id, new.arxiv_version) == ("2401.06001", 1)
    assert new.authors == ["Hana Ito", "Ivan Petrov", "Jun Park"]
    assert new.url == "https://arxiv.org/abs/2401.06001"
    assert new.categories == ["cs.LG", "stat.ML"]
    assert new.published == "2024-01-15"
    assert new.venue == "arXiv"
    assert (replaced.arxiv_id, replaced.arxiv_version) == ("2312.09999", 2)
    assert "<em>" not in replaced.abstract and "when it does and does not" in replaced.abstract
    assert replaced.authors == ["Kim Olsen"]
    assert cross.categories == ["physics.ao-ph", "cs.LG"]


def test_generic_atom_blog_feed():
    html_summary, content_only, empty = _read(FIXTURES / "blog.atom")
    assert html_summary.title == "Why Tokenizers Matter"
    assert html_summary.abstract == (
        "Tokenization decides what a language model can see. "
        "We compare BPE & unigram tokenizers on code and math."
    )
    assert html_summary.id == "tag:blog.example.org,2024:post-17"
    assert html_summary.venue == "Example ML Blog"
    assert html_summary.published == "2024-02-01"
    assert html_summary.categories == ["nlp"]
    assert html_summary.arxiv_id is None
    assert content_only.abstract.startswith("Short notes on evaluation.")
    assert content_only.title == "Short notes on evaluation"
    assert empty == Rejected("entry 3", "no abstract")


def test_the_same_arxiv_paper_has_one_id_across_sources():
    from_api = _read(FIXTURES / "arxiv-api-page1.xml")[0]
    from_jsonl = _read(FIXTURES / "papers.jsonl")[0]
    assert from_api.id == from_jsonl.id == "arxiv:2401.12345"
    assert from_api.arxiv_id == from_jsonl.arxiv_id


def test_feed_progress_counts_entries():
    calls = []
    _read(FIXTURES / "arxiv-rss.xml", progress=lambda done, total: calls.append((done, total)))
    assert calls == [(3, 3)]


def test_a_file_that_is_not_a_feed_is_a_source_error():
    with pytest.raises(SourceError, match=r"garbage\.xml is not an RSS or Atom feed"):
        _read(FIXTURES / "garbage.xml")


def test_an_empty_but_valid_feed_is_fine():
    assert _read(FIXTURES / "arxiv-api-empty.xml") == []


def test_an_arxiv_api_error_response_is_a_source_error():
    with pytest.raises(SourceError, match="arXiv API error: incorrect id format for 1234.12345"):
        _read(FIXTURES / "arxiv-api-error.xml")


def test_feed_urls_are_fetched_through_the_fetcher(server):
    fetcher = server.fetcher()
    records = _read(f"{server.url}/feeds/arxiv-rss", fetcher=fetcher)
    assert [r.id for r in records] == ["arxiv:2401.06001", "arxiv:2312.09999", "arxiv:2401.06123"]
    assert _read(f"{server.url}/feeds/blog", fetcher=fetcher)[0].venue == "Example ML Blog"
    assert server.requests[0].user_agent == "paperbot/0.1 (+https://github.com/paperbot)"


@pytest.mark.parametrize("path", ["/feeds/garbage", "/feeds/html"])
def test_a_url_that_is_not_a_feed_is_a_source_error(server, path):
    with pytest.raises(SourceError, match="is not an RSS or Atom feed"):
        _read(f"{server.url}{path}", fetcher=server.fetcher())


def test_strip_html():
    assert strip_html("<p>a</p><p>b &amp; c</p>") == "a b & c"
    assert strip_html("wor<b>ld</b><br/>next") == "world next"
    assert strip_html("x<script>alert(1)</script> y") == "x y"
