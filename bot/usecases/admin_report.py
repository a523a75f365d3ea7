"""The admins' daily word (PAPERBOT_ADMIN_CHANNEL, issue 26): paperbot must never fail silently. When the
day's feeds failed, when no new paper has come in for a while, or when digests failed, the workspace's admin
channel gets one short post a UTC day naming what went wrong and what to do. Summaries by the lab's model
(PAPERBOT_LLM_URL) that could not be shown that day, failed or refused by the check, are counted there too.
When the workspace's 👍 share fell by a third from one whole UTC week to the next, that is said too, once
a week (:func:`bot.usecases.stats.share_fell`).

Once a day is the database's decision (a shared job per workspace, taken by compare-and-set), so any number
of processes report it once; once a week, for the 👍 share, another such job, taken by the day's report.
A day whose problems all come after its post is said the next day, if they last.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta

from bot.errors import Outage
from bot.presentation.reasons import shorten
from bot.sources.arxiv import parse_categories
from bot.sources.records import SourceError
from bot.state.context import Context
from bot.state.owner import owner_id
from bot.usecases.digest_vocabulary import Note
from bot.usecases.digests.run import FEED_JOB, next_utc_day
from bot.usecases.stats import Share, share_fell
from bot.usecases.summaries import summary_counts
from storage.leases import JOB
from storage.moments import iso_utc

log = logging.getLogger(__name__)

REPORT_JOB = "admin-report"  # + ":" + the workspace: one a workspace and UTC day
SHARE_JOB = "admin-report-likes"  # + ":" + the workspace: the 👍 share's fall, one a workspace and UTC week
#: How long without a new paper is worth a word. arXiv announces nothing on Friday and Saturday nights, so
#: a quiet weekend is up to three days without new papers; four is not a weekend.
NO_PAPERS_FOR = timedelta(days=4)
#: A report Slack could not take (an outage) is tried again after this.
RETRY_AFTER = timedelta(minutes=10)
ERROR_SHOWN = 200  # characters of an error quoted in a post


@dataclass(frozen=True)
class Problem:
    """Something that went wrong, told by its facts (the post says it, and what an admin can do:
    :mod:`bot.slack.views.admin_report`). ``kind``: "feeds_failed" (``error``: the run's),
    "no_papers" (none at all), "quiet" (no new paper for ``days`` days, the ``newest`` on that day;
    ``read``: each arXiv category of the feeds and the day its announcements were read through, None
    for never), "digests_failed" (``count`` of them today, ``note``: the first one's), "summaries_failed"
    (``count`` papers whose summary by the lab's model got no usable answer today, ``error``: the newest
    one's), "summaries_rejected" (``count`` summaries the check refused today, never shown; ``reasons``:
    how many for each of the check's reason codes) or "likes_fell" (``shares``: the week before's and
    last week's 👍 shares, the later one at most two thirds of the earlier)."""

    kind: str
    error: str = ""
    count: int = 0
    days: int = 0
    newest: str = ""
    read: tuple[tuple[str, str | None], ...] = ()
    note: Note | None = None
    reasons: tuple[tuple[str, int], ...] = ()
    shares: tuple[Share, Share] | None = None


def problems(ctx: Context, feeds: list[str], now: datetime) -> list[Problem]:
    """What went wrong in ``ctx``'s workspace today (UTC) that people would otherwise only notice as
    silence: the feeds' daily run failed, no new paper for :data:`NO_PAPERS_FOR`, digests failed."""
    store = ctx.store
    today = now.astimezone(UTC).date()
    midnight = datetime.combine(today, time(0), tzinfo=UTC)
    found: list[Problem] = []
    job = store.get_job(FEED_JOB) if feeds else None
    if job is not None and job.day == today.isoformat() and job.status == "failed":
        found.append(Problem("feeds_failed", error=shorten(job.error or "", ERROR_SHOWN)))
    newest = store.newest_paper_added()
    if newest is None:
        found.append(Problem("no_papers"))
    elif (quiet := now - datetime.fromisoformat(newest)) > NO_PAPERS_FOR:
        # How far arXiv's listings were read tells an arXiv holiday (read up to now) from paperbot's silence.
        found.append(Problem("quiet", days=quiet.days, newest=newest[:10], read=_arxiv_read(ctx, feeds)))
    failed = store.failed_digests((today - timedelta(days=1)).isoformat(), iso_utc(midnight))
    if failed:
        found.append(Problem("digests_failed", note=Note.read(failed[0].error), count=len(failed)))
    return found + _summaries(ctx, now)


def _summaries(ctx: Context, now: datetime) -> list[Problem]:
    """Today's summaries by the lab's model that can't be shown (PAPERBOT_LLM_URL; none without it): those
    without a usable answer, and those the check refused."""
    counts = summary_counts(ctx, now)
    found = []
    if counts.failed:
        found.append(Problem("summaries_failed", error=shorten(counts.error or "", ERROR_SHOWN),
                             count=counts.failed))
    if counts.refused:
        found.append(Problem("summaries_rejected", count=counts.refused,
                             reasons=tuple(sorted(counts.rejected.items(), key=lambda kv: (-kv[1], kv[0])))))
    return found


def _arxiv_read(ctx: Context, feeds: list[str]) -> tuple[tuple[str, str | None], ...]:
    """The feeds' arXiv categories, each with the day its announcements were read through (None:
    never)."""
    categories: dict[str, None] = {}
    for feed in feeds:
        if feed[:6].lower() == "arxiv:":
            try:
                categories.update(dict.fromkeys(parse_categories(feed[6:])))
            except SourceError:
                continue  # the feeds' run names it
    return tuple((category, ctx.store.arxiv_cursor(category) or None) for category in categories)


def report_problems(ctx: Context, feeds: list[str], now: datetime, post: Callable[[list[Problem]], None],
                    owner: str | None = None) -> list[Problem] | None:
    """Post today's :func:`problems` of ``ctx``'s workspace with ``post(problems)``, once a UTC day whichever
    process gets there first, and a fall of the 👍 share (:func:`share_fell`) once a UTC week with the
    first post of that week; the problems posted, or None when there was nothing to post (none, or said
    already). ``post`` raises Outage for Slack's trouble (tried again after :data:`RETRY_AFTER`),
    anything else for a post that can't be made (the admin channel is wrong: logged, and not tried again
    that day, nor the share's fall that week)."""
    store = ctx.store
    name = f"{REPORT_JOB}:{store.workspace}"
    job = store.get_job(name)
    if job is not None and job.lease_until and datetime.fromisoformat(job.lease_until) > now:
        return None  # said today, or being said: spares every tick a write
    found = problems(ctx, feeds, now)
    fell = _share_fell(ctx, now)
    if not found and fell is None:
        return None
    owner = owner or owner_id()
    tomorrow = next_utc_day(now)
    at = iso_utc(now)
    if not store.take_lease(JOB, (name,), owner, tomorrow, at,
                            fresh={"day": now.astimezone(UTC).date().isoformat(), "started_at": at,
                                   "finished_at": None, "error": None}):
        return None
    weekly = f"{SHARE_JOB}:{store.workspace}"
    next_week = _next_utc_week(now)
    # Taken only by the day's report, so the fall is said with it, once a week.
    if fell is not None and store.take_lease(JOB, (weekly,), owner, next_week, at,
                                             fresh={"day": _monday(now).isoformat(), "started_at": at,
                                                    "finished_at": None, "error": None}):
        found.append(fell)
    else:
        fell = None
    if not found:  # the week's word was said meanwhile, and today has nothing else
        store.release_lease(JOB, (name,), owner, at)
        return None
    try:
        post(found)
    except Outage as exc:
        retry = iso_utc(now + RETRY_AFTER)
        store.release_lease(JOB, (name,), owner, retry, error=str(exc))
        if fell is not None:
            store.release_lease(JOB, (weekly,), owner, retry, error=str(exc))
        log.info("the admin channel's report waits for Slack: %s", exc)
        return None
    except Exception as exc:  # a wrong channel id, paperbot not in the channel: said in the log, once a day
        store.finish_lease(JOB, (name,), owner, "failed", at, str(exc), tomorrow)
        if fell is not None:
            store.finish_lease(JOB, (weekly,), owner, "failed", at, str(exc), next_week)
        log.warning("could not post to PAPERBOT_ADMIN_CHANNEL (%s) that %s", _short(str(exc)),
                    _problem_line(found))
        return None
    store.finish_lease(JOB, (name,), owner, "done", at, None, tomorrow)
    if fell is not None:
        store.finish_lease(JOB, (weekly,), owner, "done", at, None, next_week)
    return found


def _share_fell(ctx: Context, now: datetime) -> Problem | None:
    """The workspace's 👍 share's fall from the week before last to last week, unless said this week."""
    job = ctx.store.get_job(f"{SHARE_JOB}:{ctx.store.workspace}")
    if job is not None and job.lease_until and datetime.fromisoformat(job.lease_until) > now:
        return None
    shares = share_fell(ctx, now)
    return Problem("likes_fell", shares=shares) if shares is not None else None


def _monday(now: datetime) -> date:
    today = now.astimezone(UTC).date()
    return today - timedelta(days=today.weekday())


def _next_utc_week(now: datetime) -> str:
    """When the UTC week after ``now``'s starts (Monday, midnight), as the database stores it."""
    return iso_utc(datetime.combine(_monday(now) + timedelta(weeks=1), time(0), tzinfo=UTC))


def _problem_line(found: list[Problem]) -> str:
    return ", ".join(p.kind for p in found)


def _short(text: str | None) -> str:
    return shorten(text or "no reason given", ERROR_SHOWN)
