"""How every HTTP stand-in serves: its server on 127.0.0.1, answering from a thread of its own."""

from __future__ import annotations

import contextlib
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from socketserver import BaseServer
from typing import Self


class Serving:
    """Runs ``server`` in a daemon thread named ``name`` between :meth:`start` and :meth:`stop`."""

    def __init__(self, server: BaseServer, name: str) -> None:
        self.server = server
        # serve_forever's default look every 0.5 s: a stand-in waits in select() between requests, where a
        # short poll (0.01 s) kept every idle stand-in of every worker busy, some 3.5 ms of CPU a second
        # each (2026-12-07). stop() wakes it instead of waiting for its next look.
        self._thread = threading.Thread(target=server.serve_forever, name=name, daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        stopping = threading.Thread(target=self.server.shutdown, name=f"{self._thread.name}-stop")
        stopping.start()
        while stopping.is_alive():  # a connection ends select()'s wait; then the loop sees the request
            _poke(self.server.server_address)
            stopping.join(0.05)
        self.server.server_close()
        self._thread.join()


def _poke(address) -> None:
    """Open and close a connection to ``address`` (nothing is sent: the handler reads no request)."""
    with contextlib.suppress(OSError):
        socket.create_connection(address[:2], timeout=1).close()


class Answering:
    """A stand-in that answers every GET on 127.0.0.1 at :attr:`base_url` while it is entered (``with``):
    each request is kept in :attr:`requests`; the Nth is answered 429 with the Retry-After ``busy[N]``, or
    200 with the body ``broken[N]`` (of :attr:`broken_type`), else with what :meth:`respond` gives for its
    path (status, headers, body), called holding ``_lock``."""

    broken_type = "application/octet-stream"

    def __init__(self, name: str) -> None:
        self.busy: dict[int, str] = {}
        self.broken: dict[int, bytes] = {}
        self.requests: list[str] = []
        self._lock = threading.Lock()
        stand_in = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                status, headers, body = stand_in.answer(self.path)
                self.send_response(status)
                for header, value in headers.items():
                    self.send_header(header, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._serving = Serving(self._server, name)

    def answer(self, path: str) -> tuple[int, dict[str, str], bytes]:
        with self._lock:
            self.requests.append(path)
            number = len(self.requests)
            if number in self.busy:
                headers = {"Retry-After": self.busy[number], "Content-Type": "text/plain"}
                return 429, headers, b"Too Many Requests"
            if number in self.broken:
                return 200, {"Content-Type": self.broken_type}, self.broken[number]
            return self.respond(path)

    def respond(self, path: str) -> tuple[int, dict[str, str], bytes]:
        raise NotImplementedError

    def __enter__(self) -> Self:
        self._serving.start()
        return self

    def __exit__(self, *exc) -> None:
        self._serving.stop()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"
