"""Log lines that stay one line each: control characters in a message are written escaped.

Messages carry people's own text (a subcommand they typed, a topic). Written raw, a newline in it
would forge a log line of its own, an ANSI escape would rewrite the terminal, a bidi control would
reorder what is read. Tracebacks are left as they are in text (they are ours, and many lines by nature).

With PAPERBOT_LOG_FORMAT=json each line is one JSON object (:class:`JsonFormatter`): time, level,
logger, message, the request being handled where there is one (:func:`handling`: its key, workspace and
user), and an exception as one ``error`` field. Slack tokens in a message are masked in either format.
"""

from __future__ import annotations

import contextlib
import contextvars
import json
import logging
import re
import sys
from collections.abc import Iterator
from datetime import UTC, datetime

from storage.errors import StorageError

FORMAT = "%(levelname)s %(message)s"

# C0 and C1 controls, DEL, the line and paragraph separators, and the bidi controls.
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


# Slack's tokens (bot, user, app-level, refresh, config): never worth a log line's reader having.
_TOKEN = re.compile(r"\b(xox[a-z]|xapp)-[A-Za-z0-9-]+")
#: The fields of the request being handled (:func:`handling`), added to each JSON line logged meanwhile.
REQUEST_FIELDS = ("request", "workspace", "user")
_request: contextvars.ContextVar[dict[str, str] | None] = contextvars.ContextVar("paperbot_request",
                                                                                  default=None)


def masked(text: str) -> str:
    """``text`` with any Slack token cut to its kind (``xoxb-…``)."""
    return _TOKEN.sub(lambda m: f"{m.group(1)}-…", text)


@contextlib.contextmanager
def handling(request: str | None = None, workspace: str | None = None,
             user: str | None = None) -> Iterator[None]:
    """Within the block, JSON log lines of this thread name the request (its key), the workspace and the
    user (those given)."""
    fields = {k: v for k, v in zip(REQUEST_FIELDS, (request, workspace, user), strict=True) if v}
    token = _request.set(fields)
    try:
        yield
    finally:
        _request.reset(token)


def escape_controls(text: str) -> str:
    """``text`` with each unsafe character as a visible escape (``\\n``, ``\\x1b``, ``\\u202e``)."""
    return _UNSAFE.sub(_escaped, text)


def strip_controls(text: str) -> str:
    """``text`` without the characters :func:`escape_controls` escapes, but for newlines and tabs: for a
    terminal, where an escape sequence in a paper's title would rewrite the screen or plant a link."""
    return _UNSAFE.sub(_kept_or_dropped, text)


def _kept_or_dropped(match: re.Match) -> str:
    return match.group() if match.group() in "\n\t" else ""


def _escaped(match: re.Match) -> str:
    char = match.group()
    return {"\n": "\\n", "\r": "\\r", "\t": "\\t"}.get(char) or (
        f"\\x{ord(char):02x}" if ord(char) < 0x100 else f"\\u{ord(char):04x}")


class NoSuggestions(logging.Filter):
    """Bolt follows some warnings ("Unhandled request …") with a code sample of a listener to write:
    keep the first line, the warning itself."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if "\n---\n[Suggestion]" in message:
            record.msg, record.args = message.split("\n---\n", 1)[0], None
        return True


class EscapingFormatter(logging.Formatter):
    """A Formatter whose formatted message (not the traceback after it) has control characters escaped,
    and where the error logged is the database's (a :class:`~storage.StorageError`: down, busy, full),
    one line that says it instead of a traceback: it is the admin's to act on, never a bug of ours."""

    def formatMessage(self, record: logging.LogRecord) -> str:
        return escape_controls(masked(super().formatMessage(record)))

    def formatException(self, ei) -> str:
        return masked(super().formatException(ei))

    def format(self, record: logging.LogRecord) -> str:
        error = record.exc_info[1] if record.exc_info else None
        if isinstance(error, StorageError):
            record = logging.makeLogRecord({**record.__dict__, "exc_info": None, "exc_text": None,
                                            "msg": f"{record.getMessage()}: {error}", "args": None})
        # Masked once more as a whole: a traceback another handler formatted first is cached on the
        # record (``exc_text``), and logging then reuses it without asking formatException.
        return masked(super().format(record))


class JsonFormatter(logging.Formatter):
    """One JSON object a line: ``time`` (ISO 8601 UTC), ``level``, ``logger``, ``message`` (control
    characters escaped, tokens masked), the request fields (:func:`handling`, or ``extra=``) where known,
    and an exception as ``error``: its type, message and where it was raised, never a traceback."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, object] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname, "logger": record.name,
            "message": escape_controls(masked(record.getMessage())),
        }
        line.update(_request.get() or {})
        line.update({k: str(getattr(record, k)) for k in REQUEST_FIELDS if getattr(record, k, None)})
        error = record.exc_info[1] if record.exc_info else None
        if error is not None:
            line["error"] = _error(error)
        return json.dumps(line, ensure_ascii=False)


def _error(error: BaseException) -> dict[str, str]:
    found = {"type": type(error).__name__, "message": escape_controls(masked(str(error)))}
    frame = error.__traceback__
    while frame is not None and frame.tb_next is not None:
        frame = frame.tb_next
    if frame is not None:
        found["at"] = f"{frame.tb_frame.f_code.co_filename.rsplit('/', 1)[-1]}:{frame.tb_lineno}"
    return found


def current_format() -> str:
    """"json" when this process logs JSON lines (:func:`configure`), else "text"."""
    handlers = logging.getLogger().handlers
    return "json" if any(isinstance(h.formatter, JsonFormatter) for h in handlers) else "text"


def configure(level: int, stream=None, fmt: str = "text") -> None:
    """Log at ``level`` like ``logging.basicConfig`` (which does nothing when logging is set up already):
    ``fmt`` "text" through an :class:`EscapingFormatter` to ``stream`` (stderr), "json" through a
    :class:`JsonFormatter` to ``stream`` (stdout)."""
    json_lines = fmt == "json"
    handler = logging.StreamHandler(stream or (sys.stdout if json_lines else sys.stderr))
    handler.setFormatter(JsonFormatter() if json_lines else EscapingFormatter(FORMAT))
    logging.basicConfig(level=level, handlers=[handler])
    # psycopg's pool warns at each attempt to reconnect while the server is away (a line a second, each
    # quoting libpq's three-line message); paperbot's own lines say the database is away, once a request.
    logging.getLogger("psycopg.pool").setLevel(max(level, logging.ERROR))
