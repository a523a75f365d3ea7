"""How every HTTP stand-in serves: its server on 127.0.0.1, answering from a thread of its own."""

from __future__ import annotations

import threading
from socketserver import BaseServer


class Serving:
    """Runs ``server`` in a daemon thread named ``name`` between :meth:`start` and :meth:`stop`."""

    def __init__(self, server: BaseServer, name: str) -> None:
        self.server = server
        # A short poll: shutdown() waits for serve_forever's next look, 0.5 s by default, at every test's end.
        self._thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.01},
                                        name=name, daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self._thread.join()
