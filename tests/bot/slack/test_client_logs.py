"""slack_sdk's line for each failed attempt is a detail of the failure its caller says once: an INFO
line (``-v``), never an ERROR line before paperbot's own."""

import logging

from bot.config import Settings
from bot.slack.client import SDK_LOGGER, build_client, unreachable

ATTEMPT = "Failed to send a request to Slack API server: <urlopen error [Errno 111] Connection refused>"


def test_a_failed_attempt_is_an_info_line_shown_only_with_verbose(caplog):
    with caplog.at_level(logging.WARNING):
        SDK_LOGGER.error(ATTEMPT)
        SDK_LOGGER.error("something else slack_sdk says")
    shown = [(r.levelname, r.getMessage()) for r in caplog.records]
    assert shown == [("ERROR", "something else slack_sdk says")]
    caplog.clear()
    with caplog.at_level(logging.INFO):
        SDK_LOGGER.error(ATTEMPT)
    assert [(r.levelname, r.getMessage()) for r in caplog.records] == [("INFO", ATTEMPT)]


def test_every_client_paperbot_builds_logs_there_and_says_why_in_few_words():
    assert build_client(Settings(bot_token="xoxb-1"))._logger is SDK_LOGGER
    from urllib.error import URLError

    assert unreachable(URLError(ConnectionRefusedError(111, "Connection refused"))) == "Connection refused"
