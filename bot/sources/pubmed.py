"""New PubMed records for a query, through NCBI's E-utilities (``PAPERBOT_PUBMED_API_URL``).

``pubmed:QUERY``: the whole text after ``pubmed:`` is the query, as one would type it in PubMed's search
box; surrounding quotes (``pubmed:"crispr screen"``) are stripped, since a shell or a Slack command keeps
them and PubMed would read them as a phrase search the user rarely meant. An empty query is refused.

Reading is two steps. ``esearch.fcgi`` (``retmode=json``) lists the PMIDs whose **Entrez date** (``edat``:
the day the record entered PubMed) falls from ``mindate`` to ``maxdate`` (YYYY/MM/DD, both included),
:data:`SEARCH_PAGE` at a time by ``retstart`` until the ``count`` it reports. ``edat`` and not ``pdat``
because "new since the last read" means new to PubMed: a publication date is often months before a record
is indexed (or in the future, for a print issue), so a ``pdat`` window read daily misses most records.
Then ``efetch.fcgi`` (``retmode=xml``) fetches the records, :data:`FETCH_BATCH` ids a request (NCBI asks
for at most 200 in a GET). Each request names ``tool=paperbot`` and, when set, ``email``
(``PAPERBOT_NCBI_EMAIL``) and ``api_key`` (``PAPERBOT_NCBI_KEY``), as NCBI asks; requests are spaced by
the fetcher's limiter (3 a second without a key, 10 with one: :mod:`bot.sources.http`).

A record without PMID, title or abstract, or of megabytes, is one :class:`Rejected`; a fetch answered with
HTML or a truncated body keeps the records read before the break and is one Rejected for the rest of its
batch; the read then isn't :attr:`Found.complete` (the caller keeps its cursor). The XML is parsed with
the standard library (no DTD or external entity is fetched; expat refuses entity expansion bombs).
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from collections.abc import Generator, Iterator
from dataclasses import dataclass
from datetime import date, timedelta
from typing import cast
from urllib.parse import urlencode

from bot.sources.http import Fetcher
from bot.sources.normalize import build_paper, collapse_ws
from bot.sources.progress import Progress
from bot.sources.records import BadRecord, Rejected, SourceError
from storage.models import Paper

#: Days a query never read before starts with (today and the day before).
FIRST_READ_DAYS = 2
#: PMIDs one esearch request asks for (NCBI allows up to 10,000).
SEARCH_PAGE = 1000
#: esearch can't page past this many records of one search (PubMed's limit on retstart + retmax).
SEARCH_LIMIT = 10_000
#: Ids one efetch request asks for: NCBI asks for no more than 200 in a GET.
FETCH_BATCH = 200
#: The longest title and abstract taken, in characters: a PubMed abstract is limited to a few thousand
#: words, so anything far longer is a broken record, skipped rather than stored and indexed.
MAX_TEXT = 20_000
_SHOWN = 60
_MONTHS = {name: number for number, name in enumerate(
    ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"), start=1)}


def is_source(source: str) -> bool:
    """Whether ``source`` is a ``pubmed:`` source."""
    return source[:7].lower() == "pubmed:"


def parse_source(source: str) -> str:
    """The query of ``pubmed:QUERY`` (quotes around it stripped, spaces collapsed); SourceError, one line,
    for an empty one."""
    query = collapse_ws(source[7:]).strip()
    if len(query) >= 2 and query[0] == query[-1] and query[0] in "\"'":
        query = query[1:-1].strip()
    if not query:
        raise SourceError("pubmed: needs a query, as typed in PubMed's search box, e.g. "
                          'pubmed:"crispr screen"')
    return query


def source_name(query: str) -> str:
    """The source of a query, as reports and cursors name it: ``pubmed:crispr screen``."""
    return f"pubmed:{query}"


@dataclass
class Found:
    """What reading a query found, filled in as it is read."""

    #: Records the search reported for the interval.
    count: int = 0
    #: Records fetched (papers and rejected).
    records: int = 0
    #: Every search page and fetch batch was read whole: a later read may start after the interval.
    complete: bool = False


def _params(fetcher: Fetcher, **params: object) -> str:
    params = {"db": "pubmed", **params, "tool": "paperbot"}
    if fetcher.ncbi_email:
        params["email"] = fetcher.ncbi_email
    if fetcher.ncbi_key:
        params["api_key"] = fetcher.ncbi_key
    return urlencode(params, safe=",/")


def search_url(fetcher: Fetcher, query: str, start: date, end: date, retstart: int,
               retmax: int = SEARCH_PAGE) -> str:
    """One page of the PMIDs that entered PubMed from ``start`` to ``end`` (both included) for ``query``."""
    return (f"{fetcher.pubmed_url.rstrip('/')}/esearch.fcgi?"
            + _params(fetcher, term=query, datetype="edat", mindate=f"{start:%Y/%m/%d}",
                      maxdate=f"{end:%Y/%m/%d}", retmode="json", retmax=retmax, retstart=retstart))


def fetch_url(fetcher: Fetcher, pmids: list[str]) -> str:
    """The records of ``pmids`` (at most :data:`FETCH_BATCH`) as PubMed XML."""
    base = fetcher.pubmed_url.rstrip("/")
    return f"{base}/efetch.fcgi?" + _params(fetcher, id=",".join(pmids), retmode="xml")


def read_pubmed(query: str, start: date, end: date, *, fetcher: Fetcher, found: Found,
                progress: Progress | None = None) -> Iterator[Paper | Rejected]:
    """Yield a Paper or a Rejected for each record that entered PubMed from ``start`` to ``end`` for
    ``query``; SourceError, while iterating, when the search can't be read (fetching a batch that fails
    is one Rejected)."""
    pmids, capped = _pmids(query, start, end, fetcher, found)
    yield from capped
    complete = True
    for first in range(0, len(pmids), FETCH_BATCH):
        batch = pmids[first:first + FETCH_BATCH]
        where = f"records {first + 1}-{first + len(batch)}"
        try:
            body = _get(fetcher, fetch_url(fetcher, batch), f"efetch of {len(batch)} records")
        except SourceError as exc:
            complete = False
            yield Rejected(where, str(exc))
            continue
        complete &= yield from read_records(body, where, found)
        if progress is not None:
            progress(found.records, len(pmids))
    found.complete = complete


def _pmids(query: str, start: date, end: date, fetcher: Fetcher,
           found: Found) -> tuple[list[str], list[Rejected]]:
    """The PMIDs of the interval, and a Rejected for each day of more records than esearch pages through.
    An interval of more than :data:`SEARCH_LIMIT` records (a long back-fill) is searched a day at a time;
    a single day of more is read to the limit and said: reading it again would end at the same place."""
    try:
        return search(query, start, end, fetcher=fetcher, found=found, whole=start == end), []
    except _TooMany:
        pass
    pmids: list[str] = []
    capped: list[Rejected] = []
    total = 0
    for offset in range((end - start).days + 1):
        day = start + timedelta(days=offset)
        on_day = Found()
        pmids += search(query, day, day, fetcher=fetcher, found=on_day)
        total += on_day.count
        if on_day.count > SEARCH_LIMIT:
            capped.append(Rejected(f"search of {day}", f"{on_day.count:,} records entered that day: PubMed "
                                   f"pages through the first {SEARCH_LIMIT:,} only; narrow the query"))
    found.count = total
    return list(dict.fromkeys(pmids)), capped


class _TooMany(Exception):
    """An interval holds more records than one search pages through."""


def search(query: str, start: date, end: date, *, fetcher: Fetcher, found: Found,
           whole: bool = True) -> list[str]:
    """Every PMID of the interval, paging by ``retstart`` to the ``count`` reported (at most
    :data:`SEARCH_LIMIT`; with ``whole`` False, _TooMany after the first page when there are more);
    SourceError for a page that fails or is no answer of esearch."""
    pmids: list[str] = []
    retstart, count = 0, None
    while count is None or retstart < min(count, SEARCH_LIMIT):
        retmax = min(SEARCH_PAGE, SEARCH_LIMIT - retstart)
        url = search_url(fetcher, query, start, end, retstart, retmax)
        try:
            count, ids = _search_page(_get(fetcher, url, f"esearch from {start} to {end}"))
        except BadRecord as exc:
            raise SourceError(f"PubMed search from {start} to {end}: {exc}") from None
        found.count = count
        if count > SEARCH_LIMIT and not whole:
            raise _TooMany
        pmids.extend(ids)
        if not ids:
            break
        retstart += len(ids)
    return list(dict.fromkeys(pmids))


def _search_page(body: bytes) -> tuple[int, list[str]]:
    try:
        answer = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        raise BadRecord(f"the answer was {_what(body, 'JSON')}") from None
    result = answer.get("esearchresult") if isinstance(answer, dict) else None
    if not isinstance(result, dict):
        raise BadRecord("the answer has no esearchresult")
    if "ERROR" in result:  # a query esearch can't run (a bad field name): its message, shortened
        raise BadRecord(f"PubMed refused the query: {collapse_ws(str(result['ERROR']))[:200]}")
    ids = result.get("idlist") or []
    try:
        count = int(str(result.get("count", len(ids))))
    except ValueError:
        raise BadRecord(f"bad count '{str(result.get('count'))[:_SHOWN]}'") from None
    if not isinstance(ids, list) or not all(isinstance(i, str) and i.isdigit() for i in ids):
        raise BadRecord("the idlist is not a list of PMIDs")
    return count, ids


def _what(body: bytes, wanted: str) -> str:
    start = body[:15].decode("utf-8", "replace").strip().lower()
    return "HTML" if start.startswith(("<!doctype html", "<html")) else f"not {wanted} (a truncated body?)"


def read_records(body: bytes, where: str, found: Found) -> Generator[Paper | Rejected, None, bool]:
    """The records of one efetch answer, each as it is parsed; returns (as a generator's value) whether
    the answer was read whole. A body that breaks off (truncated, HTML) keeps what came before it."""
    if _what(body, "XML") == "HTML":
        yield Rejected(where, "the answer was HTML")
        return False
    parser: ET.XMLPullParser[ET.Element] = ET.XMLPullParser(events=("end",))
    number = 0

    def parsed() -> Iterator[Paper | Rejected]:
        nonlocal number
        for event in parser.read_events():
            _, element = cast(tuple[str, ET.Element], event)  # "end" events carry the element
            if element.tag in ("PubmedArticle", "PubmedBookArticle"):
                number += 1
                found.records += 1
                yield _paper_or_rejected(element, number)
                element.clear()  # a batch of 200 records is parsed without keeping them all

    try:
        for chunk in range(0, len(body), 1 << 16):
            parser.feed(body[chunk:chunk + (1 << 16)])
            yield from parsed()
        parser.close()
        yield from parsed()
    except ET.ParseError as exc:
        reason = "the answer was not XML" if number == 0 else f"the answer broke off after record {number}"
        yield Rejected(where, f"{reason} ({exc})"[:200])
        return False
    return True


def _paper_or_rejected(article: ET.Element, number: int) -> Paper | Rejected:
    pmid = _text(article.find("MedlineCitation/PMID")) or _text(article.find("BookDocument/PMID"))
    where = f"PMID {pmid}" if pmid else f"record {number}"
    if article.tag == "PubmedBookArticle":
        return Rejected(where, "a book chapter, not an article")
    try:
        return _paper(article, pmid)
    except BadRecord as exc:
        return Rejected(where, str(exc))


def _paper(article: ET.Element, pmid: str) -> Paper:
    if not pmid.isdigit():
        raise BadRecord("no PMID" if not pmid else f"bad PMID '{pmid[:_SHOWN]}'")
    entry = article.find("MedlineCitation/Article")
    if entry is None:
        raise BadRecord("no Article")
    title = _text(entry.find("ArticleTitle")) or _text(entry.find("VernacularTitle"))
    abstract = _abstract(entry.find("Abstract"))
    if len(abstract) + len(title) > MAX_TEXT:
        raise BadRecord(f"{len(abstract) + len(title):,} characters of title and abstract: too long")
    return build_paper(
        id=f"pmid:{pmid}", doi=_doi(article, entry), abstract=abstract, title=title, authors=_authors(entry),
        url=f"https://pubmed.ncbi.nlm.nih.gov/{pmid}/",
        venue=_venue(_text(entry.find("Journal/Title")) or _text(entry.find("Journal/ISOAbbreviation"))),
        published=_published(article, entry),
    )


def _venue(journal: str) -> str | None:
    """The journal, a preprint server PubMed indexes by its catalogue title ("bioRxiv : the preprint server
    for biology") by its own name: merged with the server's record, it must stay a preprint, not read as
    a journal version."""
    folded = journal.casefold()
    for server in _SERVERS:
        if folded.startswith(server.casefold()):
            return server
    return journal or None


_SERVERS = ("bioRxiv", "medRxiv", "arXiv")


def _text(element: ET.Element | None) -> str:
    """The text of ``element`` and its children (``<i>``, ``<sup>``… inside a title), spaces collapsed."""
    return collapse_ws("".join(element.itertext())) if element is not None else ""


def _abstract(abstract: ET.Element | None) -> str:
    """The sections of a structured abstract as ``BACKGROUND: … METHODS: …`` (its labels kept: they tell
    a reader, and the highlights, which sentence is a result), an unstructured one as it is."""
    if abstract is None:
        return ""
    parts = []
    for section in abstract.findall("AbstractText"):
        text = _text(section)
        label = collapse_ws(section.get("Label") or "")
        if text:
            parts.append(f"{label}: {text}" if label and label.upper() != "UNLABELLED" else text)
    return " ".join(parts)


def _doi(article: ET.Element, entry: ET.Element) -> str | None:
    for item in article.findall("PubmedData/ArticleIdList/ArticleId"):
        if item.get("IdType") == "doi" and _text(item):
            return _text(item)
    for item in entry.findall("ELocationID"):
        if item.get("EIdType") == "doi" and item.get("ValidYN", "Y") == "Y" and _text(item):
            return _text(item)
    return None


def _authors(entry: ET.Element) -> list[str]:
    names = []
    for author in entry.findall("AuthorList/Author"):
        if author.get("ValidYN", "Y") != "Y":
            continue
        collective = _text(author.find("CollectiveName"))
        last = _text(author.find("LastName"))
        fore = _text(author.find("ForeName")) or _text(author.find("Initials"))
        name = collective or " ".join(part for part in (fore, last) if part)
        if name:
            names.append(name)
    return names


def _published(article: ET.Element, entry: ET.Element) -> str | None:
    """The electronic publication date (ArticleDate) when there is one, else the issue's (PubDate) when it
    has a day, else the day the record entered PubMed; an issue dated by year or month only (a
    MedlineDate such as "2024 Jan-Feb" included) as its first day."""
    for dated in (entry.find("ArticleDate"), entry.find("Journal/JournalIssue/PubDate")):
        full = _ymd(dated, need_day=True)
        if full:
            return full
    for dated in article.findall("PubmedData/History/PubMedPubDate"):
        if dated.get("PubStatus") == "pubmed":
            full = _ymd(dated, need_day=True)
            if full:
                return full
    return _ymd(entry.find("Journal/JournalIssue/PubDate"), need_day=False)


def _ymd(dated: ET.Element | None, *, need_day: bool) -> str | None:
    if dated is None:
        return None
    year, month, day = _text(dated.find("Year")), _text(dated.find("Month")), _text(dated.find("Day"))
    if not year:  # MedlineDate: "2024 Jan-Feb", "2023 Winter", "1998 Dec-1999 Jan"
        match = re.match(r"(\d{4})(?:\s+([A-Za-z]{3}))?", _text(dated.find("MedlineDate")))
        if not match:
            return None
        year, month, day = match[1], match[2] or "", ""
    number = int(month) if month.isdigit() else _MONTHS.get(month[:3].lower(), 0)
    if need_day and not (day.isdigit() and number):
        return None
    try:
        return date(int(year), number or 1, int(day) if day.isdigit() else 1).isoformat()
    except ValueError:
        return None


def searched_on(query: str, day: date, fetcher: Fetcher) -> int:
    """How many records entered PubMed on ``day`` for ``query``, in one request (``paperbot doctor``'s
    check); SourceError when it can't be fetched or is no answer of esearch."""
    url = search_url(fetcher, query, day, day, 0, 0)
    try:
        return _search_page(_get(fetcher, url, f"esearch of {day}"))[0]
    except BadRecord as exc:
        raise SourceError(f"{_shown(url, fetcher)}: {exc}") from None


def _get(fetcher: Fetcher, url: str, what: str) -> bytes:
    """``fetcher.get(url)``, its failure said without the URL: an efetch URL holds 200 ids, and any holds
    the API key, which must never reach a report or a log."""
    try:
        return fetcher.get(url)
    except SourceError as exc:
        raise SourceError(str(exc).replace(url, f"{fetcher.pubmed_url.rstrip('/')} ({what})")) from None


def _shown(url: str, fetcher: Fetcher) -> str:
    """``url`` with the API key hidden."""
    return url.replace(f"api_key={fetcher.ncbi_key}", "api_key=…") if fetcher.ncbi_key else url
