"""Web API calls over kept-alive connections.

slack_sdk's ``WebClient`` sends each call through ``urllib``, which opens a new connection (and, to
Slack, a new TLS handshake) per call and closes it after the answer. A morning's digests make seven
calls a person, so :class:`KeepAliveWebClient` sends them through one ``urllib3`` pool shared by the
process, reusing connections (urllib3 checks that an idle one is still open before reusing it, and the
kernel probes idle ones, so that one dropped silently on the way is found closed too). What
the client's retry handlers and callers see stays urllib's: the same dict for an answer, the same
``HTTPError`` for a non-2xx status, ``URLError`` when nothing can have reached Slack and the
connection's own error when it broke after the request went out (a post that may have landed).

A client with a proxy or its own SSL context, and a call that urllib would send through a proxy from
the environment (``HTTPS_PROXY``), goes the SDK's own way.
"""

from __future__ import annotations

import functools
import http.client
import io
import os
import re
import socket
import ssl
import urllib.request
from typing import Any
from urllib.error import HTTPError, URLError
from urllib.parse import urlsplit

import urllib3
from slack_bolt.context.respond import Respond
from slack_bolt.context.respond.internals import _build_message
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError
from slack_sdk.webhook import WebhookClient, WebhookResponse
from urllib3.connection import HTTPConnection
from urllib3.exceptions import ConnectTimeoutError, ProtocolError, ReadTimeoutError

from bot import metrics

#: Connections kept per host: the digest workers of every workspace served at once (4 × 8) and the bot's
#: threads for the work after an ack (8), with room. A call beyond them gets a connection of its own,
#: closed after it (urllib3 then logs a warning).
CONNECTIONS_PER_HOST = 48

#: What urllib's proxy choice for a Web API call depends on (its names are case-insensitive).
_PROXY_SETTINGS = tuple(spelling for name in ("http_proxy", "https_proxy", "all_proxy", "no_proxy")
                        for spelling in (name, name.upper())) + ("REQUEST_METHOD",)

#: A kept connection idle this long is probed by the kernel (TCP keepalive), so that one a NAT or a
#: firewall dropped silently is found closed before a call would wait out its timeout on it, and the
#: probes keep a live one's NAT entry from lapsing.
IDLE_PROBE_SECONDS = 30


def _socket_options() -> list[tuple[int, int, int]]:
    options = [*HTTPConnection.default_socket_options, (socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)]
    for name, value in (("TCP_KEEPIDLE", IDLE_PROBE_SECONDS), ("TCP_KEEPINTVL", 10), ("TCP_KEEPCNT", 3)):
        if hasattr(socket, name):  # Linux; elsewhere the system's own keepalive timing
            options.append((socket.IPPROTO_TCP, getattr(socket, name), value))
    return options


_pool = urllib3.PoolManager(num_pools=8, maxsize=CONNECTIONS_PER_HOST, block=False,
                            ssl_context=ssl.create_default_context(), socket_options=_socket_options())


#: A Web API method's name as it ends a call's URL (anything else, e.g. a file's upload URL, is "other").
_METHOD = re.compile(r"[a-z]+(?:\.[A-Za-z]+)+")


class KeepAliveWebClient(WebClient):
    """A ``WebClient`` whose calls reuse the process's kept-alive connections, each counted in
    :mod:`bot.metrics` (``paperbot_slack_api_calls``)."""

    def api_call(self, api_method: str, **kwargs) -> Any:
        # A call's final answer: ok, or refused; 429s and outages are counted per attempt (below).
        try:
            response = super().api_call(api_method, **kwargs)
        except SlackApiError as exc:
            status = getattr(exc.response, "status_code", 200) or 200
            if status != 429 and status < 500:
                metrics.api_call(_method_of(api_method), "refused")
            raise
        metrics.api_call(_method_of(api_method), "ok")
        return response

    def _perform_urllib_http_request_internal(self, url: str, req: urllib.request.Request) -> dict[str, Any]:
        # Once an attempt: the client's retry handlers call this again for each retry.
        try:
            return self._send(url, req)
        except HTTPError as exc:
            if exc.code == 429 or exc.code >= 500:
                metrics.api_call(_method_of(url.split("?", 1)[0].rsplit("/", 1)[-1]),
                                 "rate_limited" if exc.code == 429 else "outage")
            raise
        except (OSError, http.client.HTTPException):  # URLError, a timeout, a connection cut
            metrics.api_call(_method_of(url.split("?", 1)[0].rsplit("/", 1)[-1]), "outage")
            raise

    def _send(self, url: str, req: urllib.request.Request) -> dict[str, Any]:
        if self.proxy is not None or self.ssl is not None or _proxied(url):
            return super()._perform_urllib_http_request_internal(url, req)
        status, headers, data = _pooled(url, req, self.timeout)
        if headers.get_content_type() == "application/gzip":
            return {"status": status, "headers": headers, "body": data}
        body = data.decode(headers.get_content_charset() or "utf-8")
        return {"status": status, "headers": headers, "body": body}


class KeepAliveWebhookClient(WebhookClient):
    """A ``response_url``'s client over the process's kept-alive connections (slack_sdk's opens one per
    reply). Its answers and errors are urllib's, as for :class:`KeepAliveWebClient`."""

    def _perform_http_request_internal(self, url: str, req: urllib.request.Request) -> WebhookResponse:
        if self.proxy is not None or self.ssl is not None or _proxied(url):
            return super()._perform_http_request_internal(url, req)
        status, headers, data = _pooled(url, req, self.timeout)
        body = data.decode(headers.get_content_charset() or "utf-8")
        return WebhookResponse(url=url, status_code=status, body=body, headers=headers)  # type: ignore[arg-type]


class KeepAliveRespond(Respond):
    """Bolt's ``respond``, its replies sent through :class:`KeepAliveWebhookClient`."""

    def __call__(self, text: str | dict = "", **fields) -> WebhookResponse:  # type: ignore[override]
        if self.response_url is None:
            raise ValueError("respond is unsupported here as there is no response_url")
        message = _build_message(**text) if isinstance(text, dict) else _build_message(text=text, **fields)
        webhook = KeepAliveWebhookClient(url=self.response_url, proxy=self.proxy, ssl=self.ssl)
        return webhook.send_dict(message)  # a response_url, not a Web API method (no scope)


def _pooled(url: str, req: urllib.request.Request,
            timeout: int) -> tuple[int, http.client.HTTPMessage, bytes]:
    """``req`` sent through the kept-alive pool: its status, headers and body, raising as urllib would
    (``HTTPError`` for a status that is not 2xx, ``URLError`` when nothing was sent, the connection's own
    error when it broke after the request went out)."""
    try:
        answer = _pool.request(req.get_method(), url, body=req.data, headers=dict(req.header_items()),
                               timeout=timeout, retries=False, redirect=False)
    except ConnectTimeoutError as e:  # nothing was sent (NewConnectionError is one too)
        raise URLError(e.__cause__ if isinstance(e.__cause__, OSError) else e) from e
    except ReadTimeoutError as e:  # sent, and no answer in time: it may have been carried out
        raise TimeoutError(str(e)) from e
    except ProtocolError as e:  # the connection broke after the request went out
        cause = e.args[1] if len(e.args) > 1 else None
        if isinstance(cause, (OSError, http.client.HTTPException)):
            raise cause from e
        raise http.client.RemoteDisconnected(str(e)) from e
    except urllib3.exceptions.HTTPError as e:  # TLS, a bad URL: refused before anything was sent
        raise URLError(e) from e
    headers = http.client.HTTPMessage()
    for name, value in answer.headers.items():
        headers[name] = value
    if not 200 <= answer.status < 300:
        raise HTTPError(url, answer.status, answer.reason or "", headers, io.BytesIO(answer.data))
    return answer.status, headers, answer.data


def _method_of(name: str) -> str:
    return name if _METHOD.fullmatch(name) else "other"


def _proxied(url: str) -> bool:
    """Whether urllib would send a request for ``url`` through a proxy named in the environment."""
    parts = urlsplit(url)
    settings = tuple(os.environ.get(name) for name in _PROXY_SETTINGS)
    return _proxied_host(parts.scheme, parts.hostname or "", settings)


@functools.lru_cache(maxsize=16)
def _proxied_host(scheme: str, host: str, settings: tuple) -> bool:
    # urllib's reading of the proxy settings scans the whole environment: a tenth of a call's own work
    # when done every call. Keyed by the settings, so that a changed one is seen.
    return scheme in urllib.request.getproxies() and not urllib.request.proxy_bypass(host)


def kept_alive(context, next):  # names Bolt passes
    """A Bolt middleware: the request's client (Bolt makes a plain ``WebClient`` for each request) is
    swapped for a :class:`KeepAliveWebClient` with the same token and settings, so that a listener's
    calls (a recommendation's papers, one post each) reuse connections too; and its ``respond`` for a
    :class:`KeepAliveRespond`."""
    plain = context.client
    if type(plain) is WebClient:
        kept = KeepAliveWebClient(token=plain.token, base_url=plain.base_url, timeout=plain.timeout,
                                  ssl=plain.ssl, proxy=plain.proxy, headers=plain.headers,
                                  logger=plain.logger, retry_handlers=plain.retry_handlers)
        kept.default_params = dict(plain.default_params)  # the request's team_id, as Bolt set it
        context["client"] = kept
    plain_respond = context.get("respond")
    if type(plain_respond) is Respond:  # replies too (a follow's "Following …": one a request)
        context["respond"] = KeepAliveRespond(response_url=plain_respond.response_url,
                                              proxy=plain_respond.proxy, ssl=plain_respond.ssl)
    return next()
