"""RSS and Atom feeds (arXiv API responses, arXiv RSS, any blog feed), from a file or a URL."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator, Mapping
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import feedparser

from bot.sources.files import read_bytes
from bot.sources.http import Fetcher
from bot.sources.normalize import build_paper, parse_arxiv_id, unique
from bot.sources.progress import Progress, Ticker
from bot.sources.records import BadRecord, Rejected, SourceError
from bot.text.whitespace import collapse_ws
from storage.identity import normal_doi
from storage.models import Paper

# arXiv RSS descriptions start "arXiv:2401.12345v1 Announce Type: new \nAbstract: …".
_ARXIV_PREAMBLE = re.compile(r"^\s*arXiv:(?P<id>\S+)\s+Announce Type:\s*\S+\s*(?:Abstract:\s*)?", re.I)
_HTML_TYPES = ("text/html", "application/xhtml+xml")
_API_ERROR = "arxiv.org/api/errors"


def parse_feed(data: bytes, name: str) -> Any:
    """Parse ``data`` with feedparser; SourceError when it isn't an RSS/Atom feed at all.

    A well-formed feed with no entries (an empty arXiv page) is fine; malformed input or an HTML
    page with no entries is not, nor is an arXiv API error response.
    """
    parsed = feedparser.parse(data)
    if not parsed.entries and (parsed.get("bozo") or not parsed.get("version")):
        problem = parsed.get("bozo_exception")
        detail = f" ({problem})" if problem else ""
        raise SourceError(f"{name} is not an RSS or Atom feed{detail}")
    for entry in parsed.entries:
        # The arXiv API answers a bad query with HTTP 200 and a single error entry.
        if _API_ERROR in entry.get("id", ""):
            raise SourceError(f"arXiv API error: {entry.get('summary') or entry.get('title')}")
    return parsed


def read_feed_file(path: Path, progress: Progress | None = None) -> Iterator[Paper | Rejected]:
    """Yield a Paper or Rejected "entry N" per entry of a saved feed; ``progress`` counts entries."""
    parsed = parse_feed(read_bytes(path), str(path))
    yield from _entries(parsed, progress)


def read_feed_url(url: str, fetcher: Fetcher, progress: Progress | None = None) -> Iterator[Paper | Rejected]:
    """Fetch ``url`` and yield what its entries hold, as :func:`read_feed_file` does."""
    parsed = parse_feed(fetcher.get(url), url)
    yield from _entries(parsed, progress)


def _entries(parsed: Any, progress: Progress | None) -> Iterator[Paper | Rejected]:
    venue = _text(parsed.feed, "title") or None
    ticker = Ticker(progress, len(parsed.entries))
    for number, entry in enumerate(parsed.entries, start=1):
        yield entry_to_record(entry, number, feed_title=venue)
        ticker.tick(number)
    ticker.finish(len(parsed.entries))


def entry_to_record(entry: Mapping[str, Any], number: int, feed_title: str | None = None) -> Paper | Rejected:
    """Turn one feedparser entry into a Paper, or a Rejected("entry NUMBER", reason).

    HTML is stripped from the summary and the arXiv RSS preamble removed. arXiv entries (found by
    their id, guid, link or preamble) get venue "arXiv" and ``arxiv:BASE`` ids; others get the
    feed's title as venue and their guid/id, else link, else the sha1 of the abstract, as id.
    """
    abstract = _summary(entry)
    preamble = _ARXIV_PREAMBLE.match(abstract)
    candidates = [entry.get("id"), entry.get("link")]
    if preamble:
        abstract = abstract[preamble.end() :]
        candidates.insert(0, preamble.group("id"))
    arxiv = _best_arxiv_id(c for c in candidates if c)
    authors = [collapse_ws(a.get("name", "")) for a in entry.get("authors", []) if a.get("name")]
    if arxiv and len(authors) == 1:
        # arXiv RSS puts every author into one comma-separated dc:creator.
        authors = [name.strip() for name in authors[0].split(",") if name.strip()]
    try:
        return build_paper(
            abstract=abstract,
            id=entry.get("id") or entry.get("link"),
            title=_text(entry, "title"),
            authors=authors,
            url=entry.get("link"),
            venue="arXiv" if arxiv else feed_title,
            published=_date(entry),
            categories=_categories(entry),
            arxiv=arxiv,
            doi=_doi(entry),
        )
    except BadRecord as e:
        return Rejected(f"entry {number}", str(e))


def strip_html(markup: str) -> str:
    """The text of an HTML fragment: tags dropped, entities decoded, whitespace collapsed."""
    parser = _TextExtractor()
    parser.feed(markup)
    parser.close()
    return collapse_ws("".join(parser.parts))


class _TextExtractor(HTMLParser):
    _SKIP = {"script", "style"}
    # Tags that render their neighbours apart: "<p>a</p><p>b</p>" reads "a b", "wor<b>ld</b>" "world".
    _BREAKS = {"p", "br", "div", "li", "ul", "ol", "tr", "td", "th", "blockquote", "hr", "pre", "table"}
    _BREAKS |= {"h1", "h2", "h3", "h4", "h5", "h6", "section", "article", "dd", "dt"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._skipping = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self._SKIP:
            self._skipping += 1
        if tag in self._BREAKS:
            self.parts.append(" ")

    def handle_endtag(self, tag: str) -> None:
        if tag in self._SKIP and self._skipping:
            self._skipping -= 1
        if tag in self._BREAKS:
            self.parts.append(" ")

    def handle_data(self, data: str) -> None:
        if not self._skipping:
            self.parts.append(data)


def _text(entry: Mapping[str, Any], key: str) -> str:
    return _detail_text(entry.get(f"{key}_detail") or {"value": entry.get(key) or ""})


def _detail_text(detail: Mapping[str, Any]) -> str:
    """Plain text of a feedparser text construct, stripping HTML only where the feed said it is HTML."""
    value = detail.get("value") or ""
    return strip_html(value) if detail.get("type") in _HTML_TYPES else collapse_ws(value)


def _summary(entry: Mapping[str, Any]) -> str:
    # feedparser copies an Atom <content> into ``summary`` without its type, so read the typed
    # constructs: the summary's when there is one, else each content in turn.
    details = [entry["summary_detail"]] if entry.get("summary_detail") else []
    for detail in details + list(entry.get("content") or []):
        text = _detail_text(detail)
        if text:
            return text
    return ""


def _best_arxiv_id(candidates: Iterator[str]) -> tuple[str, int | None] | None:
    """The first arXiv id among ``candidates`` that has a version, else the first without one."""
    found = [parsed for parsed in map(parse_arxiv_id, candidates) if parsed]
    return next((p for p in found if p[1] is not None), found[0] if found else None)


def _doi(entry: Mapping[str, Any]) -> str | None:
    """The entry's DOI: arXiv's ``arxiv:doi`` (the published version's), a journal feed's ``prism:doi``,
    or a ``dc:identifier`` that is one; None without one (a value that is no DOI is left out)."""
    for key in ("arxiv_doi", "prism_doi", "dc_identifier"):
        value = normal_doi(entry.get(key) if isinstance(entry.get(key), str) else None)
        if value:
            return value
    return None


def _date(entry: Mapping[str, Any]) -> str | None:
    stamp = entry.get("published_parsed") or entry.get("updated_parsed")
    return time.strftime("%Y-%m-%d", stamp) if stamp else None


def _categories(entry: Mapping[str, Any]) -> list[str]:
    primary = (entry.get("arxiv_primary_category") or {}).get("term")
    terms = [primary] + [tag.get("term") for tag in entry.get("tags") or []]
    return unique(collapse_ws(t) for t in terms if t and t.strip())
