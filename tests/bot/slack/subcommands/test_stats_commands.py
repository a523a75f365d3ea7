"""`/papers stats` as the registry answers it (bot/slack/subcommands/stats_commands.py): parsed without the
database, answered in the person's timezone as Slack has it."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from bot.errors import BadArgument
from bot.slack.subcommands import Command, Request
from bot.slack.subcommands.personal import REGISTRY, parse
from bot.slack.views.stats import NOTHING
from tests.fakes import FakeWebClient


def test_stats_takes_nothing_after_it():
    assert parse("stats") == Command("stats") and parse("STATS ") == Command("stats")
    with pytest.raises(BadArgument):
        parse("stats last month")


def test_stats_answers_in_the_persons_timezone_from_slack(ctx):
    client = FakeWebClient({"users.info": {"ok": True, "user": {"id": "U1", "tz": "Asia/Tokyo"}}})
    request = Request("U1", "D1", SimpleNamespace(ctx=ctx), client)
    assert REGISTRY.answer(request, "stats") == {"text": NOTHING}  # nothing yet
    ctx.store.ensure_person("U1")
    ctx.store.mark_shown("U1", "p1", "Matches your interest “cats”")
    ctx.store.set_feedback("U1", "p1", 1)
    reply = REGISTRY.answer(request, "stats")
    assert "Asia/Tokyo time" in reply["text"]
    assert "this week so far" in reply["text"] and "• topics: “cats” 1" in reply["text"]
    assert ctx.store.get_person("U1").tz == "Asia/Tokyo"  # kept, as every subcommand keeps it
    assert [method for method, _ in client.calls].count("users.info") >= 1
