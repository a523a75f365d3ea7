"""Limits on the connections of the HTTP server, so that clients that never finish a request can't take
the bot off the air.

uvicorn keeps a connection open for as long as its client likes until a request has arrived: one that
sends half a request, or nothing, holds a file descriptor for good, and enough of them (20,000 here)
leave none for Slack's own requests. :class:`LimitedH11Protocol` (uvicorn's h11 protocol, passed as its
``http`` class) gives each request :data:`HEADERS_SECONDS` to send its headers and :data:`BODY_SECONDS`
more for its body, and keeps at most :data:`MAX_CONNECTIONS` connections: past that, a new connection
closes the oldest one that has no request under way, or, when every one has, is answered 503. Idle
keep-alive connections close after uvicorn's ``timeout_keep_alive`` (:data:`KEEP_ALIVE_SECONDS`).

What the event loop reports of a failing ``accept()`` (out of descriptors) is a traceback per attempt;
:class:`AcceptAlarm` makes it one line a minute with a count.
"""

from __future__ import annotations

import asyncio
import logging
import resource
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

log = logging.getLogger(__name__)

HEADERS_SECONDS = 10.0  # from the connection (or the end of its last response) to a request's headers
BODY_SECONDS = 30.0  # from the headers to the end of the body
KEEP_ALIVE_SECONDS = 5  # an idle kept-alive connection, between requests
MOST_CONNECTIONS = 1000  # the cap, unless the descriptors allowed are fewer (see max_connections)
ALARM_SECONDS = 60.0

_BUSY = (b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain; charset=utf-8\r\n"
         b"content-length: 21\r\nconnection: close\r\n\r\nserver busy, retry it")


def max_connections(most: int = MOST_CONNECTIONS) -> int:
    """Connections kept at once: ``most``, or half the descriptors this process may open if that is fewer
    (the rest are the database's, the Slack clients', the log's). Raises the soft descriptor limit to the
    hard one first, as servers do."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or soft < hard:
        try:
            wanted = hard if hard != resource.RLIM_INFINITY else max(soft, 65536)
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
            soft = wanted
        except (ValueError, OSError):  # not allowed here: the soft limit it is
            pass
    return max(16, min(most, soft // 2))


class LimitedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with deadlines for a request's headers and body, and a cap on connections
    (the cap and deadlines are class attributes, set by :func:`protocol_class`)."""

    most = MOST_CONNECTIONS
    headers_seconds = HEADERS_SECONDS
    body_seconds = BODY_SECONDS
    #: This server's connections with no request under way, oldest first (the class is the server's own).
    idle: OrderedDict[LimitedH11Protocol, None] = OrderedDict()

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        self._cycle = 0  # which request the armed deadline is for
        self._deadline: asyncio.TimerHandle | None = None
        super().connection_made(transport)
        if len(self.connections) > self.most and not self._evict_one():
            log.warning("refused a connection (503): %d connections, each with a request under way",
                        len(self.connections) - 1)
            transport.write(_BUSY)
            transport.close()
            return
        self.idle[self] = None
        self._arm(self.headers_seconds, h11.IDLE)

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        self.idle.pop(self, None)
        super().connection_lost(exc)

    def handle_events(self) -> None:
        before = self.conn.their_state
        super().handle_events()
        if self.conn.their_state is not h11.IDLE:  # a request under way: not to be closed for room
            self.idle.pop(self, None)
        if before is not h11.SEND_BODY and self.conn.their_state is h11.SEND_BODY:
            self._arm(self.body_seconds, h11.SEND_BODY)  # headers in: the body's own time starts

    def on_response_complete(self) -> None:
        self._cycle += 1
        self._disarm()
        super().on_response_complete()  # may go on with a pipelined request (handle_events)
        if not self.transport.is_closing() and self.conn.their_state is h11.IDLE:
            # Kept alive, waiting for the next request: its headers have their time.
            self.idle[self] = None  # idle again, and the newest
            self.idle.move_to_end(self)
            self._arm(self.headers_seconds, h11.IDLE)

    def _evict_one(self) -> bool:
        """Close the oldest connection with no request under way; False when there is none."""
        while self.idle:
            oldest, _ = self.idle.popitem(last=False)
            if not oldest.transport.is_closing():
                oldest.transport.close()
                return True
        return False

    def _arm(self, seconds: float, state: object) -> None:
        self._disarm()
        self._deadline = self.loop.call_later(seconds, self._expire, self._cycle, state)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _expire(self, cycle: int, state: object) -> None:
        """The deadline of request ``cycle`` passed: close the connection if it is still in ``state``
        (its headers, or its body, not all in)."""
        self._deadline = None
        if cycle == self._cycle and self.conn.their_state is state and not self.transport.is_closing():
            self.transport.close()


def protocol_class(most: int) -> type[LimitedH11Protocol]:
    """The protocol for uvicorn's ``http`` setting: at most ``most`` connections, and the deadlines of
    :data:`HEADERS_SECONDS` and :data:`BODY_SECONDS` as they are set now."""
    return type("LimitedH11Protocol", (LimitedH11Protocol,),
                {"most": most, "headers_seconds": HEADERS_SECONDS, "body_seconds": BODY_SECONDS,
                 "idle": OrderedDict()})


class AcceptAlarm:
    """An event loop exception handler: a failing ``accept()`` (out of descriptors or memory) is counted
    and logged once a minute; anything else goes to the loop's default handler, as before."""

    def __init__(self, interval: float = ALARM_SECONDS, clock: Callable[[], float] = time.monotonic):
        self._interval, self._clock = interval, clock
        self._lock = threading.Lock()
        self._count = 0
        self._last: float | None = None

    def __call__(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        if "accept" not in str(context.get("message", "")):
            loop.default_exception_handler(context)
            return
        with self._lock:
            self._count += 1
            now = self._clock()
            if self._last is not None and now - self._last < self._interval:
                return
            count, self._count, self._last = self._count, 0, now
        reason = context.get("exception")
        log.warning("could not accept %d connection(s) in the last minute (%s): new requests wait",
                    count, reason.strerror if isinstance(reason, OSError) and reason.strerror else reason)
