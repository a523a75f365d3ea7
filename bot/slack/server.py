"""Running the bot: Socket Mode when SLACK_APP_TOKEN is set, otherwise HTTP at ``/slack/events`` (and,
with OAuth, Bolt's install pages at ``/slack/install`` and ``/slack/oauth_redirect``).

HTTP is served by uvicorn (a production ASGI server) through a small Starlette app that hands each
request to Bolt on a worker thread. The digest scheduler starts just before serving. SIGTERM (or
Ctrl+C) stops taking requests, lets the requests, listeners, background work and digests under way
finish, then closes the database.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import signal
import socket
import sys
import threading
from collections.abc import Callable, Iterator, Sequence

from slack_bolt import App, BoltContext, BoltRequest, BoltResponse
from slack_bolt.adapter.starlette.handler import to_bolt_request, to_starlette_response
from slack_bolt.request.internals import build_context
from slack_sdk.errors import SlackApiError, SlackClientError
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import ClientDisconnect, Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

from bot import metrics
from bot.allocator import freeze_startup
from bot.config import Settings
from bot.errors import ConfigError, PaperbotError
from bot.logs import NoSuggestions
from bot.slack import gate, health, http_limits
from bot.slack.app import BOLT_LOGGER, SlackBot, create_app
from bot.slack.background import CATCH_UP_SECONDS, HOLD, STOP_SECONDS
from bot.slack.delivery.digests import (
    TICK_SECONDS,
    DigestScheduler,
    InstalledWorkspaces,
    Served,
    Workspaces,
    digest_client,
    digest_helpers,
)
from bot.slack.manifest import EVENTS_PATH
from bot.state.context import Context
from bot.state.intake import Intake
from bot.state.readiness import Readiness
from bot.usecases.summaries import summarizer
from storage import StorageError

log = logging.getLogger(__name__)
BOLT_LOGGER.addFilter(NoSuggestions())

ALL_INTERFACES = "0.0.0.0"  # noqa: S104 - Slack must reach the bot; put it behind a TLS proxy
MAX_BODY = 1_000_000  # bytes; Slack's requests are a few kB
GRACEFUL_SECONDS = 25  # for requests under way at SIGTERM
BACKLOG = 2048  # connections the kernel queues for accept() (uvicorn's default): a flood queues, not drops


def serve(settings: Settings, port: int | None = None, host: str = ALL_INTERFACES,
          announce: Callable[[str], None] | None = None) -> None:
    """Run until SIGTERM or Ctrl+C. Raises ConfigError (one clear line) for a missing or bad setting."""
    announce = announce or _stderr
    if settings.oauth:
        settings.require_oauth()
    else:
        settings.require("SLACK_BOT_TOKEN")
    if not settings.app_token:
        settings.require("SLACK_SIGNING_SECRET")
    bot = open_bot(settings)
    stopping = threading.Event()
    ops: health.MetricsServer | None = None
    try:
        # A signal while starting (after the announcement, say) stops it as soon as it runs.
        with _signals(lambda: stopping.set()):
            readiness = Readiness(bot.ctx)
            if settings.metrics_port is not None:  # /healthz, /readyz and /metrics there, not on PORT
                ops = health.MetricsServer(readiness,
                                           _bind(host, settings.metrics_port, "PAPERBOT_METRICS_PORT"))
            if settings.app_token:
                runner: HttpServer | SocketModeServer = SocketModeServer(bot, settings.app_token)
                lines = ["paperbot is connecting to Slack in Socket Mode (Ctrl+C or SIGTERM stops it)"]
            else:
                runner = HttpServer(bot, host, settings.port if port is None else port,
                                    readiness=readiness, ops=ops is None)
                lines = [f"paperbot is listening on http://{host}:{runner.port}{EVENTS_PATH} "
                         "(Ctrl+C or SIGTERM stops it)"]
                if bot.app.oauth_flow is not None:
                    lines.append(f"paperbot's Add to Slack page is http://{host}:{runner.port}"
                                 f"{bot.app.oauth_flow.install_path}")
            if ops is not None:
                ops.start()
                lines.append(f"paperbot serves /metrics, /healthz and /readyz on http://{host}:{ops.port}")
            scheduler = start_scheduler(bot, settings)
            bot.runtime.background.start()  # acknowledged work no process carried out, and what comes
            freeze_startup()
            for line in lines:
                announce(line)
        try:
            if not stopping.is_set():
                runner.run()  # takes the signals itself while it runs
            announce("paperbot is stopping: finishing the work under way")
        finally:
            bot.runtime.background.stop_taking()  # what is queued waits in the inbox for the next process
            scheduler.shutdown()
    finally:
        if ops is not None:
            ops.stop()
        bot.close(grace=STOP_SECONDS)  # counted from stop_taking, when there was one
    announce("paperbot stopped")


def start_scheduler(bot: SlackBot, settings: Settings, interval: float = TICK_SECONDS) -> DigestScheduler:
    """The daily digests (and feeds) of this bot, every ``interval`` seconds from now on."""
    if bot.installations is not None:  # OAuth: every installed workspace, each with its own token
        workspaces: Workspaces = InstalledWorkspaces(settings, bot.installations)
    else:
        served = [Served(bot.workspace.key, digest_client(settings))]
        workspaces = lambda: served  # noqa: E731
    scheduler = DigestScheduler(bot.ctx, workspaces, settings.feeds, interval,
                                hold_for=lambda ws: bot.runtime.for_workspace(ws).locks.hold,
                                helpers=digest_helpers(settings, alone=True),
                                admin_channel=settings.admin_channel, acked=bot.runtime.background.catch_up)
    scheduler.start()
    return scheduler


def open_bot(settings: Settings) -> SlackBot:
    """The database and the Bolt app for these settings."""
    ctx = Context.open(settings.db_path, settings.digest_size, background_refit=True,
                       embeddings=settings.embeddings, summarizer=summarizer(settings, metrics.summaries))
    try:
        return create_app(settings, ctx)
    except BaseException:
        ctx.close()
        raise


def asgi_app(app: App, signing_secret: str, extra: Sequence[Route] = ()) -> Starlette:
    """Every Slack request (commands, events, interactivity) at POST ``/slack/events``; ``extra`` routes
    too (``/healthz``, ``/readyz``, ``/metrics``: :mod:`bot.slack.health`).

    Each request passes :mod:`bot.slack.gate` (signature, then shape) before Bolt sees it; what it
    refuses gets its 401/400 (or an empty 200) and one log line, never a traceback.
    """
    alarm = gate.SignatureAlarm()

    async def slack_events(request: Request) -> Response:
        body = bytearray()
        try:
            async for chunk in request.stream():
                body += chunk
                if len(body) > MAX_BODY:
                    log.info("refused a request (413): a body over %d bytes", MAX_BODY)
                    metrics.refused(413)
                    return PlainTextResponse("request too large", status_code=413)
        except ClientDisconnect:  # gone before its body was in (or closed for taking too long)
            log.info("a request's client went away before its body was in")
            return Response(status_code=400)
        verdict = gate.judge(request.headers, bytes(body), signing_secret)
        if not verdict.admitted:
            log.info("%s a request (%d): %s", "ignored" if verdict.status == 200 else "refused",
                     verdict.status, verdict.reason)
            alarm.note(verdict)
            if verdict.status != 200:  # an ignored one (no listener for it) is not a refusal
                metrics.refused(verdict.status)
            return Response(status_code=verdict.status, content=_REFUSED.get(verdict.status, ""),
                            media_type="text/plain")
        bolt_response = await run_in_threadpool(app.dispatch, _bolt_request(request, bytes(body), verdict))
        if bolt_response.status == 404:  # admitted, but no listener matched (Bolt logged that): no retry
            return Response(status_code=200)
        return to_starlette_response(bolt_response)

    routes = [Route(EVENTS_PATH, slack_events, methods=["POST"]), *extra]
    flow = app.oauth_flow
    if flow is not None:
        routes += [
            Route(flow.install_path, _oauth_page(flow.handle_installation, "install"), methods=["GET"]),
            Route(flow.redirect_uri_path, _oauth_page(flow.handle_callback, "redirect"), methods=["GET"]),
        ]
    return Starlette(routes=routes)


_REFUSED = {400: "bad request", 401: "invalid signature"}
UNAVAILABLE = "paperbot can't complete the installation right now. Please try again in a minute."


def _oauth_page(handle: Callable[[BoltRequest], BoltResponse], name: str):
    """A GET page of Bolt's OAuth flow (its install page, or the redirect back from Slack), run on a
    worker thread; a database or setting that fails it gives a one-line page and log line, not a 500."""

    async def page(request: Request) -> Response:
        try:
            bolt_response = await run_in_threadpool(handle, to_bolt_request(request, b""))
        except (StorageError, PaperbotError, SlackClientError, OSError) as exc:  # the database, Slack
            log.warning("the OAuth %s page failed: %s", name, " ".join(str(exc).split()))
            return PlainTextResponse(UNAVAILABLE, status_code=503)
        return to_starlette_response(bolt_response)

    return page


def _bolt_request(request: Request, body: bytes, verdict: gate.Verdict) -> BoltRequest:
    bolt_request = to_bolt_request(request, body)
    if bolt_request.body != verdict.payload:
        # Bolt reads any form body with "payload" in it as interactivity: `/papers search payload`
        # would reach it empty. Hand it the gate's own reading of the same signed body instead.
        bolt_request.body = verdict.payload
        bolt_request.context = build_context(BoltContext({}), verdict.payload)
    return bolt_request


class HttpServer:
    """uvicorn on a socket bound at construction (port 0 picks a free one; see :attr:`port`), with limits
    on its connections (:mod:`bot.slack.http_limits`; ``most_connections``: the cap, else as the
    descriptors allow). It serves ``/healthz``, ``/readyz`` and ``/metrics`` with ``readiness`` (by
    default this bot's), unless ``ops`` is false (they are on PAPERBOT_METRICS_PORT)."""

    def __init__(self, bot: SlackBot, host: str = "127.0.0.1", port: int = 0,
                 graceful_seconds: float = GRACEFUL_SECONDS, most_connections: int | None = None,
                 readiness: Readiness | None = None, ops: bool = True):
        import uvicorn

        self.socket = _bind(host, port)
        self.port: int = self.socket.getsockname()[1]
        limited = http_limits.protocol_class(most_connections or http_limits.max_connections())
        extra = health.routes(readiness or Readiness(bot.ctx)) if ops else []
        config = uvicorn.Config(asgi_app(bot.app, bot.signing_secret, extra), log_level="warning",
                                access_log=False, lifespan="off", timeout_graceful_shutdown=graceful_seconds,
                                http=limited, timeout_keep_alive=http_limits.KEEP_ALIVE_SECONDS)
        self.server = uvicorn.Server(config)

    @property
    def started(self) -> bool:
        return self.server.started

    def run(self) -> None:
        """Serve until :meth:`stop`, or SIGTERM/SIGINT when run in the main thread."""
        with _signals(self.stop):  # uvicorn takes the signals while it runs, then hands them back here
            asyncio.run(self._serve())

    async def _serve(self) -> None:
        asyncio.get_running_loop().set_exception_handler(http_limits.AcceptAlarm())
        await self.server.serve(sockets=[self.socket])

    def stop(self) -> None:
        self.server.should_exit = True


class SocketModeServer:
    """Bolt's Socket Mode handler: one WebSocket to Slack, no public URL needed."""

    def __init__(self, bot: SlackBot, app_token: str):
        from slack_bolt.adapter.socket_mode import SocketModeHandler

        self.handler = SocketModeHandler(bot.app, app_token)
        self._stop = threading.Event()

    def run(self) -> None:
        """Connect and serve until :meth:`stop`, or SIGTERM/SIGINT when run in the main thread."""
        with _signals(self.stop):
            try:
                self.handler.connect()
            except SlackApiError as exc:
                self.handler.close()
                error = exc.response.get("error")
                raise ConfigError(f"Slack did not accept SLACK_APP_TOKEN ({error})") from None
            except (SlackClientError, OSError) as exc:
                self.handler.close()
                raise ConfigError(f"Can't open a Socket Mode connection to Slack ({exc})") from None
            self._stop.wait()
        self.handler.close()

    def stop(self) -> None:
        self._stop.set()


def _bind(host: str, port: int, setting: str = "PORT or pass --port") -> socket.socket:
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise ConfigError(f"Port {port} is already in use: set {setting}") from None
        raise ConfigError(f"Can't listen on {host}:{port} ({exc.strerror})") from None
    sock.listen(BACKLOG)
    sock.set_inheritable(True)
    return sock


@contextlib.contextmanager
def _signals(stop: Callable[[], None]) -> Iterator[None]:
    """In the main thread, SIGTERM and SIGINT call ``stop`` (once running work may finish)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum: int, frame) -> None:
        # Logged from a thread of its own: the handler runs between two bytecodes of the main thread,
        # which may be inside a write to stderr, and writing there again from the handler would raise
        # "reentrant call" (a traceback in the log, seen when SIGTERM came during the start-up line).
        threading.Thread(target=log.info, args=("received %s", signal.Signals(signum).name),
                         name="paperbot-signal-log").start()
        stop()

    previous = {sig: signal.signal(sig, handler) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        yield
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)


def _stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def carry_out_acked(settings: Settings, ctx: Context, timeout: float = CATCH_UP_SECONDS) -> int:
    """Carry out every acknowledged request that no living process holds (a stopped or dead bot's, and
    what the journal beside a SQLite file still holds) through the Bolt app of ``settings``, as the bot's
    sweep would, and wait for them (up to ``timeout`` seconds): what ``paperbot digest`` does before it
    chooses. Requests a running bot holds are left to it. How many were carried out; the app is built
    (and Slack asked who the token is) only when there is any."""
    Intake(ctx.store, HOLD).settle(wait=True)
    if not ctx.store.inbox_pending_count():
        return 0
    bot = create_app(settings, ctx)
    background = bot.runtime.background
    try:
        return background.catch_up(timeout)
    finally:
        bot.listener_executor.shutdown(wait=True)
        background.stop(STOP_SECONDS)  # what is still under way then is handed back, for the next process
