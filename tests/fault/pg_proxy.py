"""A TCP proxy in front of a PostgreSQL server that a test can cut: every connection through it dropped at
once and new ones refused until it is restored. To paperbot that is its database going down, restarting,
or a network between them failing; the server itself, shared with other tests, is never touched."""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Iterator
from urllib.parse import urlsplit, urlunsplit


class CuttableProxy:
    """Forwards 127.0.0.1:``port`` to ``target``; :meth:`cut` and :meth:`restore` (see the module)."""

    def __init__(self, target: tuple[str, int]):
        self.target = target
        self._listener = socket.create_server(("127.0.0.1", 0), backlog=128)
        self.port: int = self._listener.getsockname()[1]
        self._lock = threading.Lock()
        self._open: set[socket.socket] = set()
        self._cut = threading.Event()
        self._closed = threading.Event()
        self.refused = 0  # connections turned away while cut
        threading.Thread(target=self._accept, name="pg-proxy", daemon=True).start()

    def url(self, url: str) -> str:
        """``url`` (a PostgreSQL URL) through this proxy."""
        parts = urlsplit(url)
        auth = parts.netloc.rsplit("@", 1)[0] + "@" if "@" in parts.netloc else ""
        return urlunsplit((parts.scheme, f"{auth}127.0.0.1:{self.port}", parts.path, parts.query, ""))

    def cut(self) -> None:
        """Drop every connection and refuse new ones (the server is away) until :meth:`restore`."""
        self._cut.set()
        with self._lock:
            sockets, self._open = list(self._open), set()
        for sock in sockets:
            _close(sock)

    def restore(self) -> None:
        self._cut.clear()

    def close(self) -> None:
        self._closed.set()
        self.cut()
        _close(self._listener)

    def _accept(self) -> None:
        while not self._closed.is_set():
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            if self._cut.is_set():
                self.refused += 1
                _close(client)
                continue
            try:
                upstream = socket.create_connection(self.target, timeout=5)
            except OSError:
                _close(client)
                continue
            upstream.settimeout(None)
            with self._lock:
                self._open |= {client, upstream}
            for source, sink in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(source, sink), daemon=True).start()

    def _pump(self, source: socket.socket, sink: socket.socket) -> None:
        try:
            while chunk := source.recv(65536):
                sink.sendall(chunk)
        except OSError:
            pass
        finally:
            with self._lock:
                self._open -= {source, sink}
            _close(source)
            _close(sink)


def _close(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)
    with contextlib.suppress(OSError):
        sock.close()


@contextlib.contextmanager
def proxy_to(url: str) -> Iterator[CuttableProxy]:
    """A :class:`CuttableProxy` to the server of PostgreSQL ``url``, closed on the way out."""
    parts = urlsplit(url)
    proxy = CuttableProxy((parts.hostname or "127.0.0.1", parts.port or 5432))
    try:
        yield proxy
    finally:
        proxy.close()
