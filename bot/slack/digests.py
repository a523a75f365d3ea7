"""Daily digests through Slack: the courier that posts them, the scheduler inside ``paperbot run``, and
the run behind ``paperbot digest``. The rules are in :mod:`bot.usecases.daily` (a run),
:mod:`bot.usecases.schedule` (who is due) and :mod:`bot.usecases.sending` (exactly once).
"""

from __future__ import annotations

import http.client
import itertools
import logging
import threading
from collections.abc import Callable
from contextlib import AbstractContextManager
from datetime import UTC, datetime, timedelta
from urllib.error import URLError

from apscheduler.schedulers.background import BackgroundScheduler
from apscheduler.triggers.interval import IntervalTrigger
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError, SlackClientError

from bot.config import Settings
from bot.context import Context
from bot.errors import ConfigError, Outage, Unreachable
from bot.slack.client import build_client
from bot.slack.messages import paper_blocks, paper_text
from bot.usecases.channels import drop_dm_channel, known_dm_channel, remember_dm_channel
from bot.usecases.daily import WORKERS, DailyRun, run_daily
from bot.usecases.recommend import Recommendation
from bot.usecases.sending import Courier, Posted

log = logging.getLogger(__name__)


class _QuietOverlap(logging.Filter):
    """A run of digests may outlast the interval; APScheduler then skips the next run (max_instances=1,
    as meant) and warns each time. Those warnings say nothing wrong."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "maximum number of running instances reached" not in record.getMessage()


logging.getLogger("apscheduler.scheduler").addFilter(_QuietOverlap())

#: Slack's answers meaning this person can't get a DM from the bot today (deleted or deactivated
#: account, DM closed or archived, bot not allowed): skip them for the day, don't retry.
UNREACHABLE = frozenset({
    "user_not_found", "users_not_found", "user_disabled", "channel_not_found", "is_archived",
    "cannot_dm_bot", "messages_tab_disabled", "not_in_channel",
})
#: Slack's answers meaning Slack itself is down or overloaded (after the client's own retries): the
#: digest waits for it, counted against nobody. The first two say the call may have been carried out.
OUTAGE = frozenset({"internal_error", "fatal_error", "service_unavailable", "request_timeout",
                    "ratelimited", "rate_limited"})
MAYBE_CARRIED_OUT = frozenset({"internal_error", "fatal_error"})
RATE_LIMIT_RETRIES = 12  # a 429 storm: each retry waits Retry-After; a digest outlasts a storm
TICK_SECONDS = 30.0  # how often the scheduler looks for due digests
#: Message metadata on digest messages, so a digest taken over after a crash can see what went out.
HEADER_EVENT, PAPER_EVENT = "paperbot_digest_header", "paperbot_digest_paper"
HISTORY_PAGE, HISTORY_PAGES = 100, 5  # a digest is a handful of messages; this bounds a busy DM
#: How long a post Slack has received may take to show in the DM's history. Slack carries it out even
#: when its poster died meanwhile; it usually answers a post well within a second.
POST_SETTLE = timedelta(seconds=2)
JOB_ID = "daily-digests"
CATCH_UP_ID = "catch-up-digests"


def slack_courier(ctx: Context, client: WebClient, header_event: str | None = HEADER_EVENT) -> Courier:
    """Posting digests with ``client``. The DM channel is opened once and kept (``conversations.open``
    has a tighter rate limit than posting); one Slack no longer accepts is opened again next time.

    Failures are classified (:func:`_classified`): Unreachable, Outage (Slack down, overloaded, or too
    slow: a timed-out post may have landed) or the SlackApiError itself (this message was refused).
    ``header_event``: the metadata type of headers (None: headers that are not a digest's, e.g.
    ``/papers recommend``'s, so a digest taken over never mistakes them for its own)."""

    def open_dm(user_id: str) -> str:
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
        response = post(channel, text=paper_text(rec.paper), blocks=paper_blocks(rec),
                        metadata={"event_type": PAPER_EVENT, "event_payload": {"paper_id": rec.paper.id}})
        return response["channel"], response["ts"]

    def find_posted(channel: str, since: datetime) -> Posted:
        found = Posted()
        try:
            # A second of slack: the claim's time is stored to the second.
            pages = client.conversations_history(channel=channel, oldest=f"{since.timestamp() - 1:.6f}",
                                                 limit=HISTORY_PAGE, include_all_metadata=True)
            for page in itertools.islice(pages, HISTORY_PAGES):
                for message in page.get("messages") or []:
                    metadata = message.get("metadata") or {}
                    paper_id = (metadata.get("event_payload") or {}).get("paper_id")
                    if metadata.get("event_type") == PAPER_EVENT and paper_id:
                        found.papers.setdefault(str(paper_id), (channel, message["ts"]))
                    elif metadata.get("event_type") == HEADER_EVENT:
                        found.header_ts = found.header_ts or message["ts"]
        except (SlackApiError, SlackClientError, OSError, http.client.HTTPException) as exc:
            raise _classified(exc) from exc
        return found

    return Courier(open=open_dm, post_text=post_text, post_paper=post_paper, find_posted=find_posted,
                   settle=POST_SETTLE)


def _classified(exc: Exception) -> Exception:
    """What a failed Web API call means for a digest: Unreachable (this person, for today), Outage
    (Slack down, overloaded or too slow, after the client's own retries) or ``exc`` itself (this
    message was refused: counted toward the paper's attempts)."""
    if isinstance(exc, SlackApiError):
        response = exc.response
        error = response.get("error") if response is not None else None
        status = getattr(response, "status_code", 200) or 200
        if error in UNREACHABLE:
            return Unreachable(f"Slack refused direct messages ({error})")
        if error in OUTAGE or status >= 500 or status == 429:
            return Outage(f"Slack answered {status} {error or ''}".rstrip(),
                          maybe_delivered=error in MAYBE_CARRIED_OUT or status in (500, 502, 504))
        return exc
    if isinstance(exc, URLError):  # the request never got through: nothing can have been done
        return Outage(f"can't reach Slack ({exc.reason})")
    if isinstance(exc, (OSError, http.client.HTTPException)):  # sent, then no answer (timed out, cut)
        detail = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
        return Outage(f"no answer from Slack ({detail})", maybe_delivered=True)
    return exc


def digest_client(settings: Settings) -> WebClient:
    """A Web API client for sending digests: the bot's, with more patience for rate limits."""
    return build_client(settings, rate_limit_retries=RATE_LIMIT_RETRIES)


def check_token(client: WebClient, settings: Settings) -> None:
    """Raise ConfigError (one line) unless Slack accepts the bot token: a bad token must not look like
    every person being unreachable."""
    try:
        client.auth_test()
    except SlackApiError as exc:
        raise ConfigError(f"Slack did not accept SLACK_BOT_TOKEN ({exc.response.get('error')})") from None
    except (SlackClientError, OSError) as exc:
        raise ConfigError(f"Can't reach the Slack API at {settings.api_url} ({exc}): "
                          "check SLACK_API_URL and the network") from None


def send_digests(settings: Settings, ctx: Context, users: list[str] | None = None, force: bool = False,
                 client: WebClient | None = None) -> DailyRun:
    """``paperbot digest``: the feeds if not yet ingested today, then every digest due now."""
    settings.require("SLACK_BOT_TOKEN")
    client = client or digest_client(settings)
    check_token(client, settings)
    return run_daily(ctx, settings.feeds, slack_courier(ctx, client), users=users, force=force)


def tick_trigger(interval: float, now: datetime | None = None) -> IntervalTrigger:
    """Every ``interval`` seconds on a grid from the start of the current minute (with 30 s: at :00
    and :30), so a digest due at HH:MM goes out within a second or so of it, not up to a whole
    interval late."""
    start = (now or datetime.now(UTC)).replace(second=0, microsecond=0)
    return IntervalTrigger(seconds=interval, timezone=UTC, start_date=start)


class DigestScheduler:
    """One APScheduler job in ``paperbot run``: every ``interval`` seconds, :func:`run_daily`.

    The schedule itself lives in the database, so nothing needs a persistent job store, a restart
    catches up at once (the first run is at start), and ``paperbot digest`` from cron can run beside it.
    """

    def __init__(self, ctx: Context, client: WebClient, feeds: list[str] | None = None,
                 interval: float = TICK_SECONDS,
                 hold: Callable[[str], AbstractContextManager] | None = None, workers: int = WORKERS):
        self.ctx, self.client, self.feeds, self.interval = ctx, client, list(feeds or []), interval
        self.hold, self.workers = hold, workers
        self._stop = threading.Event()
        self._ticking = threading.Lock()
        self._scheduler = BackgroundScheduler(timezone=UTC)
        self.runs = 0

    def start(self) -> None:
        self._scheduler.add_job(
            self.tick, tick_trigger(self.interval), id=JOB_ID,
            misfire_grace_time=max(60, int(self.interval * 4)),  # the default, 1 s, would skip late runs
            coalesce=True,  # runs missed while one was long become one run
            max_instances=1,
        )
        # Catch up at once after a restart, as a job of its own: a first run of the interval job now
        # would move its whole grid off the minute.
        self._scheduler.add_job(self.tick, id=CATCH_UP_ID, misfire_grace_time=None)
        self._scheduler.start()
        log.info("digest scheduler started: every %.0f s", self.interval)

    def tick(self) -> DailyRun | None:
        """One look for due digests (and the day's feeds); errors are logged, never raised. A tick that
        comes while another is still running (the catch-up beside the first regular one) does nothing."""
        if self._stop.is_set() or not self._ticking.acquire(blocking=False):
            return None
        try:
            return run_daily(self.ctx, self.feeds, slack_courier(self.ctx, self.client), hold=self.hold,
                             stop=self._stop, workers=self.workers)
        except Exception:
            log.exception("the digest run failed; trying again at the next tick")
            return None
        finally:
            self.runs += 1
            self._ticking.release()

    def shutdown(self) -> None:
        """Start no new digest; wait for those under way."""
        self._stop.set()
        if self._scheduler.running:
            self._scheduler.shutdown(wait=True)
