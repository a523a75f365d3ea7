"""Log lines that stay one line each: control characters in a message are written escaped.

Messages carry people's own text (a subcommand they typed, a topic). Written raw, a newline in it
would forge a log line of its own, an ANSI escape would rewrite the terminal, a bidi control would
reorder what is read. Tracebacks are left as they are (they are ours, and many lines by nature).
"""

from __future__ import annotations

import logging
import re
import sys

from storage.errors import StorageError

FORMAT = "%(levelname)s %(message)s"

# C0 and C1 controls, DEL, the line and paragraph separators, and the bidi controls.
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


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
        return escape_controls(super().formatMessage(record))

    def format(self, record: logging.LogRecord) -> str:
        error = record.exc_info[1] if record.exc_info else None
        if isinstance(error, StorageError):
            record = logging.makeLogRecord({**record.__dict__, "exc_info": None, "exc_text": None,
                                            "msg": f"{record.getMessage()}: {error}", "args": None})
        return super().format(record)


def configure(level: int, stream=None) -> None:
    """Log to ``stream`` (stderr) at ``level`` through an :class:`EscapingFormatter`, like
    ``logging.basicConfig`` (which does nothing when logging is set up already)."""
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(EscapingFormatter(FORMAT))
    logging.basicConfig(level=level, handlers=[handler])
    # psycopg's pool warns at each attempt to reconnect while the server is away (a line a second, each
    # quoting libpq's three-line message); paperbot's own lines say the database is away, once a request.
    logging.getLogger("psycopg.pool").setLevel(max(level, logging.ERROR))
