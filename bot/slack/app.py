"""Building the Bolt app: the Web API client, the listeners, the one error handler, event dedupe.

Listeners answer Slack (``ack``) at once; slow work (the ranker, Slack API calls) then runs on
:class:`Background`'s own threads, so a burst of slow work can never delay another request's ack.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field

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

log = logging.getLogger(__name__)

SORRY = "Sorry, something went wrong on my side. Please try again in a minute."
HELP_POINTER = " See `/papers help`."

LISTENER_THREADS = 16  # Bolt's threads: parse, quick replies, ack
BACKGROUND_THREADS = 8  # slow work after the ack


def report_error(error: Exception, body: dict, respond, logger: logging.Logger,
                 response: BoltResponse | None = None) -> BoltResponse | None:
    """The one error handler: a PaperbotError's message, or a short apology (traceback logged here),
    to the person who asked. Never a traceback to a user."""
    if isinstance(error, PaperbotError):
        text = escape(str(error)) + (HELP_POINTER if isinstance(error, BadArgument) else "")
        logger.info("answered with an error: %s", error)
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


class Background:
    """Threads for slow work after the ack. A failure goes through :func:`report_error`, like Bolt's."""

    def __init__(self, workers: int = BACKGROUND_THREADS):
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="paperbot-work")

    def submit(self, work: Callable[[], None], body: dict, respond=None) -> None:
        def run() -> None:
            try:
                work()
            except Exception as exc:  # routed to the one error handler, like Bolt's listeners
                try:
                    report_error(exc, body, respond, log)
                except Exception:
                    log.exception("the error handler failed")

        self._pool.submit(run)

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
    background: Background = field(default_factory=Background)
    locks: UserLocks = field(default_factory=UserLocks)


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
    app.middleware(only_installed(workspace))  # first: a foreign request writes nothing, not its event id
    app.middleware(_dedupe_events(ctx))
    app.error(report_error)
    commands.register(app, runtime)
    reactions.register(app, runtime)
    home.register(app, runtime)
    people.register(app, runtime)
    return SlackBot(app, runtime, executor, settings.signing_secret or "")


def _dedupe_events(ctx: Context):
    def dedupe_events(body: dict, next, logger: logging.Logger):  # Bolt passes arguments by these names
        event_id = body.get("event_id") if body.get("type") == "event_callback" else None
        if event_id and not ctx.store.claim_event(event_id):
            logger.info("skipping redelivered event %s", event_id)
            return BoltResponse(status=200, body="")
        return next()

    return dedupe_events


def _short(exc: Exception) -> str:
    text = " ".join(str(exc).split())
    return text if len(text) <= 160 else text[:157] + "..."
