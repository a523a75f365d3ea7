"""`/papers conference VENUE` and `/papers channel conference VENUE`: parsed (a venue is required),
answered with the plan (Going/Skip buttons), an unknown venue in one line naming held ones; the channel's
papers posted each with a thread, counting its opted-in members only."""

from __future__ import annotations

import contextlib

import pytest

from bot.errors import BadArgument, UnknownVenue
from bot.slack.subcommands.channel import ACTIONS
from bot.slack.subcommands.conference_commands import (
    parse_conference,
    reply_channel_conference,
    reply_conference,
)
from bot.slack.subcommands.personal import REGISTRY, help_text
from bot.slack.views.conference_plans import GOING_ACTION, THREAD_OPENER
from bot.slack.views.refusals import say
from bot.usecases.interests import follow
from bot.usecases.settings import set_suggest
from bot.usecases.social import set_social_counts


def test_the_venue_is_parsed_and_required():
    assert parse_conference("  ICML   2025 ").arg == "ICML 2025"
    assert REGISTRY.parse("conference icml 2025").args.arg == "icml 2025"
    assert ACTIONS.find("conference NeurIPS")[1] == "NeurIPS"
    with pytest.raises(BadArgument, match="conference ICML 2025"):
        parse_conference("   ")
    assert "conference ICML 2025" in help_text("conference") and "channel conference" in help_text("plans")


def test_the_answer_is_the_plan_with_going_and_skip(ctx):
    follow(ctx, "U1", "feline cats whiskers")
    reply = reply_conference(ctx, "U1", parse_conference("testconf"))
    assert reply["text"].startswith("Your plan for testconf:") and GOING_ACTION in str(reply["blocks"])
    with pytest.raises(UnknownVenue) as caught:
        reply_conference(ctx, "U1", parse_conference("NeurIPS 2031"))
    assert say(caught.value) == "I hold no papers of “NeurIPS 2031”; I hold papers of TestConf"


class Client:
    """What the channel's answer calls of Slack's Web API, recorded."""

    def __init__(self, members):
        self.members, self.posts = members, []

    def conversations_members(self, channel, limit, cursor=None):
        return {"ok": True, "members": self.members, "response_metadata": {"next_cursor": ""}}

    def chat_postMessage(self, channel, **message):
        self.posts.append((channel, message))
        return {"ok": True, "ts": f"1700000000.{len(self.posts):06d}"}


class Locks:
    def hold(self, key):
        return contextlib.nullcontext()


class Rt:
    def __init__(self, ctx):
        self.ctx, self.locks = ctx, Locks()


def test_the_channel_gets_each_wanted_paper_with_a_thread_and_how_many(ctx):
    for user in ("U1", "U2"):
        follow(ctx, user, "feline cats whiskers")
        set_suggest(ctx, user, True)
    set_social_counts(ctx, False)
    client = Client(["U1", "U2", "U3"])
    reply = reply_channel_conference(Rt(ctx), client, "C1", "TestConf")
    papers = [m for _, m in client.posts if "blocks" in m]
    threads = [m for _, m in client.posts if m.get("thread_ts")]
    assert reply["text"] == f"Posted {len(papers)} papers here, each with a thread to coordinate."
    assert papers and len(threads) == len(papers) and threads[0]["text"] == THREAD_OPENER
    said = [str(m["blocks"]) for m in papers]
    assert all("2 people here would want this" in s and "<@" not in s for s in said)
    lonely = Client(["U1"])
    assert "Fewer than two people" in reply_channel_conference(Rt(ctx), lonely, "C1", "TestConf")["text"]
    assert lonely.posts == []
