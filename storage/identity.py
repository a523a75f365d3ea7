"""When two records are one paper, and what the merged paper keeps: pure functions on paper rows.

A paper is the same paper by its id (or an id it was once known by), by its arXiv id across versions, by
its DOI (any spelling), or by its normalised title with at least one author surname in common. Rows here
are the dicts the stores read and write (``storage.sqlite._paper_row`` plus ``doi`` and ``title_key``).
"""

from __future__ import annotations

import contextlib
import json
import re
import unicodedata
from collections.abc import Iterable

from pylatexenc.latex2text import LatexNodes2Text  # type: ignore[import-untyped]

#: Prefixes a DOI is written with, tried in order (lower case).
_DOI_PREFIXES = ("https://doi.org/", "http://doi.org/", "https://dx.doi.org/", "http://dx.doi.org/",
                 "doi.org/", "dx.doi.org/", "doi:")
_NOT_WORD = re.compile(r"[^\w]+|_+")
_SUFFIXES = {"jr", "sr", "ii", "iii", "iv"}
#: A shorter normalised title is too generic to tie two papers together ("Introduction").
MIN_TITLE_KEY = 8
#: Venues that say "not published yet".
_PREPRINT_VENUES = {"", "arxiv", "arxiv.org", "corr", "arxiv preprint", "preprint", "biorxiv", "medrxiv"}

_LATEX = LatexNodes2Text(math_mode="text", keep_comments=False)
#: What pylatexenc may read otherwise than as it stands, where a key would show it (``--`` and TeX's quotes
#: become other punctuation, which a key drops all the same).
_TEX = re.compile(r"[\\{}$%~&]")


def normal_doi(text: str | None) -> str | None:
    """``text`` as a bare lower-case DOI ("10.1145/3292500.3330701"), whichever way it was written
    (``doi:``, ``https://doi.org/``, ``http://dx.doi.org/``, any case); None when it is no DOI."""
    if not text:
        return None
    doi = text.strip().lower()
    for prefix in _DOI_PREFIXES:
        if doi.startswith(prefix):
            doi = doi[len(prefix):].strip()
            break
    return doi if doi.startswith("10.") and "/" in doi else None


def doi_alias(doi: str) -> str:
    """The alias a paper is known by through another version's (bare) DOI, a preprint's journal version's:
    the id a record of that DOI alone would have ("doi:10.1016/j.cell.2025.01.001")."""
    return "doi:" + doi


def plain(text: str) -> str:
    """``text`` with TeX markup rendered as text and accents taken off ("Schr\\"odinger" -> "Schrodinger"),
    for comparing: TeX's dashes and quotes are left as typed when nothing else is TeX (a key drops them)."""
    if _TEX.search(text):  # most titles and names hold no markup: pylatexenc costs ~1 ms a call
        with contextlib.suppress(Exception):  # markup pylatexenc can't read is compared as it is
            text = _LATEX.latex_to_text(text)
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def title_key(title: str | None) -> str | None:
    """What two spellings of one title share: TeX markup, accents, case, punctuation and spacing
    dropped. None for a title too short to identify a paper."""
    if not title:
        return None
    key = " ".join(_NOT_WORD.sub(" ", plain(title).casefold()).split())
    return key if len(key) >= MIN_TITLE_KEY else None


def surname(name: str) -> str | None:
    """The family name in an author's name, casefolded and without accents: "Ana Duarte", "A. Duarte"
    and "Duarte, Ana" all give "duarte"."""
    text = plain(name).strip()
    if "," in text:  # "Duarte, Ana", "Smith, Jr."
        text = text.partition(",")[0]
    words = [w for w in text.split() if w.casefold().strip(".") not in _SUFFIXES and not _is_initial(w)]
    return (_NOT_WORD.sub("", words[-1].casefold()) or None) if words else None


def _is_initial(word: str) -> bool:
    """"A", "A.", "J.-P.": letters standing for a name (two-letter surnames such as "Li" are not)."""
    letters = [ch for ch in word if ch.isalpha()]
    return len(letters) == 1 or ("." in word and len(letters) <= 3)


def surnames(authors: Iterable[str]) -> set[str]:
    """The surnames of ``authors``."""
    return {s for s in map(surname, authors) if s}


def share_a_surname(one: Iterable[str], other: Iterable[str]) -> bool:
    """Whether two author lists have a surname in common."""
    return bool(surnames(one) & surnames(other))


def is_published_venue(venue: str | None) -> bool:
    """Whether ``venue`` names where a paper was published (a conference, a journal), not a preprint
    server or nothing."""
    name = (venue or "").strip().casefold()
    return name not in _PREPRINT_VENUES and not name.startswith("arxiv")


def keys_of(row: dict) -> dict:
    """``row`` with its ``doi`` normalised and its ``title_key`` computed from its title."""
    return {**row, "doi": normal_doi(row.get("doi")), "title_key": title_key(row.get("title"))}


# -- merging -------------------------------------------------------------------------------------------

#: The fields a merge decides (besides the ids, which the kept row keeps).
MERGED_FIELDS = ("arxiv_id", "arxiv_version", "title", "abstract", "authors", "url", "venue", "published",
                 "categories", "doi", "title_key")

#: What is computed from the abstract (m033): it goes with the abstract a merge keeps. Apart from
#: :data:`MERGED_FIELDS` because m010 merges rows stored before these columns were.
ABSTRACT_FIELDS = ("highlight", "result")

#: How the text of the row merged in relates to the kept one's: a newer version of the same record
#: (its text wins), an older one (the kept text stays), or another source's record of it (the fuller wins).
NEWER, OLDER, PEER = "newer", "older", "peer"


def combine(kept: dict, other: dict, how: str) -> dict:
    """``kept`` with ``other`` merged in (see :data:`NEWER`): the kept id; the newest record's text,
    authors and categories, or from two sources the fullest text, every author with the fullest spelling
    of each name and every category; the venue of the published version; the DOI and the arXiv id
    either has."""
    out = dict(kept)
    out["categories"] = _dump(list(dict.fromkeys(json.loads(kept["categories"] or "[]")
                                                 + json.loads(other["categories"] or "[]"))))
    if how == NEWER:  # the record itself, corrected or a later version: it says what its text is now
        for field in ("title", "abstract", "authors", "url", "published", "categories"):
            out[field] = other[field]
    elif how == PEER:
        out["title"] = _longer(kept["title"], other["title"])
        out["abstract"] = _longer(kept["abstract"], other["abstract"])
        out["authors"] = _dump(fuller_authors(json.loads(kept["authors"] or "[]"),
                                              json.loads(other["authors"] or "[]")))
        out["url"] = kept["url"] or other["url"]
        out["published"] = kept["published"] or other["published"]
    out["venue"] = _venue(kept["venue"], other["venue"], prefer_other=how == NEWER)
    out["doi"] = kept["doi"] or other["doi"]
    if not kept["arxiv_id"] or kept["arxiv_id"] == other["arxiv_id"]:
        out["arxiv_id"] = kept["arxiv_id"] or other["arxiv_id"]
        versions = [v for v in (kept["arxiv_version"], other["arxiv_version"]) if v]
        out["arxiv_version"] = max(versions) if versions else None
    out["title_key"] = title_key(out["title"])
    out.update(_abstract_fields(out["abstract"], kept, other))
    return out


def _abstract_fields(abstract: str | None, kept: dict, other: dict) -> dict:
    """The highlights of the merged paper, whose abstract is ``abstract``: those of the row it came from (the
    record's when both have it and the record's were computed), none when neither computed them for it."""
    if abstract == other.get("abstract") and (other.get("highlight") is not None
                                               or abstract != kept.get("abstract")):
        source = other
    elif abstract == kept.get("abstract"):
        source = kept
    else:
        return dict.fromkeys(ABSTRACT_FIELDS)
    return {f: source.get(f) for f in ABSTRACT_FIELDS}


def fuller_authors(one: list[str], other: list[str]) -> list[str]:
    """The authors of both lists, in ``one``'s order then the rest of ``other``'s, each name spelled as
    fully as either list has it ("A. Duarte" and "Ana Duarte" give "Ana Duarte")."""
    if not one or not other:
        return list(one or other)
    theirs: dict[str, str] = {}
    for name in other:
        theirs.setdefault(surname(name) or name, name)
    out, seen = [], set()
    for name in one:
        key = surname(name) or name
        better = theirs.get(key, name)
        out.append(better if _letters(better) > _letters(name) else name)
        seen.add(key)
    out += [name for key, name in theirs.items() if key not in seen]
    return out


def differs(before: dict, after: dict) -> bool:
    """Whether a merge changed anything of a row."""
    return any(before.get(f) != after.get(f) for f in (*MERGED_FIELDS, *ABSTRACT_FIELDS))


def _letters(name: str) -> int:
    return sum(ch.isalpha() for ch in name)


def _longer(one: str | None, other: str | None) -> str | None:
    return other if len(other or "") > len(one or "") else one


def _venue(kept: str | None, other: str | None, prefer_other: bool) -> str | None:
    published = [v for v in ((other, kept) if prefer_other else (kept, other)) if is_published_venue(v)]
    if published:
        return published[0]
    return (other or kept) if prefer_other else (kept or other)


def _dump(items: list[str]) -> str:
    return json.dumps(items, ensure_ascii=False)
