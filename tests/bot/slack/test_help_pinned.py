"""What people read as help is pinned byte for byte (``golden/``: the short help of issue 23, each topic's
details taken from the registry): refactoring how subcommands are declared must not change it."""

import json
from pathlib import Path

import pytest

from bot.slack.listeners.dm_commands import dm_reply
from tests.bot.slack.conftest import command_request

GOLDEN = Path(__file__).parent / "golden"


def golden(name: str) -> str:
    return (GOLDEN / name).read_text(encoding="utf-8")


@pytest.mark.parametrize("text", ["", "help", "HELP", "help  "])
def test_slash_help_is_the_same_text_byte_for_byte(slack_bot, text):
    response = slack_bot.app.dispatch(command_request(text))
    body = json.loads(response.body)
    assert body["text"] == golden("help.txt")
    assert body["response_type"] == "ephemeral"


@pytest.mark.parametrize("text", ["help", "/papers help", "papers", "HELP"])
def test_dm_help_is_the_same_text_byte_for_byte(text):
    assert dm_reply(None, None, "U1", text) == {"text": golden("help.txt")}


def test_what_the_dm_does_not_understand_gets_the_same_text_byte_for_byte():
    assert dm_reply(None, None, "U1", "what can you do?") == {"text": golden("dm_not_understood.txt")}
