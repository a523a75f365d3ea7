"""Issue 23: a save is its own, weaker signal than a like; a followed author's paper is new only when
recent, and a digest holds at most the person's number of them (2 unless they ask)."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest

from bot.errors import BadArgument
from bot.usecases import follow, interests, recommend, record_feedback
from bot.usecases.authors import DEFAULT_AUTHOR_PICKS, MAX_AUTHOR_PICKS, NEW_DAYS, is_new, venue_year
from bot.usecases.digests.choose import choose_papers
from bot.usecases.feeds import add_feed, feed_profiles
from bot.usecases.picking import profile_for
from bot.usecases.saved import save
from bot.usecases.settings import check_author_picks, save_author_picks
from bot.usecases.trending import trending_papers
from recommender.profile import SAVE_WEIGHT
from storage import Paper

TODAY = datetime.now(UTC).date()


def ids(recs):
    return [r.paper.id for r in recs]


def add_papers(ctx, *papers):
    ctx.store.upsert_papers(list(papers))
    ctx.engine.refresh()


# -- a save is its own signal ---------------------------------------------------------------------------

def test_a_save_teaches_the_profile_at_half_a_like_and_a_rated_paper_counts_only_as_its_rating(ctx):
    record_feedback(ctx, "U1", "cats-0", +1)
    record_feedback(ctx, "U1", "cats-1", -1)
    save(ctx, "U1", "cats-1")  # disliked, then saved: only the dislike counts
    save(ctx, "U1", "cats-0")  # liked and saved: only the like
    save(ctx, "U1", "cats-2")  # saved alone: a weaker like
    profile = profile_for(ctx, "U1")
    assert profile.liked == ["cats-0", "cats-2"] and profile.disliked == ["cats-1"]
    assert profile.saved == {"cats-2"}
    weights = profile.liked_weights(30.0)
    assert weights[1] == pytest.approx(SAVE_WEIGHT * weights[0], rel=1e-3)  # both just now
    assert SAVE_WEIGHT < 1


def test_a_save_fades_from_when_it_was_saved(ctx):
    save(ctx, "U1", "cats-2")
    later = datetime.now(UTC) + timedelta(days=60)
    profile = profile_for(ctx, "U1", now=later)
    assert profile.liked_age_days == [pytest.approx(60, abs=0.01)]
    assert profile.liked_weights(60.0) == [pytest.approx(SAVE_WEIGHT / 2, rel=1e-3)]


def test_saves_alone_are_enough_to_recommend_and_the_reason_says_saved(ctx):
    save(ctx, "U1", "robots-0")
    recs = recommend(ctx, "U1", 3, remember=False)
    assert recs and "robots-0" not in ids(recs)
    assert all(r.paper.id.startswith("robots-") for r in recs)
    assert any(r.reason.endswith("which you saved") for r in recs)
    assert not any("which you liked" in r.reason for r in recs)


def test_a_named_feed_keeps_its_saves_weaker(ctx):
    follow(ctx, "U1", "feline cats")
    add_feed(ctx, "U1", "robots: robot grasping")
    save(ctx, "U1", "cats-3")
    main = feed_profiles(ctx, "U1", profile_for(ctx, "U1"))[0].profile
    assert main.liked == ["cats-3"] and main.liked_weights(30.0) == [pytest.approx(SAVE_WEIGHT, rel=1e-3)]


def test_interests_count_saves_apart_from_likes(ctx):
    record_feedback(ctx, "U1", "cats-0", +1)
    record_feedback(ctx, "U1", "cats-1", -1)
    for pid in ("cats-0", "cats-1", "cats-2"):
        save(ctx, "U1", pid)
    info = interests(ctx, "U1")
    assert (info.liked, info.disliked, info.saved) == (1, 1, 3)


def test_trending_ranks_by_likes_then_saves_and_counts_each(ctx):
    for user in ("U1", "U2"):
        record_feedback(ctx, user, "cats-0", +1)
    record_feedback(ctx, "U3", "cats-1", +1)
    for user in ("U1", "U2", "U4"):
        save(ctx, user, "cats-1")
    save(ctx, "U3", "cats-1")  # U3 liked it: counted once, as the like
    save(ctx, "U5", "cats-2")
    found = [(t.paper.id, t.likes, t.saves) for t in trending_papers(ctx, datetime.now(UTC))]
    assert found == [("cats-0", 2, 0), ("cats-1", 1, 3), ("cats-2", 0, 1)]


# -- followed authors: recent only, at most a few a digest ----------------------------------------------

def by_ada(pid: str, published: str | None = None, venue: str | None = None) -> Paper:
    return Paper(id=pid, title=f"Engines {pid}", abstract="Analytical engines and looms.",
                 authors=["Ada Lovelace"], published=published, venue=venue)


@pytest.mark.parametrize(("published", "venue", "new"), [
    (TODAY.isoformat(), None, True),
    ((TODAY - timedelta(days=NEW_DAYS)).isoformat(), None, True),
    ((TODAY - timedelta(days=NEW_DAYS + 1)).isoformat(), None, False),
    ((TODAY - timedelta(days=NEW_DAYS + 1)).isoformat(), f"ICML {TODAY.year}", False),  # the date wins
    (None, f"NeurIPS {TODAY.year}", True),
    (None, "NeurIPS 2018", False),  # added today, published years ago
    (None, "TestConf", False),  # neither: never new by authorship
    (None, None, False),
])
def test_a_followed_authors_paper_is_new_only_when_recent(published, venue, new):
    assert is_new(by_ada("p", published, venue), TODAY) is new


def test_a_venue_s_year_is_four_digits_on_their_own():
    assert venue_year("ICML 2019") == 2019 and venue_year("NeurIPS 2018 Workshop") == 2018
    assert venue_year("NeurIPS'24") is None and venue_year("Proc. 12019") is None and venue_year(None) is None


def test_following_a_prolific_author_brings_only_their_recent_papers_two_a_digest(ctx):
    old = [by_ada(f"ada-2018-{i}", venue="NeurIPS 2018") for i in range(8)]  # ingested today, undated
    recent = [by_ada(f"ada-new-{i}", published=(TODAY - timedelta(days=i)).isoformat()) for i in range(4)]
    add_papers(ctx, *old, *recent)
    follow(ctx, "U1", "feline cats")
    follow(ctx, "U1", "author: Ada Lovelace")
    ctx.digest_size = 5
    recs = choose_papers(ctx, "U1")
    from_ada = [r for r in recs if r.reason == "New from Ada Lovelace, whom you follow"]
    assert ids(from_ada) == ["ada-new-0", "ada-new-1"]  # newest first, DEFAULT_AUTHOR_PICKS of them
    assert len(recs) == 5 and all(r.paper.id.startswith("cats-") for r in recs[2:])
    assert not any(r.paper.id.startswith("ada-2018") for r in recs)
    assert ids(recommend(ctx, "U1", 5, remember=False))[:2] == ["ada-new-0", "ada-new-1"]
    assert DEFAULT_AUTHOR_PICKS == 2


def test_the_person_chooses_how_many_from_none_to_ten(ctx):
    add_papers(ctx, *[by_ada(f"ada-new-{i}", published=TODAY.isoformat()) for i in range(4)])
    follow(ctx, "U1", "feline cats")
    follow(ctx, "U1", "author: Ada Lovelace")
    ctx.digest_size = 5
    assert interests(ctx, "U1").author_picks == DEFAULT_AUTHOR_PICKS
    save_author_picks(ctx, "U1", 3)
    assert interests(ctx, "U1").author_picks == 3
    assert sum(r.paper.id.startswith("ada-") for r in choose_papers(ctx, "U1")) == 3
    save_author_picks(ctx, "U1", 0)
    recs = choose_papers(ctx, "U1")
    assert len(recs) == 5 and not any("whom you follow" in r.reason for r in recs)
    assert ctx.store.get_person("U1").author_picks == 0


@pytest.mark.parametrize("text", ["0", "2", "10", " 7 "])
def test_a_number_of_author_papers_is_zero_to_ten(text):
    assert check_author_picks(text) == int(text)


@pytest.mark.parametrize("text", ["", "11", "-1", "two", "²", "1.5", "100000"])
def test_anything_else_says_what_to_type(text):
    with pytest.raises(BadArgument, match=f"from 0 \\(none\\) to {MAX_AUTHOR_PICKS}"):
        check_author_picks(text)


def test_new_counts_back_from_the_given_local_day():
    day = date(2026, 7, 16)
    assert is_new(by_ada("p", "2026-06-16"), day) and not is_new(by_ada("p", "2026-06-15"), day)
    assert is_new(by_ada("p", venue="ICML 2026"), day) and not is_new(by_ada("p", venue="ICML 2025"), day)
