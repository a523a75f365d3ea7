"""Reading back what a stored reason says a pick came from (bot/presentation/reason_sources.py), from
reasons worded by bot/presentation/reasons.py itself, so a change of their words fails here."""

from __future__ import annotations

import pytest

from bot.presentation import reasons
from bot.presentation.reason_sources import OTHER, Source, source_of
from bot.presentation.reasons import Whose, reason_text
from recommender import Pick
from storage import Paper

LIKED = {"p0": Paper(id="p0", title="A paper “quoted”, liked", abstract="x")}
ROBOTS = Whose(feed="robots")


@pytest.mark.parametrize(("pick", "whose", "source"), [
    (Pick("p", 1.0, topics=["cats"]), Whose(), Source("topics", ("cats",))),
    (Pick("p", 1.0, topics=["cats", "dogs", "lattice qcd"], terms=["fur", "purr"]), Whose(),
     Source("topics", ("cats", "dogs", "lattice qcd"))),
    (Pick("p", 1.0, topics=["grasping", "sim2real"], terms=["gripper"]), ROBOTS,
     Source("topics", ("grasping", "sim2real"), "robots")),
    (Pick("p", 1.0, topics=["cats"]), Whose(channel=True), Source("topics", ("cats",))),
    (Pick("p", 1.0, partial=[("kittens lattice", ["kittens", "lattice"])], terms=["fur"]), Whose(),
     Source("topics", ("kittens lattice",))),
    (Pick("p", 1.0, partial=[("grasping", ["grasp"])]), ROBOTS, Source("topics", ("grasping",), "robots")),
    (Pick("p", 1.0, terms=["fur", "purr"]), Whose(), Source("feed")),
    (Pick("p", 1.0, terms=["gripper"]), ROBOTS, Source("feed", feed="robots")),
    (Pick("p", 1.0), Whose(), Source("feed")),
    (Pick("p", 1.0), ROBOTS, Source("feed", feed="robots")),
    (Pick("p", 1.0, similar_to="p0"), Whose(), Source("liked")),
    (Pick("p", 1.0, similar_to="p0", liked_by_others=True), Whose(), Source("colleagues")),
])
def test_a_ranked_picks_reason_names_its_topics_and_feed(pick, whose, source):
    assert source_of(reason_text(pick, LIKED, whose)) == source


def test_the_reasons_of_picks_not_ranked_for_an_interest_say_their_kind():
    assert source_of(reasons.alert("diffusion; models")).kind == "alert"
    assert source_of(reasons.followed_author("Ada Lovelace")).kind == "author"
    assert source_of(reasons.suggested("Matches your interest “cats”")).kind == "suggested"
    assert source_of(reasons.ONBOARDING).kind == "onboarding"
    assert source_of(reasons.more_like("A title, with a comma", in_channel=False)).kind == "more_like"
    assert source_of(reasons.more_like("A title", in_channel=True)).kind == "more_like"
    assert source_of(reason_text(Pick("p", 1.0, similar_to="p0"), LIKED, saved={"p0"})).kind == "liked"


@pytest.mark.parametrize("reason", [None, "", "Rated long ago", "Matches nothing said so"])
def test_a_reason_of_no_known_wording_is_other(reason):
    assert source_of(reason) == OTHER
