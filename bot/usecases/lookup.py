"""Papers by arXiv id or DOI: the ones held, and arXiv papers not held yet fetched from the arXiv API
and stored like any ingested paper (so they can be recommended, searched and saved).

Fetching is polite: one request for all the ids missing, at most one request every few seconds per
process (the same limiter as the ``arxiv:`` sources), a short timeout, and an id the API did not
have (or a lookup that failed) is not asked again for a while. What is remembered is a hint kept in
this process only; what is stored is decided by the store, as for any ingest.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable

from bot.errors import PaperbotError
from bot.sources.arxiv_ids import MAX_IDS, fetch_by_ids, ids_of_link
from bot.sources.http import ARXIV_API_URL, Fetcher, default_fetcher
from bot.sources.http import use_acl_url as use_acl_url  # the CLI's and the app's one import, as:
from bot.sources.http import use_biorxiv_api as use_biorxiv_api  # the CLI's and the app's one import
from bot.sources.http import use_openreview_api as use_openreview_api  # likewise
from bot.sources.http import use_pubmed_api as use_pubmed_api  # likewise
from bot.sources.normalize import parse_arxiv_id
from bot.sources.records import SourceError
from bot.state.context import Context
from bot.text.paper_events import events as paper_events
from storage import Paper

log = logging.getLogger(__name__)

LOOKUP_TIMEOUT = 10.0  # seconds: someone is waiting for the unfurl or the answer
MISS_KEPT = 6 * 3600.0  # an id the API does not have is not asked again for this long
FAILURE_KEPT = 60.0  # after a failed request, the ids it asked for wait this long
MISSES_REMEMBERED = 10_000


class LookupFailed(PaperbotError):
    """The arXiv API could not be asked, or did not answer (its message says why, for the log)."""


class ArxivLookup:
    """Fetches arXiv papers by id, spaced by ``fetcher``'s limiter, one request at a time in this
    process, remembering the misses. ``clock`` is injectable for tests."""

    def __init__(self, fetcher: Fetcher, clock: Callable[[], float] = time.monotonic) -> None:
        self.fetcher = fetcher
        self.clock = clock
        self._lock = threading.Lock()
        self._misses: OrderedDict[str, float] = OrderedDict()  # id -> until when it is not asked

    def fetch(self, ids: Iterable[str]) -> dict[str, Paper]:
        """The papers the API has for these base ids, by id; ids missed recently are not asked. Raises
        LookupFailed when the request fails (those ids then wait :data:`FAILURE_KEPT` seconds)."""
        with self._lock:  # one request at a time: the limiter spaces them, and a second caller asking
            now = self.clock()  # for the same id finds it stored, or remembered as a miss
            wanted = [i for i in dict.fromkeys(ids) if self._misses.get(i, float("-inf")) <= now][:MAX_IDS]
            if not wanted:
                return {}
            try:
                found = fetch_by_ids(wanted, self.fetcher)
            except SourceError as exc:
                self._remember(wanted, FAILURE_KEPT)
                raise LookupFailed(f"arXiv lookup of {', '.join(wanted)} failed: {exc}") from exc
            self._remember([i for i in wanted if i not in found], MISS_KEPT)
            return found

    def forget_misses(self) -> None:
        """Ask again for every id (tests; a changed API address)."""
        with self._lock:
            self._misses.clear()

    def _remember(self, ids: list[str], seconds: float) -> None:
        until = self.clock() + seconds
        for i in ids:
            self._misses[i] = until
            self._misses.move_to_end(i)
        while len(self._misses) > MISSES_REMEMBERED:
            self._misses.popitem(last=False)


_default: ArxivLookup | None = None
_default_lock = threading.Lock()


def default_lookup() -> ArxivLookup:
    """The process's lookup: the shared fetcher's API address and limiter, with a short timeout."""
    global _default
    with _default_lock:
        if _default is None:
            shared = default_fetcher()
            # No retry of a busy answer: someone is waiting, and a lookup falls back on the papers held.
            _default = ArxivLookup(Fetcher(shared.api_url, timeout=LOOKUP_TIMEOUT, limiter=shared.limiter,
                                           retries=0))
        return _default


def use_arxiv_api(api_url: str = ARXIV_API_URL, rss_url: str | None = None) -> None:
    """Point this process's arXiv requests (the ``arxiv:`` sources and the lookups) at ``api_url``
    (``PAPERBOT_ARXIV_API_URL``) and, when given, the ``arxiv:`` sources' daily listings at ``rss_url``
    (``PAPERBOT_ARXIV_RSS_URL``)."""
    default_fetcher().api_url = api_url
    if rss_url is not None:
        default_fetcher().rss_url = rss_url
    lookup = default_lookup()
    if lookup.fetcher.api_url != api_url:
        lookup.fetcher.api_url = api_url
        lookup.forget_misses()


def papers_by_arxiv_id(ctx: Context, ids: Iterable[str], lookup: ArxivLookup | None = None,
                       fetch: bool = True) -> dict[str, Paper]:
    """The papers with these arXiv ids (any version: "2501.01234v2" is "2501.01234"), by the id asked
    for: the ones held, then (with ``fetch``) the others from the arXiv API in one request, stored
    through the store's upsert (merged with any record of the same paper) and folded into the index.

    An id the API doesn't have is left out. Raises LookupFailed when the API can't be asked (a
    caller that can do without the fetch catches it and falls back on :func:`held_by_arxiv_id`).
    """
    asked = list(dict.fromkeys(ids))
    found = held_by_arxiv_id(ctx, asked)
    missing = {base: i for i in asked if i not in found and (base := _base(i))}
    if not missing or not fetch:
        return found
    fetched = (lookup or default_lookup()).fetch(missing)
    if fetched:
        ctx.store.upsert_papers(fetched.values(), events=paper_events)  # a newer version: its follow-ups
        ctx.engine.refresh()  # new papers and their new words are searchable at once
        for base in fetched:
            stored = ctx.store.find_paper_by_arxiv_id(base)  # the id it has (it may merge with one held)
            if stored is not None:
                found[missing[base]] = stored
    return found


def held_by_arxiv_id(ctx: Context, ids: Iterable[str]) -> dict[str, Paper]:
    """The papers held for these arXiv ids (any version), by the id asked for."""
    found = {}
    for i in dict.fromkeys(ids):
        base = _base(i)
        paper = ctx.store.find_paper_by_arxiv_id(base) if base else None
        if paper is not None:
            found[i] = paper
    return found


def paper_by_id(ctx: Context, paper_id: str) -> Paper | None:
    """The paper held with this id (or an id it was once known by), or None."""
    return ctx.store.get_paper(paper_id)


def papers_by_doi(ctx: Context, dois: Iterable[str]) -> dict[str, Paper]:
    """The papers held with these DOIs (any spelling), by the DOI asked for; others are left out."""
    found = {}
    for doi in dict.fromkeys(dois):
        paper = ctx.store.find_paper_by_doi(doi)
        if paper is not None:
            found[doi] = paper
    return found


def held_by_link(ctx: Context, url: str) -> Paper | None:
    """The paper held that a link points to: an arXiv page, a doi.org link, an OpenReview forum, a
    PubMed, ACL Anthology, bioRxiv or medRxiv page (:func:`~bot.sources.arxiv_ids.ids_of_link`), or any
    URL a paper held (or merged into it) has; None when no paper held is there. Nothing is fetched."""
    for paper_id in ids_of_link(url):
        kind, _, key = paper_id.partition(":")
        if kind == "arxiv":
            paper = ctx.store.find_paper_by_arxiv_id(key)
        elif kind == "doi":
            paper = ctx.store.find_paper_by_doi(key)
        else:
            paper = ctx.store.get_paper(paper_id)
        if paper is not None:
            return paper
    return ctx.store.find_paper_by_url(url.strip())


def _base(arxiv_id: str) -> str | None:
    parsed = parse_arxiv_id(arxiv_id)
    return parsed[0] if parsed else None
