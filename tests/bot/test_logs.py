"""Log lines stay one line each: control characters in a message are written escaped."""

from __future__ import annotations

import contextlib
import io
import logging
from collections.abc import Iterator

from bot.logs import FORMAT, EscapingFormatter, NoSuggestions, escape_controls, strip_controls
from storage import StoreUnavailable

HOSTILE = "frob\nERROR forged line\r\x1b[2J\x07\x00\x7f\x85\u2028\u2029\u202eevil\u2066x\u200f\tend"


def test_control_characters_become_visible_escapes():
    assert escape_controls(HOSTILE) == ("frob\\nERROR forged line\\r\\x1b[2J\\x07\\x00\\x7f\\x85"
                                        "\\u2028\\u2029\\u202eevil\\u2066x\\u200f\\tend")
    text = "ordinary text, ünïcödé, emoji 📚, CJK 論文 and RTL שלום stay as they are"
    assert escape_controls(text) == text


@contextlib.contextmanager
def formatted(name: str) -> Iterator[tuple[logging.Logger, io.StringIO]]:
    """A logger of its own writing through an EscapingFormatter, and what it wrote."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(EscapingFormatter(FORMAT))
    logger = logging.getLogger(name)
    logger.addHandler(handler)
    logger.propagate = False
    try:
        yield logger, stream
    finally:
        logger.removeHandler(handler)
        logger.propagate = True


def test_the_formatter_escapes_the_message_but_not_the_traceback():
    with formatted("test.logs") as (logger, stream):
        logger.warning("answered with an error: %s", HOSTILE)
        try:
            raise ValueError("boom")
        except ValueError:
            logger.exception("failed on %r", "a\nb")
    lines = stream.getvalue().splitlines()
    assert lines[0].startswith("WARNING answered with an error: frob\\nERROR forged line\\r\\x1b[2J")
    assert not any(line.startswith("ERROR forged") for line in lines)
    assert lines[1] == "ERROR failed on 'a\\nb'"
    assert lines[2] == "Traceback (most recent call last):" and lines[-1] == "ValueError: boom"
    assert all("\x1b" not in line and "\u202e" not in line for line in lines)


def test_bolts_suggestions_are_left_out(caplog):
    logger = logging.getLogger("test.bolt")
    logger.addFilter(NoSuggestions())
    with caplog.at_level(logging.WARNING, logger="test.bolt"):
        logger.warning("Unhandled request ({'type': 'block_actions', 'action_id': 'foo'})\n---\n[Suggestion] "
                       "You can handle this type of event with the following listener function:\n\n"
                       "@app.action(\"foo\")\ndef handle_some_action(ack, body, logger):\n    ack()\n")
        logger.warning("kept %s", "whole")
    assert caplog.messages == ["Unhandled request ({'type': 'block_actions', 'action_id': 'foo'})",
                               "kept whole"]


def test_text_for_a_terminal_keeps_its_lines_and_tabs_and_loses_every_other_control():
    assert strip_controls("a\tb\nc\r\x1b[2J\x9b31m\u202ed\x00\x7f\u2028") == "a\tb\nc[2J31md"


def test_the_databases_error_is_one_line_not_a_traceback():
    with formatted("test.logs.database") as (logger, stream):
        try:
            try:
                raise OSError("server closed the connection unexpectedly")
            except OSError as exc:
                raise StoreUnavailable("can't open the database db (server closed the connection)") from exc
        except StoreUnavailable:
            logger.exception("the digests of workspace %s failed; trying again at the next run", "T1")
    assert stream.getvalue() == ("ERROR the digests of workspace T1 failed; trying again at the next run: "
                                 "can't open the database db (server closed the connection)\n")
