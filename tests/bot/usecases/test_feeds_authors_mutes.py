"""Muted words, followed authors, several feeds and weekly digests, as use cases on both backends."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest

from bot.errors import BadArgument, NoInterests
from bot.slack.subcommands.digest_times import parse_daily, parse_weekly
from bot.state.context import Context
from bot.usecases import build_digest, follow, interests, recommend, record_feedback, unfollow
from bot.usecases.authors import name_key, new_papers_by, same_person
from bot.usecases.digest_schedule import (
    due_digests,
    next_digest,
    set_daily,
    set_digest_time,
    set_weekly,
)
from bot.usecases.digests.choose import choose_papers
from bot.usecases.digests.run import preview_digests
from bot.usecases.feeds import MAIN, add_feed, feed_profiles, remove_feed, shares
from bot.usecases.mutes import Muter, mute, muted_filter, muted_ids, unmute
from bot.usecases.recommend import profile_for
from storage import Paper, Person

TODAY = datetime.now(UTC).date()


def ids(recs):
    return [r.paper.id for r in recs]


def add_papers(ctx, *papers):
    ctx.store.upsert_papers(list(papers))
    ctx.engine.refresh()


# -- muted words ------------------------------------------------------------------------------------

@pytest.mark.parametrize(("word", "text", "held"), [
    ("transformer", "Transformers for vision", True),
    ("transformers", "A transformer for vision", True),
    ("transformer", "A transformation of vision", False),
    ("transformer", "Spatial-transformer networks", True),
    ("study", "Three studies of cats", True),
    ("studies", "A study of cats", True),
    ("box", "Boxes and arrows", True),
    ("large language model", "Large-language  models are big", True),
    ("large language model", "large models of language", False),
    ("gan", "organic chemistry", False),
    ("c++", "We write C++ code", True),
])
def test_a_mute_matches_whole_words_any_case_and_plurals(word, text, held):
    assert Muter([word]).holds(text) is held


def test_mute_then_recommend_never_shows_the_word_and_unmute_all_brings_it_back(app):
    follow(app, "U1", "feline cats kittens, robot grasping")
    assert mute(app, "U1", "Kitten, whiskers").added == ["kitten", "whiskers"]
    assert mute(app, "U1", "kittens").added == ["kittens"]  # a word of its own, matching the same
    hidden = muted_ids(app, "U1")
    assert hidden and all(pid.startswith("cats-") for pid in hidden)
    papers = app.store.get_papers(hidden)
    assert all("kitten" in p.text.lower() or "whiskers" in p.text.lower() for p in papers.values())
    recs = recommend(app, "U1", 20, remember=False)
    assert recs and not set(ids(recs)) & hidden
    assert not any(Muter(["kitten", "whiskers"]).holds(r.paper.text) for r in recs)
    assert not set(ids(choose_papers(app, "U1"))) & hidden
    is_muted = muted_filter(app, "U1")
    assert all(is_muted(p) for p in papers.values()) and not is_muted(Paper(id="x", abstract="dogs"))
    assert sorted(unmute(app, "U1", "all")) == ["kitten", "kittens", "whiskers"]
    assert muted_ids(app, "U1") == set()
    assert set(ids(recommend(app, "U1", 20, remember=False))) & hidden


def test_mute_and_unmute_answer_a_wrong_argument_writing_nothing(app):
    for text in ("", " , ", "x" * 61, "!!!"):
        with pytest.raises(BadArgument):
            mute(app, "U1", text)
    with pytest.raises(BadArgument):
        mute(app, "U1", ", ".join(f"word{i}" for i in range(51)))
    with pytest.raises(BadArgument):
        unmute(app, "U1", " ")
    assert app.store.get_person("U1") is None and not any(app.store.rows_about("U1").values())
    assert unmute(app, "U1", "cats") == [] and unmute(app, "U1", "ALL") == []
    mute(app, "U1", "kitten, box, large language model")
    assert unmute(app, "U1", "Kittens") == ["kitten"]  # any spelling the mute covers
    assert unmute(app, "U1", "boxing") == [] and unmute(app, "U1", "large language models") == [
        "large language model"]


# -- followed authors -------------------------------------------------------------------------------

@pytest.mark.parametrize(("followed", "author", "same"), [
    ("Andrea Bajcsy", "Andrea Bajcsy", True),
    ("andrea bajcsy", "ANDREA BAJCSY", True),
    ("Andrea Bajcsy", "Andréa Bajcsy", True),
    ("Andréa Bajcsy", "Andrea Bajcsy", True),
    ("Andrea Bajcsy", "A. Bajcsy", True),
    ("A. Bajcsy", "Andrea Bajcsy", True),
    ("Andrea Bajcsy", "Bajcsy, Andrea", True),
    ("Andrea Bajcsy", "Andrea V. Bajcsy", True),
    ("Bajcsy", "Andrea Bajcsy", True),
    ("Andrea Bajcsy", "B. Bajcsy", False),
    ("Andrea Bajcsy", "Andrea Bajcsyk", False),
    ("Andrea Bajcsy", "Andrew Bajcsy", False),
    ("Jean-Pierre Dupont", "J.-P. Dupont", True),
])
def test_names_match_as_people_write_them(followed, author, same):
    assert same_person(name_key(followed), author) is same


def test_a_followed_authors_new_paper_is_picked_whatever_it_is_about_with_a_reason_naming_them(app):
    add_papers(app,
               Paper(id="bajcsy-new", title="Safe human-robot interaction",
                     abstract="Zebras crossing rivers.", authors=["Andréa Bajcsy", "C. Other"],
                     published=TODAY.isoformat()),
               Paper(id="bajcsy-old", title="Old work", abstract="Zebras of old.", authors=["A. Bajcsy"],
                     published="2019-05-01"))
    follow(app, "U1", "feline cats")
    before = choose_papers(app, "U1")
    assert "bajcsy-new" not in ids(before)
    result = follow(app, "U1", "author: andrea bajcsy")
    assert result.authors == ["andrea bajcsy"] and not result.added
    assert follow(app, "U1", "author: Andrea  Bajcsy").authors_already == ["Andrea Bajcsy"]
    recs = choose_papers(app, "U1")
    assert ids(recs)[0] == "bajcsy-new" and "bajcsy-old" not in ids(recs)
    assert recs[0].reason == "New from Andréa Bajcsy, whom you follow"
    assert len(recs) == app.digest_size
    rec = recommend(app, "U1", 3, remember=True)
    assert ids(rec)[0] == "bajcsy-new"
    assert "bajcsy-new" not in ids(recommend(app, "U1", 3, remember=False))  # shown: not again
    assert interests(app, "U1").authors == ["andrea bajcsy"]
    assert unfollow(app, "U1", "author: A. Bajcsy") == ["andrea bajcsy"]
    assert interests(app, "U1").authors == []


def test_a_followed_author_written_in_tex_on_the_paper_is_found_and_named_as_they_read(app):
    add_papers(app, Paper(id="godel-1", title="Logic", abstract="Zebras of logic.",
                              authors=[r'Kurt G\"odel'], published=TODAY.isoformat()))
    follow(app, "U1", "author: Kurt Godel")
    recs = recommend(app, "U1", remember=False)
    assert ids(recs) == ["godel-1"] and recs[0].reason == "New from Kurt Gödel, whom you follow"


def test_following_only_an_author_is_enough_for_papers(app):
    add_papers(app, Paper(id="lecun-1", title="Energy", abstract="Energy based zebras.",
                              authors=["Yann LeCun"], published=TODAY.isoformat()))
    with pytest.raises(NoInterests):
        recommend(app, "U1")
    result = follow(app, "U1", "author: LeCun, Yann")  # one name, commas and all
    assert result.authors == ["LeCun, Yann"] and result.digest_turned_on
    assert ids(recommend(app, "U1", remember=False)) == ["lecun-1"]
    with pytest.raises(BadArgument):
        follow(app, "U2", "author:  ")
    assert app.store.get_person("U2") is None


# -- several feeds ----------------------------------------------------------------------------------

def test_shares_split_fairly():
    assert shares(5, 2) == [3, 2] and shares(3, 3) == [1, 1, 1] and shares(2, 3) == [1, 1, 0]
    assert shares(5, 1) == [5] and shares(4, 0) == []


def test_a_digest_has_a_section_per_feed_sharing_its_size_and_never_repeating_a_paper(app):
    follow(app, "U1", "feline cats kittens")
    result = add_feed(app, "U1", "Robot Lab: robot grasping manipulation, locomotion")
    assert result.feed == "Robot Lab" and result.added == ["robot grasping manipulation", "locomotion"]
    add_feed(app, "U1", "qubits: quantum circuits qubits")
    app.digest_size = 5
    recs = choose_papers(app, "U1")
    assert len(recs) == 5 and len(set(ids(recs))) == 5
    by_feed = {}
    for rec in recs:
        by_feed.setdefault(rec.feed, []).append(rec.paper.id)
    assert list(by_feed) == [MAIN, "qubits", "Robot Lab"]  # one section each: main, then by name
    assert [len(v) for v in by_feed.values()] == [2, 2, 1]
    assert all(p.startswith("cats-") for p in by_feed[MAIN])
    assert all(p.startswith("robots-") for p in by_feed["Robot Lab"])
    assert all(p.startswith("quantum-") for p in by_feed["qubits"])
    assert app.store.paper_feeds("U1") == {r.paper.id: r.feed for r in recs}
    follow(app, "U2", "feline cats kittens")
    add_feed(app, "U2", "qubits: quantum circuits qubits")
    previews, _ = preview_digests(app, datetime.now(UTC), ["U2"], force=True)
    assert {r.feed for r in previews[0].recommendations} == {MAIN, "qubits"}
    assert app.store.paper_feeds("U2") == {}  # a preview (`paperbot digest --dry-run`) records nothing
    # recommend draws on every feed too, never repeating what the digest showed
    build_digest(app, "U1")
    more = recommend(app, "U1", 6, remember=False)
    assert {r.feed for r in more} == {MAIN, "Robot Lab", "qubits"} and not set(ids(more)) & set(ids(recs))


def test_feedback_on_a_paper_sent_for_a_feed_trains_that_feed_and_dislikes_all(app):
    follow(app, "U1", "feline cats")
    add_feed(app, "U1", "robots: robot grasping")
    recs = build_digest(app, "U1").recommendations
    robot = next(r.paper.id for r in recs if r.feed == "robots")
    cat = next(r.paper.id for r in recs if r.feed == MAIN)
    record_feedback(app, "U1", robot, +1)
    record_feedback(app, "U1", cat, -1)
    profiles = {f.feed: f.profile for f in feed_profiles(app, "U1", profile_for(app, "U1"))}
    assert profiles["robots"].liked == [robot] and profiles[MAIN].liked == []
    assert profiles["robots"].disliked == [cat] == profiles[MAIN].disliked
    assert profiles[MAIN].topics == ["feline cats"] and profiles["robots"].topics == ["robot grasping"]
    assert remove_feed(app, "U1", "ROBOTS") == "robots"
    assert remove_feed(app, "U1", "robots") is None
    only = feed_profiles(app, "U1", profile_for(app, "U1"))
    assert [f.feed for f in only] == [None]  # no named feed left: one profile, as before
    whole = profile_for(app, "U1")
    assert (only[0].profile.topics, only[0].profile.liked, only[0].profile.disliked) == (
        whole.topics, whole.liked, whole.disliked)


def test_a_person_without_feeds_authors_or_mutes_is_ranked_as_before(app):
    follow(app, "U1", "graph neural networks")
    recs = choose_papers(app, "U1")
    assert all(r.feed is None for r in recs) and app.store.paper_feeds("U1") == {}
    assert [f.feed for f in feed_profiles(app, "U1", profile_for(app, "U1"))] == [None]


@pytest.mark.parametrize("text", ["", "robots", "robots:", "three word name: x", "main: cats", "a<b>: x",
                                  ": cats", "x" * 41 + ": cats"])
def test_feed_add_answers_a_wrong_argument_writing_nothing(app, text):
    with pytest.raises(BadArgument):
        add_feed(app, "U1", text)
    assert app.store.get_person("U1") is None


def test_feed_add_adds_to_a_feed_ignoring_case_and_caps_the_feeds(app):
    add_feed(app, "U1", "robots: grasping")
    again = add_feed(app, "U1", "ROBOTS: Grasping, sim2real")
    assert again.feed == "robots" and again.added == ["sim2real"] and again.already == ["Grasping"]
    for i in range(9):
        add_feed(app, "U1", f"feed{i}: topic")
    with pytest.raises(BadArgument):
        add_feed(app, "U1", "one more: topic")
    assert len(interests(app, "U1").feeds) == 10


# -- weekly digests ---------------------------------------------------------------------------------

MONDAY = date(2026, 3, 2)


def weekly(user="U1", weekday=0, hhmm="09:00") -> Person:
    return Person(user, "Europe/Berlin", hhmm, True, "2026-01-01T00:00:00+00:00", weekday)


def at(day: date, hour: int, minute: int = 0) -> datetime:
    return datetime(day.year, day.month, day.day, hour, minute, tzinfo=UTC)


def test_a_weekly_digest_is_due_on_its_day_at_its_time_once():
    due, not_due = due_digests([weekly()], {}, at(MONDAY, 8, 0))  # 09:00 in Berlin
    assert [(d.user_id, d.local_date) for d in due] == [("U1", MONDAY)]
    assert due_digests([weekly()], {}, at(MONDAY, 7, 59))[0] == []
    assert due_digests([weekly()], {("U1", MONDAY.isoformat()): "sent"}, at(MONDAY, 12))[0] == []
    for later in range(1, 7):  # not on the other days of the week, whatever their hour
        day = MONDAY + timedelta(days=later)
        assert due_digests([weekly()], {}, at(day, 12))[0] == [], day
        assert due_digests([weekly()], {}, at(day, 12), force=True)[0] == []
    assert [d.local_date for d in due_digests([weekly()], {}, at(MONDAY + timedelta(days=7), 9))[0]] == [
        MONDAY + timedelta(days=7)]
    # Missed while nothing ran: still due until the day ends (the daily digest's catch-up rule).
    assert due_digests([weekly()], {}, at(MONDAY, 22, 30))[0]
    assert not_due == []


def test_weekly_and_daily_schedules_and_the_next_one(app):
    follow(app, "U1", "cats")
    app.store.set_timezone("U1", "Europe/Berlin")
    set_weekly(app, "U1", 4, "16:00")
    person = app.store.get_person("U1")
    assert (person.digest_weekday, person.digest_time, person.digest_enabled) == (4, "16:00", True)
    now = at(MONDAY, 12)
    assert next_digest(app, "U1", now) == MONDAY + timedelta(days=4)
    assert interests(app, "U1").digest_weekday == 4
    assert set_daily(app, "U1", None) == "16:00"  # keeps the time
    assert app.store.get_person("U1").digest_weekday is None
    set_weekly(app, "U1", 0, "09:00")
    set_digest_time(app, "U1", "07:00")  # `digest HH:MM`: daily at that time
    assert app.store.get_person("U1").digest_weekday is None


def test_a_weekly_digest_is_the_weeks_best_new_papers_up_to_twice_the_daily_size(app):
    old = [Paper(id=f"oldcat-{i}", title=f"Feline cats {i}", abstract="feline cats whiskers purring kittens",
                 published="2020-01-01") for i in range(3)]
    week = [Paper(id=f"weekcat-{i}", title=f"Feline cats week {i}", abstract="feline cats whiskers purring",
                  published=(TODAY - timedelta(days=6)).isoformat()) for i in range(3)]
    add_papers(app, *old, *week)
    follow(app, "U1", "feline cats")
    set_weekly(app, "U1", TODAY.weekday(), "09:00")
    recs = choose_papers(app, "U1", today=TODAY)
    assert len(recs) == 2 * app.digest_size
    assert not any(r.paper.id.startswith("oldcat") for r in recs)  # that week's papers only
    assert {f"weekcat-{i}" for i in range(3)} <= set(ids(recs))
    set_daily(app, "U1", "09:00")
    assert len(choose_papers(app, "U1", today=TODAY)) == app.digest_size


@pytest.mark.parametrize("text", ["funday", "25:00", "monday tuesday", "09:00 10:00", "mo 09:00",
                                  "monday 09:00 extra"])
def test_digest_weekly_refuses_what_is_not_a_day_and_a_time(text):
    with pytest.raises(BadArgument):
        parse_weekly(text)


def test_digest_weekly_and_daily_read_their_day_and_time():
    assert parse_weekly("") == (0, "09:00") and parse_weekly("Fri") == (4, "09:00")
    assert parse_weekly("16:30 sunday") == (6, "16:30") and parse_weekly("8:05") == (0, "08:05")
    assert parse_daily("") is None and parse_daily("7:30") == "07:30"
    for text in ("9", "07:30 08:00", "noon"):
        with pytest.raises(BadArgument):
            parse_daily(text)


def test_follow_mixes_topics_and_authors_and_unfollow_tells_them_apart(app):
    result = follow(app, "U1", "feline cats, author: Andrea Bajcsy, author: Yann LeCun")
    assert result.added == ["feline cats"] and result.authors == ["Andrea Bajcsy", "Yann LeCun"]
    info = interests(app, "U1")
    assert info.topics == ["feline cats"] and info.authors == ["Andrea Bajcsy", "Yann LeCun"]
    assert unfollow(app, "U1", "author: feline cats") == []
    assert unfollow(app, "U1", "Andrea Bajcsy") == []  # a topic of that name: there is none
    assert unfollow(app, "U1", "author: y. lecun") == ["Yann LeCun"]
    assert unfollow(app, "U1", "all") == ["feline cats"]
    assert interests(app, "U1").authors == ["Andrea Bajcsy"]  # `unfollow all` is about topics


def test_more_like_this_never_offers_a_muted_paper_and_interests_count_the_saved(app):
    from bot.usecases.saved import save
    from bot.usecases.similar import similar_papers

    follow(app, "U1", "feline cats")
    before = similar_papers(app, "U1", "cats-0")
    assert before and all(r.paper.id.startswith("cats-") for r in before)
    mute(app, "U1", "kitten")  # every cats paper says "kittens"
    after = similar_papers(app, "U1", "cats-0")
    assert not any(r.paper.id.startswith("cats-") for r in after)
    assert interests(app, "U1").saved == 0
    save(app, "U1", "robots-1")
    assert interests(app, "U1").saved == 1


def test_a_database_emptied_and_filled_again_at_the_same_place_is_read_afresh(tmp_path):
    path = str(tmp_path / "again.db")
    found = []
    for author in ("Ana Frost", "Bo Snow"):  # the same path, the same number of papers: another database
        ctx = Context.open(path)
        try:
            ctx.store.upsert_papers([Paper(id="p1", title="T", abstract="x", authors=[author],
                                           published=TODAY.isoformat())])
            follow(ctx, "U1", f"author: {author}")
            found.append([p.author for p in new_papers_by(ctx, "U1", TODAY, set())])
        finally:
            ctx.close()
        for leftover in tmp_path.glob("again.db*"):
            leftover.unlink()
    assert found == [["Ana Frost"], ["Bo Snow"]]
