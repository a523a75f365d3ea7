"""Papers as BibTeX a reference manager imports: one entry per paper (``@inproceedings`` with its
``booktitle`` for a conference paper, ``@article`` with its ``journal`` for a journal's, else ``@misc``:
a preprint, or a venue that says neither), a ``year`` from the publication date or else the venue
("CoRL 2025"), unique keys (``zhang2025blockwise``: first author's surname, year, first title word that
is not a stopword, then a, b, … where two would meet), LaTeX's special characters escaped in every text
field, arXiv papers with ``eprint`` / ``archivePrefix`` / ``primaryClass``, DOIs and URLs kept.

TeX and markup in titles, abstracts, names and venues are first read as paper messages show them
(``$\\Omega$`` as Ω, ``**x**`` as x): escaped as typed, a reference manager would show the markup
itself. Written with bibtexparser; accented letters and text symbols become LaTeX macros through
pylatexenc (what bibtexparser's own encoding middleware uses), maths and scripts stay Unicode (``10⁴``).
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
from pylatexenc.latexencode import UnicodeToLatexEncoder

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
_DEFAULTS = UnicodeToLatexEncoder(replacement_latex_protection="braces-all", unknown_char_policy="keep",
                                  unknown_char_warning=False)
#: Characters kept as Unicode: scripts (``10⁴``, ``θₜ``) read as themselves in a UTF-8 .bib, where a
#: character in braces (``10{⁴}``) or a textcomp macro would not, or not alike.
_SCRIPTS = frozenset("⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ⁱⁿ₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓᵃᵇᶜᵈᵉᶠᵍʰʲᵏˡᵐᵒᵖʳˢᵗᵘᵛʷˣʸᶻ"
                     "ᴬᴮᴰᴱᴳᴴᴵᴶᴷᴸᴹᴺᴼᴾᴿᵀᵁⱽᵂᵅᵝᵞᵟᵋᶿᶥᵠᵡᵦᵧᵨᵩᵪ")


@lru_cache(maxsize=4096)
def _encoded(char: str) -> str:
    """One non-ASCII character as LaTeX: a letter or text symbol as its macro in braces (ë as
    ``{\\"e}``, – as ``{\\textendash}``); anything else (maths, Greek, scripts) as itself, never in
    braces of its own (as LaTeX macros, √(T) would read "√()(T)")."""
    if char in _SCRIPTS:
        return char
    encoded = _DEFAULTS.unicode_to_latex(char)
    if "\\" not in encoded or "\\ensuremath" in encoded:
        return char
    return encoded


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
#: Title words a key never takes (``zhang2025blockwise``, not ``zhang2025a``).
_STOPWORDS = frozenset("""a an the on of for in to with and or towards toward via from by is are be at into
    onto over under as do does can how what when why which who we our your you it its this that these those
    not no vs versus using about through without within between beyond all""".split())
#: Lower-case words that belong to the surname after them ("Ludwig van der Maaten": "van der Maaten").
_PARTICLES = frozenset("van von der den de del della degli di da dos das du la le ter ten bin ibn al el af "
                       "zu vom zum y".split())
_SUFFIXES = frozenset({"jr", "sr", "ii", "iii", "iv"})
#: Letters NFKD leaves whole, spelled in ASCII for keys.
_ASCII_LETTERS = str.maketrans({"ß": "ss", "ø": "o", "Ø": "O", "æ": "ae", "Æ": "AE", "œ": "oe", "Œ": "OE",
                                "ł": "l", "Ł": "L", "đ": "d", "Đ": "D", "þ": "th", "Þ": "Th", "ð": "d",
                                "ı": "i"})
#: A year in a venue's name ("CoRL 2025", "Proceedings of the 2024 Conference …").
_VENUE_YEAR = re.compile(r"(?<!\d)(19[5-9]\d|20\d\d)(?!\d)")
#: What a URL or DOI field must not hold as it is: braces would unbalance the entry, and a bare ``%``
#: starts a comment for the tools that read the field as LaTeX (``\%`` reads back as ``%``).
_URL_UNSAFE = {"%": "\\%", **{c: "\\%" + f"{ord(c):02X}" for c in "{}\\ \t\n"}}


def latex(text: str) -> str:
    """``text`` on one line as LaTeX: the special characters escaped, accented letters and text symbols
    as LaTeX macros, maths and scripts kept as Unicode."""
    text = unicodedata.normalize("NFC", " ".join(text.split()))
    return "".join(SPECIALS.get(c) or (c if c.isascii() else _encoded(c)) for c in text)


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
    fields = [("title", latex(shown_title(paper)))]  # as paper messages show it: TeX and markup read
    if paper.authors:
        fields.append(("author", " and ".join(_author(name) for name in paper.authors)))
    year = year_of(paper)
    if year:
        fields.append(("year", year))
    if paper.arxiv_id:
        fields += [("eprint", paper.arxiv_id), ("archivePrefix", "arXiv")]
        category = next((c for c in paper.categories if _ARXIV_CATEGORY.fullmatch(c)), None)
        if category:
            fields.append(("primaryClass", category))
    if kind != MISC:
        fields.append((VENUE_FIELD[kind], latex(shown_text(paper.venue))))
    elif is_published_venue(paper.venue):
        fields.append(("howpublished", latex(shown_text(paper.venue))))
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


def year_of(paper: Paper) -> str | None:
    """The paper's year: from its publication date, else from its venue ("CoRL 2025"), else None."""
    year = (paper.published or "")[:4]
    if len(year) == 4 and year.isascii() and year.isdigit():
        return year
    match = _VENUE_YEAR.search(paper.venue or "")
    return match.group(1) if match else None


def surname(name: str) -> str:
    """The surname of an author's name as written: before the comma of "Last, First", else its last
    word with the particles before it ("van der Maaten"), a "Jr." left out."""
    name = shown_text(re.split(r"\s+and\s+", name, maxsplit=1)[0])  # "A and B" in one string: A
    if "," in name:
        return name.split(",", 1)[0].strip()
    words = name.split()
    while len(words) > 1 and words[-1].lower().strip(".") in _SUFFIXES:
        words.pop()
    start = len(words) - 1
    while start > 1 and words[start - 1] in _PARTICLES:
        start -= 1
    return " ".join(words[start:])


def _ascii(text: str) -> str:
    """``text`` folded to lower-case ASCII letters and digits (Müller as muller, Łukasz as lukasz)."""
    folded = unicodedata.normalize("NFKD", text.translate(_ASCII_LETTERS)).encode("ascii", "ignore").decode()
    return "".join(c for c in folded.lower() if c in string.ascii_lowercase + string.digits)


def _title_word(word: str) -> str:
    """A title word folded as :func:`_ascii`; "" when a letter of it has no ASCII form (Ω(√T), Ёжик)."""
    bare = "".join(c for c in unicodedata.normalize("NFD", word.translate(_ASCII_LETTERS))
                   if not unicodedata.combining(c))
    return _ascii(bare) if all(c.isascii() for c in bare if c.isalnum()) else ""


def _key(paper: Paper) -> str:
    """``surnameYEARword``: the first author's surname (else "anon"), the year when known, the first
    title word that is not a stopword when there is one, in lower-case ASCII."""
    name = _ascii(surname(paper.authors[0])) if paper.authors else ""
    words = (_title_word(word) for word in shown_title(paper).split())
    word = next((w for w in words if w and w not in _STOPWORDS), "")
    return f"{name or 'anon'}{year_of(paper) or ''}{word}"


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
