"""A channel's weekly recap as plain use cases, on both backends: the week's top ten liked and saved with
counts and nobody's id, the unclaimed (among the channel's best, shown to or rated by nobody in the
workspace), when it is due in the setter's timezone, and once a week across two racing processes, a
failed post (Slack down) retried, never doubled."""

from __future__ import annotations

import threading
from dataclasses import asdict
from datetime import UTC, datetime, timedelta

import pytest

from bot.errors import Outage, Unreachable
from bot.usecases.channel_subjects import follow_in_channel
from bot.usecases.digests.choose import choose_papers
from bot.usecases.recap import (
    TOP,
    Recap,
    latest_due,
    next_recap,
    post_due_recaps,
    recap_of,
    recap_off,
    set_recap,
)
from bot.usecases.weekly_posts import MAX_ATTEMPTS, RETRY_AFTER
from stand_ins.corpus import make_corpus

CHANNEL = "C0LABWEEK"
# Friday 4 December 2026, 16:00 in Berlin (the default day and time there) is 15:00 UTC.
DUE = datetime(2026, 12, 4, 15, 0, tzinfo=UTC)
SET_AT = DUE - timedelta(days=2)


class Posts:
    """A poster recording each recap it is handed; ``fail`` raises once per exception given."""

    def __init__(self, *fail: Exception) -> None:
        self.recaps: list[tuple[str, Recap]] = []
        self.fail = list(fail)
        self.lock = threading.Lock()

    def __call__(self, channel: str, recap: Recap) -> str:
        with self.lock:
            if self.fail:
                raise self.fail.pop(0)
            self.recaps.append((channel, recap))
            return f"1700000000.{len(self.recaps):06d}"


@pytest.fixture
def channel(app):
    follow_in_channel(app, CHANNEL, "USETTER", None, "feline cats whiskers")
    set_recap(app, CHANNEL, "USETTER", "Europe/Berlin", now=SET_AT)  # Friday 16:00 by default
    return app


def test_the_recap_counts_the_weeks_top_ten_and_names_nobody(channel):
    ids = [p.id for p in make_corpus()][8:20]  # no cats: papers of other topics
    now = datetime.now(UTC)
    with channel.store.transaction():
        for i, pid in enumerate(ids):  # paper i liked by 12 - i people: a strict order
            for n in range(12 - i):
                channel.store.set_feedback(f"ULIKER{n:02d}", pid, 1)
        channel.store.save_paper("USAVER", ids[11])
    recap = recap_of(channel, CHANNEL, now)
    assert len(recap.liked) == TOP == 10
    assert [(t.paper.id, t.likes) for t in recap.liked] == [(pid, 12 - i) for i, pid in enumerate(ids[:10])]
    data = repr([asdict(t) for t in recap.liked])
    assert "ULIKER" not in data and "USAVER" not in data and "USETTER" not in data  # counts, never who


def test_the_unclaimed_are_the_channels_best_that_nobody_in_the_workspace_saw_or_rated(channel):
    now = datetime.now(UTC)
    best = [r.paper.id for r in choose_papers(channel, CHANNEL, 10)]
    assert len(best) >= 5 and best[0].startswith("cats-")
    with channel.store.transaction():
        channel.store.mark_shown("UREADER", best[0])  # a person's digest had it
        channel.store.set_feedback("UOTHER", best[1], -1)  # someone rated it
        channel.store.save_paper("USAVER", best[2])  # someone saved it
    channel.store.for_workspace("T2").mark_shown("UFAR", best[3])  # another workspace: still unclaimed
    recap = recap_of(channel, CHANNEL, now)
    unclaimed = [r.paper.id for r in recap.unclaimed]
    assert unclaimed and best[0] not in unclaimed and best[1] not in unclaimed and best[2] not in unclaimed
    assert unclaimed[0] == best[3] and set(unclaimed) <= set(best[3:])
    assert all(r.reason for r in recap.unclaimed)  # why each fits the channel
    assert channel.store.shown_paper_ids(CHANNEL) == set()  # a look records nothing


def test_a_channel_following_nothing_gets_the_counts_and_no_unclaimed(app):
    set_recap(app, "C0BARE", "USETTER", None, now=SET_AT)
    recap = recap_of(app, "C0BARE", datetime.now(UTC))
    assert recap.unclaimed == [] and recap.follows_topics is False


def test_due_at_the_day_and_time_in_the_setters_timezone_and_from_the_next_week_when_set_late(channel):
    setting = channel.store.get_recap(CHANNEL)
    assert (setting.weekday, setting.at_time, setting.tz) == (4, "16:00", "Europe/Berlin")
    assert latest_due(setting, DUE)[1] == DUE
    assert latest_due(setting, DUE - timedelta(seconds=1))[1] == DUE - timedelta(
        days=7)
    assert next_recap(setting, SET_AT) == DUE
    posts = Posts()
    assert post_due_recaps(channel, DUE - timedelta(minutes=1), posts) == []
    late = set_recap(channel, "C0LATE", "USETTER", "Europe/Berlin", now=DUE + timedelta(hours=1))
    assert next_recap(late, DUE + timedelta(hours=1)) == DUE + timedelta(days=7)
    done = post_due_recaps(channel, DUE + timedelta(hours=2), posts)
    assert [(o.channel_id, o.status) for o in done] == [(CHANNEL, "posted")]  # not C0LATE: next week


def test_once_a_week_across_two_racing_processes_and_the_unclaimed_then_kept_as_shown(channel):
    posts = Posts()
    at = DUE + timedelta(seconds=30)
    results: list = []
    barrier = threading.Barrier(2)

    def run(owner: str) -> None:
        barrier.wait()
        results.extend(post_due_recaps(channel, at, posts, owner=owner))

    runs = [threading.Thread(target=run, args=(o,)) for o in ("proc-a", "proc-b")]
    for t in runs:
        t.start()
    for t in runs:
        t.join()
    assert [o.status for o in results] == ["posted"] and len(posts.recaps) == 1
    named = {r.paper.id for r in posts.recaps[0][1].unclaimed}
    assert named and named <= channel.store.shown_paper_ids(CHANNEL)  # the next recap offers others
    for later in (timedelta(hours=1), timedelta(days=6, hours=23)):
        assert post_due_recaps(channel, at + later, posts) == []  # once that week
    assert [o.status for o in post_due_recaps(channel, at + timedelta(days=7), posts)] == ["posted"]
    assert len(posts.recaps) == 2 and not named & {r.paper.id for r in posts.recaps[1][1].unclaimed}
    assert recap_off(channel, CHANNEL) is True and recap_off(channel, CHANNEL) is False
    assert post_due_recaps(channel, at + timedelta(days=14), posts) == []


def test_slack_down_is_retried_never_doubled_and_not_in_the_channel_fails_for_the_week(channel):
    posts = Posts(Outage("Slack is down"))
    at = DUE + timedelta(seconds=5)
    assert [o.status for o in post_due_recaps(channel, at, posts, clock=lambda: at)] == ["incomplete"]
    assert post_due_recaps(channel, at + timedelta(seconds=30), posts) == []  # waits for its retry
    retry = at + RETRY_AFTER + timedelta(seconds=1)
    assert [o.status for o in post_due_recaps(channel, retry, posts, clock=lambda: retry)] == ["posted"]
    assert post_due_recaps(channel, retry + timedelta(minutes=10), posts) == [] and len(posts.recaps) == 1
    week = channel.store.get_recap_post(CHANNEL, "2026-12-04")
    assert week.status == "posted" and week.message_ts == "1700000000.000001"

    blocked = Posts(Unreachable("not_in_channel"))
    following = at + timedelta(days=7)
    assert [o.status for o in post_due_recaps(channel, following, blocked)] == ["failed"]
    assert post_due_recaps(channel, following + timedelta(hours=1), blocked) == [] and blocked.recaps == []


def test_a_recap_that_keeps_crashing_is_given_up_for_the_week_after_the_attempts_allowed(channel):
    posts = Posts(*(RuntimeError("boom") for _ in range(MAX_ATTEMPTS)))
    at = DUE + timedelta(seconds=5)
    statuses = []
    for attempt in range(MAX_ATTEMPTS):
        moment = at + attempt * (RETRY_AFTER + timedelta(seconds=1))
        statuses += [o.status for o in post_due_recaps(channel, moment, posts, clock=lambda m=moment: m)]
    assert statuses == ["incomplete"] * (MAX_ATTEMPTS - 1) + ["failed"] and posts.recaps == []
    assert post_due_recaps(channel, at + timedelta(hours=1), posts) == []  # that week is over
    assert channel.store.get_recap_post(CHANNEL, "2026-12-04").attempts == MAX_ATTEMPTS
