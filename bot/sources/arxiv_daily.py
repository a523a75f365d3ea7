"""Everything arXiv announced in one category since it was last read: the category's daily listing
(``PAPERBOT_ARXIV_RSS_URL`` + the category, e.g. https://rss.arxiv.org/rss/cs.LG) and, when an
announcement day was missed, the arXiv API paged over a range of last-updated dates.

The listing is arXiv's announcement of the day: new papers, cross-lists and replacements, each item
saying which (``<arxiv:announce_type>``), under a channel dated with the announcement (``<pubDate>``, in
New York time). Announcements are dated Monday to Friday; on a weekend or an arXiv holiday the channel
has no items. How far a category was read is the caller's to keep (:attr:`Announcements.through`, once
every record was read; the ``arxiv_cursors`` table); a read that starts from a date before the previous
announcement day fills the days between through the API, from a few days before that date (the papers
of an announcement were submitted up to three days before it, a weekend between) until now. Papers are
yielded once per category; one seen again (a replacement also in the catch-up) is left out.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta
from email.utils import parsedate_to_datetime
from typing import Any
from urllib.parse import quote
from zoneinfo import ZoneInfo

from bot.sources.feeds import entry_to_record, parse_feed
from bot.sources.http import Fetcher
from bot.sources.progress import Progress
from bot.sources.records import Rejected, SourceError
from storage.models import Paper

#: What a listing item may be announced as.
ANNOUNCE_TYPES = ("new", "cross", "replace", "replace-cross")
#: Items arXiv's listing holds at most; a listing this long may be cut, so its days are read through
#: the API as well.
LISTING_LIMIT = 2000
#: API entries asked per request (arXiv allows up to 2000; a few hundred answer quickly).
PAGE_SIZE = 400
#: How far before the last announcement read a catch-up starts: that announcement's papers were
#: submitted up to three days before its date (a Monday's by the Friday before), and a paper held in
#: moderation is announced some days after it was submitted.
MARGIN = timedelta(days=5)
#: The longest range of dates one API query covers; a longer catch-up (a back-fill) is read in several,
#: so no query pages deeper than the API answers well.
WINDOW = timedelta(days=10)
#: Times an empty API page short of the total it announced is asked again before the read fails (the
#: API now and then answers a page with no entries).
EMPTY_PAGE_RETRIES = 2
#: Without a date on the listing, New York's date is taken as UTC's less five hours (its standard time).
_NEW_YORK = timedelta(hours=5)
#: Where arXiv renews its listings: at midnight there, daylight saving time included.
RENEWAL_ZONE = ZoneInfo("America/New_York")


@dataclass
class Announcements:
    """What reading one category found, filled in as its records are read."""

    category: str
    #: Distinct papers read: the listing's items and any catch-up's entries.
    announced: int = 0
    #: The announcement date of the listing read (YYYY-MM-DD).
    on: str | None = None
    #: The listing had no items: a weekend or an arXiv holiday (not a failure).
    quiet: bool = False
    #: A catch-up through the API read the papers updated from this date (YYYY-MM-DD) until now.
    caught_up_from: str | None = None
    #: The listing's items by announce type ("new", "cross", "replace", "replace-cross").
    kinds: dict[str, int] = field(default_factory=dict)
    #: Set once every record was read: every announcement of the category through this date
    #: (YYYY-MM-DD) has been yielded, so a later read may start from it.
    through: str | None = None


def listing_url(rss_url: str, category: str) -> str:
    """The URL of ``category``'s daily listing under ``rss_url`` (which ends in "/")."""
    return f"{rss_url}{category}"


def range_url(api_url: str, category: str, since: datetime, until: datetime, start: int, size: int) -> str:
    """One page of the API's entries of ``category`` last updated in [since, until] (UTC, to the minute),
    newest first: a paper replaced or announced while paging moves to the front, so a later page
    repeats an entry rather than skipping one."""
    query = (f"cat:{category} AND lastUpdatedDate:[{since:%Y%m%d%H%M} TO {until:%Y%m%d%H%M}]")
    return (f"{api_url}?search_query={quote(query, safe=':.-')}&sortBy=lastUpdatedDate"
            f"&sortOrder=descending&start={start}&max_results={size}")


def next_renewal(now: datetime) -> datetime:
    """When arXiv next renews its daily listings after ``now`` (aware): the next midnight in New York."""
    local = now.astimezone(RENEWAL_ZONE)
    return datetime.combine(local.date() + timedelta(days=1), time(0), tzinfo=RENEWAL_ZONE).astimezone(UTC)


def previous_weekday(day: date) -> date:
    """The last Monday-to-Friday before ``day``: the announcement before one dated ``day``, holidays
    aside."""
    day -= timedelta(days=1)
    while day.weekday() >= 5:
        day -= timedelta(days=1)
    return day


def read_announcements(
    category: str,
    since: str | None,
    *,
    fetcher: Fetcher,
    now: datetime,
    found: Announcements,
    back_to: date | None = None,
    page_size: int | None = None,
    progress: Progress | None = None,
) -> Iterator[Paper | Rejected]:
    """Yield, as Paper or Rejected, what arXiv announced in ``category`` after the announcement date
    ``since`` (YYYY-MM-DD, as the caller last had :attr:`Announcements.through`; None: never read,
    so today's listing only, or on a day without one the last announcement's papers through the API),
    filling ``found`` as it goes.

    ``back_to`` reads every paper of the category updated since that date too (a back-fill), through
    the API. ``now`` (aware) ends a catch-up's range of dates. Raises SourceError, while iterating, for
    a failed request, a listing that isn't one, or an API that stops short of its total.
    """
    listed, items = _listing(category, fetcher)
    day = listed or (now - _NEW_YORK).date()
    found.on, found.quiet = day.isoformat(), not items
    seen: set[str] = set()
    done = 0
    for number, entry in enumerate(items, start=1):
        kind = str(entry.get("arxiv_announce_type") or "new").strip().lower()
        found.kinds[kind] = found.kinds.get(kind, 0) + 1
        record = entry_to_record(entry, number)
        done += 1
        if isinstance(record, Paper):
            if record.id in seen:
                continue
            seen.add(record.id)
            found.announced += 1
        yield record
        if progress is not None and done % 500 == 0:
            progress(done, len(items))
    if progress is not None:
        progress(done, len(items))

    start = _catch_up_from(day, since, back_to, len(items))
    if start is not None:
        found.caught_up_from = start.isoformat()
        yield from _updated_since(category, start, now, fetcher, page_size or PAGE_SIZE, seen, found, done,
                                  progress)
    # A weekday listing with nothing in it is a holiday, or a listing caught while arXiv rebuilt it:
    # counted as read through the day before only, so the next read catches that day up if it wasn't one.
    quiet_weekday = not items and day.weekday() < 5 and start is None
    found.through = (previous_weekday(day) if quiet_weekday else day).isoformat()


def read_listing(category: str, fetcher: Fetcher) -> tuple[date | None, int]:
    """The announcement date (None: the listing has none) and the number of items of ``category``'s
    daily listing, in one request; SourceError when it can't be fetched or is no listing."""
    day, items = _listing(category, fetcher)
    return day, len(items)


def _listing(category: str, fetcher: Fetcher) -> tuple[date | None, list[Any]]:
    url = listing_url(fetcher.rss_url, category)
    parsed = parse_feed(fetcher.get(url), url)
    return _announcement_day(parsed.feed), list(parsed.entries)


def _catch_up_from(day: date, since: str | None, back_to: date | None, listed: int) -> date | None:
    """The date a catch-up through the API starts from, or None when the listing is all there is."""
    starts = []
    if back_to is not None:
        starts.append(back_to)
    if since is not None and date.fromisoformat(since) < previous_weekday(day):
        starts.append(date.fromisoformat(since) - MARGIN)  # an announcement day was missed
    if listed >= LISTING_LIMIT:
        starts.append(day - MARGIN)  # the listing may be cut
    if since is None and not listed:
        # A first read on a weekend or a holiday: the last announcement's papers (submitted up to two
        # days before it), so a new installation starts with papers whatever the day.
        starts.append(previous_weekday(day) - timedelta(days=2))
    return min(starts) if starts else None


def _announcement_day(channel: Any) -> date | None:
    """The date of a listing's announcement, as arXiv writes it (New York's date), or None."""
    text = channel.get("published") or channel.get("updated")
    if not text:
        return None
    try:
        return parsedate_to_datetime(str(text)).date()
    except (TypeError, ValueError, IndexError):
        return None


def _updated_since(category: str, start: date, now: datetime, fetcher: Fetcher, page_size: int,
                   seen: set[str], found: Announcements, done: int,
                   progress: Progress | None) -> Iterator[Paper | Rejected]:
    """Every entry of ``category`` the API has last updated from ``start`` until ``now``, a window of at
    most :data:`WINDOW` at a time, each paged until the total it announces."""
    # The API reads its dates as UTC.
    end = now.astimezone(UTC).replace(second=0, microsecond=0) + timedelta(minutes=1)
    since = datetime(start.year, start.month, start.day, tzinfo=UTC)
    # Windows of equal length, none longer than WINDOW (a range a little longer makes two, not a sliver).
    windows = max(1, -(-(end - since) // WINDOW))
    step = ((end - since) / windows).total_seconds() // 60 + 1
    while since < end:
        until = min(since + timedelta(minutes=step), end)
        offset, total, empty = 0, 0, 0
        while True:
            url = range_url(fetcher.api_url, category, since, until, offset, page_size)
            parsed = parse_feed(fetcher.get(url), url)
            # The largest total any page announced: an odd page may say 0.
            total = max(total, _int(parsed.feed.get("opensearch_totalresults")))
            entries = parsed.entries
            if not entries:
                if offset >= total:
                    break
                if empty == EMPTY_PAGE_RETRIES:
                    raise SourceError(f"the arXiv API answered no entries from {offset} of {total} ({url}); "
                                      "paperbot tries again on its next run")
                empty += 1
                continue
            empty = 0
            for number, entry in enumerate(entries, start=offset + 1):
                record = entry_to_record(entry, number)
                if isinstance(record, Paper):
                    if record.id in seen:
                        continue
                    seen.add(record.id)
                    found.announced += 1
                    done += 1
                    yield record
                else:
                    yield Rejected(f"API entry {number}", record.reason)
            offset += len(entries)
            if progress is not None:
                progress(done, None)
            if offset >= total:
                break
        since = until


def _int(value: object) -> int:
    try:
        return int(str(value))
    except ValueError:
        return 0
