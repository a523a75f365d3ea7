"""Reference-manager exports people bring as their seed: BibTeX (``.bib``), RIS (``.ris``) and Zotero's CSV
export, read into :class:`LibraryEntry` records (a Paper-like record, possibly with no abstract, or no
title when an id names it) or :class:`~bot.sources.records.Rejected` ones.

BibTeX is read with bibtexparser (LaTeX decoded, co-authors split), RIS with rispy, Zotero's CSV with the
csv module. Ids, DOIs, dates and authors go through the same clean-up as every other source
(:mod:`bot.sources.normalize`, :mod:`bot.sources.arxiv_ids`). A file that is no library export at all (a
CSV without a Title column, a .bib or .ris with no entry) raises :class:`NotALibrary`.
"""

from __future__ import annotations

import contextlib
import csv
import io
import logging
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import date
from pathlib import PurePosixPath

import bibtexparser
import rispy  # type: ignore[import-untyped]
from bibtexparser.middlewares import LatexDecodingMiddleware, SeparateCoAuthors
from bibtexparser.model import DuplicateBlockKeyBlock

from bot.sources.arxiv_ids import find_arxiv_ids
from bot.sources.normalize import build_paper, parse_arxiv_id, stable_id
from bot.sources.records import BadRecord, Rejected, SourceError
from bot.sources.tabular import csv_header, csv_records
from bot.text.whitespace import collapse_ws
from storage.identity import normal_doi
from storage.models import Paper

#: The kinds of file accepted, by the extension of the file's name.
KINDS = {".bib": "bibtex", ".bibtex": "bibtex", ".ris": "ris", ".csv": "zotero-csv"}
#: Slack's ``filetype`` of a file whose name says nothing (a file named "library", say).
FILETYPES = {"bib": "bibtex", "bibtex": "bibtex", "ris": "ris", "csv": "zotero-csv"}
#: How the accepted kinds read in a reply.
ACCEPTED = "a BibTeX file (.bib), a RIS file (.ris) or a Zotero CSV export (.csv)"

#: Why an entry is left out: the reasons a reply counts, each kind once.
NO_TITLE_OR_ID = "no title and no id"
DUPLICATE = "a duplicate entry in the file"
UNREADABLE = "an unreadable record"

# bibtexparser tells of every block it could not read on its own logger; the reply counts them instead.
logging.getLogger("bibtexparser").setLevel(logging.ERROR)


class NotALibrary(SourceError):
    """The file is no library export paperbot reads (another kind, or nothing in it is an entry)."""


@dataclass(frozen=True)
class LibraryEntry:
    """One entry of a library export: ``where`` it is in the file and the paper it names. The paper may
    have no abstract (most exports carry none), and no title when an arXiv id or a DOI names it (such an
    entry can only match a stored paper)."""

    where: str
    paper: Paper

    @property
    def titled(self) -> bool:
        """Whether the entry has a title, so that paperbot can store it as a new paper."""
        return bool(self.paper.title)


def library_kind(name: str, filetype: str = "") -> str | None:
    """The kind of library export a file is from its ``name`` (its extension) or Slack's ``filetype``:
    "bibtex", "ris" or "zotero-csv"; None for any other kind."""
    return KINDS.get(PurePosixPath(name or "").suffix.lower()) or FILETYPES.get((filetype or "").lower())


def read_library(data: bytes, kind: str) -> list[LibraryEntry | Rejected]:
    """The entries of an export of ``kind`` (see :func:`library_kind`), in file order. Raises
    :class:`NotALibrary` when the file holds no entry at all or is no export of that kind."""
    text = data.decode("utf-8-sig", errors="replace")  # a stray byte costs a letter, not the file
    readers = {"bibtex": _read_bibtex, "ris": _read_ris, "zotero-csv": _read_zotero_csv}
    if kind not in readers:
        raise NotALibrary(f"paperbot reads {ACCEPTED}")
    items = list(readers[kind](text))
    if not items:
        raise NotALibrary(f"there is no entry in it: is it {ACCEPTED}?")
    return items


# -- one entry --------------------------------------------------------------------------------------


def entry_from_fields(where: str, *, title: str | None, authors: list[str], abstract: str | None = None,
                      doi: str | None = None, url: str | None = None, venue: str | None = None,
                      dates: tuple[str | None, ...] = (), month: str | None = None,
                      arxiv_hints: tuple[str | None, ...] = ()) -> LibraryEntry | Rejected:
    """One entry from the fields an export gave (empty ones count as missing), or why it is left out.

    The arXiv id is taken from ``arxiv_hints`` (an eprint, a URL, arXiv's own DOI, a note saying
    "arXiv: 2401.12345"); the DOI is kept bare and lower case. A paper with an arXiv id gets the id
    ``arxiv:BASE`` (as from every source), one with only a DOI ``doi:DOI``, else one from its title and
    authors."""
    title = collapse_ws(title or "")
    authors = [_natural_name(name) for name in authors if name and name.strip()]
    arxiv = _arxiv_id(doi, url, *arxiv_hints)
    bare_doi = normal_doi(doi) if doi else None
    if bare_doi and bare_doi.startswith("10.48550/arxiv."):
        bare_doi = None  # arXiv's own DOI: the arXiv id says it
    if not title and not arxiv and not bare_doi:
        return Rejected(where, NO_TITLE_OR_ID)
    published = _published(*dates, month=month)
    if not title:
        named = f"arxiv:{arxiv}" if arxiv else f"doi:{bare_doi}"
        return LibraryEntry(where, Paper(id=named, abstract="", arxiv_id=arxiv, doi=bare_doi,
                                         authors=authors))
    own_id = None if arxiv else (f"doi:{bare_doi}" if bare_doi else None)
    try:
        paper = build_paper(
            abstract=abstract or "", allow_empty_abstract=True, title=title, authors=authors,
            id=None if arxiv else (own_id or _title_id(title, authors)),
            url=url if url and url.lower().startswith(("http://", "https://")) else
            (f"https://doi.org/{bare_doi}" if bare_doi else None),
            venue=venue, published=published, doi=bare_doi,
            arxiv=(arxiv, None) if arxiv else None,
        )
    except BadRecord as exc:
        return Rejected(where, f"{UNREADABLE}: {exc}")
    return LibraryEntry(where, paper)


def _arxiv_id(*hints: str | None) -> str | None:
    for hint in hints:
        if not hint:
            continue
        parsed = parse_arxiv_id(hint)
        if parsed:
            return parsed[0]
        found = find_arxiv_ids(hint)
        if found:
            return found[0]
    return None


_YEAR = re.compile(r"\b(1[5-9]\d\d|20\d\d)\b")
#: A whole date as exports write it: 2024-01-20, 2021/03/15 (RIS), with or without a day.
_DATE = re.compile(r"\b(1[5-9]\d\d|20\d\d)[-/](0?[1-9]|1[0-2])(?:[-/](0?[1-9]|[12]\d|3[01]))?\b")
_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")


def _published(*dates: str | None, month: str | None = None) -> str | None:
    """The publication date from the first of ``dates`` that has one (a whole date, or a year with
    ``month``), as ``YYYY-MM-DD``: a year alone gives its first of January, so that a library's old paper
    never passes for a new one (a paper with no date is new from the day it is stored)."""
    for text in dates:
        whole = _DATE.search(text or "")
        if whole:
            year, number, day = whole.groups()
            with contextlib.suppress(ValueError):  # 2021-02-31: the year and month stand
                return date(int(year), int(number), int(day or 1)).isoformat()
            return f"{year}-{int(number):02d}-01"
        match = _YEAR.search(text or "")
        if match:
            named = (month or "").strip().lower()[:3]
            number = (_MONTHS.index(named) + 1 if named in _MONTHS
                      else int(named) if named.isdigit() and 1 <= int(named) <= 12 else 1)
            return f"{match.group(1)}-{number:02d}-01"
    return None


def _natural_name(name: str) -> str:
    """"Duarte, Ana" as "Ana Duarte" (how paper messages show authors); other spellings as they are."""
    name = collapse_ws(name)
    family, comma, given = name.partition(",")
    if comma and given.strip() and "," not in given:
        return f"{given.strip()} {family.strip()}"
    return name


def _title_id(title: str, authors: list[str]) -> str:
    """An id for an entry with neither arXiv id nor DOI: the same on every import of the same entry, and
    two papers of one title by different people stay two."""
    return stable_id(" ".join([title, *authors]))


# -- BibTeX -----------------------------------------------------------------------------------------

#: What LaTeX may read otherwise than as it stands.
_TEX = re.compile(r"[\\{}$%~&^_]|--|``|''")


class _LatexDecoding(LatexDecodingMiddleware):
    """bibtexparser's decoding of LaTeX in field values, run only on a value that holds some: most hold
    none, and pylatexenc takes about a millisecond a value (a library of thousands: seconds)."""

    def _transform_python_value_string(self, python_string: str) -> tuple[str, str]:
        if not _TEX.search(python_string):
            return python_string, ""
        return super()._transform_python_value_string(python_string)



def _read_bibtex(text: str) -> Iterator[LibraryEntry | Rejected]:
    try:
        library = bibtexparser.parse_string(text, append_middleware=[_LatexDecoding(),
                                                                     SeparateCoAuthors()])
    except Exception as exc:  # the parser's own failure on a file it can't take at all
        raise NotALibrary(f"it can't be read as BibTeX ({type(exc).__name__})") from exc
    entries = {id(entry) for entry in library.entries}
    blocks = sorted([*library.entries, *library.failed_blocks], key=lambda b: b.start_line or 0)
    for block in blocks:
        where = f"line {(block.start_line or 0) + 1}"
        if isinstance(block, DuplicateBlockKeyBlock):
            yield Rejected(where, DUPLICATE)
            continue
        if id(block) not in entries:
            yield Rejected(where, UNREADABLE)
            continue
        yield _bibtex_entry(where, block)


def _bibtex_entry(where: str, entry) -> LibraryEntry | Rejected:
    fields = {name.lower(): field.value for name, field in entry.fields_dict.items()}

    def text(name: str) -> str | None:
        value = fields.get(name)
        return value if isinstance(value, str) and value.strip() else None

    authors = fields.get("author") or []
    if isinstance(authors, str):
        authors = [authors]
    prefix = (text("archiveprefix") or text("eprinttype") or "arxiv").lower()
    eprint = text("eprint") if prefix == "arxiv" else None
    arxiv_notes = tuple(value for name in ("journal", "note", "howpublished", "publisher")
                        if (value := text(name)) and "arxiv" in value.lower())
    return entry_from_fields(where, title=text("title"), authors=authors, abstract=text("abstract"),
                             doi=text("doi"), url=text("url"), venue=text("journal") or text("booktitle"),
                             dates=(text("date"), text("year")), month=text("month"),
                             arxiv_hints=(eprint, *arxiv_notes))


# -- RIS --------------------------------------------------------------------------------------------


def _read_ris(text: str) -> Iterator[LibraryEntry | Rejected]:
    if not re.search(r"^\s*TY  - ", text, re.MULTILINE):
        return
    try:
        records = rispy.loads(text, skip_unknown_tags=True)
    except Exception as exc:  # rispy's own errors (a tag out of place, an entry never closed)
        raise NotALibrary(f"it can't be read as RIS ({exc})") from exc
    for number, record in enumerate(records, start=1):
        yield _ris_entry(f"entry {number}", record)


def _first(record: Mapping, *names: str) -> str | None:
    for name in names:
        value = record.get(name)
        if isinstance(value, list):
            value = next((v for v in value if isinstance(v, str) and v.strip()), None)
        if isinstance(value, str) and value.strip():
            return value
    return None


def _ris_entry(where: str, record: Mapping) -> LibraryEntry | Rejected:
    if not isinstance(record, Mapping):
        return Rejected(where, UNREADABLE)
    authors = [*(record.get("authors") or []), *(record.get("first_authors") or [])]
    notes = tuple(n for n in (record.get("notes") or []) if isinstance(n, str) and "arxiv" in n.lower())
    return entry_from_fields(
        where, title=_first(record, "title", "primary_title", "translated_title"),
        authors=[a for a in authors if isinstance(a, str)],
        abstract=_first(record, "abstract", "notes_abstract"), doi=_first(record, "doi"),
        url=_first(record, "urls", "url"),
        venue=_first(record, "journal_name", "secondary_title", "alternate_title3", "alternate_title1"),
        dates=(_first(record, "date"), _first(record, "year", "publication_year")),
        arxiv_hints=(*notes, _first(record, "number") if record.get("type_of_reference") == "RPRT" else None))


# -- Zotero's CSV -----------------------------------------------------------------------------------

#: Zotero's own column names (its CSV export), lower case.
_ZOTERO = {"title": "title", "author": "author", "doi": "doi", "url": "url", "abstract": "abstract note",
           "venue": "publication title", "year": "publication year", "date": "date", "extra": "extra"}


def _read_zotero_csv(text: str) -> Iterator[LibraryEntry | Rejected]:
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = csv_header(reader)
    except csv.Error as exc:
        raise NotALibrary(f"its first line is no CSV header ({exc})") from exc
    if header is None:
        return
    if _ZOTERO["title"] not in header:
        raise NotALibrary("a CSV without a Title column is no Zotero export: export the collection "
                          "from Zotero as CSV")
    for start, record in csv_records(reader, header):
        if isinstance(record, str):
            yield Rejected(f"line {start}", UNREADABLE)
            continue
        get = {key: (record.get(column) or "").strip() or None for key, column in _ZOTERO.items()}
        yield entry_from_fields(
            f"line {start}", title=get["title"], authors=(get["author"] or "").split(";"),
            abstract=get["abstract"], doi=get["doi"], url=get["url"], venue=get["venue"],
            dates=(get["date"], get["year"]),
            arxiv_hints=tuple(line for line in (get["extra"] or "").splitlines() if "arxiv" in line.lower()))
