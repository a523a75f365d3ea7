"""Daily digests through Slack: the courier that posts them, the scheduler inside ``paperbot run``, and
the run behind ``paperbot digest``. The rules are in :mod:`bot.usecases.digests.run` (a run),
:mod:`bot.usecases.digest_schedule` (who is due) and :mod:`bot.usecases.digests.send` (exactly once).
"""

from __future__ import annotations

import http.client
import itertools
import logging
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import partial

from apscheduler.schedulers.background import BackgroundScheduler
from apscheduler.triggers.interval import IntervalTrigger
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError, SlackClientError

from bot import metrics
from bot.config import Settings
from bot.errors import ConfigError, TokenRefused, Unreachable
from bot.slack.client import build_client, classified, unreachable
from bot.slack.delivery.admin_report import admin_poster
from bot.slack.delivery.conference_reminders import send_conference_reminders
from bot.slack.delivery.recap_posts import recap_poster
from bot.slack.delivery.trending import trending_poster
from bot.slack.delivery.watch_alerts import send_alerts
from bot.slack.team import workspace_key
from bot.slack.views.compact import MOST_PAPERS, compact_blocks, compact_text
from bot.slack.views.digest_texts import phrase
from bot.slack.views.followup_texts import followup_message
from bot.slack.views.messages import paper_blocks, paper_text
from bot.slack.views.metadata import COMPACT_EVENT, HEADER_EVENT, PAPER_EVENT
from bot.sources import source_kind
from bot.state.context import Context
from bot.usecases.admin_report import report_problems
from bot.usecases.channels import drop_dm_channel, known_dm_channel, remember_dm_channel
from bot.usecases.digest_vocabulary import DATABASE_AWAY, Clock, Courier, Posted, utc_now
from bot.usecases.digests.helpers import Helpers
from bot.usecases.digests.run import WORKERS, DailyRun, ingest_feeds_if_due, send_due_digests
from bot.usecases.followups import send_followup_messages
from bot.usecases.recap import post_due_recaps
from bot.usecases.recommend import Recommendation
from bot.usecases.subjects import is_channel
from bot.usecases.summaries import summarizer
from bot.usecases.trending import post_due_trending
from bot.usecases.workspaces import settle_workspace
from storage import StorageError

log = logging.getLogger(__name__)


class _QuietOverlap(logging.Filter):
    """Runs of digests may outlast the interval; once :data:`TICKS_AT_ONCE` are under way APScheduler
    skips the next (as meant) and warns each time. Those warnings say nothing wrong."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "maximum number of running instances reached" not in record.getMessage()


logging.getLogger("apscheduler.scheduler").addFilter(_QuietOverlap())

RATE_LIMIT_RETRIES = 12  # a 429 storm: each retry waits Retry-After; a digest outlasts a storm
TICK_SECONDS = 30.0  # how often the scheduler looks for due digests
HISTORY_PAGE, HISTORY_PAGES = 100, 5  # a digest is a handful of messages; this bounds a busy DM
#: How long a post Slack has received may take to show in the DM's history. Slack carries it out even
#: when its poster died meanwhile; it usually answers a post well within a second.
POST_SETTLE = timedelta(seconds=2)
WORKSPACES_AT_ONCE = 4  # workspaces whose digests go out at once (each with its own WORKERS threads)
#: Ticks under way at once: one held up (a workspace waiting out Slack's 429s) leaves the next tick to
#: serve the other workspaces' newly due digests.
TICKS_AT_ONCE = 3
REFUSED_PAUSE = 600  # seconds a workspace whose token was refused is left alone
JOB_ID = "daily-digests"
CATCH_UP_ID = "catch-up-digests"


def slack_courier(ctx: Context, client: WebClient, header_event: str | None = HEADER_EVENT,
                  refused: Callable[[], None] | None = None) -> Courier:
    """Posting digests with ``client``. The DM channel is opened once and kept (``conversations.open``
    has a tighter rate limit than posting); one Slack no longer accepts is opened again next time.

    Failures are classified (:func:`bot.slack.client.classified`): TokenRefused, Unreachable, Outage
    (Slack down, overloaded, or too slow: a timed-out post may have landed) or the SlackApiError itself
    (this message was refused). What a digest says besides its papers is worded by
    :func:`bot.slack.views.digest_texts.phrase`.
    ``header_event``: the metadata type of headers (None: headers that are not a digest's, e.g.
    ``/papers recommend``'s, so a digest taken over never mistakes them for its own). ``refused`` is
    called when Slack refuses the token itself (:class:`~bot.errors.TokenRefused`)."""

    def _classified(exc: Exception) -> Exception:
        error = classified(exc)
        if isinstance(error, TokenRefused) and refused is not None:
            refused()
        return error

    def open_dm(user_id: str) -> str:
        if is_channel(user_id):  # a channel's own digest goes into the channel itself
            return user_id
        channel = known_dm_channel(ctx, user_id)
        if channel:
            return channel
        try:
            channel = client.conversations_open(users=user_id)["channel"]["id"]
        except (SlackApiError, SlackClientError, OSError, http.client.HTTPException) as exc:
            raise _classified(exc) from exc
        remember_dm_channel(ctx, user_id, channel)
        return channel

    def post(channel: str, **message) -> dict:
        try:
            return client.chat_postMessage(channel=channel, unfurl_links=False, unfurl_media=False, **message)
        except (SlackApiError, SlackClientError, OSError, http.client.HTTPException) as exc:
            error = _classified(exc)
            if isinstance(error, Unreachable):
                drop_dm_channel(ctx, channel)
            raise error from exc

    def post_text(channel: str, text: str) -> str:
        if header_event is None:
            return post(channel, text=text)["ts"]
        return post(channel, text=text, metadata={"event_type": header_event, "event_payload": {}})["ts"]

    def post_paper(channel: str, rec: Recommendation) -> tuple[str, str]:
        # A channel's paper carries the same buttons: 👍/👎 count for the channel and the clicker, Save
        # is the clicker's, More like this posts the channel's in the thread.
        response = post(channel, text=paper_text(rec.paper), blocks=paper_blocks(rec),
                        metadata={"event_type": PAPER_EVENT, "event_payload": {"paper_id": rec.paper.id}})
        metrics.papers_posted()
        return response["channel"], response["ts"]

    def post_compact(channel: str, header: str, recs: list[Recommendation]) -> tuple[str, str]:
        # Its metadata names every paper, in order: a digest taken over finds them all in one message.
        response = post(channel, text=compact_text(header, recs), blocks=compact_blocks(header, recs),
                        metadata={"event_type": COMPACT_EVENT,
                                  "event_payload": {"paper_ids": [r.paper.id for r in recs]}})
        metrics.papers_posted(len(recs))
        return response["channel"], response["ts"]

    def find_posted(channel: str, since: datetime) -> Posted:
        found = Posted()
        try:
            # A second of slack: the claim's time is stored to the second.
            pages = client.conversations_history(channel=channel, oldest=f"{since.timestamp() - 1:.6f}",
                                                 limit=HISTORY_PAGE, include_all_metadata=True)
            for page in itertools.islice(pages, HISTORY_PAGES):
                for message in page.get("messages") or []:
                    _note_posted(found, channel, message)
        except (SlackApiError, SlackClientError, OSError, http.client.HTTPException) as exc:
            raise _classified(exc) from exc
        return found

    # Only a digest's courier posts compact ones (``header_event``: not `/papers recommend`'s).
    return Courier(open=open_dm, post_text=post_text, post_paper=post_paper, phrase=phrase,
                   find_posted=find_posted, settle=POST_SETTLE,
                   post_compact=post_compact if header_event is not None else None, compact_most=MOST_PAPERS)


def _note_posted(found: Posted, channel: str, message: dict) -> None:
    """Add to ``found`` what a message of the DM's history is of a digest, by its metadata (the oldest
    first: ``found`` keeps what it has)."""
    metadata = message.get("metadata") or {}
    kind, payload = metadata.get("event_type"), metadata.get("event_payload") or {}
    if kind == PAPER_EVENT and payload.get("paper_id"):
        found.papers.setdefault(str(payload["paper_id"]), (channel, message["ts"]))
    elif kind == HEADER_EVENT:
        found.header_ts = found.header_ts or message["ts"]
    elif kind == COMPACT_EVENT:  # the header and its papers at once
        found.header_ts = found.header_ts or message["ts"]
        for paper_id in payload.get("paper_ids") or []:
            found.papers.setdefault(str(paper_id), (channel, message["ts"]))


def digest_client(settings: Settings, token: str | None = None) -> WebClient:
    """A Web API client for sending digests (with ``token``, a workspace's; else the bot's), with more
    patience for rate limits."""
    return build_client(settings, rate_limit_retries=RATE_LIMIT_RETRIES, token=token)


def check_token(client: WebClient, settings: Settings) -> str:
    """The workspace key of the bot token (``auth.test``); raise ConfigError (one line) unless Slack
    accepts it: a bad token must not look like every person being unreachable."""
    try:
        auth = client.auth_test()
    except SlackApiError as exc:
        raise ConfigError(f"Slack did not accept SLACK_BOT_TOKEN ({exc.response.get('error')})") from None
    except (SlackClientError, OSError) as exc:
        raise ConfigError(f"Can't reach the Slack API at {settings.api_url} ({unreachable(exc)}): "
                          "check SLACK_API_URL and the network") from None
    return workspace_key(team_id=auth.get("team_id"), enterprise_id=auth.get("enterprise_id"),
                         is_enterprise_install=auth.get("is_enterprise_install"))


@dataclass(frozen=True)
class Served:
    """A workspace digests go to (its key), and a Web API client with that workspace's token."""

    ws: str
    client: WebClient


#: Which workspaces to serve now: called at each run (an installation may come or go meanwhile).
Workspaces = Callable[[], Iterable[Served]]


def serve_workspaces(ctx: Context, workspaces: Iterable[Served], feeds: list[str], *,
                     hold_for: Callable[[str], Callable[[str], AbstractContextManager]] | None = None,
                     refused: Callable[[str, str], None] | None = None, stop: threading.Event | None = None,
                     clock: Clock = utc_now, helpers: Callable[[Served], Helpers | None] | None = None,
                     finished: Callable[[str], None] | None = None, admin_channel: str | None = None,
                     **options) -> DailyRun:
    """The feeds (once a day, shared), then every workspace's due digests, each with its own token and
    its own people, :data:`WORKSPACES_AT_ONCE` workspaces at a time: one whose token Slack refuses, or
    which is rate limited, holds up its own threads only. A refused workspace stops at its first
    refusal (its claimed digests wait, counted against no one) and is reported to ``refused(ws, why)``.
    ``hold_for(ws)``: that workspace's per-person lock; ``clock``: what time it is (the digests' due
    times, claims and leases); ``helpers(served)``: how a big run of that workspace starts helper
    processes (:func:`digest_helpers`); ``finished(ws)`` is called as each workspace's run ends;
    ``admin_channel`` hears once a day of what went wrong (:mod:`bot.usecases.admin_report`); ``options``
    go to :func:`~bot.usecases.digests.run.send_due_digests` (users, force, workers)."""
    run = DailyRun(feeds=ingest_feeds_if_due(ctx, feeds, clock=clock))
    for report in run.feeds or ():
        metrics.ingested(source_kind(report.source), taken=report.added + report.updated,
                         rejected=len(report.rejected), failed=bool(report.error))
    workspaces = list(workspaces)
    if not workspaces:
        return run

    def one(served: Served) -> DailyRun:
        try:
            return _serve(served)
        finally:
            if finished is not None:
                finished(served.ws)

    def _serve(served: Served) -> DailyRun:
        wctx = ctx.for_workspace(served.ws)
        if not options.get("users"):  # scoop watch alerts go out at once, before the day's digests
            _after_retry("the watch alerts", served.ws, lambda: send_alerts(wctx, served.client, clock()))
        gone = _Either(stop)
        courier = slack_courier(wctx, served.client, refused=gone.set)
        try:
            done = send_due_digests(wctx, clock(), courier, stop=gone, clock=clock,
                                    hold=hold_for(served.ws) if hold_for else None,
                                    helpers=helpers(served) if helpers else None, **options)
        except Exception:  # one workspace's failure never stops another's
            log.exception("the digests of workspace %s failed; trying again at the next run", served.ws)
            return DailyRun()
        if not gone.is_set():  # channels' weekly trending posts: queries of their own, after the digests
            _after_retry("the trending posts", served.ws, lambda: post_due_trending(
                wctx, clock(), trending_poster(served.client), clock=clock))
            _after_retry("the recaps", served.ws, lambda: post_due_recaps(
                wctx, clock(), recap_poster(served.client), clock=clock))
        # Follow-ups of people whose day has no digest to tell them (issue 42); not in a run for a few
        # people only (`paperbot digest --user`), which is about their digests.
        if not gone.is_set() and not options.get("users"):
            # No header metadata: a digest resumed later must not take it for its header.
            _after_retry("the follow-up messages", served.ws, lambda: _send_followups(
                wctx, slack_courier(wctx, served.client, header_event=None), clock))
        if not gone.is_set():  # reminders before conference sessions marked Going (issue 43)
            _after_retry("the conference reminders", served.ws, lambda: send_conference_reminders(
                wctx, slack_courier(wctx, served.client, header_event=None), clock))
        if admin_channel and not gone.is_set():
            _report_to_admins(wctx, served, feeds, admin_channel, len(workspaces) > 1, clock)
        if gone.mine.is_set() and refused is not None:
            why = next((o.note.detail for o in done.outcomes if o.outage and o.note and o.note.detail),
                       "its token was refused")
            refused(served.ws, why)
        return done

    with ThreadPoolExecutor(max_workers=min(WORKSPACES_AT_ONCE, len(workspaces)),
                            thread_name_prefix="paperbot-workspace") as pool:
        for done in pool.map(one, workspaces):
            run.outcomes += done.outcomes
            run.not_due += done.not_due
    metrics.digests(o.status for o in run.outcomes)  # the helpers' merged in: they count none themselves
    return run


def _report_to_admins(ctx: Context, served: Served, feeds: list[str], channel: str, many: bool,
                      clock: Clock) -> None:
    """The workspace's daily word to its admins, if anything went wrong; a failure is logged only."""
    try:
        report_problems(ctx, feeds, clock(), admin_poster(served.client, channel, elsewhere_ok=many))
    except DATABASE_AWAY as exc:
        log.warning("the admin channel's report for workspace %s waits for the database: %s", served.ws, exc)
    except Exception:
        log.exception("the admin channel's report for workspace %s failed; trying again at the next run",
                      served.ws)


def digest_helpers(settings: Settings, alone: bool = False) -> Callable[[Served], Helpers | None]:
    """How a big run of a workspace's digests starts its helper processes, each opening the database of
    ``settings`` and posting with the workspace's token as the run does. PAPERBOT_DIGEST_PROCESSES
    processes send the run: the run's own and the rest as helpers, or with ``alone`` (the bot, whose
    own process keeps answering Slack) all of them helpers."""
    count = settings.digest_processes if alone else settings.digest_processes - 1

    def helpers(served: Served) -> Helpers | None:
        if count < 1:
            return None
        return Helpers(count, open=partial(open_workspace, settings, served.ws),
                       courier=partial(helper_courier, settings, served.client.token), alone=alone,
                       ended=metrics.helper_ended)

    return helpers


def open_workspace(settings: Settings, ws: str) -> Context:
    """A digest helper's context: the database of ``settings``, workspace ``ws``."""
    ctx = Context.open(settings.db_path, settings.digest_size, embeddings=settings.embeddings,
                       summarizer=summarizer(settings, metrics.summaries))
    return ctx.for_workspace(ws)


def helper_courier(settings: Settings, token: str | None, ctx: Context, stop: threading.Event) -> Courier:
    """A digest helper's courier: Slack with the workspace's ``token``; a refused token stops the helper."""
    return slack_courier(ctx, digest_client(settings, token), refused=stop.set)


def _after_retry(what: str, ws: str, work: Callable[[], object]) -> None:
    """One of a workspace's jobs beside its digests (watch alerts, trending posts, recaps, follow-up
    messages, conference reminders): a failure is logged, a warning while the database is away, and the
    job tried again at the next run; it never stops the others."""
    try:
        work()
    except DATABASE_AWAY as exc:
        log.warning("%s of workspace %s wait for the database: %s", what, ws, exc)
    except Exception:
        log.exception("%s of workspace %s failed; trying again at the next run", what, ws)


def _send_followups(ctx: Context, courier: Courier, clock: Clock) -> None:
    """Follow-up messages of their own, each in the person's DM (:func:`bot.usecases.followups.
    send_followup_messages`)."""

    def post(user_id: str, followups) -> None:
        courier.post_text(courier.open(user_id), followup_message(followups))

    send_followup_messages(ctx, clock(), post)


class _Either:
    """A stop event for one workspace's run: set when the whole run stops, or by its own refusal."""

    def __init__(self, outer: threading.Event | None):
        self.outer, self.mine = outer, threading.Event()

    def set(self) -> None:
        self.mine.set()

    def is_set(self) -> bool:
        return self.mine.is_set() or (self.outer is not None and self.outer.is_set())


def one_workspace(settings: Settings, client: WebClient | None = None) -> Workspaces:
    """The workspace of SLACK_BOT_TOKEN (asked of ``auth.test`` once; ConfigError when refused)."""
    client = client or digest_client(settings)
    served = [Served(check_token(client, settings), client)]
    return lambda: served


class InstalledWorkspaces:
    """Every workspace installed through OAuth, each with a client holding its own bot token (read
    from the installation store at each run: an install or an uninstall counts at the next run)."""

    def __init__(self, settings: Settings, installations):
        self.settings, self.installations = settings, installations
        self._clients: dict[tuple[str, str], WebClient] = {}

    def __call__(self) -> list[Served]:
        served = []
        for ws in self.installations.installed():
            token = self.installations.bot_token(ws)
            if not token:  # a user-only row, or a key that doesn't open it (logged by the store)
                continue
            client = self._clients.get((ws, token))
            if client is None:
                client = self._clients[(ws, token)] = digest_client(self.settings, token)
            served.append(Served(ws, client))
        return served


def send_digests(settings: Settings, ctx: Context, users: list[str] | None = None, force: bool = False,
                 workspaces: Workspaces | None = None, teams: list[str] | None = None,
                 acked: Callable[[], object] | None = None) -> DailyRun:
    """``paperbot digest``: what was acknowledged and left for later carried out (``acked``: a stopped
    bot's requests, :func:`bot.slack.server.carry_out_acked`), the feeds if not yet ingested today, then
    every digest due now, in every workspace served (default: SLACK_BOT_TOKEN's), or in those of
    ``teams``."""
    if workspaces is None and settings.oauth:
        from bot.slack.oauth.installations import PaperbotInstallationStore
        from bot.slack.oauth.token_crypto import TokenBox

        settings.require_oauth()
        installations = PaperbotInstallationStore.of(ctx, TokenBox.of(settings))
        installations.check_keys()
        workspaces = InstalledWorkspaces(settings, installations)
    if workspaces is None:
        settings.require("SLACK_BOT_TOKEN")
        workspaces = one_workspace(settings)
    served = [s for s in workspaces() if teams is None or s.ws in teams]
    if teams and not served:
        raise ConfigError(f"paperbot serves no workspace {', '.join(teams)}: "
                          "`paperbot workspaces` lists them")
    if not settings.oauth and len(served) == 1:
        settle_workspace(ctx, served[0].ws)  # rows from before workspaces are the token's
    if acked is not None:
        acked()  # every request answered before this run counts in its digests
    return serve_workspaces(ctx, served, settings.feeds, users=users, force=force,
                            refused=lambda ws, why: log.warning("workspace %s: %s", ws, why),
                            helpers=digest_helpers(settings), admin_channel=settings.admin_channel)


def tick_trigger(interval: float, now: datetime | None = None) -> IntervalTrigger:
    """Every ``interval`` seconds on a grid from the start of the current minute (with 30 s: at :00
    and :30), so a digest due at HH:MM goes out within a second or so of it, not up to a whole
    interval late."""
    start = (now or datetime.now(UTC)).replace(second=0, microsecond=0)
    return IntervalTrigger(seconds=interval, timezone=UTC, start_date=start)


class DigestScheduler:
    """One APScheduler job in ``paperbot run``: every ``interval`` seconds, every workspace's due
    digests (:func:`serve_workspaces`).

    The schedule itself lives in the database, so nothing needs a persistent job store, a restart
    catches up at once (the first run is at start), and ``paperbot digest`` from cron can run beside it.
    A workspace whose token Slack refuses is logged once and left alone for :data:`REFUSED_PAUSE`.
    ``clock`` says what time it is for the digests (due times, claims, leases): the wall clock, or a
    test's own; the ticks themselves come on the wall clock's grid (APScheduler's). ``acked`` is called
    first at each tick: it carries out the acknowledged requests no living process holds
    (:meth:`bot.slack.background.Background.catch_up`), so that they count in the digests.
    """

    def __init__(self, ctx: Context, workspaces: Workspaces, feeds: list[str] | None = None,
                 interval: float = TICK_SECONDS,
                 hold: Callable[[str], AbstractContextManager] | None = None, workers: int = WORKERS,
                 hold_for: Callable[[str], Callable[[str], AbstractContextManager]] | None = None,
                 clock: Clock = utc_now, helpers: Callable[[Served], Helpers | None] | None = None,
                 admin_channel: str | None = None, acked: Callable[[], object] | None = None):
        if hold is not None and hold_for is None:
            hold_for = lambda ws: hold  # noqa: E731
        self.ctx, self.workspaces, self.feeds, self.interval = ctx, workspaces, list(feeds or []), interval
        self.hold_for, self.workers, self.clock, self.helpers = hold_for, workers, clock, helpers
        self.admin_channel, self.acked = admin_channel, acked
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._busy: set[str] = set()  # workspaces a tick of this process is serving
        self._scheduler = BackgroundScheduler(timezone=UTC)
        self._refused: dict[str, float] = {}  # workspace -> when to try it again (monotonic)
        self.runs = 0

    def start(self) -> None:
        self._scheduler.add_job(
            self.tick, tick_trigger(self.interval), id=JOB_ID,
            misfire_grace_time=max(60, int(self.interval * 4)),  # the default, 1 s, would skip late runs
            coalesce=True,  # runs missed while one was long become one run
            max_instances=TICKS_AT_ONCE,
        )
        # Catch up at once after a restart, as a job of its own: a first run of the interval job now
        # would move its whole grid off the minute.
        self._scheduler.add_job(self.tick, id=CATCH_UP_ID, misfire_grace_time=None)
        self._scheduler.start()
        log.info("digest scheduler started: every %.0f s", self.interval)

    def tick(self) -> DailyRun | None:
        """One look for due digests (and the day's feeds) in every workspace no other tick is serving:
        one held up by Slack holds up no other workspace's digests. Errors are logged, never raised."""
        if self._stop.is_set():
            return None
        mine: set[str] = set()  # the workspaces this tick took and has not finished
        try:
            self._catch_up()
            now = time.monotonic()
            listed = [s for s in self.workspaces() if self._refused.get(s.ws, 0.0) <= now]
            with self._lock:
                served = [s for s in listed if s.ws not in self._busy]
                mine.update(s.ws for s in served)
                self._busy |= mine
            return serve_workspaces(self.ctx, served, self.feeds, hold_for=self.hold_for,
                                    refused=self._set_aside, stop=self._stop, workers=self.workers,
                                    clock=self.clock, helpers=self.helpers, admin_channel=self.admin_channel,
                                    finished=lambda ws: self._let_go(mine, {ws}))
        except Exception:
            log.exception("the digest run failed; trying again at the next tick")
            return None
        finally:
            self._let_go(mine, set(mine))  # those it never got to
            with self._lock:  # ticks may overlap
                self.runs += 1

    def _catch_up(self) -> None:
        if self.acked is None:
            return
        try:
            self.acked()
        except StorageError as exc:  # the digests wait for their people's requests as they can
            log.warning("%s; the digests go on without carrying out what was left for later", exc)

    def _let_go(self, mine: set[str], done: set[str]) -> None:
        """Workspaces ``done`` of a tick that took ``mine`` may be served by the next tick."""
        with self._lock:
            mine -= done
            self._busy -= done

    def _set_aside(self, ws: str, why: str) -> None:
        if ws not in self._refused:  # logged once, not at every tick
            log.warning("workspace %s: %s; its digests wait (tried again every %d min)", ws, why,
                        REFUSED_PAUSE // 60)
        self._refused[ws] = time.monotonic() + REFUSED_PAUSE

    def shutdown(self) -> None:
        """Start no new digest; wait for those under way."""
        self._stop.set()
        if self._scheduler.running:
            self._scheduler.shutdown(wait=True)
