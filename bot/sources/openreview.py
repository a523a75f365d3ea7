"""The accepted papers of a venue on OpenReview, through its API v2 (``PAPERBOT_OPENREVIEW_API_URL``).

``openreview:VENUE_ID``: the venue id as on openreview.net (``openreview:ICML.cc/2025/Conference``, the
``id=`` of a venue's page; a page's whole address is taken too). Its accepted papers are the notes whose
``content.venueid`` is the venue id itself (submissions still under review, rejected or withdrawn carry
``VENUE/Submission``, ``VENUE/Rejected_Submission``…, so they are never asked for):
``GET {base}/notes?content.venueid=VENUE&limit=1000&offset=K``, :data:`PAGE` notes at a time by
``offset`` until the ``count`` the answer reports (or a page comes back empty).

Each note is one paper: id ``openreview:FORUM`` (the forum id is the submission's), its url the forum page
(``https://openreview.net/forum?id=FORUM``), its venue ``content.venue`` ("ICML 2025 poster"), its date the
day it was accepted (``pdate``; else when it went public, ``odate``; else ``cdate``), its keywords as its
categories. Every content field is ``{"value": …}`` (a bare value, as API v1 wrote them, is read too);
authors are names, or objects with a ``fullname``.

A note without id, title or abstract, not accepted at the venue asked, or of megabytes is one
:class:`Rejected`; a page answered with HTML, a truncated body or an error of the API is one Rejected for
its notes and the pages after it are still read, but the read isn't :attr:`Found.complete` (the caller
reads the venue again next time). The first page failing is the whole venue failing: a SourceError.
A venue without accepted papers (none published yet, or an id OpenReview doesn't know) is no error:
``count`` 0, said by the caller.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

from bot.sources.http import Fetcher
from bot.sources.normalize import build_paper, collapse_ws
from bot.sources.progress import Progress
from bot.sources.records import BadRecord, Rejected, SourceError
from storage.models import Paper

PREFIX = "openreview:"
#: Notes one request asks for: the API's largest page (openreview-py pages by 1,000 too).
PAGE = 1000
#: The longest title and abstract taken, in characters: OpenReview caps an abstract at 5,000, so anything
#: far longer is a broken record, skipped rather than stored and indexed.
MAX_TEXT = 20_000
#: A venue id given as an example wherever one is asked for.
EXAMPLE = "ICML.cc/2025/Conference"
#: Where every venue's id is listed.
VENUES_PAGE = "https://openreview.net/venues"
#: What a venue id is made of: path segments of letters, digits, dots, dashes and underscores (most have
#: several, ICML.cc/2025/Conference; a journal's may be one, TMLR).
_VENUE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*(?:/[A-Za-z0-9._-]+)*")
#: The last segment of a venue id's other groups of submissions: not accepted papers.
_NOT_ACCEPTED = re.compile(r"/(?:[A-Za-z_]*Submission|Rejected|Withdrawn|Desk_Rejected)$", re.IGNORECASE)
#: A note id: OpenReview writes 7 to 14 letters, digits, dashes or underscores.
_NOTE_ID = re.compile(r"[A-Za-z0-9_-]{5,32}")
_SHOWN = 60


def is_source(source: str) -> bool:
    """Whether ``source`` is an ``openreview:`` source."""
    return source[:len(PREFIX)].lower() == PREFIX


def _asked() -> str:
    return (f"use openreview:VENUE_ID, the venue id as on openreview.net, e.g. openreview:{EXAMPLE} "
            f"(the id= of the venue's page; every venue is listed at {VENUES_PAGE})")


def parse_source(source: str) -> str:
    """The venue id of ``openreview:VENUE_ID`` (quotes and spaces around it stripped; a venue page's
    address read for its ``id=``); SourceError, one line naming what is accepted, for anything else."""
    text = collapse_ws(source[len(PREFIX):]).strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        text = text[1:-1].strip()
    if text.lower().startswith(("http://", "https://")):
        page = urlsplit(text)
        if page.path.rstrip("/") != "/group":  # a paper's forum, a PDF: no venue
            raise SourceError(f"'{text[:_SHOWN]}' is no venue's page on OpenReview: {_asked()}")
        text = (parse_qs(page.query).get("id") or [""])[0].strip()
    text = text.rstrip("/")
    if not text:
        raise SourceError(f"openreview: needs a venue id: {_asked()}")
    shown = text[:_SHOWN]
    if not _VENUE_ID.fullmatch(text) or "/-/" in text:
        raise SourceError(f"'{shown}' is no OpenReview venue id: {_asked()}")
    if _NOT_ACCEPTED.search(text):
        raise SourceError(f"'{shown}' names a venue's submissions, not its accepted papers: "
                          f"openreview: reads the accepted ones, so {_asked()}")
    return text


def source_name(venue: str) -> str:
    """The source of a venue, as reports and cursors name it: ``openreview:ICML.cc/2025/Conference``."""
    return f"{PREFIX}{venue}"


def forum_url(forum: str) -> str:
    """The page of a paper's forum on openreview.net."""
    return f"https://openreview.net/forum?id={forum}"


def notes_url(api_url: str, venue: str, offset: int, limit: int | None = None) -> str:
    """One page of the accepted papers of ``venue``: its notes from ``offset`` (:data:`PAGE` of them)."""
    query = urlencode({"content.venueid": venue, "limit": limit or PAGE, "offset": offset}, safe="/")
    return f"{api_url.rstrip('/')}/notes?{query}"


@dataclass
class Found:
    """What reading a venue found, filled in as it is read."""

    #: Accepted papers the API reported (``count``).
    count: int = 0
    #: Notes read (papers and rejected).
    records: int = 0
    #: Papers by their venue as OpenReview names it ("ICML 2025 poster": 3,000, "ICML 2025 oral": 120).
    venues: Counter[str] = field(default_factory=Counter)
    #: Every page was read and was the API's answer: the venue needn't be read again today.
    complete: bool = False


def read_venue(venue: str, *, fetcher: Fetcher, found: Found,
               progress: Progress | None = None) -> Iterator[Paper | Rejected]:
    """Yield a Paper or a Rejected for each accepted paper of ``venue``, page by page; SourceError, while
    iterating, when the first page can't be read (a later page that fails is one Rejected)."""
    offset, complete, seen = 0, True, set[str]()
    count: int | None = None
    while count is None or offset < count:
        where = f"notes {offset + 1}-{offset + PAGE}"
        try:
            body = _get(fetcher, notes_url(fetcher.openreview_url, venue, offset), where)
            page_count, notes = read_page(body)
        except (SourceError, BadRecord) as exc:
            if count is None:
                raise SourceError(f"OpenReview venue {venue}: {exc}") from None
            complete = False
            yield Rejected(where, str(exc))
            offset += PAGE
            continue
        if page_count is None:  # an answer without count: read on while pages come full
            found.count = offset + len(notes)
            count = found.count + (len(notes) >= PAGE)
        else:
            found.count = count = page_count
        for number, note in enumerate(notes, start=offset + 1):
            found.records += 1
            item = paper_or_rejected(note, number, venue)
            if isinstance(item, Paper):
                if item.id in seen:  # a note moved across pages while they were read: once is enough
                    continue
                seen.add(item.id)
                if item.venue:
                    found.venues[item.venue] += 1
            yield item
        if progress is not None:
            progress(found.records, count)
        if not notes:
            break
        offset += len(notes)
    found.complete = complete


def read_page(body: bytes) -> tuple[int | None, list[Any]]:
    """The ``count`` (None when the answer has none) and the notes of one answer; BadRecord when it is
    not one (HTML, a truncated body, an error of the API)."""
    try:
        answer = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        raise BadRecord(f"the answer was {_what(body)}") from None
    if not isinstance(answer, dict):
        raise BadRecord("the answer is no object of notes")
    if "notes" not in answer and isinstance(answer.get("name"), str):  # the API's error: name, message
        message = collapse_ws(str(answer.get("message") or ""))[:200]
        said = f"OpenReview answered {answer['name'][:_SHOWN]}"
        raise BadRecord(f"{said}: {message}" if message else said)
    notes = answer.get("notes")
    if not isinstance(notes, list):
        raise BadRecord("the answer has no list of notes")
    count = answer.get("count")
    if count is not None and (not isinstance(count, int) or isinstance(count, bool) or count < 0):
        raise BadRecord(f"bad count '{str(count)[:_SHOWN]}'")
    return count, notes


def _what(body: bytes) -> str:
    start = body[:15].decode("utf-8", "replace").strip().lower()
    return "HTML" if start.startswith(("<!doctype html", "<html")) else "not JSON (a truncated body?)"


def paper_or_rejected(note: Any, number: int, venue: str) -> Paper | Rejected:
    """The paper of one note, or why it can't be one (the note named by its id, else its place)."""
    forum = (note.get("forum") or note.get("id")) if isinstance(note, dict) else None
    where = f"note {forum[:_SHOWN]}" if isinstance(forum, str) and forum else f"note {number}"
    try:
        return paper(note, venue)
    except BadRecord as exc:
        return Rejected(where, str(exc))


def paper(note: Any, venue: str) -> Paper:
    """The Paper of an accepted note of ``venue``; BadRecord (the short reason) when it can't be one."""
    if not isinstance(note, dict):
        raise BadRecord("not a note (a JSON object)")
    forum = note.get("forum") or note.get("id")
    if not isinstance(forum, str) or not forum:
        raise BadRecord("no note id")
    if not _NOTE_ID.fullmatch(forum):
        raise BadRecord(f"bad note id '{forum[:_SHOWN]}'")
    content = note.get("content")
    if not isinstance(content, dict):
        raise BadRecord("no content")
    accepted_at = _text(content, "venueid")
    if accepted_at and accepted_at != venue:
        raise BadRecord(f"not accepted at {venue} (its venueid is {accepted_at[:_SHOWN]})")
    title, abstract = _text(content, "title"), _text(content, "abstract")
    if len(title) + len(abstract) > MAX_TEXT:
        raise BadRecord(f"{len(title) + len(abstract):,} characters of title and abstract: too long")
    if not title:
        raise BadRecord("no title")
    return build_paper(
        id=f"{PREFIX}{forum}", title=title, abstract=abstract, authors=_authors(content),
        url=forum_url(forum), venue=_text(content, "venue") or None, published=_published(note),
        categories=_keywords(content),
    )


def _value(content: dict, name: str) -> Any:
    """A content field's value: ``{"value": …}`` in API v2, the bare value in API v1's notes."""
    item = content.get(name)
    return item.get("value") if isinstance(item, dict) else item


def _text(content: dict, name: str) -> str:
    value = _value(content, name)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise BadRecord(f"{name} is not a text")
    return collapse_ws(value)


def _authors(content: dict) -> list[str]:
    value = _value(content, "authors")
    if value is None:
        return []
    if not isinstance(value, list):
        raise BadRecord("authors is not a list")
    names = []
    for author in value:
        # OpenReview's newer venues write each author as {"fullname": …, "username": "~Ada_Lovelace1"}.
        name = author.get("fullname") if isinstance(author, dict) else author
        if isinstance(name, str) and collapse_ws(name):
            names.append(collapse_ws(name))
    return names


def _keywords(content: dict) -> list[str]:
    value = _value(content, "keywords")
    if isinstance(value, str):  # some venues ask for them as one text, comma-separated
        value = value.split(",")
    if not isinstance(value, list):
        return []
    return list(dict.fromkeys(collapse_ws(k) for k in value if isinstance(k, str) and collapse_ws(k)))


def _published(note: dict) -> str | None:
    """The day the paper was accepted (``pdate``), else the day it went public (``odate``), else its
    creation date (``cdate``): milliseconds since 1970, as a UTC date."""
    for name in ("pdate", "odate", "cdate"):
        stamp = note.get(name)
        if isinstance(stamp, int | float) and not isinstance(stamp, bool) and 0 < stamp < 1e14:
            return datetime.fromtimestamp(stamp / 1000, UTC).date().isoformat()
    return None


def first_page(venue: str, fetcher: Fetcher) -> int:
    """How many accepted papers ``venue`` has, in one request of one note (``paperbot doctor``'s check);
    SourceError when it can't be fetched or is no answer of the API."""
    url = notes_url(fetcher.openreview_url, venue, 0, limit=1)
    try:
        count, notes = read_page(_get(fetcher, url, "one note"))
    except BadRecord as exc:
        raise SourceError(f"{url}: {exc}") from None
    return count if count is not None else len(notes)


def _get(fetcher: Fetcher, url: str, what: str) -> bytes:
    """``fetcher.get(url)``, its failure said with the API's address and the page, not the whole URL."""
    try:
        return fetcher.get(url)
    except SourceError as exc:
        raise SourceError(str(exc).replace(url, f"{fetcher.openreview_url.rstrip('/')} ({what})")) from None
