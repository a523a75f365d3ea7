"""Issue 23 in Slack's words: `/papers digest authors N`, saves counted apart in `/papers interests`, and
a trending post's likes and saves."""

import pytest

from bot.errors import BadArgument
from bot.slack.delivery.trending import trending_message
from bot.slack.subcommands.personal import REGISTRY, Command, parse, reply_digest_authors, reply_interests
from bot.usecases import follow, record_feedback
from bot.usecases.saved import save
from bot.usecases.trending import TrendingPaper
from storage import Paper


@pytest.mark.parametrize(("text", "n"), [("digest authors 3", 3), ("digest AUTHORS 0", 0),
                                         ("digest authors 10", 10)])
def test_digest_authors_takes_a_number_from_zero_to_ten(text, n):
    assert parse(text) == Command("digest-authors", count=n)
    assert REGISTRY.parse(text, "D1").changes_home


@pytest.mark.parametrize("text", ["digest authors", "digest authors 11", "digest authors all"])
def test_digest_authors_without_a_number_from_zero_to_ten_says_what_to_type(text):
    with pytest.raises(BadArgument, match="from 0 \\(none\\) to 10"):
        parse(text)


def test_the_setting_is_stored_and_interests_show_it_with_the_authors(ctx):
    follow(ctx, "U1", "cats, author: Ada Lovelace")
    assert "(at most 2 papers of theirs a digest;" in reply_interests(ctx, "U1")["text"]
    reply = reply_digest_authors(ctx, "U1", Command("digest-authors", count=1))["text"]
    assert "at most 1 new paper (of the past month) by authors you follow" in reply
    assert ctx.store.get_person("U1").author_picks == 1
    assert "(at most 1 paper of theirs a digest;" in reply_interests(ctx, "U1")["text"]
    assert "undoes it" in reply_digest_authors(ctx, "U1", Command("digest-authors", count=0))["text"]
    assert "(none in your digests;" in reply_interests(ctx, "U1")["text"]


def test_interests_count_saves_as_saves(ctx):
    follow(ctx, "U1", "cats")
    for pid in ("cats-0", "cats-1", "cats-2"):
        record_feedback(ctx, "U1", pid, +1)
    record_feedback(ctx, "U1", "cats-3", -1)
    save(ctx, "U1", "cats-3")  # 👎 then Save: still disliked
    save(ctx, "U1", "cats-4")
    text = reply_interests(ctx, "U1")["text"]
    assert "*Feedback:* 3 liked, 1 disliked, 2 saved (`/papers saved` lists them)" in text


def test_a_trending_post_shows_likes_and_saves_never_a_zero():
    papers = [TrendingPaper(Paper(id=f"p{i}", abstract="a", title=f"Paper {'ABC'[i]}"), likes, saves)
              for i, (likes, saves) in enumerate([(4, 2), (1, 0), (0, 1)])]
    message = trending_message(papers)
    assert "1. Paper A (4 likes · 2 saves)" in message["text"]
    assert "2. Paper B (1 like)" in message["text"] and "3. Paper C (1 save)" in message["text"]
    sections = [b["text"]["text"] for b in message["blocks"] if b["type"] == "section"]
    assert sections[0].endswith(":+1: 4 likes · 2 saves") and sections[2].endswith(":bookmark: 1 save")
    assert "0 like" not in message["text"] and "0 save" not in message["text"]
