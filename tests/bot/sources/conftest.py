"""Fixture files, the shared data folder, and a local stand-in for the arXiv API and feed hosts."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from bot.sources.http import Fetcher, RateLimiter
from stand_ins.serving import Serving
from tests.fakes import Clock

FIXTURES = Path(__file__).resolve().parent / "fixtures"
# tests/bot/sources/conftest.py -> the repo root is three folders up; shared/ sits beside the repo.
REPO_ROOT = Path(__file__).resolve().parents[3]
SHARED_DATA = REPO_ROOT.parent / "shared" / "data"

#: Size of the saved API page 1; the server hands out page 2 for start=PAGE_1_SIZE.
PAGE_1_SIZE = 3


@pytest.fixture
def shared_data() -> Path:
    """The shared data folder, or a skip where this checkout has none beside it."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"no shared data folder at {SHARED_DATA}")
    return SHARED_DATA


@dataclass
class Request:
    path: str
    query: dict[str, list[str]]
    user_agent: str | None
    at: float  # the fake clock's time when the server saw it


@dataclass
class FakeServer:
    """What a test needs of the local server: its base URL, what it was asked, and the clock."""

    url: str
    clock: Clock
    requests: list[Request] = field(default_factory=list)

    def fetcher(self, api_path: str = "/api/query", **kwargs) -> Fetcher:
        """A Fetcher aimed at this server, rate-limited on the fake clock."""
        limiter = RateLimiter(clock=self.clock, sleep=self.clock.sleep)
        return Fetcher(f"{self.url}{api_path}", limiter=limiter, **kwargs)


# Routes other than the paged API: path -> (status, fixture file or literal body).
_STATIC = {
    "/feeds/arxiv-rss": (200, "arxiv-rss.xml"),
    "/feeds/blog": (200, "blog.atom"),
    "/feeds/garbage": (200, "garbage.xml"),
    "/feeds/html": (200, b"<html><head><title>Hi</title></head><body><p>Not a feed</p></body></html>"),
    "/error/query": (500, b"oops"),
    "/api-error/query": (200, "arxiv-api-error.xml"),
}


def _api_page(start: int) -> str:
    if start == 0:
        return "arxiv-api-page1.xml"
    if start == PAGE_1_SIZE:
        return "arxiv-api-page2.xml"
    return "arxiv-api-empty.xml"


@pytest.fixture
def server() -> Iterator[FakeServer]:
    """A threaded HTTP server on 127.0.0.1 serving the saved API pages (by ``start``) and feeds."""
    state = FakeServer(url="", clock=Clock())

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            parts = urlsplit(self.path)
            query = parse_qs(parts.query)
            state.requests.append(Request(parts.path, query, self.headers.get("User-Agent"), state.clock.now))
            if parts.path == "/api/query":
                status, body = 200, _api_page(int(query.get("start", ["0"])[0]))
            elif parts.path == "/slow":
                threading.Event().wait(1.0)
                status, body = 200, "arxiv-rss.xml"
            else:
                status, body = _STATIC.get(parts.path, (404, b"not found"))
            data = (FIXTURES / body).read_bytes() if isinstance(body, str) else body
            self.send_response(status)
            self.send_header("Content-Type", "application/atom+xml; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            try:
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                # A client that gave up (the /slow route outlasts its timeout): said on stderr a second
                # later, the traceback would land in whichever test runs then (a CLI test's output).
                pass

        def log_message(self, format: str, *args: object) -> None:
            pass  # keep test output clean

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state.url = f"http://127.0.0.1:{httpd.server_address[1]}"
    serving = Serving(httpd, "sources-standin")
    serving.start()
    try:
        yield state
    finally:
        serving.stop()
