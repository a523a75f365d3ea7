"""PAPERBOT_LOG_FORMAT=json: one JSON object a line, with the request being handled, an error as one
field, control characters escaped and Slack tokens masked (in text lines too)."""

from __future__ import annotations

import io
import json
import logging
import sys
from datetime import datetime

from bot.logs import FORMAT, EscapingFormatter, JsonFormatter, handling, masked
from storage import StoreUnavailable

TOKEN = "xoxb-1234-5678-abcdefSECRET"


def lines_of(log, formatter: logging.Formatter = None) -> list[str]:
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(formatter or JsonFormatter())
    logger = logging.getLogger(f"tests.json.{id(stream)}")
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    logger.propagate = False
    try:
        log(logger)
    finally:
        logger.removeHandler(handler)
    return stream.getvalue().splitlines()


def test_a_line_is_one_object_with_time_level_logger_and_message():
    [line] = lines_of(lambda log: log.warning("topic %r\nERROR forged \u202e", "cats"))
    record = json.loads(line)
    assert record["level"] == "WARNING" and record["logger"].startswith("tests.json.")
    assert record["message"] == "topic 'cats'\\nERROR forged \\u202e"
    assert datetime.fromisoformat(record["time"]).utcoffset().total_seconds() == 0
    assert "request" not in record and "error" not in record


def test_the_request_being_handled_is_named_and_extra_fields_too():
    def log(logger):
        with handling("trigger:t1", "T1", "U1"):
            logger.info("carrying out")
        logger.info("answered", extra={"request": "event:E2", "workspace": "T2", "user": "U2"})
        logger.info("outside")

    inside, extra, outside = map(json.loads, lines_of(log))
    assert (inside["request"], inside["workspace"], inside["user"]) == ("trigger:t1", "T1", "U1")
    assert (extra["request"], extra["workspace"], extra["user"]) == ("event:E2", "T2", "U2")
    assert not {"request", "workspace", "user"} & outside.keys()


def test_an_exception_is_one_error_field_never_a_traceback():
    def log(logger):
        try:
            raise ValueError("bad\nthing")
        except ValueError:
            logger.exception("a Slack listener failed")
        try:
            raise StoreUnavailable("can't open the database x.db")
        except StoreUnavailable:
            logger.exception("sweeping the inbox failed")

    lines = lines_of(log)
    assert len(lines) == 2
    first, second = map(json.loads, lines)
    assert first["error"]["type"] == "ValueError" and first["error"]["message"] == "bad\\nthing"
    assert first["error"]["at"].startswith("test_json_logs.py:")
    assert second["error"]["type"] == "StoreUnavailable"
    assert "Traceback" not in "".join(lines)


def test_slack_tokens_are_masked_in_json_and_in_text():
    def log(logger):
        logger.warning("token %s refused", TOKEN)
        try:
            raise RuntimeError(f"called with {TOKEN}")
        except RuntimeError:
            logger.exception("failed")

    for formatter in (JsonFormatter(), EscapingFormatter(FORMAT)):
        text = "\n".join(lines_of(log, formatter))
        assert "SECRET" not in text and "xoxb-…" in text
    assert masked("xapp-1-A0-123-abc and xoxp-9-9") == "xapp-… and xoxp-…"


def test_a_traceback_another_handler_formatted_first_is_masked_too():
    try:
        raise RuntimeError(f"called with {TOKEN}")
    except RuntimeError:
        record = logging.getLogger("tests.json").makeRecord("tests.json", logging.ERROR, __file__, 1,
                                                            "failed", None, sys.exc_info())
    assert TOKEN in logging.Formatter().format(record) and record.exc_text  # cached on the record now
    assert "SECRET" not in EscapingFormatter(FORMAT).format(record)
