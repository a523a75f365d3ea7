"""Bringing papers in from files and feeds."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta

from bot.sources import Rejected, acl, openreview, pubmed, read_source
from bot.sources.arxiv import parse_categories
from bot.sources.arxiv_daily import Announcements, read_announcements
from bot.sources.biorxiv import FIRST_READ_DAYS, Posted, is_source, parse_source, read_posted, source_name
from bot.sources.http import (
    Fetcher,
    default_acl_fetcher,
    default_biorxiv_fetcher,
    default_fetcher,
    default_openreview_fetcher,
    default_pubmed_fetcher,
)
from bot.sources.records import SourceError
from bot.state.context import Context
from bot.text.highlights import highlights
from bot.text.paper_events import DOI
from bot.text.paper_events import events as paper_events
from bot.usecases.watches import compare_new_papers
from storage import Paper, Store
from storage.moments import iso_utc

BATCH = 1000
log = logging.getLogger(__name__)

Progress = Callable[[str, int, int | None], None]


@dataclass
class SourceReport:
    """What one source gave: counts, the records skipped and why, or why it couldn't be read at all.

    An ``arxiv:`` source gives one report per category, its ``source`` ``arxiv:CATEGORY``, with what
    arXiv announced there: ``announced`` (distinct papers; None for every other kind of source), the
    listing's date, whether it was a day without announcement (``quiet``: a weekend or a holiday, not
    a failure), and from when days missed were caught up through the arXiv API."""

    source: str
    added: int = 0
    updated: int = 0
    unchanged: int = 0
    rejected: list[Rejected] = field(default_factory=list)
    error: str | None = None
    announced: int | None = None
    announced_on: str | None = None  # YYYY-MM-DD, the listing's announcement date
    quiet: bool = False
    caught_up_from: str | None = None  # YYYY-MM-DD
    #: The listing's items by announce type: "new", "cross", "replace", "replace-cross"; an ``openreview:``
    #: venue's papers by OpenReview's name of their venue ("ICML 2025 poster", "ICML 2025 oral").
    kinds: dict[str, int] = field(default_factory=dict)
    #: A ``biorxiv:``/``medrxiv:`` category's or a ``pubmed:`` query's read: the dates read, "FROM/TO".
    interval: str | None = None
    #: An ``openreview:`` venue's or an ``acl:`` volume's: the day it was last read whole (YYYY-MM-DD); and,
    #: when this ingest let it rest (read whole lately: no request made), the day it is read again.
    read_on: str | None = None
    read_again_on: str | None = None

    @property
    def empty(self) -> bool:
        """Read, but it held no record at all (an empty file or feed: often the wrong one). Never an arXiv
        category's listing: a day without announcement is arXiv's weekend or holiday."""
        return self.error is None and self.announced is None and self.read_again_on is None and not (
            self.added or self.updated or self.unchanged or self.rejected)


def ingest(ctx: Context, sources: Iterable[str], progress: Progress | None = None,
           fetcher: Fetcher | None = None, must_save: bool = False, *, arxiv_since: date | None = None,
           clock: Callable[[], datetime] = lambda: datetime.now(UTC)) -> list[SourceReport]:
    """Add or update the papers of each source; a bad record or an unreadable source never stops the rest.

    Papers are written in batches, each batch one transaction, so a crash loses at most the batch
    under way. The index is brought up to date (refitted if the corpus grew a lot) at the end; a
    refitted model that can't be saved is logged, or with ``must_save`` raised as the
    :class:`~storage.StorageError` (the papers stay stored either way).

    An ``arxiv:CAT[,CAT…]`` source reads each category's announcements since the store's note of how
    far it was read (:func:`bot.sources.arxiv_daily.read_announcements`; never read: the day's listing,
    or on a weekend the last announcement's papers),
    and notes the new date once all of a category's papers are stored; ``arxiv_since`` also reads every
    paper of the categories updated since that date (a back-fill). ``clock`` is now, for the catch-up.
    An ``acl:VOLUME`` source reads the volume whole, at most once a week (:func:`_ingest_acl`).
    """
    reports = []
    for source in sources:
        if source[:6].lower() == "arxiv:":
            reports.extend(_ingest_arxiv(ctx, source, progress, fetcher or default_fetcher(), arxiv_since,
                                         clock()))
            continue
        if is_source(source):
            reports.extend(_ingest_posted(ctx, source, progress, fetcher or default_biorxiv_fetcher(),
                                          arxiv_since, clock()))
            continue
        if pubmed.is_source(source):
            reports.append(_ingest_pubmed(ctx, source, progress, fetcher or default_pubmed_fetcher(),
                                          arxiv_since, clock()))
            continue
        if openreview.is_source(source):
            reports.append(_ingest_venue(ctx, source, progress, fetcher or default_openreview_fetcher(),
                                         arxiv_since, clock()))
            continue
        if acl.is_source(source):
            reports.append(_ingest_acl(ctx, source, progress, fetcher or default_acl_fetcher(), arxiv_since,
                                       clock()))
            continue
        report = SourceReport(source)
        reports.append(report)
        callback = (lambda done, total, s=source: progress(s, done, total)) if progress else None
        _store_all(ctx, lambda s=source, cb=callback: read_source(s, progress=cb, fetcher=fetcher), report)
    fill_highlights(ctx.store)
    take_in_new_papers(ctx, must_save=must_save)
    _compare_with_watches(ctx, clock())
    return reports


def _compare_with_watches(ctx: Context, now: datetime) -> None:
    """Every new paper against every scoop watch, as it arrives (issue 43): the alerts are recorded here and
    posted by the bot's next tick. A failure is logged: the papers are stored whatever it does."""
    try:
        found = compare_new_papers(ctx, now)
    except Exception:
        log.exception("comparing the new papers with the watches failed; the next ingest compares them")
        return
    if found:
        log.info("%d watch alert(s) recorded", found)


#: Papers whose highlights are computed and stored in one transaction by :func:`fill_highlights`.
HIGHLIGHTS_BATCH = 500


def fill_highlights(store: Store, batch: int = HIGHLIGHTS_BATCH) -> int:
    """Compute and store the highlights of every paper stored without them (those stored before they
    existed, or written by a path that doesn't compute them); returns how many were set. Every ingest
    calls it, so a database is filled in by its first ingest after the upgrade (about 0.5 ms a paper) and
    each later call finds none in one look at an index."""
    done, after = 0, ""
    while rows := store.papers_lacking_highlights(after=after, limit=batch):
        computed = []
        for paper_id, title, abstract in rows:
            lines = highlights(title, abstract)
            computed.append((paper_id, abstract, lines.what, lines.result))
        done += store.set_highlights(computed)
        after = rows[-1][0]
    return done


def _ingest_arxiv(ctx: Context, source: str, progress: Progress | None, fetcher: Fetcher,
                  since: date | None, now: datetime) -> list[SourceReport]:
    """One report per category of an ``arxiv:`` source; a category that fails leaves its note of how far
    it was read as it was (its days are read again next time) and never stops the others."""
    try:
        categories = parse_categories(source[6:])
    except SourceError as exc:
        return [SourceReport(source, error=str(exc))]
    reports = []
    for category in categories:
        name = f"arxiv:{category}"
        report = SourceReport(name, announced=0)
        reports.append(report)
        found = Announcements(category)
        cursor = ctx.store.arxiv_cursor(category)
        callback = (lambda done, total, s=name: progress(s, done, total)) if progress else None
        _store_all(ctx, lambda c=category, f=found, k=cursor, cb=callback: read_announcements(
            c, k, fetcher=fetcher, now=now, found=f, back_to=since, progress=cb), report)
        report.announced, report.announced_on, report.quiet = found.announced, found.on, found.quiet
        report.caught_up_from, report.kinds = found.caught_up_from, dict(found.kinds)
        if report.error is None and found.through is not None:
            ctx.store.set_arxiv_cursor(category, found.through, iso_utc(now))
    return reports


def _ingest_posted(ctx: Context, source: str, progress: Progress | None, fetcher: Fetcher,
                   since: date | None, now: datetime) -> list[SourceReport]:
    """One report per category of a ``biorxiv:``/``medrxiv:`` source, read in one pass over the dates
    posted since the earliest of its categories' cursors (never read: the last :data:`FIRST_READ_DAYS`
    days; ``since``: from that date too, a back-fill). The last day read is read again next time (more may
    be posted on it); each category's cursor moves to today only once every page was read."""
    try:
        server, categories = parse_source(source)
    except SourceError as exc:
        return [SourceReport(source, error=str(exc))]
    today = now.astimezone(UTC).date()
    names = {category: source_name(server, category) for category in categories}
    starts = []
    for name in names.values():
        cursor = ctx.store.source_cursor(name)
        starts.append(date.fromisoformat(cursor) if cursor else today - timedelta(days=FIRST_READ_DAYS - 1))
    if since is not None:
        starts.append(since)
    start = min(min(starts), today)
    reports = {category: SourceReport(name, announced=0, interval=f"{start}/{today}")
               for category, name in names.items()}
    found = Posted(server)
    records = read_posted(server, categories, start, today, fetcher=fetcher, found=found,
                          progress=(lambda done, total: progress(source, done, total)) if progress else None)
    batches: dict[str, list[Paper]] = {category: [] for category in categories}
    try:
        for category, item in records:
            if isinstance(item, Rejected):
                reports[category].rejected.append(item)
            else:
                batches[category].append(item)
    except SourceError as exc:
        for report in reports.values():
            report.error = str(exc)
    for category, report in reports.items():
        _store_all(ctx, lambda b=batches[category]: iter(b), report)
        report.announced = found.papers.get(category, 0)
        if report.error is None and found.complete:
            ctx.store.set_source_cursor(report.source, today.isoformat(), iso_utc(now))
    if found.published:
        keep_journal_versions(ctx, found.published)
    return list(reports.values())


def keep_journal_versions(ctx: Context, published: dict[str, str]) -> None:
    """Preprints whose record names their journal version's DOI (bioRxiv's ``published``): that DOI kept as
    an alias of the paper (so the journal version's record, from PubMed, merges into it), and the first
    time, the paper's follow-up event "doi" (issue 42), in one transaction."""
    with ctx.store.transaction():
        kept = ctx.store.keep_journal_dois(published)
        ctx.store.record_paper_events((paper_id, DOI, doi) for paper_id, doi in kept)


def _ingest_pubmed(ctx: Context, source: str, progress: Progress | None, fetcher: Fetcher,
                   since: date | None, now: datetime) -> SourceReport:
    """The report of a ``pubmed:`` query, read from the day its cursor names (never read: the last
    :data:`~bot.sources.pubmed.FIRST_READ_DAYS` days; ``since``: from that date too) through today, by the
    day records entered PubMed. The last day is read again next time (more records enter it); the cursor
    moves to today only once every page and batch was read whole."""
    try:
        query = pubmed.parse_source(source)
    except SourceError as exc:
        return SourceReport(source, error=str(exc))
    name = pubmed.source_name(query)
    today = now.astimezone(UTC).date()
    cursor = ctx.store.source_cursor(name)
    start = date.fromisoformat(cursor) if cursor else today - timedelta(days=pubmed.FIRST_READ_DAYS - 1)
    start = min(start, since or start, today)
    report = SourceReport(name, announced=0, interval=f"{start}/{today}")
    found = pubmed.Found()
    callback = (lambda done, total: progress(source, done, total)) if progress else None
    _store_all(ctx, lambda: pubmed.read_pubmed(query, start, today, fetcher=fetcher, found=found,
                                               progress=callback), report)
    report.announced = found.count
    if report.error is None and found.complete:
        ctx.store.set_source_cursor(name, today.isoformat(), iso_utc(now))
    return report


def _ingest_venue(ctx: Context, source: str, progress: Progress | None, fetcher: Fetcher,
                  since: date | None, now: datetime) -> SourceReport:
    """The report of an ``openreview:`` venue: all its accepted papers (``announced``: how many OpenReview
    lists; ``kinds``: how many under each of its venue names, "ICML 2025 poster"…). A venue publishes its
    acceptances at once and changes little after (a camera-ready, an oral), so it is read at most once a
    day: read whole on this UTC day already, it is not asked again (``read_on`` says when,
    ``read_again_on`` the day after), unless
    ``since`` asks for a back-fill. The cursor (the day read) is set only once every page was read."""
    try:
        venue = openreview.parse_source(source)
    except SourceError as exc:
        return SourceReport(source, error=str(exc))
    name = openreview.source_name(venue)
    today = now.astimezone(UTC).date().isoformat()
    cursor = ctx.store.source_cursor(name)
    if cursor is not None and cursor >= today and since is None:
        tomorrow = (now.astimezone(UTC).date() + timedelta(days=1)).isoformat()
        return SourceReport(name, read_on=cursor, read_again_on=tomorrow)
    report = SourceReport(name, announced=0)
    found = openreview.Found()
    callback = (lambda done, total: progress(source, done, total)) if progress else None
    _store_all(ctx, lambda: openreview.read_venue(venue, fetcher=fetcher, found=found, progress=callback),
               report)
    report.announced, report.kinds = found.count, dict(found.venues.most_common())
    if report.error is None and found.complete:
        ctx.store.set_source_cursor(name, today, iso_utc(now))
    return report


def _ingest_acl(ctx: Context, source: str, progress: Progress | None, fetcher: Fetcher,
                since: date | None, now: datetime) -> SourceReport:
    """The report of an ``acl:`` volume. A volume is published once, then corrected now and then: one read
    whole is noted (its cursor, the day of that read) and rests for :data:`~bot.sources.acl.REREAD_DAYS`
    days, so a volume in the daily feeds costs one request a week, and a correction arrives within a week;
    ``since`` (a back-fill) reads it anyway. A read that broke off, or whose lookups failed, leaves the
    cursor as it was: read again next time."""
    try:
        volume = acl.parse_source(source)
    except SourceError as exc:
        return SourceReport(source, error=str(exc))
    name = acl.source_name(volume)
    today = now.astimezone(UTC).date()
    cursor = ctx.store.source_cursor(name)
    again = date.fromisoformat(cursor) + timedelta(days=acl.REREAD_DAYS) if cursor else today
    if since is None and today < again:
        return SourceReport(name, read_on=cursor, read_again_on=again.isoformat())
    report = SourceReport(name, announced=0)
    found = acl.Volume()
    callback = (lambda done, total: progress(source, done, total)) if progress else None
    _store_all(ctx, lambda: acl.read_volume(volume, fetcher=fetcher, found=found, progress=callback), report)
    report.announced = found.entries
    if report.error is None and found.complete:
        ctx.store.set_source_cursor(name, today.isoformat(), iso_utc(now))
        report.read_on = today.isoformat()
    return report


def _store_all(ctx: Context, records: Callable[[], Iterator[Paper | Rejected]], report: SourceReport) -> None:
    """Store the papers ``records()`` yields in batches, counting them (and the rejected) in ``report``;
    a source that can't be read (SourceError, on the call or while reading) sets ``report.error`` after
    storing what came before."""
    batch: list[Paper] = []
    try:
        for item in records():
            if isinstance(item, Rejected):
                report.rejected.append(item)
                continue
            batch.append(item)
            if len(batch) >= BATCH:
                _write(ctx, batch, report)
                batch = []
    except SourceError as exc:
        report.error = str(exc)
    _write(ctx, batch, report)


def take_in_new_papers(ctx: Context, must_save: bool = False) -> None:
    """After papers were stored: the index brought up to date (refitted if the corpus grew a lot; see
    :func:`ingest` for ``must_save``), so they are searched, recommended and unfurled from now on, and
    with the embedding option their vectors computed, once."""
    ctx.engine.refresh(must_save=must_save)
    if ctx.embeddings is not None:
        ctx.embeddings.compute_missing()


def _write(ctx: Context, batch: list[Paper], report: SourceReport) -> None:
    if not batch:
        return
    counts = ctx.store.upsert_papers(batch, events=paper_events)  # what became of known papers (issue 42)
    _store_sessions(ctx, batch)
    report.added += counts.added
    report.updated += counts.updated
    report.unchanged += counts.unchanged


def _store_sessions(ctx: Context, batch: list[Paper]) -> None:
    """Where and when the papers of a batch are presented, when their records said (issue 43), stored
    under the id each paper has now (a record merged into a stored paper gives it its session)."""
    timed = [p for p in batch if p.session is not None]
    if not timed:
        return
    ids = ctx.store.match_papers(timed)
    ctx.store.set_paper_sessions([(pid, p.session) for pid, p in zip(ids, timed, strict=True)
                                  if pid is not None and p.session is not None])
