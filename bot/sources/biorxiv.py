"""What bioRxiv and medRxiv posted in some subject categories, through the ``details`` endpoint of
api.biorxiv.org (``PAPERBOT_BIORXIV_API_URL``): ``{base}/details/{server}/{from}/{to}/{cursor}``.

The endpoint has no search: it answers every record (one per version) posted in a date interval, a page
at a time, ``cursor`` being a record offset. Pages are read by the count each answer's ``messages[0]``
reports (30 on /details/ today, whatever it says) until the ``total`` it reports; the categories are kept
here, by name, case and spaces/underscores aside. The newest version of a DOI wins. A malformed record, a
page that isn't JSON (HTML, a truncated body) or a strange date is one :class:`Rejected` and the rest
goes on; an interval without posts (``"no posts found"``) is no error. A long read (a back-fill, days
missed) asks :data:`WINDOW_DAYS` days at a time. How far a source was read is the
caller's to keep (:attr:`Posted.complete`; the cursors in storage).
"""

from __future__ import annotations

import json
import re
from collections.abc import Generator, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any

from bot.sources.http import Fetcher
from bot.sources.normalize import build_paper, normalize_date, split_authors
from bot.sources.progress import Progress
from bot.sources.records import BadRecord, Rejected, SourceError
from storage.identity import normal_doi
from storage.models import Paper

#: The servers api.biorxiv.org answers for, by the prefix of their sources, and their names as venues.
SERVERS = {"biorxiv": "bioRxiv", "medrxiv": "medRxiv"}
#: bioRxiv's subject collections (https://www.biorxiv.org, "Subject Areas"), as the API names them.
BIORXIV_CATEGORIES = (
    "animal behavior and cognition", "biochemistry", "bioengineering", "bioinformatics", "biophysics",
    "cancer biology", "cell biology", "clinical trials", "developmental biology", "ecology", "epidemiology",
    "evolutionary biology", "genetics", "genomics", "immunology", "microbiology", "molecular biology",
    "neuroscience", "paleontology", "pathology", "pharmacology and toxicology", "physiology",
    "plant biology", "scientific communication and education", "synthetic biology", "systems biology",
    "zoology",
)
#: medRxiv's subject areas (https://www.medrxiv.org, "Subject Areas"), as the API names them.
MEDRXIV_CATEGORIES = (
    "addiction medicine", "allergy and immunology", "anesthesia", "cardiovascular medicine",
    "dentistry and oral medicine", "dermatology", "emergency medicine", "endocrinology", "epidemiology",
    "forensic medicine", "gastroenterology", "genetic and genomic medicine", "geriatric medicine",
    "health economics", "health informatics", "health policy", "health systems and quality improvement",
    "hematology", "hiv aids", "infectious diseases", "intensive care and critical care medicine",
    "medical education", "medical ethics", "nephrology", "neurology", "nursing", "nutrition",
    "obstetrics and gynecology", "occupational and environmental health", "oncology", "ophthalmology",
    "orthopedics", "otolaryngology", "pain medicine", "palliative medicine", "pathology", "pediatrics",
    "pharmacology and therapeutics", "primary care research", "psychiatry and clinical psychology",
    "public and global health", "radiology and imaging", "rehabilitation medicine and physical therapy",
    "respiratory medicine", "rheumatology", "sexual and reproductive health", "sports medicine", "surgery",
    "toxicology", "transplantation", "urology",
)
CATEGORIES = {"biorxiv": BIORXIV_CATEGORIES, "medrxiv": MEDRXIV_CATEGORIES}
#: Days a source never read before starts with (today and the day before).
FIRST_READ_DAYS = 2
#: The longest interval of dates one series of requests asks for (a longer read, a back-fill, takes several).
WINDOW_DAYS = 3
#: Records a page holds when an answer doesn't say (the /details/ endpoint answers 30).
PAGE_SIZE = 30
#: The longest title and abstract taken, in characters: bioRxiv caps an abstract near 3,000, so anything
#: far longer is a broken record (a full text, markup run wild), skipped rather than stored and indexed.
MAX_TEXT = 20_000
#: Characters of a field kept in a reason.
_SHOWN = 60


def category_key(name: str) -> str:
    """A category's name as compared: lower case, any run of spaces, underscores, dashes or slashes one
    space ("Cancer_Biology" and "cancer biology" are one; medRxiv's "HIV/AIDS" is "hiv aids")."""
    return re.sub(r"[^0-9a-z]+", " ", name.lower()).strip()


def source_name(server: str, category: str) -> str:
    """The source of one category, as reports and cursors name it: ``biorxiv:cancer_biology``."""
    return f"{server}:{category.replace(' ', '_')}"


def is_source(source: str) -> bool:
    """Whether ``source`` is a ``biorxiv:`` or ``medrxiv:`` source."""
    return source.split(":", 1)[0].lower() in SERVERS and ":" in source


def parse_source(source: str) -> tuple[str, list[str]]:
    """The server and the categories (as :func:`category_key` writes them) of ``biorxiv:CAT[,CAT…]`` or
    ``medrxiv:CAT[,CAT…]``; SourceError, one line naming what is accepted, for an unknown category."""
    prefix, _, spec = source.partition(":")
    server = prefix.lower()
    if server not in SERVERS:
        raise SourceError(f"'{source}' is no bioRxiv or medRxiv source: use biorxiv:CATEGORY or "
                          "medrxiv:CATEGORY")
    categories = list(dict.fromkeys(category_key(item) for item in spec.split(",") if category_key(item)))
    accepted = ", ".join(name.replace(" ", "_") for name in CATEGORIES[server])
    if not categories:
        raise SourceError(f"{server}: needs at least one category, e.g. {server}:{accepted.split(', ')[0]}; "
                          f"{SERVERS[server]}'s are: {accepted}")
    for item in spec.split(","):
        if category_key(item) and category_key(item) not in CATEGORIES[server]:
            raise SourceError(f"'{item.strip()}' is not a {SERVERS[server]} category (the "
                              f"subject areas on www.{server}.org): use {accepted}")
    return server, categories


def details_url(api_url: str, server: str, start: date, end: date, cursor: int) -> str:
    """One page of every record ``server`` posted from ``start`` to ``end`` (both included)."""
    return f"{api_url.rstrip('/')}/details/{server}/{start.isoformat()}/{end.isoformat()}/{cursor}"


@dataclass
class Posted:
    """What reading one server's interval found, filled in as it is read."""

    server: str
    #: Records the endpoint answered (every category, every version).
    records: int = 0
    #: Distinct papers of the categories asked for, by category.
    papers: dict[str, int] = field(default_factory=dict)
    #: The journal version's DOI of each paper whose newest record names one (``published``, not "NA"),
    #: by paper id. Not stored yet: a paper holds one DOI, its preprint's (the id's).
    published: dict[str, str] = field(default_factory=dict)
    #: Every page was read and was JSON: the interval is done, so a later read may start after it.
    complete: bool = False


def read_posted(
    server: str,
    categories: Iterable[str],
    start: date,
    end: date,
    *,
    fetcher: Fetcher,
    found: Posted,
    progress: Progress | None = None,
) -> Iterator[tuple[str, Paper | Rejected]]:
    """Yield ``(category, Paper or Rejected)`` for each paper ``server`` posted from ``start`` to ``end``
    in ``categories`` (as :func:`parse_source` gives them), its newest version, once every page is read;
    a record that can't be read comes at once, under its category (the first asked for when it has
    none). Raises SourceError, while iterating, for a request that fails."""
    wanted = list(categories)
    best: dict[str, tuple[int, str, Paper, str | None]] = {}
    bad_page = False
    windows = _windows(start, end)
    for lo, hi in windows:
        where = f"{lo}/{hi} " if len(windows) > 1 else ""
        bad_page |= yield from _interval(server, wanted, lo, hi, fetcher, found, best, where, progress)
    for _, category, paper, journal_doi in best.values():
        found.papers[category] = found.papers.get(category, 0) + 1
        if journal_doi:
            found.published[paper.id] = journal_doi
        yield category, paper
    found.complete = not bad_page


def _windows(start: date, end: date) -> list[tuple[date, date]]:
    """``start`` to ``end`` in intervals of at most :data:`WINDOW_DAYS` days: the API answers a long
    interval slowly, and may time out."""
    windows = []
    while start <= end:
        last = min(start + timedelta(days=WINDOW_DAYS - 1), end)
        windows.append((start, last))
        start = last + timedelta(days=1)
    return windows


def _interval(server: str, wanted: list[str], start: date, end: date, fetcher: Fetcher, found: Posted,
              best: dict[str, tuple[int, str, Paper, str | None]], where: str,
              progress: Progress | None) -> Generator[tuple[str, Rejected], None, bool]:
    """Page one interval to its total, keeping each DOI's newest version in ``best`` and yielding what
    can't be read; returns whether a page was no answer of the API (the interval is then not done)."""
    offset, total, bad_page = 0, None, False
    while total is None or offset < total:
        url = details_url(fetcher.biorxiv_url, server, start, end, offset)
        try:
            answer = _page(fetcher.get(url))
        except BadRecord as exc:
            bad_page = True
            yield wanted[0], Rejected(f"{where}page from record {offset + 1}", str(exc))
            if total is None:
                break  # nothing tells how far the interval goes
            offset += PAGE_SIZE
            continue
        count, total, collection = answer
        for number, record in enumerate(collection, start=offset + 1):
            found.records += 1
            item = _record(server, record, number, wanted)
            if item is None:
                continue
            category, parsed = item
            if isinstance(parsed, Rejected):
                yield category, Rejected(where + parsed.where, parsed.reason)
                continue
            version, paper, journal_doi = parsed
            kept = best.get(paper.id)
            if kept is None or version > kept[0]:
                best[paper.id] = (version, category, paper, journal_doi)
        if progress is not None:
            progress(found.records, None)
        if not collection or count <= 0:
            break
        offset += count
    return bad_page


def posted_on(server: str, day: date, fetcher: Fetcher) -> int:
    """How many records ``server`` posted on ``day``, in one request (``paperbot doctor``'s check that
    the API answers); SourceError when it can't be fetched or is no answer of the API."""
    url = details_url(fetcher.biorxiv_url, server, day, day, 0)
    try:
        return _page(fetcher.get(url))[1]
    except BadRecord as exc:
        raise SourceError(f"{url}: {exc}") from None


def _page(body: bytes) -> tuple[int, int, list[Any]]:
    """The count, the total and the records of one answer; BadRecord when it is no answer of the API."""
    try:
        answer = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        start = body[:15].decode("utf-8", "replace").strip().lower()
        what = "HTML" if start.startswith(("<!doctype", "<html")) else "not JSON (a truncated body?)"
        raise BadRecord(f"the answer was {what}") from None
    if not isinstance(answer, dict) or not isinstance(answer.get("collection", []), list):
        raise BadRecord("the answer has no collection of records")
    messages = answer.get("messages")
    message = messages[0] if isinstance(messages, list) and messages and isinstance(messages[0], dict) else {}
    collection = answer.get("collection") or []
    # "total" comes as a string, "count" as a number; an interval without posts has neither.
    total = _int(message.get("total"), len(collection))
    count = _int(message.get("count"), len(collection))
    return count, total, collection


def _int(value: Any, default: int) -> int:
    try:
        return int(str(value))
    except ValueError:
        return default


def _record(server: str, record: Any, number: int,
            wanted: list[str]) -> tuple[str, tuple[int, Paper, str | None] | Rejected] | None:
    """``(category, (version, Paper, the journal version's DOI or None))`` for a record of a category
    asked for, ``(category, Rejected)`` for one that can't be read, None for one of another category."""
    where = f"record {number}"
    if not isinstance(record, dict):
        return wanted[0], Rejected(where, "not an object")
    raw_category = record.get("category")
    category = category_key(raw_category) if isinstance(raw_category, str) else ""
    if not category:  # of no telling which subject area: said, not stored under one
        return wanted[0], Rejected(where, "no category")
    if category not in wanted:
        return None
    try:
        return category, _paper(server, record, category)
    except BadRecord as exc:
        return category, Rejected(where, str(exc))


def _paper(server: str, record: dict[str, Any], category: str) -> tuple[int, Paper, str | None]:
    doi = record.get("doi")
    if not isinstance(doi, str) or not doi.strip():
        raise BadRecord("no DOI")
    version = _int(record.get("version"), -1)
    if record.get("version") is None:
        raise BadRecord("no version")
    if version < 1:
        raise BadRecord(f"bad version '{str(record.get('version'))[:_SHOWN]}'")
    title, abstract = record.get("title"), record.get("abstract")
    if not isinstance(abstract, str) or not isinstance(title, str | type(None)):
        raise BadRecord("no abstract" if abstract is None else "title and abstract must be text")
    if len(abstract) > MAX_TEXT or len(title or "") > MAX_TEXT:
        raise BadRecord(f"{len(abstract) + len(title or ''):,} characters of title and abstract: too long")
    day = record.get("date")
    try:
        published = normalize_date(day) if isinstance(day, str) else None
    except BadRecord:
        raise BadRecord(f"bad date '{str(day)[:_SHOWN]}'") from None
    bare = doi.strip()
    paper = build_paper(
        id=f"doi:{bare.lower()}", doi=bare, abstract=abstract, title=title,
        authors=split_authors(record.get("authors")),
        url=f"https://www.{server}.org/content/{bare}v{version}",
        venue=SERVERS[server], published=published, categories=[category.replace(" ", "_")],
    )
    journal = record.get("published")
    named = isinstance(journal, str) and journal.strip().upper() != "NA"
    journal_doi = normal_doi(journal) if named else None
    return version, paper, journal_doi
