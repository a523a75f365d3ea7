"""The `/papers` subcommands, each declared once in one registry, answered alike wherever typed."""

import pytest

from bot.errors import BadArgument
from bot.slack.listeners.dm_commands import dm_reply
from bot.slack.subcommands import Refused, Registry, Request, Subcommand
from bot.slack.subcommands.channel import FROM_DM
from bot.slack.subcommands.personal import HELP_TOPICS, REGISTRY, SUBCOMMANDS

#: What changed Home before the registry (commands.CHANGES_HOME), by the parsed command's name; `forget`
#: no longer does (it only asks: Home is published again once Forget me is pressed).
CHANGED_HOME = {"follow", "unfollow", "digest-at", "digest-off", "digest-weekly", "digest-daily", "feed-add",
                "feed-remove", "mute", "unmute"}


def test_the_names_are_todays():
    assert set(SUBCOMMANDS) == {"help", "follow", "unfollow", "interests", "recommend", "search", "digest",
                                "forget", "saved", "export", "feed", "mute", "unmute", "channel", "suggest",
                                "alert", "alerts", "followups", "stats", "signals", "why", "conference",
                                "watch", "watches"}


def test_every_declared_help_line_is_in_exactly_one_help_topic():
    details = [topic.details() for topic in HELP_TOPICS]
    for sub in REGISTRY.subcommands.values():
        if sub.help:
            assert sum(text.count(sub.help) for text in details) == 1, sub.name


@pytest.mark.parametrize("text", [
    "follow cats", "unfollow cats", "digest 08:00", "digest off", "digest weekly friday 16:00",
    "digest daily", "digest now", "feed add robots: grasping", "feed remove robots", "mute crypto",
    "unmute crypto", "forget", "interests", "recommend 3", "search cats", "saved", "export", "export data",
    "help",
])
def test_home_changes_after_what_changed_it_before(text):
    parsed = REGISTRY.parse(text, "C1")
    assert parsed.changes_home == (parsed.args.name in CHANGED_HOME)


def test_only_help_is_answered_in_the_ack():
    assert [name for name, sub in REGISTRY.subcommands.items() if sub.in_ack] == ["help"]


@pytest.mark.parametrize("text", ["channel follow cats", "channel", "channel bogus", "CHANNEL trending on"])
def test_channel_typed_in_the_dm_says_to_run_it_in_the_channel(text):
    # Before the registry this got "Sorry, something went wrong": the DM knew the name, not the answer.
    assert dm_reply(None, None, "U1", text, "D1") == {"text": FROM_DM}
    assert REGISTRY.parse(text, "D1") == Refused(FROM_DM)


def test_channel_in_a_channel_is_parsed_there():
    action = REGISTRY.parse("channel digest weekly friday 16:00", "C1").args  # parsed by the channel's own
    assert action.subcommand.name == "digest" and action.args.action == "digest-weekly"
    assert action.args.weekday == 4
    assert REGISTRY.parse("channel", "C1").args.args.action == "show"
    for word in ("bogus", "show"):  # nothing names the settings: `channel` alone shows them
        with pytest.raises(BadArgument, match="after `/papers channel`"):
            REGISTRY.parse(f"channel {word}", "C1")


def test_the_words_after_channel_are_cleaned_once():
    # "&amp;lt;" is what Slack sends for a typed "&lt;": decoded once, it stays "&lt;".
    assert REGISTRY.parse("channel follow a &amp;lt; b", "C1").args.args.arg == "a &lt; b"


def test_a_new_subcommand_is_one_declaration():
    echo = Subcommand("echo", "• `/papers echo WORDS`: says them back", lambda arg: arg.upper(),
                      lambda req, words: {"text": f"{req.user}: {words}"},
                      changes_home=lambda words: "HOME" in words)
    registry = Registry([*REGISTRY.subcommands.values(), echo], default="help")
    assert registry.names[-1] == "echo" and registry.help_lines().endswith("says them back")
    assert registry.answer(Request("U1", "D1"), "Echo hi there") == {"text": "U1: HI THERE"}
    assert registry.parse("echo go home", "C1").changes_home
    with pytest.raises(BadArgument, match="“ech”"):
        registry.parse("ech", "C1")
