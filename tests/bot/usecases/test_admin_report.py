"""The admins' daily word (bot/usecases/admin_report.py): what counts as a problem, and one post a UTC day."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta

import pytest

from bot.errors import Outage
from bot.slack.views.admin_problems import todo, what
from bot.state.context import Context
from bot.usecases.admin_report import NO_PAPERS_FOR, RETRY_AFTER, problems, report_problems
from bot.usecases.digests.run import FEED_JOB
from bot.usecases.stats import last_monday
from storage import Paper
from storage.leases import JOB
from storage.moments import iso_utc

FEEDS = ["arxiv:cs.LG"]


def feeds_failed(ctx: Context, now: datetime, error: str = "arxiv:cs.LG: the server answered 503") -> None:
    at = iso_utc(now)
    assert ctx.store.take_lease(JOB, (FEED_JOB,), "host:1:1", iso_utc(now + timedelta(minutes=30)), at,
                                fresh={"day": now.date().isoformat(), "started_at": at, "finished_at": None,
                                       "error": None})
    again = iso_utc(now + timedelta(hours=1))
    ctx.store.finish_lease(JOB, (FEED_JOB,), "host:1:1", "failed", at, error, again)


def failed_digest(ctx: Context, user: str, day: str, at: datetime) -> None:
    ctx.store.start_digest(user, day, "host:1:1", iso_utc(at + timedelta(minutes=10)), iso_utc(at))
    ctx.store.finish_digest(user, day, "host:1:1", "failed", iso_utc(at), "Slack refused direct messages")


class Posts:
    """A poster that keeps what it was asked to post, or raises ``error``."""

    def __init__(self, error: Exception | None = None):
        self.posted: list[list] = []
        self.error = error

    def __call__(self, found) -> None:
        if self.error is not None:
            raise self.error
        self.posted.append(found)


def test_a_good_day_has_no_problem_and_posts_nothing(ctx):
    now = datetime.now(UTC)
    assert problems(ctx, FEEDS, now) == []
    posts = Posts()
    assert report_problems(ctx, FEEDS, now, posts) is None and posts.posted == []


def test_failed_feeds_are_posted_once_a_day_and_again_the_next_day_if_they_last(ctx):
    now = datetime.now(UTC).replace(hour=6, minute=0)
    feeds_failed(ctx, now)
    posts = Posts()
    found = report_problems(ctx, FEEDS, now, posts)
    assert found is not None
    assert "today's feeds failed (arxiv:cs.LG: the server answered 503)" in what(found[0])
    assert "paperbot doctor" in todo(found[0])
    assert report_problems(ctx, FEEDS, now + timedelta(hours=3), posts) is None  # said today
    assert len(posts.posted) == 1
    tomorrow = now + timedelta(days=1)
    feeds_failed(ctx, tomorrow)
    assert report_problems(ctx, FEEDS, tomorrow, posts) is not None and len(posts.posted) == 2


def test_a_feed_failure_of_another_day_or_without_feeds_is_no_problem(ctx):
    now = datetime.now(UTC).replace(hour=6, minute=0)
    feeds_failed(ctx, now - timedelta(days=1))
    assert problems(ctx, FEEDS, now) == []
    feeds_failed(ctx, now)
    assert problems(ctx, [], now) == []  # no PAPERBOT_FEEDS: that job is not this set-up's


def test_failed_digests_of_today_are_counted_with_the_first_reason(ctx):
    now = datetime.now(UTC).replace(hour=12, minute=0)
    failed_digest(ctx, "U1", now.date().isoformat(), now - timedelta(hours=2))
    failed_digest(ctx, "U2", now.date().isoformat(), now - timedelta(hours=1))
    failed_digest(ctx, "U3", (now.date() - timedelta(days=2)).isoformat(), now - timedelta(days=2))
    found = problems(ctx, FEEDS, now)
    assert [what(p) for p in found] == ["2 people's digests failed today (Slack refused direct messages)"]


def test_no_paper_for_days_and_no_paper_at_all_are_problems(ctx, tmp_path):
    later = datetime.now(UTC) + NO_PAPERS_FOR + timedelta(hours=1)
    assert [what(p) for p in problems(ctx, FEEDS, later)][0].startswith("no new paper has come in for 4 days")
    # How far arXiv's listings were read says whether arXiv was quiet (a holiday) or paperbot didn't read.
    said = what(problems(ctx, FEEDS, later)[0])
    assert said.endswith("; arXiv's announcements were read through cs.LG (never read)")
    ctx.store.set_arxiv_cursor("cs.LG", later.date().isoformat(), iso_utc(later))
    assert what(problems(ctx, ["arxiv:cs.LG,stat.ML", "https://x.org/rss"], later)[0]).endswith(
        f"read through cs.LG {later.date().isoformat()}, stat.ML (never read)")
    empty = Context.open(str(tmp_path / "empty.db"))
    try:
        assert [what(p) for p in problems(empty, [], datetime.now(UTC))] == ["there are no papers at all"]
        empty.store.upsert_papers([Paper(id="p1", abstract="new")])
        assert problems(empty, [], datetime.now(UTC)) == []
    finally:
        empty.close()


def test_slack_away_is_tried_again_later_and_a_wrong_channel_not_again_that_day(ctx):
    now = datetime.now(UTC).replace(hour=6, minute=0)
    feeds_failed(ctx, now)
    away = Posts(Outage("Slack answered 503"))
    assert report_problems(ctx, FEEDS, now, away) is None
    assert report_problems(ctx, FEEDS, now + RETRY_AFTER / 2, Posts()) is None  # not yet
    posts = Posts()
    assert report_problems(ctx, FEEDS, now + RETRY_AFTER, posts) is not None and len(posts.posted) == 1

    other = ctx.for_workspace("T0OTHER")  # the feeds are shared; each workspace's word is its own
    wrong = Posts(RuntimeError("not_in_channel"))
    assert report_problems(other, FEEDS, now, wrong) is None
    assert report_problems(other, FEEDS, now + timedelta(hours=2), posts) is None  # not again today
    assert len(posts.posted) == 1


@pytest.mark.parametrize("processes", [3])
def test_several_processes_post_the_day_s_report_once(ctx, processes):
    now = datetime.now(UTC).replace(hour=6, minute=0)
    feeds_failed(ctx, now)
    posts = Posts()
    for n in range(processes):
        report_problems(ctx, FEEDS, now, posts, owner=f"host:{n}:1")
    assert len(posts.posted) == 1


def test_today_s_summaries_that_failed_or_were_refused_are_counted(ctx):
    now = datetime.now(UTC).replace(hour=12, minute=0)
    at, owner, model = iso_utc(now - timedelta(hours=1)), "host:1:1", "llama3.1:8b"
    until = iso_utc(now + timedelta(minutes=5))
    ctx.store.claim_summaries(["a", "b", "c", "d"], model, {}, owner, until, at)
    ctx.store.finish_summary("a", model, owner, "ok", at, text="Fine.")
    ctx.store.finish_summary("b", model, owner, "rejected", at, reason="invented_number")
    ctx.store.finish_summary("c", model, owner, "rejected", at, reason="invented_name")
    ctx.store.finish_summary("d", model, owner, "failed", at, error="http://llm/v1 answered HTTP 500")
    found = problems(ctx, FEEDS, now)
    assert [p.kind for p in found] == ["summaries_failed", "summaries_rejected"]
    assert [what(p) for p in found] == [
        "1 paper(s) got no summary from the model today (http://llm/v1 answered HTTP 500)",
        "2 summaries failed the check today (invented name 1, invented number 1)"]
    assert all(todo(p) for p in found)
    assert problems(ctx, FEEDS, now + timedelta(days=1)) == []  # yesterday's are not today's


def _week_of_ratings(ctx: Context, monday: date, liked: int, disliked: int) -> None:
    """``liked`` and ``disliked`` papers shown and rated by people on ``monday`` (UTC)."""
    when = iso_utc(datetime.combine(monday, time(9), tzinfo=UTC))
    for i in range(liked + disliked):
        paper = f"{monday.isoformat()}-{i}"
        ctx.store.mark_shown(f"U{i}", paper, "why")
        ctx.store.set_feedback(f"U{i}", paper, 1 if i < liked else -1)
        ctx.store.db.execute("update feedback set created_at = ? where paper_id = ?", [when, paper])


def test_a_falling_like_share_is_said_once_a_week_and_a_rising_one_never(ctx):
    today = datetime.now(UTC).replace(hour=6, minute=0)
    now = today - timedelta(days=today.weekday())  # this week's Monday: the week's first report
    last = last_monday(now)
    _week_of_ratings(ctx, last - timedelta(weeks=1), 6, 4)
    _week_of_ratings(ctx, last, 3, 7)
    posts = Posts()
    found = report_problems(ctx, FEEDS, now, posts)
    assert found is not None and [p.kind for p in found] == ["likes_fell"]
    assert what(found[0]) == ("the 👍 share of ratings fell by a third or more, from 60% (6 of 10) the week "
                              f"of {last - timedelta(weeks=1)} to 30% (3 of 10) the week of {last} (UTC)")
    assert "/papers stats" in todo(found[0])
    feeds_failed(ctx, now + timedelta(days=1))  # a day's problem that week comes alone
    later = report_problems(ctx, FEEDS, now + timedelta(days=1, hours=1), posts)
    assert later is not None and [p.kind for p in later] == ["feeds_failed"]
    # The rest of the week, whoever asks: not again, though the same weeks still compare so.
    for days in range(2, 7):
        found = report_problems(ctx, FEEDS, now + timedelta(days=days), posts, owner=f"host:{days}:1")
        assert found is None or "likes_fell" not in [p.kind for p in found]
    assert [p.kind for p in posts.posted[0]] == ["likes_fell"]
    assert sum(p.kind == "likes_fell" for found in posts.posted for p in found) == 1
    posted = len(posts.posted)

    rising = ctx.for_workspace("T0RISING")
    _week_of_ratings(rising, last - timedelta(weeks=1), 3, 7)
    _week_of_ratings(rising, last, 6, 4)
    assert report_problems(rising, FEEDS, now, posts) is None and len(posts.posted) == posted


def test_a_falling_like_share_comes_with_the_days_problems_and_waits_out_slack(ctx):
    now = datetime.now(UTC).replace(hour=6, minute=0)
    last = last_monday(now)
    _week_of_ratings(ctx, last - timedelta(weeks=1), 8, 2)
    _week_of_ratings(ctx, last, 4, 6)
    feeds_failed(ctx, now)
    assert report_problems(ctx, FEEDS, now, Posts(Outage("Slack answered 503"))) is None
    posts = Posts()
    for n in range(3):
        report_problems(ctx, FEEDS, now + RETRY_AFTER, posts, owner=f"host:{n}:1")
    assert [[p.kind for p in found] for found in posts.posted] == [["feeds_failed", "likes_fell"]]
