"""A stand-in for the arXiv API on localhost: answers ``?id_list=…`` with Atom like arXiv's, from the
papers a test gives it, and fails (HTTP 500, or a hang past the client's timeout) when told to.

    with ArxivStandIn() as arxiv:
        arxiv.add("2501.01234", title="…", abstract="…", authors=["Ann Smith"], version=2)
        ...  # point PAPERBOT_ARXIV_API_URL (or a Fetcher) at arxiv.url
        assert arxiv.asked == [["2501.01234"]]
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta, timezone
from email.utils import format_datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit
from xml.sax.saxutils import escape

from stand_ins.serving import Serving

API_PATH = "/api/query"
RSS_PATH = "/rss/"


@dataclass
class _Entry:
    base: str
    title: str
    abstract: str
    authors: list[str]
    version: int
    category: str
    doi: str | None


@dataclass
class ArxivStandIn:
    """The arXiv API's ``id_list`` queries, served from :meth:`add`-ed papers."""

    entries: dict[str, _Entry] = field(default_factory=dict)
    asked: list[list[str]] = field(default_factory=list)  # each API request's ids, in order
    listed: list[str] = field(default_factory=list)  # each daily listing's category asked, in order
    status: int | None = None  # answer every request with this HTTP status (e.g. 500)
    hang: float = 0.0  # seconds to wait before answering (longer than the client's timeout: a timeout)

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._serving = Serving(self._server, "arxiv-standin")

    def __enter__(self) -> ArxivStandIn:
        self._serving.start()
        return self

    def __exit__(self, *exc) -> None:
        self._serving.stop()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}{API_PATH}"

    @property
    def rss_url(self) -> str:
        """Where its daily listings are: each says arXiv announced nothing today."""
        return f"http://127.0.0.1:{self._server.server_address[1]}{RSS_PATH}"

    def add(self, base: str, title: str, abstract: str, authors: list[str] | None = None, version: int = 1,
            category: str = "cs.LG", doi: str | None = None) -> None:
        """A paper the API knows, by base id (answered as ``BASEvVERSION``)."""
        with self._lock:
            self.entries[base] = _Entry(base, title, abstract, authors or ["Ann Example"], version, category,
                                        doi)

    def reset(self) -> None:
        """Forget the requests seen and any failure set (the papers stay)."""
        with self._lock:
            self.asked.clear()
            self.listed.clear()
        self.status, self.hang = None, 0.0

    def feed(self, ids: list[str]) -> bytes:
        """The Atom feed arXiv answers an ``id_list`` query with: an entry per known id."""
        with self._lock:
            found = [self.entries[i] for i in ids if i in self.entries]
        parts = ['<?xml version="1.0" encoding="UTF-8"?>\n<feed xmlns="http://www.w3.org/2005/Atom" '
                 'xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/" '
                 'xmlns:arxiv="http://arxiv.org/schemas/atom">',
                 f'<title type="html">ArXiv Query: id_list={escape(",".join(ids))}</title>',
                 "<id>http://arxiv.org/api/standin</id><updated>2025-01-16T00:00:00-05:00</updated>",
                 f"<opensearch:totalResults>{len(found)}</opensearch:totalResults>",
                 "<opensearch:startIndex>0</opensearch:startIndex>",
                 f"<opensearch:itemsPerPage>{len(found)}</opensearch:itemsPerPage>"]
        for e in found:
            vid = f"{e.base}v{e.version}"
            authors = "".join(f"<author><name>{escape(a)}</name></author>" for a in e.authors)
            doi = f"<arxiv:doi>{escape(e.doi)}</arxiv:doi>" if e.doi else ""
            parts.append(
                f"<entry><id>http://arxiv.org/abs/{vid}</id><updated>2025-01-15T10:00:00Z</updated>"
                f"<published>2025-01-14T18:00:00Z</published><title>{escape(e.title)}</title>"
                f"<summary>{escape(e.abstract)}</summary>{authors}{doi}"
                f'<link href="http://arxiv.org/abs/{vid}" rel="alternate" type="text/html"/>'
                f'<link title="pdf" href="http://arxiv.org/pdf/{vid}" rel="related" type="application/pdf"/>'
                f'<arxiv:primary_category term="{e.category}" scheme="http://arxiv.org/schemas/atom"/>'
                f'<category term="{e.category}" scheme="http://arxiv.org/schemas/atom"/></entry>')
        parts.append("</feed>")
        return "\n".join(parts).encode()


def quiet_listing(category: str) -> bytes:
    """A category's daily listing on a day without announcement, as arXiv's is on weekends: a channel
    dated today (New York's date) with no items."""
    today = format_datetime(datetime.combine(datetime.now(UTC).date(), datetime.min.time(),
                                             tzinfo=timezone(timedelta(hours=-5))))
    return (f"<?xml version='1.0' encoding='UTF-8'?>\n<rss xmlns:arxiv=\"http://arxiv.org/schemas/atom\" "
            f"xmlns:atom=\"http://www.w3.org/2005/Atom\" version=\"2.0\"><channel>"
            f"<title>{escape(category)} updates on arXiv.org</title>"
            f"<link>http://rss.arxiv.org/rss/{escape(category)}</link>"
            f"<description>{escape(category)} updates on the arXiv.org e-print archive.</description>"
            f"<pubDate>{today}</pubDate><skipDays><day>Saturday</day><day>Sunday</day></skipDays>"
            "</channel></rss>").encode()


def _handler(standin: ArxivStandIn) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format, *args) -> None:  # quiet
            pass

        def do_GET(self) -> None:
            parts = urlsplit(self.path)
            if parts.path.startswith(RSS_PATH):  # a daily listing: a day without announcement
                with standin._lock:
                    standin.listed.append(parts.path[len(RSS_PATH):])
                self._send(200, quiet_listing(parts.path[len(RSS_PATH):]), "application/rss+xml")
                return
            ids = [i for i in ",".join(parse_qs(parts.query).get("id_list", [])).split(",") if i]
            with standin._lock:
                standin.asked.append(ids)
            if standin.hang:
                time.sleep(standin.hang)  # arXiv hanging: past the client's timeout
            if parts.path != API_PATH:
                self._send(404, b"not found", "text/plain")
            elif standin.status:
                self._send(standin.status, b"arXiv is having trouble", "text/plain")
            else:
                self._send(200, standin.feed(ids), "application/atom+xml; charset=utf-8")

        def _send(self, status: int, body: bytes, kind: str) -> None:
            try:
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            except OSError:  # the client gave up (a timeout test)
                pass

    return Handler
