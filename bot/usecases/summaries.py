"""Summaries of papers about to be shown, from a model the lab runs (PAPERBOT_LLM_URL; issue 41): asked for
once per paper and model (the database decides, across processes and replicas: :mod:`storage.summaries`),
within the day's limit of calls (the database counts) and the client's concurrency cap, each checked against
its paper's title and abstract (:func:`bot.summaries.check.check_summary`) before it may ever be shown.

Nothing here waits for the model on a digest's behalf. :func:`request_summaries` is meant to run beside
the digest (a thread, given ``within`` seconds: no call starts after them), when the papers are chosen;
:func:`summaries_for` reads only what is stored and checked, so a paper whose summary is not ready is
shown with its highlights. A call that fails is given back to be tried again by a later run, after
:data:`RETRY_DELAYS`; after :data:`MOST_ATTEMPTS` it is "failed" until :data:`FAILED_AGAIN_AFTER` has passed.
"""

from __future__ import annotations

import hashlib
import logging
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, time, timedelta

from bot.config import Settings
from bot.state.context import Context
from bot.state.owner import owner_id
from bot.summaries.check import check_summary
from bot.summaries.client import Summarizer, SummaryClient, fits
from storage.models import Paper, SummaryRecord
from storage.moments import iso_utc

log = logging.getLogger(__name__)

#: Failed calls of one paper's summary before it is "failed" (each call tries up to three times itself).
MOST_ATTEMPTS = 3
#: How long a paper whose call failed waits before a later run may ask again, by attempts so far.
RETRY_DELAYS = (timedelta(minutes=10), timedelta(hours=1))
#: How long a "failed" summary waits before it may be asked for again (the endpoint may be back).
FAILED_AGAIN_AFTER = timedelta(days=1)


@dataclass(frozen=True)
class Summary:
    """A checked summary of a paper, and the model that wrote it (what its label names)."""

    text: str
    model: str


def summarizer(settings: Settings, counted: Callable[[list[tuple[str, str | None]]], None] | None = None,
               **client_options) -> Summarizer | None:
    """The summarizer PAPERBOT_LLM_URL and its neighbours set up, or None when it is not set (highlights
    only). ``counted``: what counts each run's outcomes; ``client_options`` go to :class:`SummaryClient`
    (timeout, concurrency…)."""
    if not settings.llm_url or not settings.llm_model:
        return None
    client = SummaryClient(settings.llm_url, settings.llm_model, settings.llm_key, **client_options)
    return Summarizer(client, settings.llm_daily_limit, counted)


#: Seconds after which a run asked for by :func:`ask_ahead` starts no new call (the day's next choice
#: asks again for what is left).
AHEAD_WITHIN = 600.0


def ask_ahead(ctx: Context, paper_ids: Sequence[str], clock: Callable[[], datetime] | None = None) -> None:
    """Papers are about to be shown: ask for their summaries in the background, when the lab's model is
    set (``ctx.summarizer``); nothing is waited for (a paper posted before its summary is ready shows its
    highlights)."""
    if ctx.summarizer is None or not paper_ids:
        return
    request_in_background(ctx, list(paper_ids), clock or (lambda: datetime.now(UTC)), ctx.summarizer,
                          within=AHEAD_WITHIN, done=_counter(ctx.summarizer))


def _counter(summarizer: Summarizer) -> Callable[[SummaryRun], None] | None:
    counted = summarizer.counted
    return None if counted is None else lambda run: counted(run.outcomes())


@dataclass
class SummaryRun:
    """What one :func:`request_summaries` did, by paper id: summaries checked and kept (``ok``), refused
    by the check (``rejected``: the reason code), without a usable answer (``failed``: why; ``given_up``
    those now "failed" for good, the rest retried by a later run), given back unasked (``waiting``: the
    limit or the time ran out), and left alone (``skipped``: an abstract too short or too long to
    summarise, or a summary another process holds or already finished). ``limited``: the day's limit
    was reached."""

    ok: list[str] = field(default_factory=list)
    rejected: dict[str, str] = field(default_factory=dict)
    failed: dict[str, str] = field(default_factory=dict)
    given_up: list[str] = field(default_factory=list)
    waiting: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    limited: bool = False

    def outcomes(self) -> list[tuple[str, str | None]]:
        """(outcome, reason) of each summary asked for, for :func:`bot.metrics.summaries`: "ok",
        "rejected" with the check's reason code, "failed"."""
        return ([("ok", None)] * len(self.ok) + [("rejected", r) for r in self.rejected.values()]
                + [("failed", None)] * len(self.failed))


def fingerprint(paper: Paper) -> str:
    """What a summary was asked from: the paper's title and abstract, as a short hash (a new version that
    changes either is asked again)."""
    text = f"{paper.title}\n{paper.abstract}".encode()
    return hashlib.sha256(text).hexdigest()[:20]


def request_summaries(ctx: Context, paper_ids: Sequence[str], clock: Callable[[], datetime],
                      summarizer: Summarizer, within: float | None = None, owner: str | None = None,
                      papers: Mapping[str, Paper] | None = None) -> SummaryRun:
    """Ask the model for the summary of each of ``paper_ids`` (papers about to be shown) nobody asked for
    yet, and record each outcome. ``clock`` gives the time now (UTC: the leases, the day whose calls are
    counted); ``within``: seconds (of the client's clock) after which no call starts, so a caller may run
    this in a thread beside a digest and move on; ``papers``: the records, when the caller has them (else
    read). Raises nothing the model or its endpoint does; a database failure is the caller's, as anywhere."""
    run = SummaryRun()
    client, model = summarizer.client, summarizer.model
    deadline = None if within is None else client.clock() + within
    ids = list(dict.fromkeys(paper_ids))
    found = dict(papers) if papers is not None else {}
    missing = [pid for pid in ids if pid not in found]
    if missing:
        found.update(ctx.store.get_papers(missing))
    worth = [pid for pid in ids if pid in found and fits(found[pid].abstract)]
    run.skipped += [pid for pid in ids if pid not in worth]
    sources = {pid: fingerprint(found[pid]) for pid in worth}
    stored = ctx.store.summaries_of(worth, model) if worth else {}
    now = clock()
    todo = [pid for pid in worth if _may_ask(stored.get(pid), sources[pid], now)]
    run.skipped += [pid for pid in worth if pid not in todo]
    if not todo:
        return run
    owner = owner or owner_id()
    stop = threading.Event()  # the limit was reached: no other paper is asked for today
    lock = threading.Lock()

    def one(paper_id: str) -> None:
        if stop.is_set() or (deadline is not None and client.clock() >= deadline):
            with lock:
                run.waiting.append(paper_id)
            return
        outcome = _ask(ctx, summarizer, found[paper_id], sources[paper_id], stored.get(paper_id), clock,
                       owner, deadline)
        with lock:
            _record(run, paper_id, outcome)
            if outcome[0] == "limited":
                stop.set()

    queue = iter(todo)

    def worker() -> None:
        try:
            while True:
                with lock:
                    paper_id = next(queue, None)
                if paper_id is None:
                    return
                try:
                    one(paper_id)
                except Exception as exc:  # a database hiccup on one paper: the rest go on; its claim lapses
                    log.warning("summaries: could not record paper %s's summary (%s); a later run asks again",
                                paper_id, exc)
        finally:
            ctx.store.close()  # this thread's connection (SQLite), not left for the collector

    workers = [threading.Thread(target=worker, name=f"summaries-{n}", daemon=True)
               for n in range(min(client.concurrency, len(todo)))]
    for thread in workers:
        thread.start()
    for thread in workers:
        thread.join()
    return run


def _may_ask(stored: SummaryRecord | None, source: str, now: datetime) -> bool:
    """Whether a claim of this summary might succeed (the database decides; this spares it the writes
    that can't)."""
    if stored is None or stored.status == "claimed":
        return True
    if stored.source and stored.source != source:
        return True
    return stored.status == "failed" and stored.finished_at is not None and (
        datetime.fromisoformat(stored.finished_at) + FAILED_AGAIN_AFTER <= now)


def _ask(ctx: Context, summarizer: Summarizer, paper: Paper, source: str, stored: SummaryRecord | None,
         clock: Callable[[], datetime], owner: str, deadline: float | None) -> tuple[str, str | None]:
    """Claim, ask, check and record one paper's summary: ("ok" | "rejected" | "failed" | "given_up" |
    "waiting" | "limited" | "skipped", the reason or error)."""
    store, client, model = ctx.store, summarizer.client, summarizer.model
    now = clock()
    # Held for as long as its call may take: each try's timeout and the longest waits between them.
    lease = timedelta(seconds=client.timeout * (client.retries + 1) + client.longest_wait * client.retries
                      + 30)
    if not store.claim_summaries([paper.id], model, {paper.id: source}, owner, iso_utc(now + lease),
                                 iso_utc(now)):
        return "skipped", None
    day = now.astimezone(UTC).date().isoformat()
    answer = client.summarize(paper.title, paper.abstract,
                              allow=lambda: store.count_summary_call(day, summarizer.daily_limit),
                              deadline=deadline)
    at = clock()
    if answer.limited:
        # Not a failure: given back unasked, for tomorrow's first run.
        tomorrow = datetime.combine(at.astimezone(UTC).date() + timedelta(days=1), time(0), tzinfo=UTC)
        store.release_summary(paper.id, model, owner, iso_utc(tomorrow), count=False)
        return "limited", None
    if answer.text is None:
        error = answer.error or "no answer"
        attempts = (stored.attempts if stored is not None and stored.status == "claimed" else 0) + 1
        if attempts >= MOST_ATTEMPTS:
            store.finish_summary(paper.id, model, owner, "failed", iso_utc(at), source=source, error=error,
                                 again_at=iso_utc(at + FAILED_AGAIN_AFTER))
            return "given_up", error
        delay = RETRY_DELAYS[min(attempts, len(RETRY_DELAYS)) - 1]
        store.release_summary(paper.id, model, owner, iso_utc(at + delay), error=error)
        return "failed", error
    verdict = check_summary(answer.text, paper.title, paper.abstract, answer.finish_reason)
    if verdict.ok:
        store.finish_summary(paper.id, model, owner, "ok", iso_utc(at), text=answer.text, source=source)
        return "ok", None
    store.finish_summary(paper.id, model, owner, "rejected", iso_utc(at), text=answer.text,
                         reason=verdict.reason, source=source, error=verdict.detail or None)
    return "rejected", verdict.reason


def _record(run: SummaryRun, paper_id: str, outcome: tuple[str, str | None]) -> None:
    kind, why = outcome
    if kind == "ok":
        run.ok.append(paper_id)
    elif kind == "rejected":
        run.rejected[paper_id] = why or ""
    elif kind in ("failed", "given_up"):
        run.failed[paper_id] = why or ""
        if kind == "given_up":
            run.given_up.append(paper_id)
    elif kind == "limited":
        run.waiting.append(paper_id)
        run.limited = True
    else:
        run.skipped.append(paper_id)


def summaries_for(ctx: Context, paper_ids: Sequence[str], model: str,
                  papers: Mapping[str, Paper] | None = None) -> dict[str, Summary]:
    """The checked summaries by ``model`` of those of ``paper_ids`` that have one, asked from the paper's
    title and abstract as they are now (``papers``: the records, when the caller has them); a paper
    without one (not asked yet, asked elsewhere right now, refused, failed, or of an older abstract) is
    not in the answer. Reads only."""
    ids = list(dict.fromkeys(paper_ids))
    if not ids:
        return {}
    stored = ctx.store.summaries_of(ids, model)
    ready = [pid for pid in ids if pid in stored and stored[pid].status == "ok" and stored[pid].text]
    if not ready:
        return {}
    found = dict(papers) if papers is not None else {}
    missing = [pid for pid in ready if pid not in found]
    if missing:
        found.update(ctx.store.get_papers(missing))
    return {pid: Summary(stored[pid].text or "", model) for pid in ready
            if pid in found and stored[pid].source == fingerprint(found[pid])}


@dataclass(frozen=True)
class SummaryCounts:
    """How a UTC day's summaries ended: ``ok``, ``rejected`` by reason code, ``failed`` for good (none of
    their calls gave a usable answer), and the newest failure's ``error``."""

    ok: int = 0
    rejected: Mapping[str, int] = field(default_factory=dict)
    failed: int = 0
    error: str | None = None

    @property
    def refused(self) -> int:
        return sum(self.rejected.values())


def summary_counts(ctx: Context, day: datetime) -> SummaryCounts:
    """How the summaries finished on ``day``'s UTC day ended (the admin report; any model)."""
    start = datetime.combine(day.astimezone(UTC).date(), time(0), tzinfo=UTC)
    since, until = iso_utc(start), iso_utc(start + timedelta(days=1))
    outcomes = ctx.store.summary_outcomes(since, until)
    rejected = {reason or "": count for (status, reason), count in outcomes.items() if status == "rejected"}
    failed = outcomes.get(("failed", None), 0)
    return SummaryCounts(ok=outcomes.get(("ok", None), 0), rejected=rejected, failed=failed,
                         error=ctx.store.latest_summary_error(since, until) if failed else None)


def request_in_background(ctx: Context, paper_ids: Sequence[str], clock: Callable[[], datetime],
                          summarizer: Summarizer, within: float | None = None,
                          done: Callable[[SummaryRun], None] | None = None) -> threading.Thread:
    """:func:`request_summaries` in a daemon thread of its own, started: the caller (a digest run, a
    recommendation) goes on at once. ``done(run)`` is called with what it did (an edge counts it:
    :func:`bot.metrics.summaries`); whatever goes wrong is logged, never raised into anyone."""

    def work() -> None:
        try:
            run = request_summaries(ctx, paper_ids, clock, summarizer, within=within)
            if done is not None:
                done(run)
        except Exception as exc:  # the database away, say: the papers show their highlights
            log.warning("summaries: not asked for this time (%s); a later run asks again", exc)
        finally:
            ctx.store.close()

    thread = threading.Thread(target=work, name="summaries", daemon=True)
    thread.start()
    return thread
