"""Daily digests: a run sends every digest that is due, after the day's feeds.

Whoever sends digests (the bot's scheduler, at every minute and half minute, or ``paperbot digest``
from cron) calls :func:`run_daily`, which ingests the configured feeds once a day (after arXiv renews its
listings) and then sends every digest due (:mod:`bot.usecases.digest_schedule`), each exactly once
(:mod:`bot.usecases.digests.send`), a few at a time; one person's failure never stops anyone else's digest.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import random
import threading
import time as wall
from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from datetime import UTC, datetime, time, timedelta

from bot.errors import NoInterests, NoPapers
from bot.sources.arxiv_daily import next_renewal
from bot.state.context import Context
from bot.state.owner import owner_alive, owner_id
from bot.usecases.delivery import send_compact, send_papers
from bot.usecases.digest_due import local_date
from bot.usecases.digest_schedule import Due, NotDue, find_due
from bot.usecases.digest_vocabulary import (
    DATABASE_AWAY,
    Alive,
    Clock,
    Courier,
    DigestHeader,
    Note,
    Outcome,
    error_note,
    utc_now,
)
from bot.usecases.digests.choose import BATCH, Chooser, choose_papers
from bot.usecases.digests.helpers import Helpers, merged
from bot.usecases.digests.send import (
    UNREAD,
    Claimed,
    Seen,
    claim_ahead,
    claim_new_ahead,
    digest_row,
    end_past_digests,
    give_back_unreturned,
    remember_unreturned,
    report_database_away,
    resumed,
    send_claimed_digest,
    send_digest,
    waiting,
    wants_compact,
)
from bot.usecases.feeds import sections
from bot.usecases.ingest import SourceReport, ingest
from bot.usecases.recommend import Recommendation
from storage import DigestRecord
from storage.leases import JOB
from storage.moments import iso_utc

log = logging.getLogger(__name__)

WORKERS = 8  # digests sent at once
#: What a run that leaves its digests to helper processes reports of one no helper reported on (a helper
#: that died: the next run takes over what it had claimed).

#: How long a batch of digests waits for its people's acknowledged requests (a follow, a 👍) that a living
#: process is carrying out, before it is chosen: what they asked for must count in it. A person whose
#: requests are still unfinished then has their digest at the next run. Requests no living process holds
#: are carried out before a run begins (``paperbot digest``, the bot's scheduler: bot.slack.replay).
ACKED_WAIT = 10.0
ACKED_POLL = 0.1  # seconds between looks meanwhile

FEED_JOB = "ingest-feeds"
FEED_LEASE = timedelta(minutes=30)
FEED_RETRY = timedelta(hours=1)
#: How long after arXiv renews its listings the next daily run reads the feeds: read sooner, a day's
#: digests would carry the announcement of the day before.
FEED_AFTER_RENEWAL = timedelta(minutes=30)


@dataclass
class DailyRun:
    """What one run of :func:`run_daily` did."""

    feeds: list[SourceReport] | None = None
    outcomes: list[Outcome] = field(default_factory=list)
    not_due: list[NotDue] = field(default_factory=list)

    def count(self, status: str) -> int:
        return sum(1 for o in self.outcomes if o.status == status)


def send_due_digests(ctx: Context, now: datetime, courier: Courier, *, users: Iterable[str] | None = None,
                     force: bool = False, owner: str | None = None, workers: int = WORKERS,
                     hold: Callable[[str], contextlib.AbstractContextManager] | None = None,
                     stop: threading.Event | None = None, clock: Clock = utc_now,
                     alive: Alive = owner_alive, helpers: Helpers | None = None,
                     acked_wait: float = ACKED_WAIT,
                     sleep: Callable[[float], object] = wall.sleep) -> DailyRun:
    """Send every digest due at ``now`` (see :func:`due_digests`), ``workers`` at a time; with
    ``helpers``, a big run also in helper processes (:mod:`bot.usecases.digests.helpers`).

    ``hold(user)`` is entered around each person's digest (the bot's per-person lock; by default the
    store's ``hold_person``, so a `paperbot digest` run and a running bot on one PostgreSQL database
    never deliver to one person at once); once ``stop``
    is set no new digest starts (those under way finish). One person's failure never stops another's.
    A digest is chosen only once its person's acknowledged requests are carried out: up to ``acked_wait``
    seconds are waited for them (``sleep``), then a digest still waiting goes to the next run.
    """
    owner = owner or owner_id()
    users = list(users) if users is not None else None
    give_back_unreturned(ctx, clock())  # what an earlier run could not give back while the database was away
    ended = end_past_digests(ctx, now, owner, clock, alive, set(users) if users is not None else None)
    due, not_due = find_due(ctx, now, users, force)
    run = DailyRun(outcomes=ended, not_due=not_due)
    if not due:
        return run
    # Each run takes the due digests in an order of its own: several processes on one database (replicas,
    # or `paperbot digest` beside the bot) would otherwise walk the same list in step, each waiting on
    # the others' hold of the same person, and serve one at a time between them.
    order = random.sample(due, len(due))
    helping = (helpers.start(len(due), now, users, force, workers, stop, send_due_digests)
               if helpers is not None else None)
    if helping is not None and helping.alone:  # this process answers Slack meanwhile: only waits
        left = Note("left_to_helpers")
        own = [Outcome(item.user_id, item.local_date, "skipped", note=left) for item in due]
    else:
        try:
            own = _send_here(ctx, due, order, courier, owner, workers, hold, stop, clock, alive,
                             _Requests(ctx, acked_wait, sleep))
        except Exception:
            if helping is not None:  # they carry on with what they claimed; their reports are read
                helping.outcomes()  # so that they can end, and none outlives the run
            raise
    report_database_away(own)  # a helper process reports its own
    run.outcomes += merged(own, helping.outcomes()) if helping is not None else own
    for outcome in run.outcomes:
        log.info("digest %s for %s: %s (%d delivered)%s", outcome.local_date, outcome.user_id, outcome.status,
                 outcome.delivered, f": {outcome.note.stored()}" if outcome.note else "")
    return run


def _send_here(ctx: Context, due: list[Due], order: list[Due], courier: Courier, owner: str, workers: int,
               hold: Callable[[str], contextlib.AbstractContextManager] | None,
               stop: threading.Event | None, clock: Clock, alive: Alive,
               requests: _Requests) -> list[Outcome]:
    """The digests of ``due`` that this process can claim, sent in the order of ``order``, ``workers``
    at a time; an outcome for each of ``due``, in its order."""
    outcomes: dict[int, Outcome] = {}
    futures: dict[int, Future] = {}

    def one(item: Due, record: DigestRecord | None, new: bool, last_heard: datetime | None,
            chooser: Chooser, seen: Seen) -> Outcome:
        try:
            if record is None:  # not ours to send: ended, or someone else is on it
                return _not_claimed(ctx, item, seen)
            if stop is not None and stop.is_set():
                return _give_back(ctx, item, record, new, owner)
            with (hold or ctx.store.hold_person)(item.user_id):
                return send_claimed_digest(ctx, record, new, item.local_date, courier, owner, clock, chooser,
                                           last_heard)
        except NoPapers:  # nothing ingested yet: try again at the next run
            return Outcome(item.user_id, item.local_date, "skipped", note=Note("no_papers"))
        except DATABASE_AWAY as exc:  # claimed, and not given back: the next run gives it back first
            if record is not None:
                remember_unreturned(ctx, item.user_id, record.local_date, owner)
            log.info("the digest of %s waits for the database: %s", item.user_id, exc)
            return Outcome(item.user_id, item.local_date, "incomplete",
                           note=Note("database_away", detail=str(exc)), database_away=True)
        except Exception as exc:  # never let one person stop the others; the log has the traceback
            log.exception("the digest of %s failed", item.user_id)
            return Outcome(item.user_id, item.local_date, "incomplete",
                           note=Note("crashed", detail=error_note(exc)))

    workers = max(1, min(workers, len(due)))
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="paperbot-digest") as pool:
        running: set[Future] = set()
        ahead = iter(order)
        while True:
            # Claim a batch only when the workers are about to need it, then score only what was
            # claimed: processes sharing a database split the digests instead of each scoring all.
            # A batch is BATCH claimed digests, however many others turn out taken (one matrix
            # product scores a batch for about what it costs for one person).
            while len(running) >= workers:
                running = wait(running, return_when=FIRST_COMPLETED).not_done
            chunk: list[tuple[Due, DigestRecord | None, bool, datetime | None, Seen]] = []
            claimed = 0
            while claimed < BATCH and (items := list(itertools.islice(ahead, BATCH - claimed))):
                claims, seen_rows = _claim_or_skip(ctx, items, owner, clock, alive, stop)
                for item, (record, new, last_heard), seen in zip(items, claims, seen_rows, strict=True):
                    chunk.append((item, record, new, last_heard, seen))
                    claimed += record is not None
            if not chunk:
                break
            # Chosen only once what these people asked for is done (a follow answered must count).
            unfinished = requests.wait_for([item.user_id for item, record, *_ in chunk
                                            if record is not None and record.papers is None])
            if unfinished:
                chunk = _leave_for_later(ctx, chunk, unfinished, owner, outcomes)
            chooser = Chooser(ctx, [(item.user_id, item.local_date) for item, record, *_ in chunk if record])
            for item, record, new, last_heard, seen in chunk:
                if record is None and stop is not None and stop.is_set():
                    outcomes[id(item)] = Outcome(item.user_id, item.local_date, "skipped",
                                                 note=Note("stopping"))
                    continue
                futures[id(item)] = pool.submit(one, item, record, new, last_heard, chooser, seen)
                running.add(futures[id(item)])
    outcomes.update({key: future.result() for key, future in futures.items()})
    return [outcomes[id(item)] for item in due]  # reported in the schedule's order


class _Requests:
    """Waits for people's acknowledged requests (the inbox) before their digests are chosen."""

    def __init__(self, ctx: Context, most: float, sleep: Callable[[float], object]):
        self.ctx, self.most, self.sleep = ctx, most, sleep

    def wait_for(self, users: list[str]) -> set[str]:
        """Those of ``users`` whose requests are still unfinished after waiting up to :attr:`most` seconds
        for them (a digest batch waits once; the database away: none, the digests' own writes then
        fail as usual)."""
        if not users:
            return set()
        ws = self.ctx.store.workspace
        waited = 0.0
        try:
            unfinished = self.ctx.store.inbox_unfinished(ws, users)
            while unfinished and waited < self.most:
                self.sleep(ACKED_POLL)
                waited += ACKED_POLL
                unfinished = self.ctx.store.inbox_unfinished(ws, unfinished)
        except DATABASE_AWAY as exc:
            log.info("could not look for unfinished requests: %s", exc)
            return set()
        if unfinished:
            log.info("%d digest(s) wait for their people's requests: %s", len(unfinished),
                     ", ".join(sorted(unfinished)[:5]))
        return unfinished


def _leave_for_later(ctx: Context, chunk: list, unfinished: set[str], owner: str,
                     outcomes: dict[int, Outcome]) -> list:
    """``chunk`` without the new claims of the people in ``unfinished``, each withdrawn (the next run
    sends it) and reported as skipped in ``outcomes``."""
    kept = []
    for entry in chunk:
        item, record, new = entry[0], entry[1], entry[2]
        if record is None or not new or item.user_id not in unfinished:
            kept.append(entry)
            continue
        try:
            outcomes[id(item)] = _give_back(ctx, item, record, new, owner, "requests_unfinished")
        except DATABASE_AWAY:
            kept.append(entry)  # its worker meets the database away as any digest does
    return kept


def _claim_or_skip(ctx: Context, items: list[Due], owner: str, clock: Clock, alive: Alive,
                   stop: threading.Event | None) -> tuple[list[Claimed], list[Seen]]:
    """Claim due digests ahead of sending them (each as :func:`claim_ahead` returns it), those not begun
    yet all at once; (None, False, None) for each once stopping, and for one that can't be claimed.
    Also each one's row as it was read here (the rest's rows are read at once), or UNREAD."""
    seen: list[Seen] = [UNREAD] * len(items)
    if stop is not None and stop.is_set():
        return [(None, False, None)] * len(items), seen
    try:
        new = claim_new_ahead(ctx, [(item.user_id, item.local_date) for item in items], owner, clock)
    except Exception:  # the one statement failed: each on its own, so that one person stops no other
        log.warning("could not claim %d digests at once; claiming them one by one", len(items), exc_info=True)
        new = {}
    begun = [(item.user_id, item.local_date.isoformat()) for item in items
             if (item.user_id, item.local_date) not in new]
    try:  # those begun already (elsewhere, or an earlier run): their rows at once, not one by one
        rows: dict[tuple[str, str], DigestRecord] | None = ctx.store.get_digests(begun) if begun else {}
    except Exception:
        log.warning("could not read %d digests at once; reading them one by one", len(begun), exc_info=True)
        rows = None
    claims: list[Claimed] = []
    for at, item in enumerate(items):
        if (item.user_id, item.local_date) in new:
            claims.append(new[item.user_id, item.local_date])
        elif stop is not None and stop.is_set():
            claims.append((None, False, None))
        else:
            if rows is not None:
                seen[at] = rows.get((item.user_id, item.local_date.isoformat()))
            try:
                claims.append(claim_ahead(ctx, item.user_id, item.local_date, owner, clock, alive, seen[at]))
            except Exception:  # its worker reports what it finds; one person never stops the others
                log.exception("could not claim the digest of %s", item.user_id)
                claims.append((None, False, None))
                seen[at] = UNREAD
    return claims, seen


def _not_claimed(ctx: Context, item: Due, seen: Seen = UNREAD) -> Outcome:
    """What became of a due digest this run could not claim (as :func:`send_digest` reports it), as its
    row was ``seen`` when the claim was tried (read now if it was not)."""
    current = digest_row(ctx, item.user_id, item.local_date.isoformat(), seen)
    if current is not None and current.status == "sending" and current.owner is None:
        return Outcome(item.user_id, item.local_date, "incomplete", note=waiting(current), outage=True)
    busy = current is not None and current.status == "sending"
    return Outcome(item.user_id, item.local_date, "busy" if busy else "done")


def _give_back(ctx: Context, item: Due, record: DigestRecord, new: bool, owner: str,
               why: str = "stopping") -> Outcome:
    """Stopping before a claimed digest started: a new claim (nothing chosen or posted) is withdrawn,
    so the next run sends it at once; one taken over stays claimed until its lease runs out or this
    process is gone."""
    if new:
        with ctx.store.transaction():
            ctx.store.drop_digest(item.user_id, record.local_date, owner)
    return Outcome(item.user_id, item.local_date, "skipped", note=Note(why))


@dataclass
class Preview:
    """What a due digest would send now (``paperbot digest --dry-run``): ``resuming`` a digest begun
    with that many papers, or nothing because of ``refusal``."""

    due: Due
    recommendations: list[Recommendation]
    resuming: int | None = None
    refusal: NoInterests | NoPapers | None = None


def preview_digests(ctx: Context, now: datetime, users: Iterable[str] | None = None,
                    force: bool = False) -> tuple[list[Preview], list[NotDue]]:
    """Every digest due at ``now`` and the papers it would send, recording nothing."""
    due, not_due = find_due(ctx, now, users, force)
    chooser = Chooser(ctx, [(d.user_id, d.local_date) for d in due], record_feeds=False)
    previews = []
    for item in due:
        record = ctx.store.get_digest(item.user_id, item.local_date.isoformat())
        try:
            if record is not None and record.papers is not None:
                shown = ctx.store.shown_among(item.user_id, record.papers)
                recs = [r for r in resumed(ctx, record) if r.paper.id not in shown]
                previews.append(Preview(item, recs, resuming=len(record.papers)))
            else:
                previews.append(Preview(item, chooser.choose(item.user_id, item.local_date)))
        except (NoInterests, NoPapers) as exc:
            previews.append(Preview(item, [], refusal=exc))
    return previews, not_due


def send_digest_now(ctx: Context, user_id: str, courier: Courier, now: datetime | None = None,
                    owner: str | None = None, clock: Clock = utc_now, alive: Alive = owner_alive) -> Outcome:
    """A digest asked for now (`/papers digest now`).

    If today's digest has not gone out, this is it (the scheduled one won't come again today). If it
    has, an extra one goes out at once, of papers not shown yet. Raises NoInterests / NoPapers.
    """
    now = now or clock()
    person = ctx.store.get_person(user_id)
    day = local_date(person.tz if person else None, now)
    outcome = send_digest(ctx, user_id, day, courier, owner, clock, alive, explicit=True)
    if outcome.status != "done":
        return outcome
    recs = choose_papers(ctx, user_id, today=day)
    if not recs:
        return Outcome(user_id, day, "empty")
    compact = wants_compact(courier, user_id, person, len(recs))
    header = courier.phrase(DigestHeader(len(recs), day, tuple(sections(recs)), extra=True, compact=compact))
    if compact:
        delivery = send_compact(ctx, user_id, recs, courier, header)
    else:
        delivery = send_papers(ctx, user_id, recs, courier, header, clock)
    # Unconfirmed papers count as shown (never repeated) but not as delivered.
    return Outcome(user_id, day, "extra", len(delivery.delivered), len(delivery.failed), delivery.outage,
                   outage=delivery.outage is not None)


# -- feeds ------------------------------------------------------------------------------------------

def next_utc_day(now: datetime) -> str:
    """When the UTC day after ``now``'s starts (as the database stores it): a daily job's next run."""
    return iso_utc(datetime.combine(now.astimezone(UTC).date() + timedelta(days=1), time(0), tzinfo=UTC))


def ingest_feeds_if_due(ctx: Context, feeds: list[str], now: datetime | None = None, owner: str | None = None,
                        clock: Clock = utc_now, alive: Alive = owner_alive,
                        fetcher=None) -> list[SourceReport] | None:
    """Ingest ``feeds`` once a day, whichever process gets there first; None when not due.

    The run is a lease (``storage.leases``, kind JOB): taken by one compare-and-set, so two processes
    never both ingest, whatever the database. A finished run holds it until half an hour after arXiv
    next renews its listings (midnight in New York: 05:30 UTC in winter, 04:30 in summer), so each
    morning's digests carry that night's announcement; a run with an unreadable source holds it an hour
    at most. A first run (no lease yet) ingests at once. Never raises for a feed's failure.
    """
    if not feeds:
        return None
    owner = owner or owner_id()
    now = now or clock()
    day = now.astimezone(UTC).date().isoformat()
    store = ctx.store
    job = store.get_job(FEED_JOB)
    running = job is not None and job.status == "running"
    dead = {job.owner} if running and job.owner and alive(job.owner) is False else set()
    if job is not None and not dead and job.lease_until and datetime.fromisoformat(job.lease_until) > now:
        return None  # under way, or done until its next run: spares every tick a write
    at = iso_utc(now)
    if not store.take_lease(JOB, (FEED_JOB,), owner, iso_utc(now + FEED_LEASE), at, dead=dead,
                            fresh={"day": day, "started_at": at, "finished_at": None, "error": None}):
        return None
    tomorrow = iso_utc(next_renewal(now) + FEED_AFTER_RENEWAL)

    def finish(status: str, error: str | None) -> None:
        ended = clock()
        again = tomorrow if status == "done" else min(iso_utc(ended + FEED_RETRY), tomorrow)
        store.finish_lease(JOB, (FEED_JOB,), owner, status, iso_utc(ended), error, again)

    try:
        reports = ingest(ctx, feeds, fetcher=fetcher, clock=clock)
    except Exception as exc:  # a broken feed must never stop the digests
        log.exception("ingesting the feeds failed")
        finish("failed", f"{type(exc).__name__}: {exc}")
        return None
    errors = [f"{r.source}: {r.error}" for r in reports if r.error]
    for report in reports:
        log.info("feed %s: %s%d added, %d updated, %d unchanged, %d rejected%s%s", report.source,
                 _announced(report), report.added, report.updated, report.unchanged, len(report.rejected),
                 f"; caught up from {report.caught_up_from}" if report.caught_up_from else "",
                 f"; error: {report.error}" if report.error else "")
    finish("failed" if errors else "done", "; ".join(errors) or None)
    return reports


def _announced(report: SourceReport) -> str:
    """What an arXiv category's listing announced, for the log line (nothing for other sources)."""
    if report.announced is None or report.announced_on is None:
        return ""
    if report.quiet and not report.announced:
        return f"no announcement on {report.announced_on}, "
    return f"{report.announced} announced (listing of {report.announced_on}), "


def run_daily(ctx: Context, feeds: list[str], courier: Courier, now: datetime | None = None, *,
              owner: str | None = None, clock: Clock = utc_now, alive: Alive = owner_alive,
              fetcher=None, **options) -> DailyRun:
    """The daily work at ``now``: the feeds (once per UTC day), then every digest due.
    ``options`` go to :func:`send_due_digests` (users, force, workers, hold, stop)."""
    owner = owner or owner_id()
    now = now or clock()
    reports = ingest_feeds_if_due(ctx, feeds, now, owner, clock, alive, fetcher=fetcher)
    run = send_due_digests(ctx, now, courier, owner=owner, clock=clock, alive=alive, **options)
    run.feeds = reports
    return run
