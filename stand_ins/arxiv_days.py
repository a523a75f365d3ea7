"""A stand-in for arXiv's daily listings (rss.arxiv.org) and its API's date-range queries, on localhost,
answering in their real formats from announcements a test makes up.

    with ArxivDays(today=date(2026, 12, 7)) as arxiv:
        arxiv.announce(day_of_papers(date(2026, 12, 7), 650))
        fetcher = arxiv.fetcher(clock)   # rss_url and api_url aimed here, spaced on the fake clock
        ...
        arxiv.busy = {2: "1"}           # the 2nd request is answered 429 with Retry-After: 1

The listing of a category (``/rss/CAT``) is the announcement dated :attr:`ArxivDays.today`: an item per
paper announced that day in the category, as new, cross (the category is not its primary), replace or
replace-cross (a later version), under a channel dated with the day; on a day without announcement the
channel has no items, as arXiv's has on weekends. The API (``/api/query``) answers
``search_query=cat:CAT AND lastUpdatedDate:[YYYYMMDDHHMM TO YYYYMMDDHHMM]`` with the latest version of
every paper of the category last updated in that range, newest first, paged by ``start`` and
``max_results`` under ``opensearch:totalResults``.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta, timezone
from email.utils import format_datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit
from xml.sax.saxutils import escape

from bot.sources.http import Fetcher, RateLimiter
from stand_ins.serving import Serving

RSS_PATH = "/rss/"
API_PATH = "/api/query"
_RANGE = re.compile(r"^cat:(?P<cat>\S+) AND lastUpdatedDate:\[(?P<lo>\d{12}) TO (?P<hi>\d{12})\]$")
# New York's offset in winter, as arXiv's listing dates are written.
_NEW_YORK = timezone(timedelta(hours=-5))

_WORDS = ("attention", "diffusion", "kernel", "bandit", "graph", "sparse", "token", "causal", "robust",
          "federated", "privacy", "retrieval", "quantile", "bayesian", "spectral", "contrastive", "reward",
          "policy", "calibration", "pruning", "distillation", "tabular", "wavelet", "manifold", "ranking")


@dataclass
class Version:
    """One announced version of a paper: what the listing of ``day`` and the API say of it."""

    base: str  # "2612.00001"
    version: int
    title: str
    abstract: str
    authors: list[str]
    categories: list[str]  # the primary first
    day: date  # its announcement date
    updated: datetime  # when this version was submitted (UTC): the API's <updated>
    published: datetime  # when version 1 was

    def kind(self, category: str) -> str:
        cross = category != self.categories[0]
        if self.version == 1:
            return "cross" if cross else "new"
        return "replace-cross" if cross else "replace"


def paper(n: int, day: date, categories: list[str], version: int = 1, words: str = "") -> Version:
    """Made-up paper number ``n``, announced on ``day`` (submitted the afternoon of the weekday before)."""
    before = day - timedelta(days=3 if day.weekday() == 0 else 1)
    submitted = datetime.combine(before, time(12), tzinfo=UTC) + timedelta(seconds=n % 3600)
    w = [_WORDS[(n * k) % len(_WORDS)] for k in (1, 3, 7, 11)]
    return Version(
        base=f"{day:%y%m}.{n:05d}", version=version,
        title=f"{w[0].title()} {w[1]} for {w[2]}, study {n} {words}".strip(),
        abstract=f"We study {w[0]} {w[1]} with {w[2]} and {w[3]} methods, paper {n}. {words}".strip(),
        authors=[f"Ann {_surname(n)}", f"Bo {_surname(n + 7)}"], categories=categories, day=day,
        updated=submitted, published=submitted - timedelta(days=30 * (version - 1)))


def _surname(n: int) -> str:
    """A surname of its own for each ``n`` (letters only, as a name's are)."""
    letters = ""
    while True:
        n, digit = divmod(n, 26)
        letters += "abcdefghijklmnopqrstuvwxyz"[digit]
        if not n:
            return "Mc" + letters.title()


def replaced(old: Version, day: date) -> Version:
    """A later version of ``old`` announced on ``day``, its abstract changed."""
    new = paper(int(old.base.split(".")[1]), day, old.categories, old.version + 1)
    return Version(old.base, old.version + 1, old.title, old.abstract + " Revised with more experiments.",
                   old.authors, old.categories, day, new.updated, old.published)


#: The day :func:`first_versions` were announced (a Friday).
OLD_DAY = date(2026, 11, 20)


def day_of_650(day: date, first_versions: list[Version]) -> list[Version]:
    """650 papers announced on ``day``: 610 new (cs.LG 350, cs.CL 160, stat.ML 100, many cross-listed
    between the three) and the 40 papers of ``first_versions`` replaced."""
    new = []
    for n in range(350):
        also = ["stat.ML"] if n < 80 else ["cs.CL"] if n < 110 else []
        new.append(paper(1 + n, day, ["cs.LG", *also]))
    for n in range(160):
        new.append(paper(400 + n, day, ["cs.CL", *(["cs.LG"] if n < 40 else [])]))
    for n in range(100):
        new.append(paper(600 + n, day, ["stat.ML", *(["cs.LG"] if n < 50 else [])]))
    return new + [replaced(old, day) for old in first_versions]


def first_versions() -> list[Version]:
    """40 papers first announced on :data:`OLD_DAY` (cs.LG 25, 10 of them cross-listed to stat.ML; cs.CL 10;
    stat.ML 5): the ones :func:`day_of_650` replaces."""
    lg = [paper(9000 + n, OLD_DAY, ["cs.LG", *(["stat.ML"] if n < 10 else [])]) for n in range(25)]
    return lg + [paper(9100 + n, OLD_DAY, ["cs.CL"]) for n in range(10)] + [
        paper(9200 + n, OLD_DAY, ["stat.ML"]) for n in range(5)]


@dataclass
class ArxivDays:
    """The stand-in (see the module): its papers by base id, the day it announces, what it was asked."""

    today: date
    papers: dict[str, list[Version]] = field(default_factory=dict)  # base id -> versions, oldest first
    requests: list[str] = field(default_factory=list)  # each request's path and query, in order
    #: Request number (1-based) -> the Retry-After of a 429 answering it (None: no header).
    busy: dict[int, str | None] = field(default_factory=dict)
    busy_status: int = 429  # the status of those answers (503: arXiv busy or restarting)
    quiet_channel: bool = False  # answer listings with no items (a weekend or holiday)

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._serving = Serving(self._server, "arxiv-days")

    def __enter__(self) -> ArxivDays:
        self._serving.start()
        return self

    def __exit__(self, *exc) -> None:
        self._serving.stop()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    @property
    def rss_url(self) -> str:
        return self.base_url + RSS_PATH

    @property
    def api_url(self) -> str:
        return self.base_url + API_PATH

    def fetcher(self, clock, **kwargs) -> Fetcher:
        """A Fetcher aimed here, spaced 3 s apart on the fake ``clock`` (which its sleeps move)."""
        return Fetcher(self.api_url, rss_url=self.rss_url,
                       limiter=RateLimiter(clock=clock, sleep=clock.sleep), **kwargs)

    def announce(self, versions: list[Version]) -> None:
        with self._lock:
            for v in versions:
                self.papers.setdefault(v.base, []).append(v)

    # -- answers -------------------------------------------------------------------------------------

    def listing(self, category: str) -> bytes:
        with self._lock:
            items = [] if self.quiet_channel else [
                v for versions in self.papers.values() for v in versions
                if v.day == self.today and category in v.categories]
        midnight = datetime.combine(self.today, time(0), tzinfo=_NEW_YORK)
        when = format_datetime(midnight)  # "Mon, 07 Dec 2026 00:00:00 -0500"
        parts = ["<?xml version='1.0' encoding='UTF-8'?>",
                 '<rss xmlns:arxiv="http://arxiv.org/schemas/atom" '
                 'xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:atom="http://www.w3.org/2005/Atom" '
                 'xmlns:content="http://purl.org/rss/1.0/modules/content/" version="2.0">', "<channel>",
                 f"<title>{category} updates on arXiv.org</title>",
                 f"<link>http://rss.arxiv.org/rss/{category}</link>",
                 f"<description>{category} updates on the arXiv.org e-print archive.</description>",
                 f'<atom:link href="http://rss.arxiv.org/rss/{category}" rel="self" '
                 'type="application/rss+xml"/>',
                 "<docs>http://www.rssboard.org/rss-specification</docs><language>en-us</language>",
                 f"<lastBuildDate>{format_datetime(midnight.astimezone(UTC))}</lastBuildDate>",
                 "<managingEditor>rss-help@arxiv.org</managingEditor>",
                 f"<pubDate>{when}</pubDate>",
                 "<skipDays><day>Saturday</day><day>Sunday</day></skipDays>"]
        for v in items:
            vid = f"{v.base}v{v.version}"
            cats = "".join(f"<category>{escape(c)}</category>" for c in v.categories)
            parts.append(
                f"<item><title>{escape(v.title)}</title><link>https://arxiv.org/abs/{v.base}</link>"
                f"<description>arXiv:{vid} Announce Type: {v.kind(category)} \nAbstract: {escape(v.abstract)}"
                f"</description><guid isPermaLink=\"false\">oai:arXiv.org:{vid}</guid>{cats}"
                f"<pubDate>{when}</pubDate><arxiv:announce_type>{v.kind(category)}</arxiv:announce_type>"
                "<dc:rights>http://creativecommons.org/licenses/by/4.0/</dc:rights>"
                f"<dc:creator>{escape(', '.join(v.authors))}</dc:creator></item>")
        parts.append("</channel></rss>")
        return "\n".join(parts).encode()

    def page(self, query: str, start: int, size: int) -> bytes | None:
        """The API's answer to a date-range query, or None for one it doesn't take."""
        match = _RANGE.match(query)
        if not match:
            return None
        lo, hi = (datetime.strptime(match[k], "%Y%m%d%H%M").replace(tzinfo=UTC) for k in ("lo", "hi"))
        with self._lock:
            latest = [versions[-1] for versions in self.papers.values()]
        # arXiv has announced a version only by its day: a later one isn't out yet.
        found = sorted((v for v in latest if match["cat"] in v.categories and lo <= v.updated <= hi
                        and v.day <= self.today), key=lambda v: v.updated, reverse=True)
        shown = found[start:start + size]
        parts = ['<?xml version="1.0" encoding="UTF-8"?>',
                 '<feed xmlns="http://www.w3.org/2005/Atom" '
                 'xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/" '
                 'xmlns:arxiv="http://arxiv.org/schemas/atom">',
                 f'<link href="http://arxiv.org/api/query?search_query={escape(query)}" rel="self" '
                 'type="application/atom+xml"/>',
                 f'<title type="html">ArXiv Query: search_query={escape(query)}&amp;start={start}</title>',
                 "<id>http://arxiv.org/api/standin</id>",
                 f"<updated>{datetime.combine(self.today, time(0), UTC).isoformat()}</updated>",
                 f"<opensearch:totalResults>{len(found)}</opensearch:totalResults>",
                 f"<opensearch:startIndex>{start}</opensearch:startIndex>",
                 f"<opensearch:itemsPerPage>{size}</opensearch:itemsPerPage>"]
        for v in shown:
            vid = f"{v.base}v{v.version}"
            authors = "".join(f"<author><name>{escape(a)}</name></author>" for a in v.authors)
            cats = "".join(f'<category term="{c}" scheme="http://arxiv.org/schemas/atom"/>'
                           for c in v.categories)
            parts.append(
                f"<entry><id>http://arxiv.org/abs/{vid}</id><updated>{v.updated:%Y-%m-%dT%H:%M:%SZ}</updated>"
                f"<published>{v.published:%Y-%m-%dT%H:%M:%SZ}</published><title>{escape(v.title)}</title>"
                f"<summary>{escape(v.abstract)}</summary>{authors}"
                f'<link href="http://arxiv.org/abs/{vid}" rel="alternate" type="text/html"/>'
                f'<link title="pdf" href="http://arxiv.org/pdf/{vid}" rel="related" type="application/pdf"/>'
                f'<arxiv:primary_category term="{v.categories[0]}" scheme="http://arxiv.org/schemas/atom"/>'
                f"{cats}</entry>")
        parts.append("</feed>")
        return "\n".join(parts).encode()


def _handler(days: ArxivDays) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format, *args) -> None:  # quiet
            pass

        def do_GET(self) -> None:
            parts = urlsplit(self.path)
            with days._lock:
                days.requests.append(self.path)
                number = len(days.requests)
            if number in days.busy:
                retry_after = days.busy[number]
                self._send(days.busy_status, b"Rate exceeded.", "text/plain",
                           {"Retry-After": retry_after} if retry_after is not None else {})
                return
            body = None
            if parts.path.startswith(RSS_PATH):
                body, kind = days.listing(parts.path[len(RSS_PATH):]), "application/rss+xml; charset=utf-8"
            elif parts.path == API_PATH:
                query = parse_qs(parts.query)
                body = days.page(query.get("search_query", [""])[0], int(query.get("start", ["0"])[0]),
                                 int(query.get("max_results", ["10"])[0]))
                kind = "application/atom+xml; charset=utf-8"
            if body is None:
                self._send(400, b"bad request", "text/plain")
            else:
                self._send(200, body, kind)

        def _send(self, status: int, body: bytes, kind: str, headers: dict | None = None) -> None:
            try:
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(body)
            except OSError:  # the client gave up
                pass

    return Handler
