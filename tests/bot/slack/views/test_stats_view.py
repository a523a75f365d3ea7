"""`/papers stats`' answer (bot/slack/views/stats.py): the weeks as an aligned table with the 👍 share's
bar, the current week said to be partial, the likes' sources escaped, valid Block Kit; one line for
someone with no history."""

from __future__ import annotations

from datetime import date, timedelta

from slack_sdk.models.blocks import Block

from bot.slack.views.messages import FALLBACK_LIMIT
from bot.slack.views.stats import NOTHING, bar, stats_reply, table
from bot.usecases.stats import ELSEWHERE, LikeSources, PersonStats, Week
from tests.bot.slack.views.test_messages import HOSTILE, check_limits

FIRST = date(2026, 10, 12)


def _weeks(*counts: tuple[int, int, int, int]) -> tuple[Week, ...]:
    """Eight weeks from FIRST, each (shown, rated, liked, saved), the last partial (3 days so far)."""
    return tuple(Week(FIRST + timedelta(weeks=i), *c, partial=i == len(counts) - 1,
                      days=3 if i == len(counts) - 1 else 7)
                 for i, c in enumerate(counts))


WEEKS = _weeks((12, 10, 6, 1), (0, 0, 0, 0), (5, 4, 1, 0), (5, 1, 1, 0), (8, 2, 0, 2), (9, 3, 3, 0),
               (120, 100, 33, 12), (2, 1, 1, 0))


def test_the_weeks_are_aligned_rows_with_the_share_and_the_current_week_said_partial():
    rows = table(PersonStats(WEEKS, LikeSources(), "Europe/Paris")).splitlines()
    assert rows[0] == "week of  shown rated saved  👍 share"
    assert rows[1] == "Oct 12      12    10     1  ▇▇▇▇▇▇░░░░  60%"
    assert rows[2] == "Oct 19       0     0     0                –"  # an empty week: no share
    assert rows[5] == "Nov  9       8     2     2  ░░░░░░░░░░   0%"
    assert rows[7] == "Nov 23     120   100    12  ▇▇▇░░░░░░░  33%"
    assert rows[8] == "Nov 30       2     1     0  ▇▇▇▇▇▇▇▇▇▇ 100%  this week so far (3 days)"
    assert len({len(row) for row in rows[1:8]}) == 1  # whole weeks line up
    assert (bar(None), bar(0.04), bar(0.96)) == (" " * 10, "░" * 10, "▇" * 10)


def test_the_likes_sources_are_named_most_first_and_escaped():
    likes = LikeSources(topics=(("diffusion", 4), (HOSTILE, 2)), feeds=((None, 3), ("lab", 2)),
                        kinds=(("alert", 1), (ELSEWHERE, 2)))
    reply = stats_reply(PersonStats(WEEKS, likes, "America/New_York"))
    said = reply["blocks"][-1]["text"]["text"]
    assert said.startswith("*Your likes came from*\n• topics: “diffusion” 4, “")
    assert "• feeds: your main feed 3, feed “lab” 2" in said
    assert "• also: alerts 1, papers I never sent you 2" in said
    assert "<!channel>" not in reply["text"] and "<!channel>" not in said
    assert "America/New_York time" in reply["blocks"][0]["text"]["text"]
    assert reply["blocks"][2]["elements"][0]["text"] == "Over 8 weeks: 45 👍 of 121 ratings (37%)."


def test_the_reply_is_valid_block_kit_within_slacks_limits_however_many_sources():
    likes = LikeSources(topics=tuple((f"{HOSTILE} topic {i} " + "word " * 30, 100 - i) for i in range(300)),
                        feeds=tuple((f"feed {i}", 3) for i in range(40)))
    reply = stats_reply(PersonStats(WEEKS, likes, "UTC"))
    check_limits(reply["blocks"])
    for block in reply["blocks"]:
        Block.parse(block).validate_json()
    assert len(reply["text"]) <= FALLBACK_LIMIT
    assert "and 292 more" in reply["blocks"][-1]["text"]["text"]


def test_no_history_is_one_line_saying_what_to_do():
    empty = PersonStats(_weeks(*[(0, 0, 0, 0)] * 8), LikeSources(), "UTC")
    reply = stats_reply(empty)
    assert reply == {"text": NOTHING} and "\n" not in NOTHING
    assert "/papers follow" in NOTHING and "👍" in NOTHING
