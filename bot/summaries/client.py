"""The client of an OpenAI-compatible chat-completions endpoint (PAPERBOT_LLM_URL: Ollama, vLLM, llama.cpp's
server, a hosted one) that asks a model for one paper's summary from its title and abstract only.

It never raises into its caller: every way an answer can fail (no connection, a timeout, an HTTP error, a
body that is no chat completion) is an :class:`Answer` without text, saying why. A busy or failing answer
(429, 500, 502, 503, 504) and a garbled 200 are tried again, after the wait a Retry-After asks
(:func:`bot.sources.http.retry_after`, the one reading of it) or a doubling back-off, never past the caller's
deadline; a timeout or a refused connection is not (a model that slow, or away, would cost each try as
much again: the caller asks again on a later run). At most :attr:`SummaryClient.concurrency` requests are in
flight in the process at once, whoever asks. Failures are logged at most once a minute
(:class:`FailureAlarm`), with how many there were; the key is never logged.
"""

from __future__ import annotations

import http.client
import json
import logging
import re
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from urllib.parse import urlsplit, urlunsplit

from bot.sources.http import USER_AGENT, reason, retry_after

log = logging.getLogger(__name__)

#: Seconds one request may take (each socket operation: connecting, and each wait for bytes).
TIMEOUT = 30.0
#: Requests in flight at once in one process.
CONCURRENCY = 2
#: Tries after the first that a busy, failing or garbled answer allows.
RETRIES = 2
#: The first back-off without a Retry-After, in seconds; twice as long each time.
BACKOFF = 2.0
#: The longest Retry-After obeyed; asked for more, the call gives up (the caller asks again later).
LONGEST_WAIT = 60.0
#: Answers tried again.
RETRIED = frozenset({429, 500, 502, 503, 504})
#: Tokens the model may write: 280 characters are about 70 tokens; the rest leaves room for a model that
#: says a little more (the check refuses it) rather than one cut off mid-word.
MAX_TOKENS = 200
#: How much of an abstract is sent at most: a longer one (rare) is not summarised at all, since a summary
#: of part of it would claim to be of the whole (the caller leaves such papers out: :func:`fits`).
MOST_ABSTRACT = 6000
#: The fewest words an abstract must have to be worth a summary of its own.
FEWEST_WORDS = 25

SYSTEM = ("You summarise research papers for researchers. Using only the title and abstract you are given, "
          "write one or two plain sentences, at most 280 characters in all, saying what the paper does and "
          "what it finds. Use only names, numbers and terms that appear in the title or abstract; add "
          "nothing else. Do not copy the abstract's sentences. Answer with the summary alone: no preamble, "
          "no quotes, no Markdown.")


@dataclass(frozen=True)
class Answer:
    """What one request for a summary came to: ``text`` (the model's, tidied: :func:`tidy`) and the
    endpoint's ``finish_reason``; or no text and ``error`` saying why. ``calls``: requests made (the daily
    limit counts each); ``limited``: no request could be made because the daily limit was reached."""

    text: str | None
    finish_reason: str | None = None
    error: str | None = None
    calls: int = 0
    limited: bool = False


class EndpointError(Exception):
    """The endpoint could not be asked what it serves (:meth:`SummaryClient.models`): why, in one line."""


class FailureAlarm:
    """A warning at most once a ``interval`` seconds, with how many calls failed since the last one and the
    newest reason: an endpoint that is down fails every call, and each alone is worth no line."""

    def __init__(self, logger: logging.Logger = log, interval: float = 60.0,
                 clock: Callable[[], float] = time.monotonic):
        self._logger, self._interval, self._clock = logger, interval, clock
        self._lock = threading.Lock()
        self._count = 0
        self._last: float | None = None

    def note(self, error: str) -> bool:
        """Count a failed call; warn (True) if ``interval`` has passed since the last warning."""
        with self._lock:
            self._count += 1
            now = self._clock()
            if self._last is not None and now - self._last < self._interval:
                return False
            count, self._count, self._last = self._count, 0, now
        self._logger.warning("summaries: %d call(s) to PAPERBOT_LLM_URL failed since the last such line; "
                             "the papers show their highlights meanwhile (latest: %s)", count, error)
        return True


def fits(abstract: str | None) -> bool:
    """Whether an abstract is worth asking a summary of: at least :data:`FEWEST_WORDS` words, at most
    :data:`MOST_ABSTRACT` characters (the whole of it is sent, never a part)."""
    text = (abstract or "").strip()
    return len(text.split()) >= FEWEST_WORDS and len(text) <= MOST_ABSTRACT


_THINKING = re.compile(r"<think>.*?</think>", re.DOTALL | re.IGNORECASE)
_LABEL = re.compile(r"^(?:summary|tl;?dr|answer)\s*[:\-–]\s*", re.IGNORECASE)
# A preamble before the summary itself ("Here is a one-sentence summary:", "Sure! Here's the summary:").
_PREAMBLE = re.compile(r"^(?:sure|certainly|okay|ok)?[,.!]?\s*(?:here(?:'s|’s| is)|below is)[^:]{0,80}:\s*",
                       re.IGNORECASE)
_BULLET = re.compile(r"^(?:[-*•]|\d+[.)])\s+")
_QUOTES = {'"': '"', "“": "”", "'": "'", "‘": "’"}


def tidy(content: str) -> str:
    """A model's answer as it would be shown: a reasoning model's ``<think>`` block, a preamble ("Here is
    the summary:"), a "Summary:" label, a leading bullet, Markdown emphasis and quotes around the whole taken
    off, whitespace one space. Nothing else is
    changed: the check judges what is left."""
    text = _THINKING.sub("", content)
    text = text.replace("**", "").replace("__", "")
    text = " ".join(text.split())
    text = _BULLET.sub("", _LABEL.sub("", _PREAMBLE.sub("", text)))
    if len(text) >= 2 and _QUOTES.get(text[0]) == text[-1]:
        text = text[1:-1].strip()
    return text


def prompt(title: str, abstract: str) -> list[dict[str, str]]:
    """The chat messages asking for one paper's summary."""
    return [{"role": "system", "content": SYSTEM},
            {"role": "user", "content": f"Title: {' '.join(title.split())}\n\nAbstract: "
                                        f"{' '.join(abstract.split())}"}]


class SummaryClient:
    """Asks ``model`` at the OpenAI-compatible API whose base is ``base_url`` (``http://localhost:11434/v1``)
    for summaries; ``key``, when given, is sent as a bearer token. ``sleep``, ``clock`` (monotonic seconds,
    what deadlines are in) and ``wall`` (for a Retry-After given as a date) are injectable."""

    def __init__(self, base_url: str, model: str, key: str | None = None, *, timeout: float = TIMEOUT,
                 concurrency: int = CONCURRENCY, retries: int = RETRIES, backoff: float = BACKOFF,
                 longest_wait: float = LONGEST_WAIT, sleep: Callable[[float], None] = time.sleep,
                 clock: Callable[[], float] = time.monotonic,
                 wall: Callable[[], datetime] = lambda: datetime.now(UTC),
                 alarm: FailureAlarm | None = None) -> None:
        self.base_url = base_url.rstrip("/")
        self.model = model
        self._key = key
        self.timeout = timeout
        self.concurrency = max(1, concurrency)
        self.retries = retries
        self.backoff = backoff
        self.longest_wait = longest_wait
        self.sleep, self.clock, self.wall = sleep, clock, wall
        self.alarm = alarm if alarm is not None else FailureAlarm()
        self._slots = threading.BoundedSemaphore(self.concurrency)

    def __repr__(self) -> str:  # the key stays out of every log line and traceback
        return f"SummaryClient({self.base_url!r}, {self.model!r})"

    # -- summaries ---------------------------------------------------------------------------------

    def summarize(self, title: str, abstract: str, allow: Callable[[], bool] = lambda: True,
                  deadline: float | None = None) -> Answer:
        """The model's summary of the paper of ``title`` and ``abstract``. ``allow()`` is asked before each
        request (the daily limit: False, and no request is made); ``deadline`` (:attr:`clock` seconds) is
        when no wait may end after. Never raises."""
        try:
            return self._summarize(title, abstract, allow, deadline)
        except Exception as exc:  # a summary is never worth a digest: whatever went wrong is an answer
            error = f"unexpected {type(exc).__name__}: {reason(exc)}"
            self.alarm.note(error)
            return Answer(None, error=error)

    def _summarize(self, title: str, abstract: str, allow: Callable[[], bool],
                   deadline: float | None) -> Answer:
        body = {"model": self.model, "messages": prompt(title, abstract), "temperature": 0.2,
                "max_tokens": MAX_TOKENS, "stream": False}
        calls = 0
        error = "no request made"
        for attempt in range(self.retries + 1):
            if not allow():
                return Answer(None, error="the daily limit (PAPERBOT_LLM_DAILY_LIMIT) is reached",
                              calls=calls, limited=calls == 0)
            calls += 1
            status, headers, payload, error = self._post("/chat/completions", body)
            if error is None:  # a 2xx answer: a garbled one is tried again
                text, finish, error = _completion(payload)
                if error is None:
                    return Answer(text, finish, calls=calls)
            elif status not in RETRIED:
                break  # no connection, a timeout, a refusal (401, 404: no such model): not better at once
            asked = headers.get("Retry-After") if headers else None
            wait = retry_after(asked, attempt, self.wall, self.backoff)
            if attempt == self.retries or wait > self.longest_wait or (
                    deadline is not None and self.clock() + wait > deadline):
                break
            self.sleep(wait)
        self.alarm.note(error)
        return Answer(None, error=error, calls=calls)

    # -- what the endpoint serves (paperbot doctor) ---------------------------------------------------

    def models(self) -> list[str]:
        """The ids of the models the endpoint lists (``GET {base}/models``); EndpointError (one line) when
        it can't be asked or answers something else."""
        status, _headers, payload, error = self._request("GET", "/models", None)
        if error is not None:
            raise EndpointError(error)
        try:
            data = json.loads(payload)["data"]
            return [str(item["id"]) for item in data]
        except (ValueError, KeyError, TypeError) as exc:
            where = _without_credentials(self.base_url)
            raise EndpointError(f"{where}/models answered HTTP {status} with no list of models") from exc

    def tiny_completion(self) -> str | None:
        """Ask the model for a word (``paperbot doctor``, where the endpoint lists no models): None when it
        answered as a chat completion, else why not."""
        body = {"model": self.model, "messages": [{"role": "user", "content": "Say OK."}], "max_tokens": 5,
                "stream": False}
        _status, _headers, payload, error = self._post("/chat/completions", body)
        if error is not None:
            return error
        return _completion(payload, empty_ok=True)[2]

    # -- HTTP ----------------------------------------------------------------------------------------

    def _post(self, path: str, body: dict) -> tuple[int | None, dict[str, str], bytes, str | None]:
        with self._slots:
            return self._request("POST", path, json.dumps(body).encode())

    def _request(self, method: str, path: str, data: bytes | None
                 ) -> tuple[int | None, dict[str, str], bytes, str | None]:
        """(status, headers, body, error): error None for a 2xx answer, else why there is none."""
        url = self.base_url + path
        shown = _without_credentials(url)
        headers = {"User-Agent": USER_AGENT, "Accept": "application/json"}
        if data is not None:
            headers["Content-Type"] = "application/json"
        if self._key:
            headers["Authorization"] = f"Bearer {self._key}"
        # The scheme was checked when the setting was read (bot.config): only http(s) is ever opened.
        request = urllib.request.Request(url, data=data, headers=headers, method=method)  # noqa: S310
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:  # noqa: S310
                return response.status, dict(response.headers), response.read(), None
        except urllib.error.HTTPError as e:
            with e:
                body = _read_quietly(e)
                said = _error_message(body)
                return e.code, dict(e.headers or {}), body, (
                    f"{shown} answered HTTP {e.code}" + (f": {said}" if said else ""))
        except TimeoutError:
            return None, {}, b"", f"{shown} did not answer within {self.timeout:g} s"
        except urllib.error.URLError as e:
            if isinstance(e.reason, TimeoutError):
                return None, {}, b"", f"{shown} did not answer within {self.timeout:g} s"
            return None, {}, b"", f"{shown} can't be reached: {reason(e.reason)}"
        except (OSError, http.client.HTTPException, ValueError) as e:
            return None, {}, b"", f"{shown} can't be reached: {reason(e)}"


def _without_credentials(url: str) -> str:
    """``url`` as a log line may show it: a user and password in it (``http://user:pw@host/v1``) left out."""
    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url
    return urlunsplit(parts._replace(netloc=parts.netloc.rsplit("@", 1)[1]))


def _read_quietly(error: urllib.error.HTTPError) -> bytes:
    try:
        return error.read(2000)
    except (OSError, http.client.HTTPException):
        return b""


def _error_message(body: bytes) -> str:
    """The message of an OpenAI-style error body (``{"error": {"message": …}}``), briefly; "" for another."""
    try:
        error = json.loads(body).get("error")
    except (ValueError, AttributeError):
        return ""
    said = error.get("message") if isinstance(error, dict) else error if isinstance(error, str) else ""
    return " ".join(str(said or "").split())[:200]


def _completion(payload: bytes, empty_ok: bool = False) -> tuple[str, str | None, str | None]:
    """(text, finish_reason, error) of a chat completion's body: its first choice's message, tidied."""
    try:
        answer = json.loads(payload)
        choice = answer["choices"][0]
        content = choice["message"]["content"]
    except (ValueError, KeyError, IndexError, TypeError):
        return "", None, "the endpoint's answer is no chat completion (no choices[0].message.content)"
    if content is None and empty_ok:
        content = ""
    if not isinstance(content, str):
        return "", None, "the endpoint's answer is no chat completion (its content is no text)"
    finish = choice.get("finish_reason") if isinstance(choice, dict) else None
    return tidy(content), finish if isinstance(finish, str) else None, None


@dataclass(frozen=True)
class Summarizer:
    """What asking for summaries takes: the endpoint's client, the calls allowed a UTC day, and what
    counts the outcomes of each run (an edge's: :func:`bot.metrics.summaries`), if anything."""

    client: SummaryClient
    daily_limit: int = 500
    counted: Callable[[list[tuple[str, str | None]]], None] | None = None

    @property
    def model(self) -> str:
        return self.client.model
