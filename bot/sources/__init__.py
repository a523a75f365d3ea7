"""Every source ``paperbot ingest`` takes, read into Paper records (or Rejected ones, with the reason).

A SOURCE is a file (``.txt``, ``.jsonl``, ``.json``, ``.csv``, ``.xml``/``.atom``/``.rss``), an
``arxiv:CAT[,CAT…]`` listing, a ``biorxiv:CAT[,CAT…]`` or ``medrxiv:CAT[,CAT…]`` subject area, a
``pubmed:QUERY`` search, an ``openreview:VENUE_ID`` venue's accepted papers, an ``acl:VOLUME`` volume of
the ACL Anthology, or an ``http(s)://`` RSS/Atom feed URL.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

from bot.sources import acl, openreview, pubmed
from bot.sources.arxiv import read_arxiv
from bot.sources.biorxiv import FIRST_READ_DAYS, Posted, is_source, parse_source, read_posted
from bot.sources.feeds import read_feed_file, read_feed_url
from bot.sources.http import (
    Fetcher,
    RateLimiter,
    default_acl_fetcher,
    default_biorxiv_fetcher,
    default_fetcher,
    default_openreview_fetcher,
    default_pubmed_fetcher,
)
from bot.sources.normalize import parse_arxiv_id
from bot.sources.records import Rejected, SourceError
from bot.sources.tabular import read_csv, read_json, read_jsonl
from bot.sources.text import read_text_file
from storage.models import Paper

__all__ = ["Fetcher", "RateLimiter", "Rejected", "parse_arxiv_id", "read_arxiv", "read_source", "source_kind"]

_FILE_READERS = {
    ".txt": read_text_file,
    ".jsonl": read_jsonl,
    ".json": read_json,
    ".csv": read_csv,
    ".xml": read_feed_file,
    ".atom": read_feed_file,
    ".rss": read_feed_file,
}
_TABULAR = (read_jsonl, read_json, read_csv)
_KINDS = (".txt, .jsonl, .json, .csv, .xml, .atom, .rss, arxiv:CAT, biorxiv:CAT, medrxiv:CAT, "
          "pubmed:QUERY, openreview:VENUE_ID, acl:VOLUME or an http(s) feed URL")


def source_kind(source: str) -> str:
    """What kind of source SOURCE is, from a small fixed set (for metrics' labels, never the source's own
    text): "arxiv", "biorxiv", "medrxiv", "pubmed", "openreview", "acl", "feed" (an http(s) URL), a file's
    extension ("csv", "jsonl", …) or "other"."""
    if source[:6].lower() == "arxiv:":
        return "arxiv"
    if is_source(source):
        return source.split(":", 1)[0].lower()
    if pubmed.is_source(source):
        return "pubmed"
    if openreview.is_source(source):
        return "openreview"
    if acl.is_source(source):
        return "acl"
    if source.lower().startswith(("http://", "https://")):
        return "feed"
    suffix = Path(source).suffix.lower()
    return suffix[1:] if suffix in _FILE_READERS else "other"


def read_source(
    source: str,
    *,
    progress: Callable[[int, int | None], None] | None = None,
    fetcher: Fetcher | None = None,
    title_only: bool = False,
) -> Iterator[Paper | Rejected]:
    """Yield Paper or Rejected for each record of SOURCE, in order.

    Raises SourceError (one clear line) when the source can't be read at all: missing file,
    unreadable, unknown extension, feed unreachable / not a feed, malformed arXiv category. What
    can be told from SOURCE itself (kind, file exists, categories) raises on the call; reading and
    fetching happen, and may raise, while iterating.

    ``progress(done, total)`` is called every 500 records and at the end. Its unit depends on the
    source: for files, bytes read and the file size; for feeds and ``arxiv:``, entries read and
    entries expected. ``fetcher`` (default: one shared, rate-limited Fetcher) does all network I/O.
    ``title_only`` lets JSONL/JSON/CSV records without an abstract in when they have a title: for
    evaluation sets, not for papers meant for digests.
    """
    if source[:6].lower() == "arxiv:":
        # The newest submissions, through the API. `paperbot ingest` reads an arxiv: source's
        # announcements since it was last read instead (bot/sources/arxiv_daily.py, bot/usecases/ingest.py).
        return read_arxiv(source[6:], fetcher=fetcher, progress=progress)
    if is_source(source):
        # The last FIRST_READ_DAYS days posted. `paperbot ingest` reads what was posted since the source
        # was last read instead (bot/usecases/ingest.py).
        server, categories = parse_source(source)
        today = datetime.now(UTC).date()
        found = Posted(server)
        pairs = read_posted(server, categories, today - timedelta(days=FIRST_READ_DAYS - 1), today,
                            fetcher=fetcher or default_biorxiv_fetcher(), found=found, progress=progress)
        return (item for _, item in pairs)
    if pubmed.is_source(source):
        # What entered PubMed in the last FIRST_READ_DAYS days. `paperbot ingest` reads what entered since
        # the query was last read instead (bot/usecases/ingest.py).
        query = pubmed.parse_source(source)
        today = datetime.now(UTC).date()
        return pubmed.read_pubmed(query, today - timedelta(days=pubmed.FIRST_READ_DAYS - 1), today,
                                  fetcher=fetcher or default_pubmed_fetcher(), found=pubmed.Found(),
                                  progress=progress)
    if openreview.is_source(source):
        # The venue's accepted papers, all of them; `paperbot ingest` reads a venue at most once a day.
        venue = openreview.parse_source(source)
        return openreview.read_venue(venue, fetcher=fetcher or default_openreview_fetcher(),
                                     found=openreview.Found(), progress=progress)
    if acl.is_source(source):
        # The whole volume. `paperbot ingest` rests a volume read whole in the last week instead
        # (bot/usecases/ingest.py).
        volume = acl.parse_source(source)
        return acl.read_volume(volume, fetcher=fetcher or default_acl_fetcher(), found=acl.Volume(),
                               progress=progress)
    if source.lower().startswith(("http://", "https://")):
        return read_feed_url(source, fetcher or default_fetcher(), progress)
    reader = _FILE_READERS.get(Path(source).suffix.lower())
    if reader is None or "://" in source:
        raise SourceError(f"don't know how to read '{source}': use {_KINDS}")
    path = Path(source)
    if not path.exists():
        raise SourceError(f"no such file: {source}")
    if not path.is_file():
        raise SourceError(f"not a file: {source}")
    if title_only and reader in _TABULAR:
        return reader(path, progress, title_only=True)
    return reader(path, progress)
