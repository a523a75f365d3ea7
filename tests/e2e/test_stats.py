"""End to end: `/papers stats` through signed requests against the real bot and the Slack stand-in: one
line before anything, then the week's papers shown and liked, in the person's Slack timezone, with the
topic the like came from."""

from __future__ import annotations

from bot.slack.views.messages import LIKE_ACTION
from bot.slack.views.stats import NOTHING
from tests.e2e.harness import posts_to, user_ids

new_user = user_ids("USTAT")


def test_stats_says_what_to_do_then_counts_the_week_and_where_the_like_came_from(slack, standin):
    user, dm = (u := new_user()), "D" + u
    standin.timezones[user] = "Asia/Tokyo"
    assert slack.ask(user, "stats").text == NOTHING
    slack.ask(user, "follow feline cats")
    assert "I sent you" in slack.ask(user, "recommend 2").text
    posted = [p for p in posts_to(standin, dm) if p.params.get("blocks")]
    assert len(posted) == 2
    status, key = slack.click(user, LIKE_ACTION, dm, posted[0].response["ts"])
    assert status == 200
    standin.wait_for(lambda: standin.responses(key), what="the like's answer")

    reply = slack.ask(user, "stats")
    assert reply.response_type == "ephemeral"
    assert "Asia/Tokyo time" in reply.blocks[0]["text"]["text"]
    table = reply.blocks[1]["text"]["text"].strip("`").splitlines()
    assert table[0].startswith("week of") and len(table) == 9
    assert all(row.split()[2:5] == ["0", "0", "0"] for row in table[1:8])  # nothing before this week
    assert table[8].split()[2:5] == ["2", "1", "0"] and "100%  this week so far" in table[8]
    assert "• topics: “feline cats” 1" in reply.blocks[-1]["text"]["text"]
    assert "• feeds: your main feed 1" in reply.text
