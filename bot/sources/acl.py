"""The papers of one volume of the ACL Anthology, read from its published BibTeX (``PAPERBOT_ACL_URL``).

``acl:VOLUME`` names a volume as the Anthology's volume URLs do (``acl:2025.acl-long`` for
https://aclanthology.org/volumes/2025.acl-long/; an older volume by its letter id, ``acl:P19-1``). The
volume's file, ``{base}/volumes/{VOLUME}.bib``, holds one ``@inproceedings`` (or ``@article``) entry a
paper, in the format the Anthology writes every entry (double-quoted values, ``author = "Last, First  and
…"``, ``month = jul`` as a macro, ``url = "https://aclanthology.org/2025.acl-long.1/"``, ``doi``), with
its ``abstract`` when the Anthology has one; the volume's frontmatter (``@proceedings``, paper 0) is the
volume itself, not a paper, and is passed over without a word. An entry without an abstract is looked up
in the paper's own file, ``{base}/{ID}.bib`` (at most :data:`MAX_LOOKUPS` a read, through the fetcher's
limiter: one request a second, :mod:`bot.sources.http`); one that has none there either is one
:class:`Rejected`.

TeX in titles, names and abstracts (``{BERT}``, ``\\"{o}``, ``{---}``, ``{\\%}``) is read as plain text
with :func:`bot.text.tex.tex_to_text`. A paper's id is ``acl:`` and its Anthology id
(``acl:2025.acl-long.1``), its url the Anthology page, its venue the volume's booktitle (or journal).

A volume that doesn't exist (404) is a SourceError naming the form; an answer that is HTML, not BibTeX,
too. An entry the parser can't read, or of megabytes, is one Rejected and the rest goes on; a body that
breaks off keeps the entries before the break and says so, and the read isn't :attr:`Volume.complete`
(the caller reads it again next time).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import takewhile
from typing import TYPE_CHECKING

from bot.sources.http import Fetcher
from bot.sources.normalize import build_paper
from bot.sources.progress import Progress, Ticker
from bot.sources.records import BadRecord, Rejected, SourceError
from bot.text.tex import tex_to_text
from bot.text.whitespace import collapse_ws
from storage.models import Paper

if TYPE_CHECKING:
    from bibtexparser import Library
    from bibtexparser.model import Block, Entry

#: The Anthology's own address: the canonical page of a paper, whatever mirror the files come from.
ANTHOLOGY = "https://aclanthology.org"
#: Papers without an abstract in the volume's file looked up in their own file, in one read: a volume of an
#: older year whose file holds no abstract at all (and whose papers mostly have none either) would
#: otherwise take a request a paper, a thousand and more.
MAX_LOOKUPS = 200
#: Days a volume read whole rests before ``paperbot ingest`` reads it again (for the Anthology's corrections).
REREAD_DAYS = 7
#: The longest title and abstract taken, in characters: an ACL abstract is a paragraph (at most a few
#: hundred words), so anything far longer is a broken record, skipped rather than stored and indexed.
MAX_TEXT = 20_000
#: How a volume is written: ``2025.acl-long``, ``2023.latechclfl-1``, ``2024.findings-emnlp``; or an older
#: volume's letter id, ``P19-1``, ``W18-64``.
_VOLUME = re.compile(r"^(?:\d{4}\.[a-z0-9]+(?:-[a-z0-9]+)*|[A-Z]\d{2}-\d{1,2})$")
_FORM = ("acl:VOLUME, e.g. acl:2025.acl-long, as in the Anthology's volume URLs "
         "(the volumes are listed at https://aclanthology.org/)")
_MONTHS = {name: number for number, name in enumerate(
    ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"), start=1)}
_SHOWN = 60

# bibtexparser tells of every block it could not read on its own logger; each is a Rejected here instead.
logging.getLogger("bibtexparser").setLevel(logging.ERROR)


def is_source(source: str) -> bool:
    """Whether ``source`` is an ``acl:`` source."""
    return source[:4].lower() == "acl:"


def parse_source(source: str) -> str:
    """The volume of ``acl:VOLUME`` (a new-style id in lower case, as the Anthology writes it); SourceError,
    one line naming the form, for anything else."""
    volume = source[4:].strip().strip("/")
    if volume.lower().startswith(("https://aclanthology.org/volumes/", "aclanthology.org/volumes/")):
        volume = volume.rsplit("/", 1)[-1]  # the volume page's URL, pasted: its last part is the volume
    volume = volume.removesuffix(".bib")
    if volume[:1].isdigit():
        volume = volume.lower()
    if not _VOLUME.match(volume):
        shown = f" '{volume[:_SHOWN]}'" if volume else ""
        raise SourceError(f"acl: needs a volume{shown and ', not' + shown}: {_FORM}")
    return volume


def source_name(volume: str) -> str:
    """The source of a volume, as reports and cursors name it: ``acl:2025.acl-long``."""
    return f"acl:{volume}"


def volume_url(base: str, volume: str) -> str:
    """The volume's BibTeX file."""
    return f"{base.rstrip('/')}/volumes/{volume}.bib"


def paper_url(base: str, anthology_id: str) -> str:
    """One paper's own BibTeX file (which holds its abstract when the Anthology has one)."""
    return f"{base.rstrip('/')}/{anthology_id}.bib"


@dataclass
class Volume:
    """What reading a volume found, filled in as it is read."""

    #: Papers the volume's file lists (its frontmatter not counted).
    entries: int = 0
    #: Papers looked up in their own file for an abstract.
    looked_up: int = 0
    #: Lookups that failed (unreachable, HTML): the read is read again next time.
    failed: int = 0
    #: The volume's file broke off inside an entry (a truncated body).
    broke_off: bool = False
    #: The whole file was read and every lookup answered: a later read may rest.
    complete: bool = False


def read_volume(volume: str, *, fetcher: Fetcher, found: Volume,
                progress: Progress | None = None) -> Iterator[Paper | Rejected]:
    """Yield a Paper or a Rejected for each paper of ``volume``; SourceError, while iterating, when its
    file can't be read at all (no such volume, unreachable, HTML)."""
    text = _bibtex(fetcher, volume_url(fetcher.acl_url, volume), volume)
    blocks = _blocks(text)
    # A file the Anthology wrote ends with an entry's closing brace: a last block that can't be read in a
    # body ending otherwise is where the body broke off.
    cut = not text.rstrip().endswith("}")
    lines = text.splitlines()
    ticker = Ticker(progress, len(blocks))
    for number, block in enumerate(blocks, start=1):
        item = _read_block(block, volume, fetcher, found, last=cut and number == len(blocks), lines=lines)
        if item is not None:
            yield item
        ticker.tick(number)
    if cut and not found.broke_off:  # cut between two entries, or inside a comment
        found.broke_off = True
        yield Rejected("the end of the file", "the answer broke off (a truncated body?)")
    ticker.finish(len(blocks))
    found.complete = not found.broke_off and not found.failed


def entries_in(volume: str, fetcher: Fetcher) -> int:
    """How many papers the volume's file lists, in one request and without lookups (``paperbot doctor``'s
    check that the Anthology answers, and knows the volume); SourceError as :func:`read_volume`."""
    text = _bibtex(fetcher, volume_url(fetcher.acl_url, volume), volume)
    from bibtexparser.model import Entry

    return sum(1 for block in _blocks(text) if isinstance(block, Entry) and not _frontmatter(block, volume))


def _bibtex(fetcher: Fetcher, url: str, volume: str) -> str:
    try:
        body = fetcher.get(url)
    except SourceError as exc:
        if "HTTP 404" in str(exc):
            raise SourceError(f"the ACL Anthology has no volume '{volume}' ({url}): {_FORM}") from None
        raise
    text = body.decode("utf-8", "replace")
    start = text[:200].lstrip().lower()
    if start.startswith(("<!doctype html", "<html")):
        raise SourceError(f"{url}: the answer was HTML, not BibTeX")
    if not text.strip():
        raise SourceError(f"{url}: the answer was empty")
    if "@" not in text[:4096]:
        raise SourceError(f"{url}: the answer was not BibTeX")
    return text


def _parsed(text: str) -> Library:
    import bibtexparser  # here: its import costs every paperbot process ~60 ms, and few read the Anthology

    return bibtexparser.parse_string(text)


def _blocks(text: str) -> list[Block]:
    """The entries and the blocks the parser couldn't read, in file order (comments left out)."""
    library = _parsed(text)
    blocks = [*library.entries, *library.failed_blocks]
    return sorted(blocks, key=lambda b: b.start_line or 0)


def _read_block(block: Block, volume: str, fetcher: Fetcher, found: Volume,
                last: bool, lines: list[str]) -> Paper | Rejected | None:
    from bibtexparser.model import DuplicateBlockKeyBlock, Entry, ParsingFailedBlock

    where = f"entry at line {(block.start_line or 0) + 1}"
    if isinstance(block, DuplicateBlockKeyBlock):
        return Rejected(where, "a second entry of the same key")
    if isinstance(block, ParsingFailedBlock):
        named = _named(lines, block.start_line or 0)
        if last:
            found.broke_off = True
            return Rejected(named or where, "the answer broke off inside this entry (a truncated body?)")
        return Rejected(named or where, "an entry that can't be read as BibTeX")
    if not isinstance(block, Entry) or _frontmatter(block, volume):
        return None
    found.entries += 1
    fields = _fields(block)
    anthology_id = _anthology_id(fields.get("url", ""))
    if anthology_id is None:
        return Rejected(where, f"no Anthology URL ('{fields.get('url', '')[:_SHOWN]}')")
    if not fields.get("abstract", "").strip():
        if found.looked_up >= MAX_LOOKUPS:
            return Rejected(anthology_id, f"no abstract in the volume's file ({MAX_LOOKUPS} papers were "
                                          "looked up in their own this read)")
        found.looked_up += 1
        try:
            fields["abstract"] = _own_abstract(fetcher, anthology_id)
        except SourceError as exc:
            found.failed += 1
            return Rejected(anthology_id, str(exc))
    try:
        return _paper(fields, anthology_id)
    except BadRecord as exc:
        return Rejected(anthology_id, str(exc))


def _frontmatter(entry: Entry, volume: str) -> bool:
    """The volume's own entry: ``@proceedings`` (or ``@book``), or its paper 0 (``2025.acl-long.0``; of an
    older volume, the paper number all zeros: ``P19-1000`` of ``P19-1``, ``W18-6400`` of ``W18-64``)."""
    if entry.entry_type.lower() in ("proceedings", "book"):
        return True
    anthology_id = _anthology_id(_value(entry.fields_dict.get("url"))) or ""
    number = anthology_id[len(volume):].lstrip(".") if anthology_id.startswith(volume) else ""
    return bool(number) and not number.strip("0")


def _fields(entry: Entry) -> dict[str, str]:
    return {name.lower(): _value(field) for name, field in entry.fields_dict.items()}


def _value(field: object) -> str:
    value = getattr(field, "value", None)
    return value if isinstance(value, str) else ""


_ID_IN_URL = re.compile(r"^https?://[^/]+/(?:anthology/)?([A-Za-z0-9.\-]+?)(?:\.pdf)?/?$")


def _anthology_id(url: str) -> str | None:
    match = _ID_IN_URL.match(url.strip())
    if not match or not re.search(r"\.\d+$|^[A-Z]\d{2}-\d{4}$", match[1]):
        return None
    return match[1]


def _named(lines: list[str], start: int) -> str | None:
    """The Anthology id of an entry the parser couldn't read (from line ``start`` to the next entry's),
    when its url can still be told."""
    for line in lines[start:start + 1] + list(takewhile(lambda t: not t.startswith("@"), lines[start + 1:])):
        if match := re.match(r"\s*url\s*=\s*[\"{]\s*(\S+?)\s*[\"}]", line):
            return _anthology_id(match[1])
    return None


def _own_abstract(fetcher: Fetcher, anthology_id: str) -> str:
    """The abstract of the paper's own .bib file, or "" when it has none (or no such file: a 404 is an
    answer, not a failure to read again); SourceError when it can't be fetched."""
    url = paper_url(fetcher.acl_url, anthology_id)
    try:
        body = fetcher.get(url).decode("utf-8", "replace")
    except SourceError as exc:
        if "HTTP 404" in str(exc):
            return ""
        raise
    if body[:200].lstrip().lower().startswith(("<!doctype html", "<html")):
        raise SourceError(f"{url}: the answer was HTML, not BibTeX")
    for entry in _parsed(body).entries:
        abstract = _value(entry.fields_dict.get("abstract"))
        if abstract.strip():
            return abstract
    return ""


def _paper(fields: dict[str, str], anthology_id: str) -> Paper:
    title, abstract = fields.get("title", ""), fields.get("abstract", "")
    if len(title) + len(abstract) > MAX_TEXT:
        raise BadRecord(f"{len(title) + len(abstract):,} characters of title and abstract: too long")
    if not title.strip():
        raise BadRecord("no title")
    return build_paper(
        id=f"acl:{anthology_id}", title=tex_to_text(title), abstract=tex_to_text(abstract),
        authors=authors(fields.get("author", "")), url=f"{ANTHOLOGY}/{anthology_id}/",
        venue=tex_to_text(fields.get("booktitle") or fields.get("journal") or "") or None,
        published=_published(fields.get("year", ""), fields.get("month", "")), doi=fields.get("doi") or None,
    )


def authors(value: str) -> list[str]:
    """BibTeX's ``Last, First  and  …`` (or ``First Last``, ``Last, Jr., First``) as "First Last" names, TeX
    read as text."""
    names = []
    for name in re.split(r"\s+and\s+", collapse_ws(value)):
        parts = [part.strip() for part in name.split(",")]
        if len(parts) == 2:
            name = f"{parts[1]} {parts[0]}"
        elif len(parts) >= 3:
            name = f"{parts[2]} {parts[0]} {parts[1]}"
        name = tex_to_text(name).strip()
        if name:
            names.append(name)
    return names


def _published(year: str, month: str) -> str | None:
    """The first day of the entry's month (``month = jul``, or ``"July"``, ``"7"``) of its year, or of its
    year when the month can't be read; None without a year."""
    year = year.strip()
    if not re.fullmatch(r"\d{4}", year):
        return None
    month = month.strip().lower()
    number = int(month) if month.isdigit() else _MONTHS.get(month[:3], 1)
    return f"{year}-{number if 1 <= number <= 12 else 1:02d}-01"
