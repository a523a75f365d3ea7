"""Settings edited whole (bot/usecases/settings.py), Home's data and the first round (onboarding), on
the use cases' own: checks that read nothing, saves that end exactly at the value given."""

from __future__ import annotations

import pytest

from bot.errors import BadArgument
from bot.usecases import follow, recommend
from bot.usecases.feeds import MAIN, add_feed
from bot.usecases.home import home_data
from bot.usecases.onboarding import REASON, is_new, rate, ratings, start_round
from bot.usecases.settings import (
    check_authors,
    check_feed_name,
    check_mutes,
    check_schedule,
    check_topics,
    save_authors,
    save_mutes,
    save_new_feed,
    save_schedule,
    save_topics,
)


def test_checks_say_what_is_wrong():
    assert check_topics(" graphs ,, GRAPHS, robots ", required=True) == ["graphs", "robots"]
    assert check_topics("", required=False) == []
    for text, required in ((", ,", True), ("x" * 101, False), ("author: Ann Smith", False),
                           (", ".join(f"t{i}" for i in range(51)), False)):
        with pytest.raises(BadArgument):
            check_topics(text, required)
    names = check_authors("Andrea Bajcsy\n\nBajcsy, Andrea\nauthor: Yann LeCun")
    assert names == ["Andrea Bajcsy", "Yann LeCun"]
    with pytest.raises(BadArgument):
        check_authors("x" * 101)
    assert check_mutes("Blockchain, large  language model") == ["blockchain", "large language model"]
    for bad in ("x" * 61, "!!!"):
        with pytest.raises(BadArgument):
            check_mutes(bad)
    with pytest.raises(BadArgument):
        check_feed_name("three word name")
    assert check_schedule("weekly", "16:30", "4").weekday == 4
    assert check_schedule("off", None, None).kind == "off"
    for kind, time, day in (("daily", "25:99", None), ("weekly", "09:00", None), ("hourly", "09:00", None),
                            ("weekly", "09:00", "7"), ("daily", None, None)):
        with pytest.raises(BadArgument):
            check_schedule(kind, time, day)


def test_saving_topics_ends_at_exactly_the_list_given(ctx):
    follow(ctx, "U1", "cats, graphs")
    save_topics(ctx, "U1", MAIN, ["Graphs", "robots", "quantum"])
    assert ctx.store.get_topics("U1") == ["graphs", "robots", "quantum"]
    save_topics(ctx, "U1", MAIN, [])
    assert ctx.store.get_topics("U1") == []
    add_feed(ctx, "U1", "theory: bandits, regret")
    ctx.store.set_paper_feeds("U1", {"cats-1": "theory"})
    save_topics(ctx, "U1", "Theory", ["regret", "online learning"])
    assert {f: sorted(t) for f, t in ctx.store.get_feeds("U1").items()} == {"theory": ["online learning",
                                                                                      "regret"]}
    assert ctx.store.paper_feeds("U1") == {"cats-1": "theory"}  # its papers are still its own
    with pytest.raises(BadArgument):
        save_topics(ctx, "U1", "gone", ["x"])
    assert save_new_feed(ctx, "U1", "robotics", ["grasping"]) == "robotics"


def test_saving_authors_and_mutes_ends_at_exactly_the_list_given(ctx):
    save_authors(ctx, "U1", ["A. Bajcsy", "Yann LeCun"])
    save_authors(ctx, "U1", ["Bajcsy", "Geoffrey Hinton"])  # "A. Bajcsy" goes and Bajcsy comes back
    assert [n for _, n in ctx.store.get_followed_authors("U1")] == ["Bajcsy", "Geoffrey Hinton"]
    save_mutes(ctx, "U1", ["kitten", "kittens", "blockchain"])
    save_mutes(ctx, "U1", ["kitten", "crypto"])  # unmuting "kittens" unmutes "kitten" too: kept all the same
    assert sorted(ctx.store.get_mutes("U1")) == ["crypto", "kitten"]
    save_mutes(ctx, "U1", [])
    assert ctx.store.get_mutes("U1") == []


def test_saving_a_schedule(ctx):
    save_schedule(ctx, "U1", check_schedule("weekly", "16:30", "4"))
    person = ctx.store.get_person("U1")
    assert (person.digest_time, person.digest_enabled, person.digest_weekday) == ("16:30", True, 4)
    save_schedule(ctx, "U1", check_schedule("off", "16:30", None))
    assert not ctx.store.get_person("U1").digest_enabled
    save_schedule(ctx, "U1", check_schedule("daily", "07:15", None))
    person = ctx.store.get_person("U1")
    assert (person.digest_time, person.digest_enabled, person.digest_weekday) == ("07:15", True, None)


def test_a_round_is_shown_once_and_its_ratings_teach_the_next_recommendation(ctx):
    follow(ctx, "U1", "feline cats, robot manipulation")
    follow(ctx, "U2", "feline cats, robot manipulation")  # the same interests, no ratings
    assert is_new(ctx, "U1") and home_data(ctx, "U1").new
    papers = start_round(ctx, "U1")
    ids = [p.id for p in papers]
    assert len(ids) == 8 and {i.split("-")[0] for i in ids} == {"cats", "robots"}
    assert ctx.store.shown_paper_ids("U1") == set(ids)
    for pid in ids:
        assert rate(ctx, "U1", pid, 1 if pid.startswith("robots") else -1) in (1, -1)
    assert rate(ctx, "U1", ids[0], ratings(ctx, "U1", ids)[ids[0]]) is None  # again: taken back
    rate(ctx, "U1", ids[0], 1 if ids[0].startswith("robots") else -1)
    assert not is_new(ctx, "U1") and len(ratings(ctx, "U1", ids)) == 8
    mine = [r.paper.id for r in recommend(ctx, "U1", 3)]
    theirs = [r.paper.id for r in recommend(ctx, "U2", 3)]
    assert not set(mine) & set(ids)  # shown once, never again
    assert all(pid.startswith("robots") for pid in mine)
    assert any(pid.startswith("cats") for pid in theirs)  # without the ratings, cats come too
    second = [p.id for p in start_round(ctx, "U1")]
    assert not set(second) & set(ids) and not set(second) & set(mine)
    assert {r["reason"] for r in ctx.store.db.query("select reason from shown where paper_id in ({})".format(
        ",".join("?" * len(ids))), ids)} == {REASON}


def test_publishing_home_never_fails_the_command_before_it(ctx):
    from bot.slack.listeners.home import refresh_home
    from storage import StoreBusy
    from tests.fakes import FakeWebClient

    client = FakeWebClient()
    down = FakeWebClient({"views.publish": {"ok": False, "error": "ratelimited"}})  # raises SlackApiError

    follow(ctx, "U1", "feline cats")
    assert refresh_home(ctx, client, "U1", "Not saved: <b>")
    published = client.called("views.publish")
    assert published[0]["user_id"] == "U1"
    assert "&lt;b&gt;" in str(published[0]["view"]) and "<b>" not in str(published[0]["view"])
    assert refresh_home(ctx, down, "U1") is False

    class Busy:
        def __getattr__(self, name):
            raise StoreBusy("busy")

    assert refresh_home(type(ctx)(store=Busy(), engine=ctx.engine, digest_size=3), client, "U1") is False


def test_after_a_subcommand_home_is_published_only_for_people_who_opened_it(ctx):
    from bot.slack.views.home_tab import refresh_opened_home
    from bot.usecases.home import home_opened
    from storage import StoreBusy
    from tests.fakes import FakeWebClient

    client = FakeWebClient()
    follow(ctx, "U1", "feline cats")
    assert refresh_opened_home(ctx, client, "U1") is False and not client.called("views.publish")
    home_opened(ctx, "U1")
    home_opened(ctx, "U1")  # a second opening changes nothing
    assert refresh_opened_home(ctx, client, "U1") is True
    assert [c["user_id"] for c in client.called("views.publish")] == ["U1"]

    class Busy:
        def __getattr__(self, name):
            raise StoreBusy("busy")

    busy = type(ctx)(store=Busy(), engine=ctx.engine, digest_size=3)
    assert refresh_opened_home(busy, client, "U1") is False
