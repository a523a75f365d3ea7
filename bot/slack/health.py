"""What a load balancer and Prometheus ask of a running bot: ``GET /healthz`` (the process serves),
``GET /readyz`` (it can answer Slack: the database answers and the paper model is in memory) and
``GET /metrics`` (:mod:`bot.metrics`); what ready means is :mod:`bot.state.readiness`'s.

They are served beside ``/slack/events`` on the bot's port, or with PAPERBOT_METRICS_PORT by a small
server of their own on that port (:class:`MetricsServer`): in Socket Mode, the only way to have them.
"""

from __future__ import annotations

import asyncio
import socket
import threading

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

from bot import metrics
from bot.state.readiness import Readiness


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
        body, content_type = await run_in_threadpool(metrics.page, readiness.ctx)
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
