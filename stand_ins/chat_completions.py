"""A stand-in for an OpenAI-compatible chat-completions API (Ollama's, vLLM's, llama.cpp's, a hosted one) on
localhost, answering in its real format (:data:`FORMAT`, recorded in ``chat_completions_format.json`` with
where it comes from) with scripted replies: a summary (faithful, or with an invented number or name), an
empty one, one cut off at its token limit, a slow answer, HTTP 500, 429 with a Retry-After, garbage.

    with ChatCompletionsStandIn(model="llama3.1:8b") as llm:
        llm.script("Sparse Experts", Reply.busy(retry_after=1), Reply.says("V-MoE scales ViTs to 15B."))
        client = SummaryClient(llm.url, "llama3.1:8b")
        ...
        assert len(llm.asked) == 2

A paper's replies are chosen by a phrase of its title (:meth:`script`): each request for it takes the next,
and the last one stays; a paper no script names gets :attr:`ChatCompletionsStandIn.default`.
"""

from __future__ import annotations

import copy
import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from stand_ins.serving import Serving

#: The real answers' shapes: a chat completion, the list of models, an error.
FORMAT = json.loads((Path(__file__).with_name("chat_completions_format.json")).read_text(encoding="utf-8"))


@dataclass(frozen=True)
class Reply:
    """One scripted answer: an HTTP ``status``; for a 200, ``content`` and ``finish_reason`` in a chat
    completion (or ``raw`` bytes, garbage); ``delay`` seconds before answering (a slow model); a
    ``retry_after`` header."""

    status: int = 200
    content: str | None = ""
    finish_reason: str = "stop"
    raw: bytes | None = None
    delay: float = 0.0
    retry_after: str | None = None

    @classmethod
    def says(cls, content: str, finish_reason: str = "stop") -> Reply:
        return cls(content=content, finish_reason=finish_reason)

    @classmethod
    def empty(cls) -> Reply:
        return cls(content="")

    @classmethod
    def slow(cls, seconds: float, content: str = "A summary too late to matter.") -> Reply:
        return cls(content=content, delay=seconds)

    @classmethod
    def failing(cls, status: int = 500) -> Reply:
        return cls(status=status)

    @classmethod
    def busy(cls, retry_after: str | None = "1") -> Reply:
        return cls(status=429, retry_after=retry_after)

    @classmethod
    def garbage(cls) -> Reply:
        return cls(raw=b"<html><body>502 Bad Gateway, or so</body></html>")


@dataclass
class ChatCompletionsStandIn:
    """``POST /v1/chat/completions`` and ``GET /v1/models`` for ``model`` (see the module). ``key``: the
    bearer key it wants (None: any or none)."""

    model: str = "llama3.1:8b"
    key: str | None = None
    default: Reply = field(default_factory=lambda: Reply.says("A summary."))
    #: Each chat request's JSON body, in order.
    asked: list[dict] = field(default_factory=list)
    #: Each request's Authorization header (None when absent).
    authorizations: list[str | None] = field(default_factory=list)
    #: Answer ``GET /v1/models`` with this status instead (e.g. 404: an endpoint without the list).
    models_status: int = 200
    #: The most chat requests it was answering at once.
    most_at_once: int = 0

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._scripts: dict[str, list[Reply]] = {}
        self._answering = 0
        self._stopping = threading.Event()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._serving = Serving(self._server, "chat-completions-standin")

    def __enter__(self) -> ChatCompletionsStandIn:
        self._serving.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stopping.set()  # a slow reply's wait ends now
        self._serving.stop()

    @property
    def url(self) -> str:
        """The API's base, as PAPERBOT_LLM_URL takes it."""
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def script(self, phrase: str, *replies: Reply) -> None:
        """The replies, in order, to requests for the paper whose title holds ``phrase`` (the last stays)."""
        with self._lock:
            self._scripts[phrase] = list(replies)

    def reply_for(self, body: dict) -> Reply:
        user = next((m.get("content", "") for m in body.get("messages", []) if m.get("role") == "user"), "")
        title = str(user).split("\n", 1)[0]
        with self._lock:
            self.asked.append(body)
            for phrase, replies in self._scripts.items():
                if phrase in title:
                    return replies.pop(0) if len(replies) > 1 else replies[0]
        return self.default

    def completion(self, reply: Reply, body: dict) -> bytes:
        """A chat completion as the real API writes it, with ``reply``'s content."""
        answer = copy.deepcopy(FORMAT["chat_completion"])
        with self._lock:
            answer["id"] = f"chatcmpl-{len(self.asked)}"
        answer["model"] = body.get("model", self.model)
        answer["choices"][0]["message"]["content"] = reply.content
        answer["choices"][0]["finish_reason"] = reply.finish_reason
        answer["usage"]["completion_tokens"] = len((reply.content or "").split())
        usage = answer["usage"]
        usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
        return json.dumps(answer).encode()

    def models(self) -> bytes:
        listed = copy.deepcopy(FORMAT["models"])
        listed["data"][0]["id"] = self.model
        return json.dumps(listed).encode()


def error_body(message: str, kind: str = "api_error") -> bytes:
    """An error as the API writes it."""
    body = copy.deepcopy(FORMAT["error"])
    body["error"]["message"], body["error"]["type"] = message, kind
    return json.dumps(body).encode()


def _handler(standin: ChatCompletionsStandIn) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format, *args) -> None:  # quiet
            pass

        def _authorised(self) -> bool:
            given = self.headers.get("Authorization")
            with standin._lock:
                standin.authorizations.append(given)
            if standin.key is not None and given != f"Bearer {standin.key}":
                self._send(401, error_body("invalid api key", "invalid_request_error"))
                return False
            return True

        def do_GET(self) -> None:
            if not self._authorised():
                return
            if self.path.rstrip("/") != "/v1/models":
                self._send(404, error_body("404 page not found", "not_found_error"))
            elif standin.models_status != 200:
                self._send(standin.models_status, error_body("no such route", "not_found_error"))
            else:
                self._send(200, standin.models())

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length)
            if not self._authorised():
                return
            if self.path.rstrip("/") != "/v1/chat/completions":
                self._send(404, error_body("404 page not found", "not_found_error"))
                return
            try:
                body = json.loads(raw)
            except ValueError:
                self._send(400, error_body("invalid JSON", "invalid_request_error"))
                return
            if body.get("model") != standin.model:
                self._send(404, error_body(f"model {body.get('model')!r} not found, try pulling it first"))
                return
            reply = standin.reply_for(body)
            with standin._lock:
                standin._answering += 1
                standin.most_at_once = max(standin.most_at_once, standin._answering)
            try:
                self._answer(reply, body)
            finally:
                with standin._lock:
                    standin._answering -= 1

        def _answer(self, reply: Reply, body: dict) -> None:
            if reply.delay and standin._stopping.wait(reply.delay):
                return  # stopped meanwhile
            headers = {"Retry-After": reply.retry_after} if reply.retry_after else {}
            if reply.status != 200:
                self._send(reply.status, error_body(f"scripted HTTP {reply.status}"), headers)
            elif reply.raw is not None:
                self._send(200, reply.raw, headers, "text/html")
            else:
                self._send(200, standin.completion(reply, body), headers)

        def _send(self, status: int, body: bytes, headers: dict[str, str] | None = None,
                  kind: str = "application/json") -> None:
            try:
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(body)
            except OSError:
                pass  # the client gave up (its timeout): nothing to tell it

    return Handler
