"""`/papers channel recap …`: its parsing, its replies (the time meant in the setter's timezone), and the
recap's Block Kit (counts, never who; the unclaimed with why), within Slack's limits; on both backends
where a store is needed."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest
from slack_sdk.models.blocks import Block

from bot.errors import BadArgument
from bot.slack.delivery.recap_posts import recap_poster
from bot.slack.subcommands.channel import HELP_LINES, parse_channel, reply_show
from bot.slack.subcommands.channel_recap import RecapCommand, reply_recap
from bot.slack.views.messages import HEADER_LIMIT, MESSAGE_BLOCKS, SECTION_LIMIT
from bot.slack.views.recap import NO_TOPICS, NOTHING_LIKED, NOTHING_UNCLAIMED, recap_message
from bot.usecases.channel_subjects import follow_in_channel
from bot.usecases.picking import Recommendation
from bot.usecases.recap import TOP, UNCLAIMED, Recap
from bot.usecases.trending import TrendingPaper
from storage import Paper
from tests.fakes import FakeWebClient

CHANNEL = "C0RECAP"


def _valid(message: dict) -> None:
    assert len(message["blocks"]) <= MESSAGE_BLOCKS and len(message["text"]) <= 3000
    for block in message["blocks"]:
        Block.parse(block).validate_json()
        if block["type"] == "section":
            assert len(block["text"]["text"]) <= SECTION_LIMIT
        if block["type"] == "header":
            assert len(block["text"]["text"]) <= HEADER_LIMIT


def _paper(i: int) -> Paper:
    return Paper(id=f"p{i}", abstract="a", title="<!channel> & " + "long words " * 80,
                 authors=["<@U123>"] * 20, url=f"https://example.org/{i}")


@pytest.mark.parametrize(("text", "expected"), [
    ("recap weekly", RecapCommand("weekly", 4, "16:00")),  # Friday 16:00 unless said
    ("recap WEEKLY mon", RecapCommand("weekly", 0, "16:00")),
    ("recap weekly 8:30", RecapCommand("weekly", 4, "08:30")),
    ("recap weekly 09:15 sunday", RecapCommand("weekly", 6, "09:15")),
    ("recap off", RecapCommand("off")),
])
def test_recap_commands_parse(text, expected):
    assert parse_channel(text) == expected


@pytest.mark.parametrize(("text", "says"), [
    ("recap", "Say `/papers channel recap weekly`"),
    ("recap daily", "not “daily”"),
    ("recap weekly blursday", "“blursday” is not a day of the week"),
    ("recap weekly 24:00", "“24:00” is not a time of day"),
    ("recap weekly mon tue", "one day and one time"),
    ("recap weekly mon 09:00 extra", "one day and one time"),
    ("recap off please", "not “off please”"),
])
def test_wrong_recap_commands_say_what_to_type(text, says):
    with pytest.raises(BadArgument, match=says):
        parse_channel(text)


def test_the_channel_topic_tells_the_recap():
    assert "/papers channel recap weekly" in HELP_LINES and "/papers channel recap off" in HELP_LINES


def test_a_recap_of_long_hostile_titles_is_valid_block_kit_with_counts_and_no_one_named():
    liked = [TrendingPaper(_paper(i), TOP - i, i % 3) for i in range(TOP)]
    unclaimed = [Recommendation(_paper(100 + i), 0.9, "Matches “cats” <@U999>" * 30)
                 for i in range(UNCLAIMED)]
    message = recap_message(Recap(CHANNEL, liked, unclaimed))
    _valid(message)
    blocks = json.dumps(message["blocks"], ensure_ascii=False)
    assert "<!channel>" not in message["text"] + blocks and "<@U123>" not in blocks
    assert f":+1: {TOP} likes" in blocks and "10 likes" in message["text"] and "2 likes · 2 saves" in blocks
    assert blocks.count("*Why:*") == UNCLAIMED and "Unclaimed" in message["text"]


def test_a_recap_says_what_it_has_not_got():
    bare = recap_message(Recap(CHANNEL, [], follows_topics=False))
    _valid(bare)
    assert NOTHING_LIKED in bare["text"] and NO_TOPICS in bare["text"]
    nothing_free = recap_message(Recap(CHANNEL, [TrendingPaper(_paper(1), 0, 2)]))
    assert NOTHING_UNCLAIMED in nothing_free["text"]
    assert ":bookmark: 2 saves" in json.dumps(nothing_free["blocks"])


def test_the_poster_posts_the_message_in_the_channel():
    client = FakeWebClient()
    ts = recap_poster(client)(CHANNEL, Recap(CHANNEL, [TrendingPaper(_paper(1), 3)]))
    (post,) = client.posts()
    assert ts and post["channel"] == CHANNEL and "3 likes" in post["text"]


def _client(tz: str | None, member: bool) -> FakeWebClient:
    """Slack as users.info and conversations.info answer: the caller's timezone, the bot's membership."""
    return FakeWebClient({"users.info": {"ok": True, "user": {"id": "U1", "tz": tz}},
                          "conversations.info": {"ok": True, "channel": {"id": "C1", "is_member": member}}})


def test_recap_weekly_is_meant_in_the_setters_timezone_and_off_turns_it_off(ctx):
    follow_in_channel(ctx, CHANNEL, "USETTER", None, "feline cats whiskers")
    client = _client("Asia/Tokyo", member=True)
    now = datetime(2026, 12, 7, 12, 0, tzinfo=UTC)  # Monday, 21:00 in Tokyo
    reply = reply_recap(ctx, client, "USETTER", CHANNEL, parse_channel("recap weekly tuesday 08:00"), now)
    assert "Every Tuesday at 08:00 (Asia/Tokyo time)" in reply["text"]
    assert "the first on Tuesday 8 December" in reply["text"] and "never who" in reply["text"]
    setting = ctx.store.get_recap(CHANNEL)
    assert (setting.weekday, setting.at_time, setting.tz) == (1, "08:00", "Asia/Tokyo")
    shown = reply_show(ctx, client, CHANNEL)["text"]
    assert "*Weekly recap:* every Tuesday at 08:00 (Asia/Tokyo time)" in shown
    off = RecapCommand("off")
    assert "No more weekly recaps" in reply_recap(ctx, client, "USETTER", CHANNEL, off)["text"]
    assert ctx.store.get_recap(CHANNEL) is None
    assert "has no weekly recap" in reply_recap(ctx, client, "USETTER", CHANNEL, off)["text"]


def test_recap_weekly_where_the_bot_is_not_says_how_to_invite_it(ctx):
    client = _client(None, member=False)
    monday = datetime(2026, 12, 7, tzinfo=UTC)
    reply = reply_recap(ctx, client, "U1", "C0ELSE", RecapCommand("weekly"), monday)
    assert "Every Friday at 16:00 (UTC)" in reply["text"] and "/invite @paperbot" in reply["text"]
    assert "follows no topics yet" in reply["text"]
