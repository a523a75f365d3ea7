"""Shared clean-up for every source: arXiv ids, titles, authors, dates and stable ids."""

from __future__ import annotations

import hashlib
import re
from datetime import date, datetime
from typing import Any

from bot.sources.records import BadRecord
from storage.identity import normal_doi
from storage.models import Paper

#: Longest derived title, "…" included.
TITLE_LIMIT = 90
#: Most words of a derived title: about what a paper's real title has…
MAX_TITLE_WORDS = 12
#: …or a little more when it is a whole first sentence, which reads better than one cut.
MAX_SENTENCE_WORDS = 16
#: A first clause this short ("In this paper", "Recently") leads in and is left out of the title.
MAX_LEAD_IN_WORDS = 4
# First words of a short opening clause that leads in ("In this work,", "Recently,", "However,").
_LEAD_IN_STARTS = frozenset(
    "in here recently however moreover furthermore additionally nowadays today traditionally typically "
    "currently historically consequently therefore thus hence specifically notably importantly "
    "although though while despite unlike to for as over with since given motivated inspired".split()
)
#: A shorter clause says too little to be a title…
MIN_CLAUSE_WORDS = 3
#: …and one shorter than this takes the next clause too when that fits.
ENOUGH_CLAUSE_WORDS = 6
# Words a title-like line must not end on: it would read as cut off.
_DANGLING = frozenset(
    "a an and are as at based but by for from in including into is its like of on or our such than that the "
    "their "
    "these this to using via was we were which while whose with within without".split()
)

_WS = re.compile(r"\s+")

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

# A sentence ends at . ! or ? followed by a capitalised word (or the end). Requiring the capital
# keeps "e.g., route planning" and "en.wikipedia.org" inside their sentence.
_SENTENCE_END = re.compile(r"[.!?](?=\s+[A-Z\"'(\[]|\s*$)")
# Where a clause ends inside a sentence: a comma, semicolon or colon, a dash, an opening bracket.
_CLAUSE_END = re.compile(r"[,;:](?=\s)|\s[–—]\s|\s--?\s|\s(?=\()")


def collapse_ws(text: str) -> str:
    """Strip ``text`` and turn every run of whitespace into one space."""
    return _WS.sub(" ", text).strip()


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


def derive_title(abstract: str, limit: int = TITLE_LIMIT) -> str:
    """A short, title-like line for an untitled paper (see :func:`split_title`)."""
    return split_title(abstract, limit)[0]


def split_title(abstract: str, limit: int = TITLE_LIMIT) -> tuple[str, str]:
    """A title-like line for ``abstract``, and the abstract text to show below it."""
    return first_sentence_title(abstract, limit)


def first_sentence_title(abstract: str, limit: int = TITLE_LIMIT) -> tuple[str, str]:
    """A title-like line from the start of ``abstract``, and the abstract text after what it took.

    The title is the first sentence when it is short (at most ``MAX_SENTENCE_WORDS`` words and ``limit``
    characters, full stop dropped), else that sentence's first clause (with the next ones while it is
    very short), after a short lead-in such as "In this paper," (which is skipped). Only when no clause
    is short enough is it cut at a word, before any dangling "of", "the", "such as"…, ending in "…".
    The rest is what a reader has not seen yet: the next sentences, or the remainder of the first one
    led by "…"; "" when the title took everything.
    """
    text = collapse_ws(abstract)
    end = _SENTENCE_END.search(text)
    sentence = text[: end.start()] if end else text
    after = text[end.end():].strip() if end else ""
    if _words(sentence) <= MAX_SENTENCE_WORDS and len(sentence) <= limit:
        return sentence, after
    start, lead_in = 0, False
    first = _CLAUSE_END.search(sentence)
    if first and _is_lead_in(sentence[: first.start()]):
        start, lead_in = len(sentence) - len(sentence[first.end():].lstrip()), True
    tidy = _capitalised if lead_in else str
    best = None  # (clause, where it ends)
    for boundary in _CLAUSE_END.finditer(sentence, start):
        clause = sentence[start: boundary.start()].strip()
        if not _fits(clause, limit):
            break
        if _words(clause) >= MIN_CLAUSE_WORDS and not _dangles(clause.split()[-1]):
            best = clause, boundary.start()
            if _words(clause) >= ENOUGH_CLAUSE_WORDS:  # "We propose DRAGO" takes its ", a …" too
                break
    if best is not None:
        return tidy(best[0]), _continued(text, best[1])
    title = _cut(sentence[start:], limit)
    return tidy(title) + "…", _continued(text, start + len(title))


def _words(text: str) -> int:
    return len(text.split())


def _is_lead_in(clause: str) -> bool:
    words = clause.split()
    return 0 < len(words) <= MAX_LEAD_IN_WORDS and words[0].lower() in _LEAD_IN_STARTS


def _fits(text: str, limit: int) -> bool:
    return _words(text) <= MAX_TITLE_WORDS and len(text) <= limit


def _cut(text: str, limit: int) -> str:
    """The longest start of ``text`` of whole words that fits (with an "…" after it), without a dangling
    function word or punctuation at its end; a single word longer than that is cut inside."""
    words = text.split(" ")[:MAX_TITLE_WORDS]
    while len(words) > 1 and (len(" ".join(words)) > limit - 1 or _dangles(words[-1])):
        words.pop()
    cut = " ".join(words)[: limit - 1]
    stripped = cut.rstrip(" ,;:-–—(")
    return stripped or cut


def _dangles(word: str) -> bool:
    return word.lower() in _DANGLING or word[-1:] in ",;:-–—("


def _capitalised(title: str) -> str:
    return title[:1].upper() + title[1:]


def _continued(text: str, taken: int) -> str:
    """What follows the first ``taken`` characters of ``text``, led by "…" (it goes on a sentence)."""
    rest = text[taken:].lstrip(" ,;:-–—")
    return "…" + rest if rest else ""


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
    the sha1 of the abstract. A missing title is derived from the abstract. ``doi`` is kept bare and
    lower case however it was written (``doi:``, ``https://doi.org/…``); raises BadRecord when it is
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
    )


def kind(value: Any) -> str:
    """How a JSON-ish value's type reads in a reason: "a list", "a number", "null"…"""
    names = {dict: "an object", list: "a list", str: "a string", bool: "true/false", int: "a number"}
    names.update({float: "a number", type(None): "null"})
    return names.get(type(value), type(value).__name__)
