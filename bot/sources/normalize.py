"""Shared clean-up for every source: arXiv ids, titles, authors, dates and stable ids."""

from __future__ import annotations

import hashlib
import re
from datetime import date, datetime
from typing import Any

from bot.sources.records import BadRecord
from bot.text.highlights import highlights
from bot.text.titles import derive_title
from bot.text.whitespace import collapse_ws
from storage.identity import normal_doi
from storage.models import Paper

# New-style ids are YYMM.NNNN (2007-2014) or YYMM.NNNNN (2015-); checking the month keeps
# ordinary decimals such as "1234.5678" from passing as arXiv ids.
_NEW_ID = r"\d{2}(?:0[1-9]|1[0-2])\.\d{4,5}"
# Old-style ids (before 2007): archive, optional subject class, slash, YYMMNNN, e.g. hep-th/9901001,
# math.GT/0309136. The archives are a closed list, which keeps ids like "posts/1234567" out.
_OLD_ARCHIVES = (
    "acc-phys adap-org alg-geom ao-sci astro-ph atom-ph bayes-an chao-dyn chem-ph cmp-lg comp-gas "
    "cond-mat cs dg-ga funct-an gr-qc hep-ex hep-lat hep-ph hep-th math math-ph mtrl-th nlin nucl-ex "
    "nucl-th patt-sol physics plasm-ph q-alg q-bio quant-ph solv-int supr-con"
).split()
_OLD_ID = rf"(?:{'|'.join(_OLD_ARCHIVES)})(?:\.[A-Z]{{2}})?/\d{{2}}(?:0[1-9]|1[0-2])\d{{3}}"
_ID = rf"(?P<base>{_NEW_ID}|{_OLD_ID})(?:v(?P<version>\d+))?"
_ARXIV_ID = re.compile(
    r"^(?:"
    r"(?:arxiv:|oai:arxiv\.org:)?"
    r"|(?:https?://)?(?:www\.|export\.)?arxiv\.org/(?:abs|pdf)/"
    rf"){_ID}(?:\.pdf)?/?(?:[?#].*)?$",
    re.IGNORECASE | re.ASCII,  # \d is 0-9 only: "٢٤٠١.١٢٣٤٥" is no arXiv id
)


def parse_arxiv_id(text: str) -> tuple[str, int | None] | None:
    """The arXiv id in ``text`` as ``(base id, version or None)``, or None if it isn't one.

    Accepts the whole of ``text`` as ``2401.12345``, ``2401.12345v3``, ``hep-th/9901001v2``,
    ``arXiv:…``, ``oai:arXiv.org:…`` (arXiv RSS guids) and ``http(s)://arxiv.org/abs/…`` or
    ``/pdf/….pdf`` URLs. Every version of a paper gives the same base id, which is what ties
    them together.
    """
    match = _ARXIV_ID.match(text.strip())
    if match is None:
        return None
    base = match.group("base")
    version = match.group("version")
    return base, int(version) if version else None


def arxiv_abs_url(base: str) -> str:
    """The abstract page of an arXiv paper."""
    return f"https://arxiv.org/abs/{base}"


def stable_id(abstract: str) -> str:
    """An id that is the same on every re-ingest of the same abstract: ``sha1:`` + 12 hex digits."""
    # A content key, not a security measure: sha1 is fine and keeps ids short and familiar.
    digest = hashlib.sha1(collapse_ws(abstract).encode("utf-8"), usedforsecurity=False).hexdigest()
    return f"sha1:{digest[:12]}"




def split_authors(value: Any) -> list[str]:
    """Authors from a list of names or a ``;``-separated string; raises BadRecord otherwise."""
    if value is None:
        return []
    if isinstance(value, str):
        names = value.split(";")
    elif isinstance(value, list) and all(isinstance(name, str) for name in value):
        names = value
    else:
        raise BadRecord(f"authors must be a list of names or a ';'-separated string, not {kind(value)}")
    return [collapse_ws(name) for name in names if name.strip()]


def split_categories(value: Any) -> list[str]:
    """Categories from a list or a string separated by ``;``, ``,`` or spaces; raises BadRecord."""
    if value is None:
        return []
    if isinstance(value, str):
        items = re.split(r"[;,\s]+", value)
    elif isinstance(value, list) and all(isinstance(item, str) for item in value):
        items = value
    else:
        raise BadRecord(f"categories must be a list or a string, not {kind(value)}")
    return unique(item.strip() for item in items if item.strip())


def normalize_date(value: Any) -> str | None:
    """An ISO date or date-time as ``YYYY-MM-DD``; None when empty; raises BadRecord when invalid."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise BadRecord(f"published must be an ISO date string, not {kind(value)}")
    text = value.strip()
    if not text:
        return None
    try:
        return date.fromisoformat(text).isoformat()
    except ValueError:
        pass
    try:
        return datetime.fromisoformat(text).date().isoformat()
    except ValueError:
        raise BadRecord(f"bad published date '{text}'") from None


def unique(items: Any) -> list[str]:
    """``items`` without repeats, first occurrence kept."""
    return list(dict.fromkeys(items))


def build_paper(
    *,
    abstract: str,
    id: str | None = None,
    title: str | None = None,
    authors: list[str] | None = None,
    url: str | None = None,
    venue: str | None = None,
    published: str | None = None,
    categories: list[str] | None = None,
    arxiv: tuple[str, int | None] | None = None,
    doi: str | None = None,
    allow_empty_abstract: bool = False,
) -> Paper:
    """Assemble a Paper from already-typed fields, filling in what is missing the same way everywhere.

    Raises BadRecord("no abstract") when the abstract is empty. The arXiv id comes from ``arxiv``,
    else from ``id`` or ``url`` when they are arXiv ids. The id is, in order: ``arxiv:BASE`` when
    ``id`` itself is an arXiv id or there is no ``id`` but an arXiv id is known; ``id`` as given;
    the sha1 of the abstract. A missing title is derived from the abstract, and the highlights (the
    contribution and main-finding sentences, ``bot/text/highlights.py``) come from it. ``doi`` is kept
    bare and lower case however it was written (``doi:``, ``https://doi.org/…``); raises BadRecord when it is
    not a DOI.
    """
    abstract = collapse_ws(abstract)
    title = collapse_ws(title) if title else ""
    bare_doi = normal_doi(doi) if doi and doi.strip() else None
    if doi and doi.strip() and bare_doi is None:
        raise BadRecord(f"bad DOI '{collapse_ws(doi)[:60]}'")
    if not abstract and not (allow_empty_abstract and title):
        raise BadRecord("no abstract")
    id = id.strip() if id else None
    url = url.strip() if url else None
    id_arxiv = parse_arxiv_id(id) if id else None
    arxiv = arxiv or id_arxiv or (parse_arxiv_id(url) if url else None)
    if arxiv and (id is None or id_arxiv):
        # An explicit id that is itself an arXiv id means the same paper as arxiv:BASE, whichever
        # version or spelling it used, so it gets the one key that dedupes across sources.
        id = f"arxiv:{arxiv[0]}"
    lines = highlights(title, abstract)
    return Paper(
        id=id or stable_id(abstract or title),
        abstract=abstract,
        title=title or derive_title(abstract),
        authors=authors or [],
        url=url or (arxiv_abs_url(arxiv[0]) if arxiv else None),
        venue=collapse_ws(venue) if venue and venue.strip() else None,
        published=published,
        categories=categories or [],
        arxiv_id=arxiv[0] if arxiv else None,
        arxiv_version=arxiv[1] if arxiv else None,
        doi=bare_doi,
        highlight=lines.what,
        result=lines.result,
    )


def kind(value: Any) -> str:
    """How a JSON-ish value's type reads in a reason: "a list", "a number", "null"…"""
    names = {dict: "an object", list: "a list", str: "a string", bool: "true/false", int: "a number"}
    names.update({float: "a number", type(None): "null"})
    return names.get(type(value), type(value).__name__)
