"""Slack's side of Socket Mode, on 127.0.0.1: the WebSocket that ``apps.connections.open`` points to.

It sends envelopes (slash commands, events, interactions) the way Slack does and records the bot's acks.
Slack's own frames are plain WebSocket text frames of JSON, so the ``websockets`` library's sync server
does the protocol (handshake, masking, ping/pong).

    with SocketModeStandIn() as socket_mode:
        standin.socket_mode_url = socket_mode.url        # what apps.connections.open answers
        ...  # start the bot with SLACK_APP_TOKEN
        envelope = socket_mode.send("slash_commands", {...})
        ack = socket_mode.wait_for_ack(envelope)
"""

from __future__ import annotations

import itertools
import json
import threading

from websockets.exceptions import ConnectionClosed
from websockets.sync.server import ServerConnection, serve

from stand_ins.waiting import wait_until


class SocketModeStandIn:
    """A WebSocket server that plays Slack in Socket Mode. Use as a context manager."""

    def __init__(self):
        self._server = serve(self._handle, "127.0.0.1", 0)
        self._thread = threading.Thread(target=self._server.serve_forever, name="socket-mode-standin",
                                        daemon=True)
        self._connections: list[ServerConnection] = []
        self._acks: dict[str, dict] = {}
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self.connects = 0

    @property
    def url(self) -> str:
        host, port = self._server.socket.getsockname()[:2]
        return f"ws://{host}:{port}/link/?ticket=standin"

    def __enter__(self) -> SocketModeStandIn:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._server.shutdown()

    def _handle(self, connection: ServerConnection) -> None:
        with self._lock:
            self._connections.append(connection)
            self.connects += 1
        connection.send(json.dumps({"type": "hello", "num_connections": 1,
                                    "connection_info": {"app_id": "A0PAPERBOT"}}))
        try:
            for raw in connection:
                message = json.loads(raw)
                if message.get("envelope_id"):
                    with self._lock:
                        self._acks[message["envelope_id"]] = message
        except ConnectionClosed:
            pass
        finally:
            with self._lock:
                self._connections.remove(connection)

    def connected(self) -> bool:
        with self._lock:
            return bool(self._connections)

    def send(self, kind: str, payload: dict, **extra) -> str:
        """Send an envelope of ``kind`` ("slash_commands", "events_api", "interactive"); its id."""
        envelope_id = f"env-{next(self._ids)}"
        with self._lock:
            connection = self._connections[-1]
        connection.send(json.dumps({"envelope_id": envelope_id, "type": kind, "payload": payload,
                                    "accepts_response_payload": kind != "events_api", **extra}))
        return envelope_id

    def wait_for_ack(self, envelope_id: str, timeout: float = 15.0) -> dict:
        """The bot's ack of an envelope (``{"envelope_id": …, "payload": …}``)."""
        def ack() -> dict | None:
            with self._lock:
                return self._acks.get(envelope_id)

        return wait_until(ack, timeout, f"the ack of {envelope_id}")
