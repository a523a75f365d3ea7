"""Reasons as the use cases give them: true of the paper, in its words, of whoever's interests they are."""

from __future__ import annotations

import re

from benchmarks.reason_truth import stands_in
from bot.usecases import follow, recommend, search
from bot.usecases.channel_subjects import follow_in_channel
from bot.usecases.digests.choose import choose_papers
from bot.usecases.feeds import MAIN, add_feed


def test_a_channels_digest_speaks_of_the_channels_interests(ctx):
    follow_in_channel(ctx, "C1", "U1", "UTC", "feline cats")
    recs = choose_papers(ctx, "C1")
    assert recs and all(r.reason == "Matches this channel's interest “feline cats”" for r in recs)


def test_a_named_feeds_picks_speak_of_the_feed_and_the_main_feeds_of_your_interests(ctx):
    follow(ctx, "U1", "feline cats")
    add_feed(ctx, "U1", "robots: robot grasping")
    for recs in (choose_papers(ctx, "U1"), recommend(ctx, "U1", 4, remember=False)):
        reasons = {r.feed: r.reason for r in recs}
        assert reasons[MAIN] == "Matches your interest “feline cats”"
        assert reasons["robots"].startswith("Matches “robot grasping” in your feed “robots”")


def test_an_interest_the_papers_only_touch_is_named_with_the_word_they_share(ctx):
    follow(ctx, "U1", "kittens chromodynamics lattice")
    recs = recommend(ctx, "U1", 3, remember=False)
    assert recs and all(r.paper.id.startswith("cats-") for r in recs)
    for rec in recs:
        assert rec.reason.startswith("Shares “kittens” with your interest “kittens chromodynamics lattice”")


def test_search_reasons_are_the_papers_words_never_stems(ctx):
    recs = search(ctx, "purring kittens whiskers", 3)
    assert recs
    for rec in recs:
        assert rec.reason.startswith("Matches: ")
        shown = rec.reason.removeprefix("Matches: ").split(", ")
        assert all(stands_in(term, rec.paper.text) for term in shown), (rec.reason, rec.paper.text)
        places = [re.search(re.escape(term), rec.paper.text, re.IGNORECASE).start() for term in shown]
        assert places == sorted(places), rec.reason  # in the paper's order
