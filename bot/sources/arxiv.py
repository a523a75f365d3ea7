"""The newest listings of arXiv categories, paged through the arXiv API."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from bot.sources.feeds import entry_to_record, parse_feed
from bot.sources.http import Fetcher, default_fetcher
from bot.sources.progress import Progress
from bot.sources.records import Rejected, SourceError
from storage.models import Paper

#: Most papers one ``arxiv:`` source brings in.
MAX_RESULTS = 200
#: Papers asked for per API request.
PAGE_SIZE = 100
#: The API's own limit on one request.
MAX_PAGE_SIZE = 2000

# archive[-part][.Subject[-part]]: cs.LG, stat.ML, hep-th, astro-ph.CO, physics.comp-ph, cond-mat.stat-mech.
_CATEGORY = re.compile(r"^[a-z]+(?:-[a-z]+)?(?:\.[A-Za-z]+(?:-[a-z]+)?)?$")


def parse_categories(spec: str | Sequence[str]) -> list[str]:
    """Categories from ``"cs.LG,stat.ML"`` (or a list), checked; SourceError names a malformed one."""
    items = spec.split(",") if isinstance(spec, str) else list(spec)
    categories = list(dict.fromkeys(item.strip() for item in items if item.strip()))
    if not categories:
        raise SourceError("arxiv: needs at least one category, e.g. arxiv:cs.LG,stat.ML")
    for category in categories:
        if not _CATEGORY.match(category):
            raise SourceError(
                f"'{category}' is not an arXiv category: use names like cs.LG, stat.ML, math.OC, hep-th"
            )
    return categories


def query_url(api_url: str, categories: Sequence[str], start: int, max_results: int) -> str:
    """The API URL for one page of the newest submissions in ``categories``."""
    query = "+OR+".join(f"cat:{category}" for category in categories)
    return (
        f"{api_url}?search_query={query}&sortBy=submittedDate&sortOrder=descending"
        f"&start={start}&max_results={max_results}"
    )


def read_arxiv(
    categories: str | Sequence[str],
    *,
    max_results: int = MAX_RESULTS,
    page_size: int = PAGE_SIZE,
    fetcher: Fetcher | None = None,
    progress: Progress | None = None,
) -> Iterator[Paper | Rejected]:
    """Yield the newest ``max_results`` entries of ``categories``, newest first, as Paper or Rejected.

    Pages of ``page_size`` are fetched lazily through ``fetcher`` (which spaces requests 3 s apart)
    until the cap, the API's total, or an empty page. The same paper showing up on two pages (new
    submissions shift the listing while paging) is yielded once. Categories are checked at once;
    SourceError for a malformed one, and while iterating for a failed request or an API error.
    ``progress`` gets entries read and the number expected after each page, and (done, done) at the end.
    """
    checked = parse_categories(categories)
    if max_results < 1 or not 1 <= page_size <= MAX_PAGE_SIZE:
        raise ValueError(f"need max_results >= 1 and 1 <= page_size <= {MAX_PAGE_SIZE}")
    return _pages(checked, max_results, page_size, fetcher or default_fetcher(), progress)


def _pages(
    categories: list[str], cap: int, page_size: int, fetcher: Fetcher, progress: Progress | None
) -> Iterator[Paper | Rejected]:
    done = 0
    start = 0
    seen: set[str] = set()
    expected = cap
    while done < cap:
        url = query_url(fetcher.api_url, categories, start, min(page_size, cap - done))
        parsed = parse_feed(fetcher.get(url), url)
        entries = parsed.entries
        if not entries:
            break
        total = _int(parsed.feed.get("opensearch_totalresults"))
        if total is not None:
            expected = min(cap, total)
        before = done
        for entry in entries:
            record = entry_to_record(entry, done + 1)
            if isinstance(record, Paper) and record.id in seen:
                continue
            if isinstance(record, Paper):
                seen.add(record.id)
            yield record
            done += 1
            if done >= cap:
                break
        start += len(entries)
        if progress is not None:
            progress(done, expected)
        # A page of nothing new means the server ignores ``start``; asking again would loop forever.
        if done == before or (total is not None and start >= total):
            break
    if progress is not None:
        progress(done, done)


def _int(value: object) -> int | None:
    try:
        return int(str(value))
    except ValueError:
        return None
