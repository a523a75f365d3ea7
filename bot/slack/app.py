"""Building the Bolt app: the Web API client, the listeners, the one error handler.

Listeners answer Slack (``ack``) at once and never touch the database before it: the work (the
database, the ranker, Slack API calls) runs after the ack on :class:`Background`'s own threads, so
neither a burst of slow work nor another process holding the database's write lock can delay an ack.
There, each event, slash command and click is first claimed by its key (the event id, the trigger
id) in the database, so that a redelivery or a replay of the same signed request runs it at most once.
"""

from __future__ import annotations

import functools
import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import timedelta

from slack_bolt import App, BoltResponse
from slack_bolt.error import BoltError
from slack_sdk import WebClient
from slack_sdk.errors import SlackClientError

from bot.config import Settings
from bot.context import Context
from bot.errors import BadArgument, ConfigError, PaperbotError
from bot.slack import commands, home, people, reactions
from bot.slack.client import build_client
from bot.slack.messages import escape
from bot.slack.workspace import Workspace, only_installed
from storage import StorageError, Store, StoreBusy

log = logging.getLogger(__name__)

SORRY = "Sorry, something went wrong on my side. Please try again in a minute."
HELP_POINTER = " See `/papers help`."

BUSY = ("Sorry, paperbot's database is busy right now, so I couldn't do that. "
        "Please try again in a minute.")
UNSAVED = ("Sorry, paperbot can't save anything right now (a problem with its database). "
           "Please tell its admins.")

LISTENER_THREADS = 16  # Bolt's threads: parse, quick replies, ack
BACKGROUND_THREADS = 8  # slow work after the ack

#: How long a claimed key is kept. Slack redelivers an event for minutes; a signed request (a slash
#: command, a click) is accepted for 5 minutes either side of its timestamp, so a replay comes within 10.
EVENT_KEY_KEPT = timedelta(hours=24)
REQUEST_KEY_KEPT = timedelta(minutes=15)
EVENT_TRIES = 3  # an event's work, when the database stays busy for a whole write wait (StoreBusy)
EVENT_RETRY_PAUSE = 5.0  # seconds between those tries


def report_error(error: Exception, body: dict, respond, logger: logging.Logger,
                 response: BoltResponse | None = None) -> BoltResponse | None:
    """The one error handler: a PaperbotError's message, or a short apology (traceback logged here),
    to the person who asked. Never a traceback to a user."""
    if isinstance(error, PaperbotError):
        text = escape(str(error)) + (HELP_POINTER if isinstance(error, BadArgument) else "")
        logger.info("answered with an error: %s", error)
    elif isinstance(error, StorageError):  # the admins' problem, said in one line; the user hears what to do
        logger.warning("%s", error)
        text = BUSY if isinstance(error, StoreBusy) else UNSAVED
    else:
        logger.error("a Slack listener failed", exc_info=error)
        text = SORRY
    if body.get("type") == "event_callback":
        return None  # an event has nobody to answer; the log has it
    if response is not None and body.get("command"):
        # A slash command that failed before ack(): the answer goes in the HTTP response itself.
        return BoltResponse(status=200, body={"response_type": "ephemeral", "text": text})
    if respond is not None:  # Bolt offers respond() when the request carried a response_url
        try:
            respond(text=text, response_type="ephemeral", replace_original=False)
        except (SlackClientError, OSError):
            logger.exception("could not tell the user about an error")
    return BoltResponse(status=200, body="") if response is not None else None


def once_key(body: dict) -> str | None:
    """What makes this request the same request when it comes again: an event's id (Slack's
    redeliveries) or a slash command's or click's trigger id (a replayed signed request)."""
    if body.get("type") == "event_callback":
        event_id = body.get("event_id")
        return f"event:{event_id}" if isinstance(event_id, str) and event_id else None
    trigger_id = body.get("trigger_id")
    return f"trigger:{trigger_id}" if isinstance(trigger_id, str) and trigger_id else None


def actor(body: dict) -> str | None:
    """Who a request is from (a slash command's caller, a clicker, an event's user), if anyone."""
    user = body.get("user_id") or body.get("user") or (body.get("event") or {}).get("user")
    if isinstance(user, dict):
        user = user.get("id")
    return user if isinstance(user, str) and user else None


class Background:
    """Threads for the work after the ack. Each piece of work first claims its request's key (see
    :func:`once_key`) in ``store``, so it runs at most once, whichever process or retry gets it. One
    person's requests run one after another, in the order they came (``digest 07:45`` then ``digest
    off`` must end off). A failure goes through :func:`report_error`, like Bolt's; an event (which has
    nobody to answer) is tried again while the database stays busy."""

    def __init__(self, store: Store | None = None, workers: int = BACKGROUND_THREADS,
                 retry_pause: float | None = None):
        self.store = store
        self.retry_pause = EVENT_RETRY_PAUSE if retry_pause is None else retry_pause
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="paperbot-work")
        self._guard = threading.Lock()
        self._queues: dict[str, deque[Callable[[], None]]] = {}  # per person, while their work runs

    def submit(self, work: Callable[[], None], body: dict, respond=None) -> None:
        """Run ``work`` after the ack, at most once for this request, after that person's earlier work."""
        run = functools.partial(self._run, work, body, respond)
        user = actor(body)
        if user is None:
            self._pool.submit(run)
            return
        with self._guard:
            queue = self._queues.get(user)
            if queue is not None:  # a drain for this person is under way: it will get to this
                queue.append(run)
                return
            self._queues[user] = deque([run])
        self._pool.submit(self._drain, user)

    def _drain(self, user: str) -> None:
        while True:
            with self._guard:
                queue = self._queues[user]
                if not queue:
                    del self._queues[user]
                    return
                run = queue.popleft()
            run()

    def _run(self, work: Callable[[], None], body: dict, respond) -> None:
        key = once_key(body)
        event = body.get("type") == "event_callback"
        tries = EVENT_TRIES if event else 1
        claimed = False
        for attempt in range(1, tries + 1):
            try:
                if not claimed and key and self.store is not None:
                    if not self.store.claim_once(key, EVENT_KEY_KEPT if event else REQUEST_KEY_KEPT):
                        log.info("skipping %s: already handled", key)
                        return
                    claimed = True
                work()
                return
            except StoreBusy as exc:
                if attempt < tries:  # the failed write was rolled back: the work can run again
                    log.warning("%s; trying %s again in %.0f s", exc, key, self.retry_pause)
                    time.sleep(self.retry_pause)
                    continue
                self._report(exc, body, respond)
            except Exception as exc:  # routed to the one error handler, like Bolt's listeners
                self._report(exc, body, respond)
                return

    @staticmethod
    def _report(exc: Exception, body: dict, respond) -> None:
        try:
            report_error(exc, body, respond, log)
        except Exception:
            log.exception("the error handler failed")

    def shutdown(self) -> None:
        """Wait for the work under way and queued, then stop."""
        self._pool.shutdown(wait=True)


class UserLocks:
    """One lock per person, so two deliveries to one person never pick the same papers."""

    def __init__(self) -> None:
        self._guard = threading.Lock()
        self._locks: dict[str, threading.Lock] = {}

    @contextmanager
    def hold(self, user_id: str) -> Iterator[None]:
        with self._guard:
            lock = self._locks.setdefault(user_id, threading.Lock())
        with lock:
            yield


@dataclass
class Runtime:
    """What the listeners share: the use cases' context, the background threads, per-person locks."""

    ctx: Context
    background: Background = field(init=False)
    locks: UserLocks = field(default_factory=UserLocks)

    def __post_init__(self) -> None:
        self.background = Background(self.ctx.store)


@dataclass
class SlackBot:
    """The Bolt app and what it owns; :meth:`close` lets work under way finish, then closes the database."""

    app: App
    runtime: Runtime
    listener_executor: ThreadPoolExecutor
    signing_secret: str = ""  # for the HTTP server's gate (bot.slack.gate)

    @property
    def ctx(self) -> Context:
        return self.runtime.ctx

    def close(self) -> None:
        self.listener_executor.shutdown(wait=True)  # listeners under way (they may queue more work)
        self.runtime.background.shutdown()  # the slow work under way and queued
        self.runtime.ctx.store.close()


class _QuietBolt(logging.Filter):
    """Bolt reads SLACK_BOT_TOKEN itself and warns that the client's token wins; it is the same token."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "`token` will be unused" not in record.getMessage()


BOLT_LOGGER = logging.getLogger("bot.slack.bolt")
BOLT_LOGGER.addFilter(_QuietBolt())


def create_app(settings: Settings, ctx: Context, client: WebClient | None = None) -> SlackBot:
    """The Bolt app with every listener registered. Calls ``auth.test`` to check the bot token."""
    settings.require("SLACK_BOT_TOKEN")
    client = client or build_client(settings)
    executor = ThreadPoolExecutor(max_workers=LISTENER_THREADS, thread_name_prefix="paperbot-bolt")
    try:
        app = App(
            client=client,
            signing_secret=settings.signing_secret or "",
            process_before_response=False,
            listener_executor=executor,
            logger=BOLT_LOGGER,
        )
        workspace = Workspace.of(client)  # the one workspace this token serves
    except BoltError as exc:
        executor.shutdown(wait=False)
        raise ConfigError(f"Slack did not accept SLACK_BOT_TOKEN ({_short(exc)})") from None
    except (SlackClientError, OSError) as exc:
        executor.shutdown(wait=False)
        raise ConfigError(f"Can't reach the Slack API at {settings.api_url} ({_short(exc)}): "
                          "check SLACK_API_URL and the network") from None
    runtime = Runtime(ctx)
    app.middleware(only_installed(workspace))  # a foreign request writes nothing, not even its key
    app.error(report_error)
    commands.register(app, runtime)
    reactions.register(app, runtime)
    home.register(app, runtime)
    people.register(app, runtime)
    return SlackBot(app, runtime, executor, settings.signing_secret or "")


def _short(exc: Exception) -> str:
    text = " ".join(str(exc).split())
    return text if len(text) <= 160 else text[:157] + "..."
