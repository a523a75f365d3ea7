"""Connections that never finish a request can't take the bot off the air (bot.slack.http_limits): each
request has a deadline for its headers and one for its body, and past the cap on connections a new one
closes the oldest idle one, or is answered 503 when every one has a request under way."""

from __future__ import annotations

import http.client
import json
import logging
import socket
import threading
from collections.abc import Iterator

import pytest

from bot.slack import http_limits
from bot.slack.http_limits import AcceptAlarm
from bot.slack.server import HttpServer
from stand_ins.waiting import wait_until
from tests.bot.slack.conftest import command_request

HALF_A_REQUEST = b"POST /slack/events HTTP/1.1\r\nHost: paperbot\r\nX-Slack-Signature: v0="


@pytest.fixture
def serve(slack_bot, monkeypatch) -> Iterator:
    """Start the bot's HTTP server with a cap of 20 connections and these deadlines (seconds)."""
    started: list[tuple[HttpServer, threading.Thread]] = []

    def start(headers: float = 0.5, body: float = 0.5) -> HttpServer:
        monkeypatch.setattr(http_limits, "HEADERS_SECONDS", headers)
        monkeypatch.setattr(http_limits, "BODY_SECONDS", body)
        server = HttpServer(slack_bot, "127.0.0.1", 0, most_connections=20)
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        started.append((server, thread))
        wait_until(lambda: server.started, 10, "the HTTP server to start", pause=0.01)
        return server

    yield start
    for server, thread in started:
        server.stop()
        thread.join(timeout=10)


@pytest.fixture
def serving(serve) -> HttpServer:
    return serve()


def _open(server: HttpServer, sent: bytes) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=10)
    sock.sendall(sent)
    return sock


def _closed(sock: socket.socket) -> bool:
    """Whether the server closed ``sock`` (it reads the end, or what the server wrote before it)."""
    try:
        return sock.recv(4096) == b""
    except ConnectionResetError:  # closed with what it sent unread: the kernel resets it
        return True
    finally:
        sock.close()


def _help(server: HttpServer) -> tuple[int, dict]:
    request = command_request("help")
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    try:
        conn.request("POST", "/slack/events", body=request.raw_body.encode(),
                     headers={k: v[0] for k, v in request.headers.items()})
        response = conn.getresponse()
        return response.status, json.loads(response.read() or b"{}")
    finally:
        conn.close()


def test_half_a_request_is_closed_once_its_headers_are_late(serving):
    assert _closed(_open(serving, HALF_A_REQUEST))  # blocks until the server's 0.5 s deadline; 10 s at most
    assert _closed(_open(serving, b""))  # nothing at all: the same


def test_a_body_that_never_ends_is_closed_once_late_and_nothing_is_logged_as_an_error(serving, caplog):
    headers = b"POST /slack/events HTTP/1.1\r\nHost: paperbot\r\nContent-Length: 100\r\n\r\n"
    with caplog.at_level(logging.INFO):
        assert _closed(_open(serving, headers + b"token=x"))
        status, answer = _help(serving)  # and the server still answers
    assert status == 200 and "/papers follow" in answer["text"]
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text


def test_past_the_cap_the_oldest_idle_connections_make_room_for_slacks_requests(serving):
    idle = [_open(serving, HALF_A_REQUEST) for _ in range(40)]  # twice the cap, none finishing its request
    status, answer = _help(serving)
    assert status == 200 and "/papers follow" in answer["text"]
    for sock in idle[:20]:  # the oldest were closed as the others came
        sock.settimeout(0.3)
        assert _closed(sock)
    for sock in idle[20:]:
        sock.close()


def test_past_the_cap_with_every_connection_busy_a_new_one_is_answered_503(serve):
    serving = serve(body=30)
    busy_request = b"POST /slack/events HTTP/1.1\r\nHost: paperbot\r\nContent-Length: 100\r\n\r\nx"
    busy = [_open(serving, busy_request) for _ in range(20)]  # bodies under way: none may be closed
    uvicorn = serving.server
    wait_until(lambda: len(uvicorn.server_state.connections) == 20 and not uvicorn.config.http.idle, 10,
               "the server to read the 20 requests' headers")
    try:
        late = _open(serving, b"")
        answer = late.recv(4096)
        late.close()
        assert answer.startswith(b"HTTP/1.1 503"), answer
    finally:
        for sock in busy:
            sock.close()


class _Loop:
    def __init__(self) -> None:
        self.passed_on: list[dict] = []

    def default_exception_handler(self, context: dict) -> None:
        self.passed_on.append(context)


def test_accept_failures_are_one_warning_a_minute_with_their_count(caplog):
    now = [0.0]
    alarm, loop = AcceptAlarm(clock=lambda: now[0]), _Loop()
    failure = {"message": "socket.accept() out of system resource",
               "exception": OSError(24, "Too many open files")}
    with caplog.at_level(logging.WARNING, logger="bot.slack.http_limits"):
        for _ in range(500):
            alarm(loop, failure)  # type: ignore[arg-type]
        now[0] = 61.0
        alarm(loop, failure)  # type: ignore[arg-type]
        alarm(loop, {"message": "something else"})  # type: ignore[arg-type]
    lines = [r.getMessage() for r in caplog.records]
    said = "connection(s) in the last minute (Too many open files): new requests wait"
    assert lines == [f"could not accept 1 {said}", f"could not accept 500 {said}"]
    assert loop.passed_on == [{"message": "something else"}]
