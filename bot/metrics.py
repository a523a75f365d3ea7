"""paperbot's Prometheus metrics: every definition, the few calls the edges make to move them, and the
page ``GET /metrics`` serves.

The edges call it with plain values (a kind, a count, a status; for the page, what holds the store) and
it imports nothing of the bot, so any layer may count into it. Labels are only ever drawn from small
fixed sets (a request's kind, a Web API method paperbot calls, an outcome, a source's kind): never a
token, a user, a channel or anyone's text.

Under ``paperbot run`` the metrics are kept in prometheus-client's multiprocess mode
(PROMETHEUS_MULTIPROC_DIR, :mod:`bot.metrics_dir`), so that what the digest helper processes count shows
in the bot's own page. That mode is chosen when prometheus-client is first imported: nothing
``paperbot run`` imports before choosing it may import this module.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Protocol

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
    values,
)
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.multiprocess import MultiProcessCollector, mark_process_dead

from storage.moments import iso_utc

if TYPE_CHECKING:
    from storage import Store

log = logging.getLogger(__name__)

#: Seconds a scrape waits for the database (the newest paper's age): a slow database leaves the gauge out.
SCRAPE_WAIT = 1.0
#: Days of ratings the 👍 share gauge counts: a rolling week.
LIKE_SHARE_DAYS = 7

REQUESTS = Counter("paperbot_requests", "Slack requests handled, by kind (command, event, action, "
                   "shortcut, view, options, other)", ["kind"])
ACK_SECONDS = Histogram("paperbot_ack_seconds", "Seconds from handing a Slack request to Bolt to its answer "
                        "(the ack), by kind", ["kind"],
                        buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 3.0, 5.0, 10.0))
REFUSED = Counter("paperbot_requests_refused", "HTTP requests to /slack/events refused before Bolt saw them "
                  "(bad signature, malformed, too large), by HTTP status", ["status"])
API_CALLS = Counter("paperbot_slack_api_calls", "Slack Web API calls by method and outcome: ok, refused "
                    "(ok:false or another 4xx; once a call), rate_limited (429) and outage (5xx, no "
                    "connection, no answer; once an attempt, retries included)", ["method", "outcome"])
DIGESTS = Counter("paperbot_digests", "Digests by the outcome of the run that handled them: sent, empty "
                  "(nothing worth sending), failed (the person can't be reached today), waiting (left for a "
                  "later run: counted at each run that leaves it)", ["outcome"])
PAPERS_POSTED = Counter("paperbot_papers_posted", "Paper messages Slack accepted (digests and "
                        "recommendations; a compact digest counts each of its papers)")
INGESTED = Counter("paperbot_papers_ingested", "Papers added or updated by the daily feeds, by source kind",
                   ["source"])
REJECTED = Counter("paperbot_papers_rejected", "Records the daily feeds could not take, by source kind",
                   ["source"])
SOURCE_FAILURES = Counter("paperbot_source_failures", "Daily feed sources that could not be read at all, "
                          "by source kind", ["source"])
SUMMARIES = Counter("paperbot_summaries", "Summaries asked of the lab's model (PAPERBOT_LLM_URL), by "
                    "outcome: ok (checked: it may be shown), rejected (the check refused it; reason: empty, "
                    "cut_off, too_long, copied, invented_number, invented_name), failed (no usable answer: "
                    "the endpoint was down, slow, busy or garbled; tried again later)", ["outcome", "reason"])
REFIT_SECONDS = Histogram("paperbot_refit_seconds", "Seconds each refit of the paper model took (its count: "
                          "the refits)", buckets=(0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600))

#: A summary's outcomes, and the check's reasons for refusing one (bot/summaries/check.py: REASONS; a label
#: of any other reason is "other", so the set stays small whatever a caller passes).
SUMMARY_OUTCOMES = ("ok", "rejected", "failed")
SUMMARY_REASONS = ("empty", "cut_off", "too_long", "copied", "invented_number", "invented_name")
#: What a digest's outcome is counted as; the rest (another process's, a stopped run's) is not counted.
_DIGEST_OUTCOMES = {"sent": "sent", "empty": "empty", "failed": "failed", "incomplete": "waiting"}


@contextmanager
def acking(kind: str) -> Iterator[None]:
    """Count one Slack request of ``kind`` and time its answer."""
    start = time.perf_counter()
    try:
        yield
    finally:
        REQUESTS.labels(kind).inc()
        ACK_SECONDS.labels(kind).observe(time.perf_counter() - start)


def refused(status: int) -> None:
    """A request the HTTP gate refused with ``status``."""
    REFUSED.labels(str(status)).inc()


def api_call(method: str, outcome: str) -> None:
    """A Web API call (or, for ``rate_limited`` and ``outage``, one attempt of it) of ``method``."""
    API_CALLS.labels(method, outcome).inc()


def papers_posted(count: int = 1) -> None:
    """``count`` papers Slack accepted."""
    PAPERS_POSTED.inc(count)


def digests(statuses: Iterable[str]) -> None:
    """The statuses of a run's digests (the helpers' merged in)."""
    for status in statuses:
        counted = _DIGEST_OUTCOMES.get(status)
        if counted is not None:
            DIGESTS.labels(counted).inc()


def ingested(kind: str, *, taken: int, rejected: int, failed: bool) -> None:
    """One daily feed source read: ``kind`` names its kind (a bounded label, never its address), ``taken``
    papers were added or updated, ``rejected`` records refused; ``failed``: it could not be read at all."""
    INGESTED.labels(kind).inc(taken)
    REJECTED.labels(kind).inc(rejected)
    if failed:
        SOURCE_FAILURES.labels(kind).inc()


def summaries(outcomes: Iterable[tuple[str, str | None]]) -> None:
    """Summaries asked for, each as (outcome, reason): ("ok", None), ("rejected", the check's reason code),
    ("failed", None) (:meth:`bot.usecases.summaries.SummaryRun.outcomes`)."""
    for outcome, reason in outcomes:
        if outcome not in SUMMARY_OUTCOMES:
            continue
        label = "" if outcome != "rejected" else reason if reason in SUMMARY_REASONS else "other"
        SUMMARIES.labels(outcome, label).inc()


@contextmanager
def refitting() -> Iterator[None]:
    """Time one refit of the paper model."""
    start = time.perf_counter()
    try:
        yield
    finally:
        REFIT_SECONDS.observe(time.perf_counter() - start)


def helper_ended(pid: int) -> None:
    """A digest helper process ended: its live gauges (if any) leave the page; its counts stay."""
    if multiprocess():
        mark_process_dead(pid)


def multiprocess() -> bool:
    """Whether this process keeps its metrics in PROMETHEUS_MULTIPROC_DIR: as prometheus-client decided
    when it was imported (a directory named only afterwards is not written to, so the page must not read
    it)."""
    return bool(getattr(values.ValueClass, "_multiprocess", False))


class _NewestPaper:
    """The newest paper's age, asked of the store at each scrape (one indexed row)."""

    def __init__(self, store: Store):
        self.store = store

    def collect(self) -> Iterator[Metric]:
        try:
            with self.store.waiting_at_most(SCRAPE_WAIT):
                newest = self.store.newest_paper_added()
        except Exception as exc:  # a scrape never fails for the database: the gauge is left out
            log.debug("the newest paper's age is left out of /metrics: %s", exc)
            return
        if newest is None:
            return
        written = datetime.fromisoformat(newest)
        if written.tzinfo is None:  # stored as UTC
            written = written.replace(tzinfo=UTC)
        age = (datetime.now(UTC) - written).total_seconds()
        gauge = GaugeMetricFamily("paperbot_newest_paper_age_seconds",
                                  "Seconds since the newest paper was added")
        gauge.add_metric([], max(0.0, age))
        yield gauge


class _LikeShare:
    """The 👍 share of the last :data:`LIKE_SHARE_DAYS` days' ratings and how many there were, asked of
    the store at each scrape: every workspace's together, as no metric is labelled by workspace (a
    workspace's own week over week is the admin channel's report, :mod:`bot.usecases.admin_report`)."""

    def __init__(self, store: Store):
        self.store = store

    def collect(self) -> Iterator[Metric]:
        now = datetime.now(UTC)
        since, until = iso_utc(now - timedelta(days=LIKE_SHARE_DAYS)), iso_utc(now + timedelta(days=1))
        try:
            with self.store.waiting_at_most(SCRAPE_WAIT):
                liked, rated = self.store.rating_counts(since, until, everywhere=True)
        except Exception as exc:  # a scrape never fails for the database: the gauges are left out
            log.debug("the 👍 share is left out of /metrics: %s", exc)
            return
        count = GaugeMetricFamily("paperbot_ratings_last_week", "Ratings (👍 and 👎) people gave in the last "
                                  "7 days to papers paperbot had shown them, every workspace together")
        count.add_metric([], rated)
        yield count
        if rated:
            share = GaugeMetricFamily("paperbot_like_share", "The 👍 share (0 to 1) of those ratings; left "
                                      "out without any")
            share.add_metric([], liked / rated)
            yield share


class HoldsStore(Protocol):
    """What the page reads its gauges through: anything holding the store (the process's context)."""

    @property
    def store(self) -> Store: ...


class _Page:
    """What one scrape collects: every process's counts (or this one's), and the store's gauges."""

    def __init__(self, holder: HoldsStore | None):
        if multiprocess():
            self.counts: CollectorRegistry = CollectorRegistry()
            MultiProcessCollector(self.counts)
        else:
            self.counts = REGISTRY
        self.holder = holder

    def collect(self) -> Iterator[Metric]:
        yield from self.counts.collect()
        if self.holder is not None:
            yield from _NewestPaper(self.holder.store).collect()
            yield from _LikeShare(self.holder.store).collect()


def page(holder: HoldsStore | None = None) -> tuple[bytes, str]:
    """The text ``GET /metrics`` answers (with ``holder``, the gauges read from its store at each scrape),
    and its content type (Prometheus' text format)."""
    return generate_latest(_Page(holder)), CONTENT_TYPE_LATEST
