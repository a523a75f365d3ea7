"""Web API calls over kept-alive connections: reused, and failing the way urllib's calls fail."""

from __future__ import annotations

import http.client
import socket
import threading
from urllib.error import URLError

import pytest
from slack_sdk.errors import SlackApiError

from bot.config import Settings
from bot.slack import keepalive
from bot.slack.client import build_client
from stand_ins.slack import RESPONSE_URL, SlackStandIn

TOKEN = "xoxb-keepalive"


@pytest.fixture
def standin():
    with SlackStandIn() as s:
        yield s


def client_for(url: str, **kwargs):
    settings = Settings.load(environ={"SLACK_BOT_TOKEN": TOKEN, "SLACK_API_URL": url}, dotenv=None)
    return build_client(settings, **kwargs)


@pytest.fixture(autouse=True)
def no_proxy(monkeypatch):
    for name in ("http_proxy", "https_proxy", "all_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY",
                 "no_proxy", "NO_PROXY"):
        monkeypatch.delenv(name, raising=False)


def test_calls_reuse_one_connection(standin):
    client = client_for(standin.base_url)
    before = standin.connections
    for i in range(20):
        assert client.chat_postMessage(channel="DU1", text=f"hello {i}")["ok"]
    assert len(standin.calls("chat.postMessage")) == 20
    assert standin.connections - before <= 1  # urllib opened 20


def test_threads_share_the_pool_without_mixing_answers(standin):
    client = client_for(standin.base_url)
    answers: dict[int, str] = {}

    def send(i: int) -> None:
        answers[i] = client.conversations_open(users=f"U{i:03d}")["channel"]["id"]

    threads = [threading.Thread(target=send, args=(i,)) for i in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert answers == {i: f"DU{i:03d}" for i in range(12)}


def test_a_server_error_is_retried_and_a_refusal_is_an_api_error(standin):
    client = client_for(standin.base_url)
    standin.fail("chat.postMessage", 500)
    assert client.chat_postMessage(channel="DU1", text="again")["ok"]
    assert [c.status for c in standin.calls("chat.postMessage")] == [500, 200]
    standin.fail("chat.postMessage", 429, times=5, retry_after=0)
    with pytest.raises(SlackApiError) as refused:
        client_for(standin.base_url, rate_limit_retries=1).chat_postMessage(channel="DU1", text="x")
    assert refused.value.response.status_code == 429
    assert refused.value.response.headers.get("Retry-After") == "0"


def test_nothing_listening_is_a_urlerror_as_with_urllib():
    with socket.socket() as s:  # a port nothing listens on: bound, never listening
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
        with pytest.raises(URLError) as failed:
            client_for(f"http://127.0.0.1:{port}/api/").auth_test()
    assert isinstance(failed.value.reason, ConnectionRefusedError)


def test_a_post_cut_off_after_it_was_sent_is_not_sent_again(standin):
    client = client_for(standin.base_url)
    standin.land_late("chat.postMessage", 0.01, drop=True)
    with pytest.raises((ConnectionError, http.client.HTTPException)):
        client.chat_postMessage(channel="DU1", text="once")
    assert len(standin.calls("chat.postMessage")) == 1  # it landed; the caller looks before posting again
    standin.land_late("conversations.open", 0.01, drop=True)
    assert client.conversations_open(users="U1")["ok"]  # not a post: safe to ask again
    assert len(standin.calls("conversations.open")) == 2


def test_a_connection_the_server_closed_while_idle_is_not_reused():
    """Slack closes kept-alive connections it no longer wants; the next call opens a new one."""
    answered = []

    def serve(listener: socket.socket) -> None:
        for _ in range(2):  # each connection: one answer, said to stay open, then closed anyway
            conn, _ = listener.accept()
            with conn:
                conn.recv(65536)
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\n"
                             b"Connection: keep-alive\r\n\r\n{\"ok\":true}")
                answered.append(1)

    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        server = threading.Thread(target=serve, args=(listener,), daemon=True)
        server.start()
        client = client_for(f"http://127.0.0.1:{listener.getsockname()[1]}/api/")
        assert client.auth_test()["ok"]
        server_closed = threading.Event()
        threading.Timer(0.2, server_closed.set).start()
        server_closed.wait()
        assert client.auth_test()["ok"]
        server.join(5)
    assert len(answered) == 2


def test_a_proxy_from_the_environment_is_honoured(standin, monkeypatch):
    """urllib sends through $HTTP_PROXY; so do these calls (the stand-in plays the proxy)."""
    monkeypatch.setenv("HTTP_PROXY", standin.root)

    def refuse(*args, **kwargs):
        raise AssertionError("the pool was used despite the proxy")

    monkeypatch.setattr(keepalive._pool, "request", refuse)
    assert client_for("http://slack.invalid/api/").auth_test()["ok"]
    assert standin.calls("auth.test")[-1].headers["host"] == "slack.invalid"


def test_kept_connections_are_probed_when_idle(standin):
    """A connection a NAT dropped silently would make the next call wait out its timeout: the kernel
    probes idle kept connections (TCP keepalive), so such a one is found closed first."""
    assert client_for(standin.base_url).auth_test()["ok"]
    idle = [c for c in keepalive._pool.connection_from_url(standin.base_url).pool.queue if c and c.sock]
    assert idle
    for conn in idle:
        assert conn.sock.getsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE)
        if hasattr(socket, "TCP_KEEPIDLE"):
            idle_for = conn.sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPIDLE)
            assert idle_for == keepalive.IDLE_PROBE_SECONDS


def test_each_call_is_counted_by_method_and_outcome(standin):
    from prometheus_client import REGISTRY

    def count(method: str, outcome: str) -> float:
        return REGISTRY.get_sample_value("paperbot_slack_api_calls_total",
                                         {"method": method, "outcome": outcome}) or 0.0

    client = client_for(standin.base_url)
    before = {o: count("auth.test", o) for o in ("ok", "refused", "outage", "rate_limited")}
    client.auth_test()
    standin.fail("auth.test", status=503, times=1)  # retried: one outage, then ok
    client.auth_test()
    standin.revoke(client.token)
    with pytest.raises(SlackApiError):  # ok:false
        client.auth_test()
    moved = {o: count("auth.test", o) - before[o] for o in before}
    assert moved == {"ok": 2, "refused": 1, "outage": 1, "rate_limited": 0}


def test_replies_to_a_response_url_reuse_one_connection_and_answer_as_slack_sdks_do(standin):
    # Bolt's respond opens a connection a reply; the bot's sends each over the kept-alive pool.
    from slack_bolt.context.respond import Respond

    context = _Context(respond=Respond(response_url=standin.response_url("kept")))
    keepalive.kept_alive(context, lambda: None)
    respond = context["respond"]
    assert isinstance(respond, keepalive.KeepAliveRespond)
    before = standin.connections
    for i in range(10):
        assert respond(text=f"Following topic {i}", response_type="ephemeral").status_code == 200
    assert standin.connections - before <= 1
    texts = [c.params["text"] for c in standin.responses("kept")]
    assert texts == [f"Following topic {i}" for i in range(10)]
    assert standin.responses("kept")[0].params["response_type"] == "ephemeral"
    standin.fail(RESPONSE_URL, status=500)
    assert respond({"text": "again", "replace_original": False}).status_code == 500  # an answer, not a raise


class _Context(dict):
    """As much of Bolt's context as the middleware reads."""

    client = None
