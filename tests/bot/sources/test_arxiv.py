"""arxiv:CAT listings, fetched from a local stand-in for the arXiv API."""

from __future__ import annotations

import socket

import pytest

from bot.sources import Rejected, read_source
from bot.sources.arxiv import parse_categories, query_url, read_arxiv
from bot.sources.http import Fetcher, RateLimiter
from bot.sources.records import SourceError
from storage.models import Paper
from tests.fakes import Clock

from . import conftest
from .conftest import PAGE_1_SIZE


def _ids(records):
    return [r.id if isinstance(r, Paper) else r for r in records]


def test_pages_until_an_empty_page(server):
    records = list(read_source("arxiv:cs.LG,stat.ML", fetcher=server.fetcher()))
    assert _ids(records) == [
        "arxiv:2401.12345",
        "arxiv:2401.12001",
        "arxiv:2401.11999",
        # page 2 repeats 2401.11999 (the listing shifted); it is yielded once
        "arxiv:2401.11000",
        Rejected("entry 5", "no abstract"),
    ]
    assert [r.query["start"] for r in server.requests] == [["0"], [str(PAGE_1_SIZE)], [str(PAGE_1_SIZE * 2)]]


def test_asks_for_the_newest_listings_of_the_categories(server):
    list(read_source("arxiv:cs.LG,stat.ML", fetcher=server.fetcher()))
    first = server.requests[0]
    assert first.path == "/api/query"
    assert first.query["search_query"] == ["cat:cs.LG OR cat:stat.ML"]
    assert first.query["sortBy"] == ["submittedDate"]
    assert first.query["sortOrder"] == ["descending"]
    assert first.query["max_results"] == ["100"]
    assert first.user_agent == "paperbot/0.1 (+https://github.com/paperbot)"


def test_query_url_matches_the_api_syntax():
    assert query_url("http://export.arxiv.org/api/query", ["cs.LG", "stat.ML"], 100, 50) == (
        "http://export.arxiv.org/api/query?search_query=cat:cs.LG+OR+cat:stat.ML"
        "&sortBy=submittedDate&sortOrder=descending&start=100&max_results=50"
    )


def test_the_cap_limits_papers_and_requests(server):
    records = list(read_arxiv(["cs.LG"], max_results=4, page_size=3, fetcher=server.fetcher()))
    assert _ids(records) == ["arxiv:2401.12345", "arxiv:2401.12001", "arxiv:2401.11999", "arxiv:2401.11000"]
    # The second page asks only for what the cap leaves; no third request.
    assert [(r.query["start"], r.query["max_results"]) for r in server.requests] == [
        (["0"], ["3"]),
        (["3"], ["1"]),
    ]


def test_a_cap_within_the_first_page_makes_one_request(server):
    records = list(read_arxiv("cs.LG", max_results=2, fetcher=server.fetcher()))
    assert len(records) == 2
    assert len(server.requests) == 1


def test_requests_are_at_least_three_seconds_apart(server):
    list(read_arxiv("cs.LG", fetcher=server.fetcher()))
    assert len(server.requests) == 3
    assert server.clock.slept == [pytest.approx(3.0)] * 2
    times = [r.at for r in server.requests]
    assert all(later - earlier >= 3.0 for earlier, later in zip(times, times[1:], strict=False))


def test_rate_limiter_waits_only_for_what_is_left():
    clock = Clock()
    limiter = RateLimiter(3.0, clock=clock, sleep=clock.sleep)
    limiter.wait()  # the first call never waits
    clock.now += 1.0
    limiter.wait()
    clock.now += 10.0
    limiter.wait()  # long enough already
    assert clock.slept == [pytest.approx(2.0)]


def test_progress_reports_entries(server):
    calls = []
    list(
        read_arxiv(
            "cs.LG",
            max_results=10,
            page_size=3,
            fetcher=server.fetcher(),
            progress=lambda done, total: calls.append((done, total)),
        )
    )
    assert calls[0] == (3, 10)
    assert calls[-1] == (5, 5)


def test_http_500_is_a_source_error(server):
    with pytest.raises(
        SourceError, match=r"couldn't fetch http://127\.0\.0\.1:\d+/error/query\?.*: HTTP 500"
    ):
        list(read_source("arxiv:cs.LG", fetcher=server.fetcher("/error/query")))


def test_api_error_entry_is_a_source_error(server):
    with pytest.raises(SourceError, match="arXiv API error: incorrect id format"):
        list(read_source("arxiv:cs.LG", fetcher=server.fetcher("/api-error/query")))


def test_connection_refused_is_a_source_error():
    with socket.socket() as s:  # a port nobody listens on once this socket is closed
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    fetcher = Fetcher(f"http://127.0.0.1:{port}/api/query", limiter=RateLimiter(0))
    with pytest.raises(SourceError, match=rf"couldn't fetch http://127\.0\.0\.1:{port}/api/query\?.*: "):
        list(read_source("arxiv:cs.LG", fetcher=fetcher))
    with pytest.raises(SourceError, match="couldn't fetch"):
        list(read_source(f"http://127.0.0.1:{port}/feed.xml", fetcher=fetcher))


def test_a_slow_server_times_out(server):
    fetcher = server.fetcher(timeout=0.2)
    with pytest.raises(SourceError, match="couldn't fetch .*/slow: .*timed out"):
        fetcher.get(f"{server.url}/slow")


def test_fetcher_refuses_non_http_urls():
    with pytest.raises(SourceError, match="only http"):
        Fetcher(limiter=RateLimiter(0)).get("file:///etc/passwd")


@pytest.mark.parametrize(
    "spec",
    [
        "cs.LG,stat.ML",
        "hep-th",
        "astro-ph.CO",
        "math.OC",
        "physics.comp-ph",
        "cond-mat.stat-mech",
        " cs.LG , cs.CL ,",
    ],
)
def test_good_categories(spec):
    assert parse_categories(spec)


@pytest.mark.parametrize(
    "spec", ["cs LG", "cs..LG", "CS.LG", "cs.LG;stat.ML", "cat:cs.LG", "cs.LG OR x", "1cs"]
)
def test_malformed_category_is_a_source_error_on_the_call(spec):
    with pytest.raises(SourceError, match="is not an arXiv category: use names like cs.LG"):
        read_source(f"arxiv:{spec}")  # raised before any request: no iteration, no network


def test_no_category_is_a_source_error():
    with pytest.raises(SourceError, match="needs at least one category"):
        read_source("arxiv:")


def test_a_server_that_repeats_the_same_page_does_not_loop_forever(server, monkeypatch):
    monkeypatch.setattr(conftest, "_api_page", lambda start: "arxiv-api-page1.xml")
    records = list(read_arxiv("cs.LG", page_size=3, fetcher=server.fetcher()))
    assert len(records) == 3
    assert len(server.requests) == 2
