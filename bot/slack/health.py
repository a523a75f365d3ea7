"""What a load balancer and Prometheus ask of a running bot: ``GET /healthz`` (the process serves),
``GET /readyz`` (it can answer Slack: the database answers and the paper model is in memory) and
``GET /metrics`` (:mod:`bot.metrics`).

They are served beside ``/slack/events`` on the bot's port, or with PAPERBOT_METRICS_PORT by a small
server of their own on that port (:class:`MetricsServer`): in Socket Mode, the only way to have them.
"""

from __future__ import annotations

import asyncio
import logging
import socket
import threading

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

from bot import metrics
from bot.state.context import Context
from storage import StorageError

log = logging.getLogger(__name__)

#: Seconds a readiness check waits for the database (for a connection, a lock, the answer).
READY_WAIT = 1.0


class Readiness:
    """Whether this process can answer Slack now, each check one trivial query (the newest paper change's
    number) under a short bound.

    Ready once the database answers and the paper model is in memory, or there are no papers yet (nothing
    to load: a fresh install is ready at once, and is told "no papers yet" by the commands). The model is
    loaded at its first use: a check that finds it missing starts loading it in the background, and says
    so until it is in."""

    def __init__(self, ctx: Context):
        self.ctx = ctx
        self._loading = threading.Lock()
        self._empty_at: int | None = None  # the change number at which a load found no papers

    def problem(self) -> str | None:
        """None when ready; else why not, in one line (no password: storage's errors name the database
        without it)."""
        store = self.ctx.store
        try:
            with store.waiting_at_most(READY_WAIT):
                newest = store.max_paper_seq()
        except StorageError as exc:
            return f"the database does not answer: {' '.join(str(exc).split())[:200]}"
        if self.ctx.engine.loaded or newest == 0 or newest == self._empty_at:
            return None
        self._load(newest)
        return "the paper model is loading"

    def _load(self, newest: int) -> None:
        if not self._loading.acquire(blocking=False):
            return  # under way

        def load() -> None:
            try:
                with self.ctx.engine.index():
                    pass
                if not self.ctx.engine.loaded:  # its papers went meanwhile: nothing to load at this change
                    self._empty_at = newest
            except Exception as exc:  # the next check tries again
                log.warning("loading the paper model failed (%s); /readyz tries again", exc)
            finally:
                self.ctx.store.close()  # this thread's connection (SQLite)
                self._loading.release()

        threading.Thread(target=load, name="paperbot-load-model", daemon=True).start()


def routes(readiness: Readiness) -> list[Route]:
    """``/healthz``, ``/readyz`` and ``/metrics``, for the bot's own app or the metrics port's."""

    async def health(request: Request) -> Response:
        return PlainTextResponse("ok")

    async def ready(request: Request) -> Response:
        problem = await run_in_threadpool(readiness.problem)
        if problem is None:
            return PlainTextResponse("ready")
        return PlainTextResponse(problem + "\n", status_code=503)

    async def scrape(request: Request) -> Response:
        body, content_type = await run_in_threadpool(metrics.page, readiness.ctx.store)
        return Response(body, media_type=content_type)

    return [Route("/healthz", health, methods=["GET"]), Route("/readyz", ready, methods=["GET"]),
            Route("/metrics", scrape, methods=["GET"])]


class MetricsServer:
    """PAPERBOT_METRICS_PORT: ``/healthz``, ``/readyz`` and ``/metrics`` on a port of their own, served by
    uvicorn on a thread of its own from :meth:`start` to :meth:`stop`."""

    def __init__(self, readiness: Readiness, sock: socket.socket):
        import uvicorn

        self.socket = sock
        self.port: int = sock.getsockname()[1]
        config = uvicorn.Config(Starlette(routes=routes(readiness)), log_level="warning", access_log=False,
                                lifespan="off", limit_concurrency=64, timeout_keep_alive=5)
        self.server = uvicorn.Server(config)
        self._thread = threading.Thread(target=lambda: asyncio.run(self.server.serve(sockets=[self.socket])),
                                        name="paperbot-metrics", daemon=True)

    def start(self) -> None:
        """Serve from now on (the socket is listening already: nothing asked meanwhile is lost)."""
        self._thread.start()

    @property
    def started(self) -> bool:
        return self.server.started

    def stop(self) -> None:
        """Stop serving, waiting briefly for the requests under way."""
        self.server.should_exit = True
        if self._thread.is_alive():
            self._thread.join(timeout=10)
        self.socket.close()
