"""A person's own numbers (bot/usecases/stats.py): weeks of their own timezone from Monday, the current one
partial, an empty week, and the topics and feeds their likes came from; a workspace's 👍 share week over
week."""

from __future__ import annotations

from datetime import UTC, date, datetime

from bot.state.context import Context
from bot.usecases.stats import ELSEWHERE, WEEKS, Share, person_stats, share_fell
from tests.fakes import Clock

#: Monday 7 December 2026, 03:00 UTC: still Sunday evening (22:00) in New York.
NOW = datetime(2026, 12, 7, 3, 0, tzinfo=UTC)


def _at(ctx: Context, table: str, column: str, user: str, paper: str, when: str) -> None:
    ctx.store.db.execute(f"update {table} set {column} = ? where user_id = ? and paper_id = ?",
                         [when, user, paper])


def shown(ctx: Context, paper: str, when: str, reason: str = "Close to your interests overall",
          user: str = "U1") -> None:
    ctx.store.mark_shown(user, paper, reason)
    _at(ctx, "shown", "shown_at", user, paper, when)


def rated(ctx: Context, paper: str, value: int, when: str, user: str = "U1") -> None:
    ctx.store.set_feedback(user, paper, value)
    _at(ctx, "feedback", "created_at", user, paper, when)


def saved(ctx: Context, paper: str, when: str, user: str = "U1") -> None:
    ctx.store.save_paper(user, paper)
    _at(ctx, "saved", "saved_at", user, paper, when)


def test_weeks_start_on_the_persons_own_monday_and_the_current_one_is_partial(ctx):
    ctx.store.ensure_person("U1")
    ctx.store.set_timezone("U1", "America/New_York")
    shown(ctx, "late-sunday", "2026-11-30T04:30:00+00:00")  # Sunday 29 November, 23:30 in New York
    shown(ctx, "early-monday", "2026-11-30T05:30:00+00:00")  # Monday 30 November, 00:30 there
    rated(ctx, "early-monday", 1, "2026-12-07T02:00:00+00:00")  # Sunday 6 December, 21:00 there
    saved(ctx, "late-sunday", "2026-10-12T03:59:00+00:00")  # Sunday 11 October there: 9 weeks ago
    stats = person_stats(ctx, "U1", Clock(NOW))
    assert stats.tz == "America/New_York"
    weeks = stats.weeks
    assert len(weeks) == WEEKS
    assert [w.start for w in weeks] == [date(2026, 10, 12), date(2026, 10, 19), date(2026, 10, 26),
                                        date(2026, 11, 2), date(2026, 11, 9), date(2026, 11, 16),
                                        date(2026, 11, 23), date(2026, 11, 30)]
    assert [w.partial for w in weeks] == [False] * 7 + [True]
    assert weeks[-1].days == 7  # Sunday there: the week's seventh day
    assert (weeks[-2].shown, weeks[-1].shown) == (1, 1)
    assert (weeks[-1].rated, weeks[-1].liked, weeks[-1].share) == (1, 1, 1.0)
    assert sum(w.saved for w in weeks) == 0  # before the first Monday's midnight there

    ctx.store.set_timezone("U1", "UTC")  # in UTC, it is already Monday 7 December: a new week
    weeks = person_stats(ctx, "U1", Clock(NOW)).weeks
    assert weeks[-1].start == date(2026, 12, 7) and weeks[-1].days == 1
    assert (weeks[-1].shown, weeks[-1].rated) == (0, 1)
    assert (weeks[-2].shown, weeks[-3].shown) == (2, 0)


def test_an_empty_week_counts_nothing_and_has_no_share(ctx):
    shown(ctx, "a", "2026-11-17T09:00:00+00:00")
    rated(ctx, "a", -1, "2026-11-17T10:00:00+00:00")
    shown(ctx, "b", "2026-12-01T09:00:00+00:00")
    rated(ctx, "b", 1, "2026-12-01T10:00:00+00:00")
    saved(ctx, "b", "2026-12-01T11:00:00+00:00")
    weeks = {w.start: w for w in person_stats(ctx, "U1", Clock(NOW)).weeks}  # no timezone known: UTC
    empty = weeks[date(2026, 11, 23)]
    assert (empty.shown, empty.rated, empty.liked, empty.saved, empty.share) == (0, 0, 0, 0, None)
    assert (weeks[date(2026, 11, 16)].rated, weeks[date(2026, 11, 16)].share) == (1, 0.0)
    last = weeks[date(2026, 11, 30)]
    assert (last.shown, last.rated, last.liked, last.saved, last.share) == (1, 1, 1, 1, 1.0)


def test_the_likes_come_from_the_topics_and_feeds_their_papers_were_shown_for(ctx):
    day = "2026-12-02T09:00:00+00:00"
    reasons = {
        "a": "Matches your interests “diffusion” and “robots”; also noise",
        "b": "Matches your interest “diffusion”",
        "c": "Matches “grasping” in your feed “lab”",
        "d": "Close to your feed “lab” overall",
        "e": "Matches your alert “score matching”",
        "f": "Matches your interest “never liked”",  # disliked: not a like's source
    }
    for paper, reason in reasons.items():
        shown(ctx, paper, day, reason)
        rated(ctx, paper, -1 if paper == "f" else 1, day)
    rated(ctx, "pasted", 1, day)  # never shown: liked elsewhere, and not in the share
    stats = person_stats(ctx, "U1", Clock(NOW))
    assert (stats.rated, stats.liked) == (6, 5)
    likes = stats.likes
    assert likes.topics == (("diffusion", 2), ("grasping", 1), ("robots", 1))
    assert likes.feeds == ((None, 2), ("lab", 2))
    assert likes.kinds == (("alert", 1), (ELSEWHERE, 1))


def test_a_person_with_no_history_has_empty_stats(ctx):
    stats = person_stats(ctx, "U9", Clock(NOW))
    assert stats.empty and len(stats.weeks) == WEEKS
    assert stats.likes.topics == () and stats.likes.feeds == ()
    shown(ctx, "a", "2026-12-06T09:00:00+00:00", user="U9")
    assert not person_stats(ctx, "U9", Clock(NOW)).empty


def _ratings(ctx: Context, week: str, liked: int, disliked: int, user: str = "U1") -> None:
    for i in range(liked + disliked):
        paper = f"{week}-{i}"
        shown(ctx, paper, f"{week}T09:00:00+00:00", user=user)
        rated(ctx, paper, 1 if i < liked else -1, f"{week}T10:00:00+00:00", user=user)


def test_a_workspaces_share_falls_when_last_week_has_two_thirds_of_the_week_befores_or_less(ctx):
    _ratings(ctx, "2026-11-23", 6, 4)  # the week before last: 60%
    _ratings(ctx, "2026-11-30", 4, 6)  # last week: 40%, two thirds of it
    _ratings(ctx, "2026-12-07", 0, 5)  # this week, not whole yet: not compared
    assert share_fell(ctx, NOW) == (Share(date(2026, 11, 23), 6, 10), Share(date(2026, 11, 30), 4, 10))


def test_a_share_that_holds_or_rises_or_rests_on_few_ratings_is_no_fall(ctx):
    _ratings(ctx, "2026-11-23", 6, 4)
    _ratings(ctx, "2026-11-30", 5, 6, user="U2")  # 45%: fell by a quarter
    assert share_fell(ctx, NOW) is None
    ctx.store.db.execute("delete from feedback")
    _ratings(ctx, "2026-11-23", 3, 7)
    _ratings(ctx, "2026-11-30", 8, 2)  # rose
    assert share_fell(ctx, NOW) is None
    ctx.store.db.execute("delete from feedback")
    _ratings(ctx, "2026-11-23", 9, 0)  # 9 ratings: too few to say
    _ratings(ctx, "2026-11-30", 0, 10)
    assert share_fell(ctx, NOW) is None
