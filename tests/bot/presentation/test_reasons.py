"""The "why" line: what it claims, in whose words (the reader's, a channel's, a named feed's)."""

from __future__ import annotations

import pytest

from bot.presentation.reasons import Whose, reason_text
from recommender import Pick
from storage import Paper

COVERED = Pick("p", 1.0, terms=["robot models", "grasping"], topics=["diffusion models"])
TWO = Pick("p", 1.0, topics=["diffusion models", "robots"])
PARTIAL = Pick("p", 1.0, terms=["classifiers"], partial=[("quantum chromodynamics lattice", ["quantum"])])
TERMS = Pick("p", 1.0, terms=["robot models", "grasping"])
NOTHING = Pick("p", 1.0)
CHANNEL, FEED, CHANNEL_FEED = Whose(channel=True), Whose(feed="robots"), Whose(channel=True, feed="lab")


@pytest.mark.parametrize(("pick", "whose", "reason"), [
    (COVERED, Whose(), "Matches your interest “diffusion models”; also robot models, grasping"),
    (TWO, Whose(), "Matches your interests “diffusion models” and “robots”"),
    (PARTIAL, Whose(), "Shares “quantum” with your interest “quantum chromodynamics lattice”; "
                       "also classifiers"),
    (TERMS, Whose(), "Matches your interests: robot models, grasping"),
    (NOTHING, Whose(), "Close to your interests overall"),
    (COVERED, CHANNEL, "Matches this channel's interest “diffusion models”; also robot models, grasping"),
    (TWO, CHANNEL, "Matches this channel's interests “diffusion models” and “robots”"),
    (PARTIAL, CHANNEL, "Shares “quantum” with this channel's interest “quantum chromodynamics lattice”; "
                       "also classifiers"),
    (TERMS, CHANNEL, "Matches this channel's interests: robot models, grasping"),
    (NOTHING, CHANNEL, "Close to this channel's interests overall"),
    (COVERED, FEED, "Matches “diffusion models” in your feed “robots”; also robot models, grasping"),
    (TWO, FEED, "Matches “diffusion models” and “robots” in your feed “robots”"),
    (PARTIAL, FEED, "Shares “quantum” with “quantum chromodynamics lattice” in your feed “robots”; "
                    "also classifiers"),
    (TERMS, FEED, "Matches your feed “robots”: robot models, grasping"),
    (NOTHING, FEED, "Close to your feed “robots” overall"),
    (TWO, CHANNEL_FEED, "Matches “diffusion models” and “robots” in this channel's feed “lab”"),
])
def test_a_reason_names_whose_interests_the_pick_answers(pick, whose, reason):
    assert reason_text(pick, {}, whose) == reason


def test_an_interest_the_paper_only_touches_is_never_claimed_but_named_with_what_it_shares():
    pick = Pick("p", 1.0, partial=[("climate change impact on crop yields", ["crop", "yields"]),
                                   ("lattice QCD", ["lattice"])])
    assert reason_text(pick, {}) == ("Shares “crop” and “yields” with your interest "
                                     "“climate change impact on crop yields”")


def test_a_liked_paper_is_the_readers_or_the_channels():
    liked = {"l": Paper(id="l", title="Robot Models", abstract="…")}
    pick = Pick("p", 1.0, similar_to="l", topics=["robots"])
    assert reason_text(pick, liked) == "Like “Robot Models”, which you liked"
    assert reason_text(pick, liked, CHANNEL) == "Like “Robot Models”, which this channel liked"
    others = Pick("p", 1.0, similar_to="l", liked_by_others=True)
    assert reason_text(others, liked, CHANNEL) == "People who liked “Robot Models” also liked this"
