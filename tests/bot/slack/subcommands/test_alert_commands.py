"""`/papers alert …` and `alerts` (bot/slack/subcommands/alert_commands.py): parsed without the database, a
wrong argument answered with what was wrong; the replies echo every phrase escaped."""

from __future__ import annotations

import pytest

from bot.errors import BadArgument
from bot.slack.subcommands.alert_commands import AlertCommand, reply_alert
from bot.slack.subcommands.personal import REGISTRY


def parsed(text: str):
    return REGISTRY.parse(text).args


def test_the_words_after_alert_are_a_phrase_to_add_or_one_to_remove():
    assert parsed("alert  Graph   Transformers ") == AlertCommand("add", "Graph Transformers")
    assert parsed("ALERT Remove  graph  transformers") == AlertCommand("remove", "graph transformers")
    assert parsed("alerts") == AlertCommand("list")
    assert parsed("alert removed words") == AlertCommand("add", "removed words")


@pytest.mark.parametrize(("text", "says"), [
    ("alert", "Say what to watch for"),
    ("alert ...", "no letters or digits"),
    ("alert " + "word " * 30, "at most 100 characters"),
    ("alert remove", "Say which alert to remove"),
    ("alert remove   ", "Say which alert to remove"),
    ("alerts graph", "takes nothing after it"),
])
def test_wrong_arguments_say_what_was_wrong(text, says):
    with pytest.raises(BadArgument, match=says):
        REGISTRY.parse(text)


def test_replies_echo_the_phrase_escaped(ctx):
    hostile = "<!channel> & *bold*"
    added = reply_alert(ctx, "U1", parsed(f"alert {hostile}"))["text"]
    assert "<!channel>" not in added and "&lt;!channel&gt; &amp;" in added
    listed = reply_alert(ctx, "U1", parsed("alerts"))["text"]
    assert "(1 of 20)" in listed and "&lt;!channel&gt;" in listed and "<!channel>" not in listed
    missing = reply_alert(ctx, "U1", parsed("alert remove <@U9>"))["text"]
    assert "You have no alert “&lt;@U9&gt;”" in missing
    assert "Removed the alert" in reply_alert(ctx, "U1", parsed(f"alert remove {hostile}"))["text"]
