"""Papers named in free text (arXiv links and ids, DOIs), and arXiv papers fetched by id from the API.

Slack-free and storage-free: :mod:`bot.usecases.lookup` decides what to fetch and stores what came.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from urllib.parse import quote

from bot.sources.feeds import entry_to_record, parse_feed
from bot.sources.http import Fetcher
from bot.sources.normalize import parse_arxiv_id
from bot.sources.records import SourceError
from storage.identity import normal_doi
from storage.models import Paper

#: Most ids asked for in one API request (and looked up for one message).
MAX_IDS = 20

# The two id forms of bot.sources.normalize, found anywhere in a text: new-style YYMM.NNNNN and
# old-style archive[.XX]/YYMMNNN (from a closed list of archives, so "posts/1234567" is none).
_NEW = r"\d{2}(?:0[1-9]|1[0-2])\.\d{4,5}"
_OLD = (r"(?:acc-phys|adap-org|alg-geom|ao-sci|astro-ph|atom-ph|bayes-an|chao-dyn|chem-ph|cmp-lg|comp-gas"
        r"|cond-mat|cs|dg-ga|funct-an|gr-qc|hep-ex|hep-lat|hep-ph|hep-th|math|math-ph|mtrl-th|nlin|nucl-ex"
        r"|nucl-th|patt-sol|physics|plasm-ph|q-alg|q-bio|quant-ph|solv-int|supr-con)(?:\.[A-Z]{2})?"
        r"/\d{2}(?:0[1-9]|1[0-2])\d{3}")
_ID = rf"(?P<base>{_NEW}|{_OLD})(?:v(?P<version>\d+))?"
#: An arXiv page of a paper: its abstract, PDF or HTML rendering, any version.
_URL = re.compile(rf"(?:https?://)?(?:www\.|export\.)?arxiv\.org/(?:abs|pdf|html)/{_ID}(?!\d)",
                  re.IGNORECASE | re.ASCII)
#: arXiv's own DOI of a paper: 10.48550/arXiv.2501.01234.
_ARXIV_DOI = re.compile(rf"\b10\.48550/arxiv\.{_ID}(?!\d)", re.IGNORECASE | re.ASCII)
#: An id in running text: "arXiv:2501.01234", or a bare id between non-word characters.
_IN_TEXT = re.compile(rf"(?<![\w./-])(?:arxiv:\s?)?{_ID}(?![\w/]|\.\d)", re.IGNORECASE | re.ASCII)
# A DOI as Crossref describes them: 10.NNNN/suffix; a suffix ends before whitespace or Slack's <|>.
_DOI = re.compile(r"\b10\.\d{4,9}/[^\s<>|\"]+", re.ASCII)
_DOI_TRAILING = ".,;:!?)]}'"


def arxiv_id_of_url(url: str) -> str | None:
    """The base arXiv id (no version) of an arxiv.org abstract, PDF or HTML page URL, else None."""
    match = _URL.fullmatch(url.strip().split("#", 1)[0].split("?", 1)[0].removesuffix("/").removesuffix(
        ".pdf"))
    return match.group("base") if match else None


def find_arxiv_ids(text: str) -> list[str]:
    """Every arXiv paper ``text`` names (links to arxiv.org pages, ``arXiv:ID``, arXiv's DOI of it, or
    a bare id), as base ids without version, each once, in order of appearance."""
    found: list[tuple[int, str]] = []
    for pattern in (_URL, _ARXIV_DOI, _IN_TEXT):
        for match in pattern.finditer(text or ""):
            found.append((match.start(), match.group("base")))
    return list(dict.fromkeys(_canonical(base) for _, base in sorted(found)))


def find_dois(text: str) -> list[str]:
    """Every DOI in ``text`` (bare, ``doi:``, or a doi.org link), normalised, each once, in order;
    DOIs of arXiv papers (10.48550/arXiv.ID) are left to :func:`find_arxiv_ids`."""
    dois = []
    for match in _DOI.finditer(text or ""):
        doi = normal_doi(match.group(0).rstrip(_DOI_TRAILING))
        if doi and not doi.startswith("10.48550/arxiv."):
            dois.append(doi)
    return list(dict.fromkeys(dois))


#: The pages of a paper at the other sources paperbot reads, and the id their records are stored under:
#: an OpenReview forum (or its PDF), a PubMed record, an ACL Anthology paper (page, PDF or .bib).
_SOURCE_PAGES = (
    (re.compile(r"https?://openreview\.net/(?:forum|pdf)\?(?:.*&)?id=([A-Za-z0-9_-]+)", re.ASCII),
     "openreview:"),
    (re.compile(r"https?://pubmed\.ncbi\.nlm\.nih\.gov/(\d{1,9})/?", re.ASCII), "pmid:"),
    (re.compile(r"https?://aclanthology\.org/([A-Za-z0-9.-]+?)(?:/|\.pdf|\.bib)?", re.ASCII), "acl:"),
)
#: A bioRxiv or medRxiv page of a preprint: its DOI, then the version and the page's kind.
_PREPRINT_PAGE = re.compile(r"https?://(?:www\.)?(?:biorxiv|medrxiv)\.org/content/(?:early/[\d/]+/)?"
                            r"(10\.1101/[\d.]+)(?:v\d+)?(?:[./?#].*)?", re.ASCII)


def ids_of_link(url: str) -> list[str]:
    """The ids a paper held may be stored under, for a link to its page: ``arxiv:ID`` for an arXiv page,
    ``doi:DOI`` for a doi.org link or a bioRxiv/medRxiv page, ``openreview:``, ``pmid:`` or ``acl:`` for
    those sources' pages; [] for a link to anything else."""
    url = url.strip()
    base = arxiv_id_of_url(url)
    if base:
        return [f"arxiv:{base}"]
    preprint = _PREPRINT_PAGE.fullmatch(url)
    if preprint:
        return [f"doi:{preprint.group(1)}"]
    for pattern, prefix in _SOURCE_PAGES:
        match = pattern.fullmatch(url)
        if match:
            return [prefix + match.group(1)]
    if re.match(r"https?://(?:dx\.)?doi\.org/", url, re.IGNORECASE):
        return [f"doi:{doi}" for doi in find_dois(url)[:1]]
    return []


def _canonical(base: str) -> str:
    """Old-style ids keep their archive in lower case and the subject class in upper ("math.GT")."""
    if "/" not in base:
        return base
    archive, number = base.split("/", 1)
    name, dot, subject = archive.partition(".")
    return f"{name.lower()}{dot}{subject.upper()}/{number}"


def id_list_url(api_url: str, ids: Sequence[str]) -> str:
    """The API URL asking for exactly these papers (base ids: the API answers with the newest version)."""
    return f"{api_url}?id_list={','.join(quote(i, safe='./') for i in ids)}&max_results={len(ids)}"


def fetch_by_ids(ids: Iterable[str], fetcher: Fetcher) -> dict[str, Paper]:
    """The papers the arXiv API has for these base ids (at most :data:`MAX_IDS`), in one request, by
    base id; an id it doesn't know is left out. Raises SourceError when the request fails or the API
    answers with an error."""
    wanted = list(dict.fromkeys(ids))[:MAX_IDS]
    if not wanted:
        return {}
    for base in wanted:
        if parse_arxiv_id(base) is None:
            raise SourceError(f"'{base}' is not an arXiv id")
    url = id_list_url(fetcher.api_url, wanted)
    parsed = parse_feed(fetcher.get(url), url)
    found: dict[str, Paper] = {}
    for number, entry in enumerate(parsed.entries, start=1):
        record = entry_to_record(entry, number)
        if isinstance(record, Paper) and record.arxiv_id in wanted:
            found[record.arxiv_id] = record
    return found
