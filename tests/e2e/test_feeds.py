"""Several feeds, followed authors, muted words and weekly digests end to end: signed slash commands to
the real Bolt app, papers posted to the local Slack stand-in, on both backends. Nothing leaves 127.0.0.1.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from bot.config import Settings
from bot.slack.delivery.digests import digest_client, slack_courier
from bot.state.context import Context
from bot.usecases.digests.run import run_daily
from bot.usecases.mutes import Muter
from tests.e2e.harness import TEAM_ID, bot_environment, posts_to, query, user_ids

new_user = user_ids("UFEED")
BERLIN = ZoneInfo("Europe/Berlin")  # the stand-in's timezone for everyone

# Recent: a followed author's paper is new when published in the past month (or of this year's venue).
BAJCSY = {"id": "bajcsy-1", "title": "Zebra herds crossing rivers",
          "abstract": "Migrating zebra herds and river crossings observed over many seasons.",
          "authors": ["Andréa Bajcsy", "C. Someone"], "published": datetime.now(UTC).date().isoformat()}
BAJCSY_TOO = {"id": "bajcsy-2", "title": "Giraffe necks revisited",
              "abstract": "Giraffe neck length and browsing height in the savanna.",
              "authors": ["Bajcsy, A."], "venue": f"ICML {datetime.now(UTC).year}"}


@pytest.fixture(scope="module")
def extra_papers():
    return [BAJCSY, BAJCSY_TOO]


def dm(user: str) -> str:
    return "D" + user


def paper_posts(standin, user):
    return [c for c in posts_to(standin, dm(user)) if c.params.get("blocks")]


def headers(standin, user):
    return [c for c in posts_to(standin, dm(user)) if not c.params.get("blocks")]


def context_text(post) -> str:
    return " ".join(e["text"] for b in post.params["blocks"] if b["type"] == "context" for e in b["elements"])


def shown_ids(store, user) -> list[str]:
    return [r["paper_id"] for r in query(store, "select paper_id from shown where ws = ? and user_id = ?",
                                         [TEAM_ID, user])]


def recommend(slack, standin, user, n):
    before = len(paper_posts(standin, user))
    reply = slack.ask(user, f"recommend {n}")
    return reply, paper_posts(standin, user)[before:]


# -- help and bad arguments -------------------------------------------------------------------------

def test_help_lists_every_new_subcommand(slack):
    user = new_user()
    text = "\n".join(slack.ask(user, f"help {topic}").text for topic in ("follow", "feeds", "mute", "digest"))
    for sub in ("follow author:", "unfollow author:", "feed add", "feed remove", "mute", "unmute",
                "digest weekly", "digest daily"):
        assert f"/papers {sub}" in text, sub


@pytest.mark.parametrize(("text", "says"), [
    ("feed", "/papers feed add NAME: TOPICS"),
    ("feed add", "feed add robotics: grasping"),
    ("feed add robots", "a colon"),
    ("feed add robots:", "some topics"),
    ("feed add three word name: cats", "one or two words"),
    ("feed add main: cats", "/papers follow"),
    ("feed remove", "Name the feed"),
    ("feed rename a b", "/papers feed add NAME: TOPICS"),
    ("mute", "/papers mute blockchain"),
    ("mute  , ,", "/papers mute blockchain"),
    ("unmute", "/papers unmute all"),
    ("follow author:", "/papers follow author: Andrea Bajcsy"),
    ("unfollow author:  ", "/papers unfollow author: Andrea Bajcsy"),
    ("digest weekly funday", "not a day of the week"),
    ("digest weekly monday 25:00", "00:00 to 23:59"),
    ("digest weekly monday friday", "one day and one time"),
    ("digest daily 9", "00:00 to 23:59"),
    ("digest daily 08:00 09:00", "a time at most"),
])
def test_a_wrong_or_missing_argument_is_answered_at_once_and_writes_nothing(slack, store, text, says):
    user = new_user()
    reply = slack.ask(user, text)
    assert reply.via == "ack" and says in reply.text and "/papers help" in reply.text
    assert store.get_person(user) is None and not any(store.rows_about(user).values())


# -- muted words ------------------------------------------------------------------------------------

def test_mute_then_recommend_never_shows_the_word_plurals_too_and_unmute_all_brings_them_back(slack, standin,
                                                                                                  store):
    user = new_user()
    slack.ask(user, "follow feline cats kittens, robot grasping")
    reply = slack.ask(user, "mute Kitten")  # every cats paper says "kittens"
    assert "Muted “kitten”" in reply.text
    assert "Muted:* kitten" in slack.ask(user, "interests").text
    _, posts = recommend(slack, standin, user, 8)
    assert posts
    papers = store.get_papers(shown_ids(store, user))
    assert papers and not any(Muter(["kitten"]).holds(p.text) for p in papers.values())
    assert not any("kitten" in p.params["text"].lower() for p in posts)
    assert all(p.startswith("robots-") for p in papers)
    assert "Unmuted “kitten”" in slack.ask(user, "unmute all").text
    assert "Nothing was muted" in slack.ask(user, "unmute all").text
    _, more = recommend(slack, standin, user, 4)
    assert more
    after = set(shown_ids(store, user)) - set(papers)
    assert len(after) == len(more) and any(pid.startswith("cats-") for pid in after)  # back again


# -- followed authors -------------------------------------------------------------------------------

@pytest.mark.parametrize("written", ["author: andrea bajcsy", "author: A. Bajcsy", "author: Bajcsy, Andrea"])
def test_a_followed_authors_paper_is_picked_with_a_reason_naming_them(slack, standin, store, written):
    user = new_user()
    slack.ask(user, "follow graph neural networks")
    reply = slack.ask(user, f"follow {written}")
    assert "Now following the author" in reply.text
    _, posts = recommend(slack, standin, user, 3)
    picked = shown_ids(store, user)
    assert set(picked[:2]) == {"bajcsy-1", "bajcsy-2"}  # about nothing they follow, and first
    why = [context_text(p) for p in posts[:2]]
    assert any("New from Andréa Bajcsy, whom you follow" in w for w in why)
    assert any("New from Bajcsy, A., whom you follow" in w for w in why)
    assert "Authors you follow:*" in slack.ask(user, "interests").text
    assert "Stopped following" in slack.ask(user, "unfollow author: ANDREA BAJCSY").text
    assert "weren't following the author" in slack.ask(user, "unfollow author: Andrea Bajcsy").text


def test_digest_authors_sets_how_many_followed_authors_papers_come(slack, standin, store):
    user = new_user()
    slack.ask(user, "follow graph neural networks, author: Andrea Bajcsy")
    assert "at most 2 papers of theirs a digest" in slack.ask(user, "interests").text
    reply = slack.ask(user, "digest authors 1")
    assert "at most 1 new paper (of the past month) by authors you follow" in reply.text
    assert "at most 1 paper of theirs a digest" in slack.ask(user, "interests").text
    _, posts = recommend(slack, standin, user, 3)
    assert sum(pid.startswith("bajcsy-") for pid in shown_ids(store, user)) == 1
    assert sum("whom you follow" in context_text(p) for p in posts) == 1
    wrong = slack.ask(user, "digest authors 11")
    assert wrong.via == "ack" and "from 0 (none) to 10" in wrong.text


# -- several feeds ----------------------------------------------------------------------------------

def test_a_digest_has_a_section_per_feed_that_split_the_size_and_never_repeat_a_paper(slack, standin,
                                                                                      store):
    user = new_user()
    slack.ask(user, "follow feline cats whiskers")
    reply = slack.ask(user, "feed add Robot Lab: robot grasping manipulation")
    assert "Feed “Robot Lab” now follows “robot grasping manipulation”" in reply.text
    text = slack.ask(user, "interests").text
    assert "*Main feed:* feline cats whiskers" in text and "*Feed “Robot Lab”:* robot grasping" in text
    assert "I sent you 3 papers" in slack.ask(user, "digest now").text  # PAPERBOT_DIGEST_SIZE=3
    header = headers(standin, user)[0].params["text"]
    assert "3 papers, by feed: main 2, Robot Lab 1" in header
    posts = paper_posts(standin, user)
    feeds = [context_text(p).split(" · ")[0] for p in posts]
    assert feeds == ["*Feed:* main", "*Feed:* main", "*Feed:* Robot Lab"]
    picked = shown_ids(store, user)
    assert len(picked) == len(set(picked)) == 3
    assert [p.split("-")[0] for p in sorted(picked)] == ["cats", "cats", "robots"]
    # A like on the Robot Lab paper trains that feed.
    robot_post = posts[2]
    slack.reaction(user, "+1", robot_post.response["channel"], robot_post.response["ts"])
    standin.wait_for(lambda: store.get_feedback(user), timeout=10, what="the like")
    assert store.paper_feeds(user)[store.get_feedback(user)[0].paper_id] == "Robot Lab"
    assert "Deleted the feed “Robot Lab”" in slack.ask(user, "feed remove robot lab").text
    assert "You have no feed" in slack.ask(user, "feed remove Robot Lab").text
    assert store.get_feeds(user) == {}


# -- weekly digests ---------------------------------------------------------------------------------

def test_digest_weekly_sends_once_in_the_week_at_its_time_and_not_daily(slack, standin, db_path):
    user = new_user()
    slack.ask(user, "follow feline cats whiskers")
    now = datetime.now(UTC)
    if now.second >= 55:  # a time set now must still be this minute
        now += timedelta(seconds=60 - now.second)
    local = now.astimezone(BERLIN)
    reply = slack.ask(user, f"digest weekly {local:%A} {local:%H:%M}")
    assert f"Weekly digest on {local:%A}s at {local:%H:%M} (Europe/Berlin time)" in reply.text
    assert f"weekly on {local:%A}s" in slack.ask(user, "interests").text
    settings = Settings.load(environ=bot_environment(standin, db_path), dotenv=None)
    root = Context.open(str(db_path), digest_size=3)
    ctx = root.for_workspace(TEAM_ID)
    try:
        courier = slack_courier(ctx, digest_client(settings))

        def run(at: datetime):
            return [o for o in run_daily(ctx, [], courier, at, clock=lambda: at, users=[user]).outcomes
                    if o.user_id == user]

        assert [o.status for o in run(now + timedelta(seconds=1))] == ["sent"]
        assert len(headers(standin, user)) == 1 and len(paper_posts(standin, user)) == 6  # twice daily
        assert "Your weekly digest" in headers(standin, user)[0].params["text"]
        assert run(now + timedelta(minutes=5)) == []  # once
        for day in range(1, 7):  # not on the other days of the week, at any hour
            for hour in (0, 12):
                assert run(now + timedelta(days=day, hours=hour)) == [], day
        assert len(headers(standin, user)) == 1
        later = run(now + timedelta(days=7, seconds=1))  # a week on: the next week's
        assert [o.local_date for o in later] == [local.date() + timedelta(days=7)]
        assert later[0].status in ("sent", "empty")
    finally:
        root.close()
