"""How a paper reads wherever it is shown (Slack, App Home, unfurls, BibTeX, the terminal): TeX as
Unicode and markup (Markdown, HTML) as plain text, a title that is not repeated by the abstract below
it, the publication date, and links to the paper and its PDF. Every surface shows a paper's text
through :func:`shown_title`, :func:`shown_abstract` or :func:`shown_text`; Slack then escapes it with
:func:`bot.presentation.markup.mrkdwn`.

Papers are stored as ingested; all of this is worked out when a paper is shown, so papers ingested
before titles were derived this way read the same.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from functools import lru_cache
from urllib.parse import quote

from bot.presentation.markup import clean_markup
from bot.text.tex import tex_to_text
from bot.text.titles import split_title
from bot.text.whitespace import collapse_ws
from storage import Paper

#: Most words of a lead-in ("In this paper,") a title used to be derived after.
_LEAD_IN_WORDS = 4
#: Papers whose split into title and abstract is kept; twice as many rendered texts (some tens of MB at most).
SHOWN_KEPT = 4096
_MONTHS = ("January February March April May June July August September October November "
           "December").split()


@dataclass(frozen=True)
class PaperLink:
    """A labelled link of a paper."""

    label: str
    url: str


def shown_text(text: str | None) -> str:
    """Any text of a paper (an author's name, a venue) as shown: markup read as plain text, TeX
    rendered, whitespace collapsed."""
    return _rendered(text or "")


def shown_title(paper: Paper) -> str:
    """The title to show: markup read, TeX rendered; for an untitled paper, or one whose title was
    derived from its abstract, a title-like line from the abstract; the id when there is neither."""
    return _rendered(_split(paper.title or "", paper.abstract or "")[0]) or paper.id


def shown_abstract(paper: Paper) -> str:
    """The abstract to show under :func:`shown_title`, markup read, TeX rendered, without the words the
    title already took from it ("" when the title took all of it)."""
    return _rendered(_split(paper.title or "", paper.abstract or "")[1])


# Both kept: a paper is shown many times over (its message, the rewrite after each click, Home, the
# saved list), deriving a title and rendering a text each cost up to a millisecond, and a list of
# titles (the saved list) needs no abstract rendered.
@lru_cache(maxsize=SHOWN_KEPT)
def _split(title: str, abstract: str) -> tuple[str, str]:
    """The title and the rest of the abstract to show, both as stored (not yet rendered)."""
    abstract = collapse_ws(abstract)
    title = collapse_ws(title)
    if abstract and (not title or title_is_derived(title, abstract)):
        title, abstract = split_title(abstract)
    return title, abstract


@lru_cache(maxsize=2 * SHOWN_KEPT)
def _rendered(text: str) -> str:
    return tex_to_text(clean_markup(text))


def clear_kept() -> None:
    """Forget every title and rendering kept, so that the next showing of each paper works it out afresh
    (what a benchmark or a counting test measures)."""
    _split.cache_clear()
    _rendered.cache_clear()
    for clear in _cleared_too:
        clear()


#: What surfaces keep of a paper's rendering (see :func:`keep_cleared`).
_cleared_too: list[Callable[[], None]] = []


def keep_cleared(clear: Callable[[], None]) -> None:
    """Have :func:`clear_kept` call ``clear`` too: a surface that keeps what it renders of a paper (a
    message's texts) forgets it with the titles and renderings it was made from."""
    _cleared_too.append(clear)


def title_is_derived(title: str, abstract: str) -> bool:
    """Whether ``title`` was made from ``abstract`` (now, or the ways it used to be: the first sentence,
    its first clause, maybe after a lead-in such as "In this paper,", or its first 90 characters cut with
    "…"), so that showing both repeats words."""
    if title == split_title(abstract)[0]:
        return True
    core = title.removesuffix("…").rstrip()
    if not core:
        return False
    at = abstract.lower().find(core.lower())
    lead_in = abstract[:at]
    if at < 0 or at and not (lead_in.rstrip().endswith(",") and len(lead_in.split()) <= _LEAD_IN_WORDS):
        return False
    after = abstract[at + len(core): at + len(core) + 1]
    return title.endswith("…") or after in ("", ".", "!", "?", ",", ";", ":")


def published_on(paper: Paper) -> str:
    """The publication date as "12 March 2024", or "" when unknown or unreadable."""
    if not paper.published:
        return ""
    try:
        day = date.fromisoformat(paper.published[:10])
    except ValueError:
        return ""
    return f"{day.day} {_MONTHS[day.month - 1]} {day.year}"


#: Where a paper's OpenReview forum is (its reviews, the accepted version): ``openreview:`` sources' URLs.
OPENREVIEW_FORUM = "https://openreview.net/forum?id="


#: The pages of the sources paperbot reads, named as a link to them reads: (start of the URL, name).
SOURCE_PAGES = (
    (OPENREVIEW_FORUM, "OpenReview"),
    ("https://aclanthology.org/", "ACL Anthology"),
    ("https://pubmed.ncbi.nlm.nih.gov/", "PubMed"),
    ("https://www.biorxiv.org/", "bioRxiv"),
    ("https://www.medrxiv.org/", "medRxiv"),
)


def _source_page(url: str) -> str | None:
    return next((name for start, name in SOURCE_PAGES if url.startswith(start)), None)


def paper_links(paper: Paper) -> list[PaperLink]:
    """Where to read the paper: for arXiv its abstract page and its PDF; then its page at each other
    source it came from (its OpenReview forum, ACL Anthology, PubMed or bioRxiv page: its URL and those of
    the records merged into it), one link a source; without any of those, its URL when known, else its
    DOI's page."""
    links = []
    if paper.arxiv_id:
        links = [PaperLink(f"arXiv:{paper.arxiv_id}", f"https://arxiv.org/abs/{paper.arxiv_id}"),
                 PaperLink("PDF", f"https://arxiv.org/pdf/{paper.arxiv_id}")]
    for url in (paper.url, *paper.other_urls):
        name = _source_page(url) if url else None
        if name and all(each.label != name for each in links):
            links.append(PaperLink(name, url))
    if links:
        return links
    if paper.url:
        return [PaperLink("Link", paper.url)]
    return [PaperLink(f"doi:{paper.doi}", doi_url(paper.doi))] if paper.doi else []


def title_url(paper: Paper) -> str | None:
    """The URL a paper's title links to: its own URL, else its arXiv abstract page, else its DOI's page."""
    if paper.url:
        return paper.url
    if paper.arxiv_id:
        return f"https://arxiv.org/abs/{paper.arxiv_id}"
    return doi_url(paper.doi) if paper.doi else None


def doi_url(doi: str) -> str:
    """The doi.org address of a (bare) DOI; its characters that a URL can't carry as they are escaped."""
    return "https://doi.org/" + quote(doi, safe="/:;()._-")


def shown_highlights(paper: Paper) -> tuple[str | None, str | None]:
    """The paper's highlights as shown (markup read, TeX rendered): what it does and its main result,
    each None when it has none. When the title was taken from the abstract's first words, a highlight
    that starts with them says "…" in their place, as the abstract under such a title does."""
    title, rest = _split(paper.title or "", paper.abstract or "")
    taken = title.removesuffix("…").rstrip() if rest.startswith("…") else ""

    def shown(line: str | None) -> str | None:
        if not line:
            return None
        if taken and line.startswith(taken) and len(line) > len(taken):
            line = "…" + line[len(taken):].lstrip(" ,;:")
        return _rendered(line) or None

    return shown(paper.highlight), shown(paper.result)


def paper_record(paper: Paper, summary: str | None = None, summary_source: str | None = None) -> dict:
    """What a paper's messages show, as one JSON-ready object (``paperbot show --json``): plain text,
    TeX rendered, None where there is nothing."""
    what, result = shown_highlights(paper)
    return {"id": paper.id, "title": shown_title(paper), "authors": [shown_text(a) for a in paper.authors],
            "venue": shown_text(paper.venue) or None, "published": paper.published or None,
            "arxiv_id": paper.arxiv_id, "doi": paper.doi,
            "links": {each.label: each.url for each in paper_links(paper)},
            "highlight": what, "result": result, "summary": summary, "summary_source": summary_source}
