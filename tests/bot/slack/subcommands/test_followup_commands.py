"""`/papers followups on|off` (issue 42): parsed, answered, kept, and shown by `interests` and Home."""

import json

import pytest

from bot.errors import BadArgument
from bot.slack.subcommands.follow_commands import reply_interests
from bot.slack.subcommands.followup_commands import parse_followups, reply_followups
from bot.slack.subcommands.personal import REGISTRY, help_text
from bot.slack.views.home_view import FOLLOWUPS_ACTION, home_view
from bot.usecases.home import home_data


@pytest.mark.parametrize(("text", "on"), [("on", True), ("OFF", False), (" off ", False)])
def test_on_or_off_is_parsed(text, on):
    assert parse_followups(text) == ("followups", on)


@pytest.mark.parametrize("text", ["", "maybe", "on please"])
def test_anything_else_says_how(text):
    with pytest.raises(BadArgument, match="followups on"):
        parse_followups(text)


def test_the_registry_answers_it():
    assert REGISTRY.parse("followups off").args == ("followups", False)
    assert "followups off" in help_text("followups")


def test_turning_them_off_and_on_is_kept_and_shown(ctx):
    assert "*Follow-ups:* on" in reply_interests(ctx, "U1")["text"]
    assert reply_followups(ctx, "U1", False)["text"].startswith("Follow-ups are off")
    assert ctx.store.get_person("U1").followups_off is True
    assert reply_followups(ctx, "U1", False)["text"].startswith("Follow-ups were already off")
    assert "*Follow-ups:* off" in reply_interests(ctx, "U1")["text"]
    home = json.dumps(home_view(home_data(ctx, "U1")))
    assert "*Follow-ups:* off" in home and FOLLOWUPS_ACTION in home
    assert reply_followups(ctx, "U1", True)["text"].startswith("Follow-ups are on")
    assert ctx.store.get_person("U1").followups_off is False
    assert "*Follow-ups:* on" in json.dumps(home_view(home_data(ctx, "U1")))
