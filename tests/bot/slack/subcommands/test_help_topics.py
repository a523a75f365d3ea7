"""`/papers help` is short; `/papers help TOPIC` gives one group's details, from the registry's lines."""

import json

import pytest

from bot.slack.listeners.dm_commands import dm_reply
from bot.slack.subcommands.channel import HELP_LINES
from bot.slack.subcommands.personal import HELP, HELP_TOPICS, REGISTRY, SHORT_HELP_MOST, help_text
from tests.bot.slack.conftest import command_request


def test_the_short_help_is_one_line_a_group_and_names_every_topic():
    assert len(HELP) < SHORT_HELP_MOST
    assert len(HELP.splitlines()) == len([t for t in HELP_TOPICS if t.summary]) + 2
    assert [t.name for t in HELP_TOPICS if not t.summary] == ["followups", "watch", "signals", "conference"]
    for topic in HELP_TOPICS:
        assert topic.name in HELP.splitlines()[-1]


@pytest.mark.parametrize(("word", "topic"), [
    ("digest", "digest"), ("DIGEST", "digest"), ("unfollow", "follow"), ("feed", "feeds"),
    ("unmute", "mute"), ("search", "recommend"), ("export", "saved"), ("trending", "channel"),
    ("reactions", "buttons"),
])
def test_a_topic_is_named_by_itself_an_alias_or_one_of_its_subcommands(word, topic):
    assert help_text(word).startswith(f"*/papers help {topic}*")


def test_each_topic_shows_its_subcommands_lines_as_the_registry_declares_them():
    assert REGISTRY.subcommands["digest"].help in help_text("digest")
    assert REGISTRY.subcommands["unfollow"].help in help_text("follow")
    assert HELP_LINES in help_text("channel")
    assert "Save paper" in help_text("buttons")
    assert REGISTRY.subcommands["digest"].help not in help_text("follow")


def test_an_unknown_topic_says_which_topics_there_are():
    text = help_text("<!channel> bogus")
    assert "<!channel>" not in text and "&lt;!channel&gt; bogus" in text
    for topic in HELP_TOPICS:
        assert topic.name in text


def test_help_topic_is_answered_in_the_ack_and_in_the_dm(slack_bot):
    body = json.loads(slack_bot.app.dispatch(command_request("help digest")).body)
    assert body["text"] == help_text("digest") and body["response_type"] == "ephemeral"
    assert dm_reply(None, None, "U1", "help mute") == {"text": help_text("mute")}
