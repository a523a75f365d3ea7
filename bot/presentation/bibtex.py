"""Papers as BibTeX a reference manager imports: one entry per paper (``@inproceedings`` with its
``booktitle`` for a conference paper, ``@article`` with its ``journal`` for a journal's, else ``@misc``:
a preprint, or a venue that says neither), with unique keys (first author's surname, year, first word
of the title, then a, b, … where two would meet), LaTeX's special characters escaped in every text
field, arXiv papers with ``eprint`` / ``archivePrefix`` / ``primaryClass``, DOIs and URLs kept.

TeX in titles, abstracts and names is first rendered as paper messages show it (``$\\Omega$`` as Ω):
escaped as it was typed, a reference manager would show the markup itself. Written with bibtexparser;
non-ASCII text becomes LaTeX through pylatexenc (what bibtexparser's own encoding middleware uses).
"""

from __future__ import annotations

import re
import string
import unicodedata
from collections.abc import Iterable
from functools import lru_cache

import bibtexparser
from bibtexparser.library import Library
from bibtexparser.model import Entry, Field
from pylatexenc.latexencode import (
    RULE_CALLABLE,
    RULE_DICT,
    UnicodeToLatexConversionRule,
    UnicodeToLatexEncoder,
)

from bot.presentation.paper_view import shown_text, shown_title
from storage import Paper
from storage.identity import is_published_venue

MISC, ARTICLE, INPROCEEDINGS = "misc", "article", "inproceedings"
#: Where each entry type names the paper's venue.
VENUE_FIELD = {ARTICLE: "journal", INPROCEEDINGS: "booktitle"}

#: LaTeX's ten special characters, escaped so that each reads back as itself.
SPECIALS = {
    "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{", "}": r"\}",
    "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "\\": r"\textbackslash{}",
}
_DEFAULTS = UnicodeToLatexEncoder(replacement_latex_protection="braces-all", unknown_char_policy="keep")


@lru_cache(maxsize=1024)
def _is_math(char: str) -> bool:
    """Whether LaTeX writes ``char`` as math (Ω as ``\\ensuremath{\\Omega}``, √ as an empty ``\\sqrt{}``)."""
    return "\\ensuremath" in _DEFAULTS.unicode_to_latex(char)


def _keep_math(text: str, pos: int) -> tuple[int, str] | None:
    """A math symbol stays Unicode (read back as itself): as LaTeX macros, √(T) would read "√()(T)"."""
    char = text[pos]
    return (1, char) if ord(char) > 127 and _is_math(char) else None


_ENCODER = UnicodeToLatexEncoder(
    conversion_rules=[UnicodeToLatexConversionRule(RULE_DICT, {ord(c): v for c, v in SPECIALS.items()}),
                      UnicodeToLatexConversionRule(RULE_CALLABLE, _keep_math), "defaults"],
    replacement_latex_protection="braces-all", unknown_char_policy="keep")

_DOI = re.compile(r"\b(10\.\d{4,9}/[^\s\"<>{}]+)")
_DOI_HOSTS = ("doi.org/", "dx.doi.org/")
_ARXIV_CATEGORY = re.compile(r"[a-z-]+(\.[A-Za-z-]+)?")
#: Venues told apart by their names: journals a conference's words would mistake first (the
#: Proceedings of the National Academy of Sciences is a journal), then conferences (by their words, or
#: the acronyms papers come with), then journals (by their words, or names such as "Machine Learning"
#: that a conference's name may also hold). A venue none of these fits stays ``@misc``.
_JOURNAL_FIRST = re.compile(r"\b(pnas|proceedings of the national academy|proceedings of the ieee|"
                            r"proceedings of the royal society|jmlr|tmlr|tacl|t-?pami|ijcv|jair)\b",
                            re.IGNORECASE)
_CONFERENCE = re.compile(
    r"\b(conference|proceedings|proc\.|symposium|workshops?|meeting|congress|colloquium|findings|"
    r"neurips|nips|icml|iclr|cvpr|iccv|eccv|wacv|bmvc|aaai|ijcai|acl|emnlp|naacl|eacl|coling|interspeech|"
    r"icassp|kdd|sigir|sigmod|vldb|icde|www|wsdm|cikm|recsys|corl|rss|icra|iros|hri|uai|aistats|colt|"
    r"l4dc|chi|uist|siggraph|stoc|focs|soda|miccai|pmlr)\b", re.IGNORECASE)
_JOURNAL = re.compile(r"\b(journal|transactions|trans\.|letters|review|reviews|magazine|annals|bulletin|"
                      r"nature|science|plos|elife|neural computation|neural networks|machine learning|"
                      r"artificial intelligence|ieee access|physical review)\b", re.IGNORECASE)
_STOPWORDS = frozenset({"a", "an", "the", "on", "of", "for", "in", "to", "with", "and", "towards", "via",
                        "from", "by", "is", "are", "at"})
#: What a URL or DOI field must not hold as it is: braces would unbalance the entry, and a bare ``%``
#: starts a comment for the tools that read the field as LaTeX (``\%`` reads back as ``%``).
_URL_UNSAFE = {"%": "\\%", **{c: "\\%" + f"{ord(c):02X}" for c in "{}\\ \t\n"}}


def latex(text: str) -> str:
    """``text`` on one line as LaTeX: the special characters escaped, other non-ASCII as LaTeX macros."""
    return _ENCODER.unicode_to_latex(" ".join(text.split()))


def doi_of(paper: Paper) -> str | None:
    """The paper's DOI: the one it is stored with, else one its id or URL carries."""
    if paper.doi:
        return paper.doi
    candidates = [paper.id.removeprefix("doi:")]
    if paper.url and any(host in paper.url.lower() for host in _DOI_HOSTS):
        candidates.append(paper.url)
    for text in candidates:
        match = _DOI.search(text)
        if match:
            return match.group(1).rstrip(".,;")
    return None


def bibtex(papers: Iterable[Paper]) -> str:
    """The papers as one BibTeX file (text), in the order given."""
    library = Library()
    taken: set[str] = set()
    for paper in papers:
        key = _unique(_key(paper), taken)
        kind = entry_type(paper.venue)
        library.add(Entry(kind, key, [Field(name, value) for name, value in _fields(paper, kind)]))
    return bibtexparser.write_string(library)


def entry_type(venue: str | None) -> str:
    """The BibTeX entry type for a paper published at ``venue``: "inproceedings" (a conference),
    "article" (a journal) or "misc" (arXiv, nothing, or a venue whose name says neither)."""
    name = " ".join((venue or "").split())
    if not is_published_venue(name):
        return MISC
    if _JOURNAL_FIRST.search(name):
        return ARTICLE
    if _CONFERENCE.search(name):
        return INPROCEEDINGS
    return ARTICLE if _JOURNAL.search(name) else MISC


def _fields(paper: Paper, kind: str = "misc") -> list[tuple[str, str]]:
    fields = [("title", latex(shown_title(paper)))]  # as paper messages show it: TeX rendered
    if paper.authors:
        fields.append(("author", " and ".join(_author(name) for name in paper.authors)))
    year = _year(paper)
    if year:
        fields.append(("year", year))
    if paper.arxiv_id:
        fields += [("eprint", paper.arxiv_id), ("archivePrefix", "arXiv")]
        category = next((c for c in paper.categories if _ARXIV_CATEGORY.fullmatch(c)), None)
        if category:
            fields.append(("primaryClass", category))
    if kind != MISC:
        fields.append((VENUE_FIELD[kind], latex(paper.venue or "")))
    elif is_published_venue(paper.venue):
        fields.append(("howpublished", latex(paper.venue or "")))
    doi = doi_of(paper)
    if doi:
        fields.append(("doi", _url(doi)))
    if paper.url:
        fields.append(("url", _url(paper.url)))
    if paper.abstract and paper.title:
        fields.append(("abstract", latex(shown_text(paper.abstract))))
    return fields


def _author(name: str) -> str:
    text = latex(shown_text(name))
    # A literal "and" inside one name would split it into two authors; braces keep it whole.
    return "{" + text + "}" if re.search(r"\band\b", name, re.IGNORECASE) else text


def _url(url: str) -> str:
    return "".join(_URL_UNSAFE.get(c, c) for c in url.strip())


def _year(paper: Paper) -> str | None:
    year = (paper.published or "")[:4]
    return year if len(year) == 4 and year.isdigit() else None


def _ascii_word(text: str) -> str:
    folded = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()
    return "".join(c for c in folded if c in string.ascii_lowercase + string.digits)


def _key(paper: Paper) -> str:
    first = paper.authors[0] if paper.authors else ""
    surname = first.split(",", 1)[0] if "," in first else (first.split() or [""])[-1]
    words = [_ascii_word(w) for w in shown_title(paper).split()]
    word = next((w for w in words if len(w) > 2 and w not in _STOPWORDS), "") or next(filter(None, words), "")
    return f"{_ascii_word(surname) or 'anon'}{_year(paper) or 'nd'}{word or 'paper'}"


def _unique(key: str, taken: set[str]) -> str:
    """``key``, or ``key`` with the first free suffix of a, b, …, z, aa, ab, …"""
    candidate, n = key, 0
    while candidate in taken:
        candidate, n = key + _suffix(n), n + 1
    taken.add(candidate)
    return candidate


def _suffix(n: int) -> str:
    letters = ""
    n += 1
    while n:
        n, rest = divmod(n - 1, 26)
        letters = string.ascii_lowercase[rest] + letters
    return letters
