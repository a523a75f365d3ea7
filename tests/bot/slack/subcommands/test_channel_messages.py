"""The channel commands' parsing and the trending post's Block Kit, within Slack's limits."""

from datetime import date

import pytest
from slack_sdk.models.blocks import Block

from bot.errors import BadArgument
from bot.slack.delivery.trending import NOTHING, trending_message
from bot.slack.subcommands.channel import HELP_LINES, parse_channel
from bot.slack.subcommands.personal import HELP, SHORT_HELP_MOST, help_text
from bot.slack.views.messages import HEADER_LIMIT, MESSAGE_BLOCKS, SECTION_LIMIT
from bot.usecases.channel_subjects import is_channel
from bot.usecases.digests.send import header_text
from bot.usecases.trending import SIZE, TrendingPaper, due_at, week_of
from storage import Paper


def _valid(message: dict) -> None:
    assert len(message["blocks"]) <= MESSAGE_BLOCKS and len(message["text"]) <= 3000
    for block in message["blocks"]:
        Block.parse(block).validate_json()
        if block["type"] == "section":
            assert len(block["text"]["text"]) <= SECTION_LIMIT
        if block["type"] == "header":
            assert len(block["text"]["text"]) <= HEADER_LIMIT


def test_a_trending_post_of_long_hostile_titles_is_valid_block_kit_with_counts():
    papers = [TrendingPaper(Paper(id=f"p{i}", abstract="a", title="<!channel> & " + "long words " * 80,
                                  authors=["<@U123>"] * 20, url=f"https://example.org/{i}"), SIZE - i)
              for i in range(SIZE)]
    message = trending_message(papers)
    _valid(message)
    assert "<!channel>" not in message["text"] and "<!channel>" not in str(message["blocks"])
    assert "<@U123>" not in str(message["blocks"])
    assert f":+1: {SIZE} likes" in str(message["blocks"]) and "(1 like)" in message["text"]


def test_nothing_liked_is_a_short_valid_post():
    message = trending_message([])
    _valid(message)
    assert message["text"] == NOTHING


def test_the_week_and_its_due_time():
    assert week_of(due_at(date(2026, 11, 30))) == date(2026, 11, 30)
    from datetime import UTC, datetime
    assert week_of(datetime(2026, 12, 6, 23, 59, tzinfo=UTC)) == date(2026, 11, 30)  # Sunday
    assert week_of(datetime(2026, 12, 7, 0, 0, tzinfo=UTC)) == date(2026, 12, 7)
    assert due_at(date(2026, 12, 7)).isoformat() == "2026-12-07T09:00:00+00:00"


def test_which_ids_are_channels():
    assert is_channel("C0123") and is_channel("G0123")
    assert not any(is_channel(x) for x in ("D0123", "U0123", "W0123", "", None))


def test_a_channel_digest_header_says_whose_it_is():
    day = date(2026, 12, 1)
    assert header_text(3, day, channel=True).startswith(":newspaper: This channel's digest for Tuesday 1")
    assert "This channel's weekly digest" in header_text(3, day, weekly=True, channel=True)
    assert header_text(3, day).startswith(":newspaper: Your digest")


@pytest.mark.parametrize("text", ["follow", "unfollow", "digest", "digest daily 1:2:3", "digest weekly a b c",
                                  "trending", "trending soon", "subscribe", "digest off now"])
def test_wrong_channel_commands_say_what_to_type(text):
    with pytest.raises(BadArgument) as raised:
        parse_channel(text)
    assert "/papers channel" in str(raised.value) or "HH:MM" in str(raised.value)


def test_help_has_the_channel_lines():
    assert HELP_LINES in help_text("channel") and "/papers channel" in HELP and len(HELP) < SHORT_HELP_MOST


def test_channel_digest_now_parses_and_nothing_after_it():
    assert parse_channel("digest now").action == "digest-now"
    assert parse_channel("DIGEST NOW").action == "digest-now"
    with pytest.raises(BadArgument) as raised:
        parse_channel("digest now please")
    assert "/papers channel digest now" in str(raised.value)
