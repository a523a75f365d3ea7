"""Trending: a workspace's most-liked papers of the past week, posted in the channels that asked.

A save counts as a save, not a like: papers rank by their likes, then by their saves (a person who
both liked and saved a paper counts once, by the like).

The weekly post is due every Monday at 09:00 UTC. Each channel's post for a week is a lease
(:data:`storage.leases.TRENDING`, keyed by the channel and that Monday's date): taken by one
compare-and-set, so of every process sharing the database exactly one posts it, once. Until it ends it
may be caught up all that week (the bot was down on Monday); a post for a channel turned on after that
Monday's 09:00 starts the next week.

How each ending is decided:

* posted (or "empty": nobody liked anything, and a short post said so): done for the week;
* the bot is not in the channel, or the channel is gone (:class:`~bot.errors.Unreachable`): "failed"
  for the week, logged; inviting the bot brings next week's (``trending now`` posts at once);
* Slack down (:class:`~bot.errors.Outage`): given back, tried again after a short wait;
* any other failure: given back and counted; after a few attempts, "failed" for the week.

Those rules are :func:`bot.usecases.weekly_posts.post_once`'s, which the weekly recap
(:mod:`bot.usecases.recap`) goes through too.

Counts are of people (a channel's own feedback is nobody's), in this workspace only, never who.
Slack-free: the caller passes a :data:`Poster`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import Literal

from bot.state.context import Context
from bot.state.owner import owner_alive, owner_id
from bot.usecases.digest_vocabulary import Alive, Clock, Note, utc_now
from bot.usecases.weekly_posts import WeeklyLease, each_channel, post_once
from storage import Paper
from storage.leases import TRENDING
from storage.moments import iso_utc

log = logging.getLogger(__name__)

DAYS = 7  # the likes counted: those of the past week
SIZE = 10  # papers in a trending post
DUE_WEEKDAY, DUE_TIME = 0, time(9, 0)  # Monday 09:00 UTC


@dataclass(frozen=True)
class TrendingPaper:
    """A paper and how many people in the workspace liked it in the past week, and how many saved it
    without liking (or disliking) it."""

    paper: Paper
    likes: int
    saves: int = 0


#: Posts a trending message into a channel: ``poster(channel, papers) -> message ts``; papers may be
#: empty (nothing was liked). Raises Unreachable (not in the channel), Outage (Slack down), or any
#: other exception for a failed post.
Poster = Callable[[str, list[TrendingPaper]], str]


#: What became of one channel's weekly post (see :class:`TrendingOutcome`).
TrendingOutcomeStatus = Literal["posted", "empty", "failed", "incomplete"]


@dataclass(frozen=True)
class TrendingOutcome:
    """What became of one channel's weekly post: "posted", "empty", "failed", or "incomplete"
    (given back to be tried again); ``note``: why, as a digest's is told."""

    channel_id: str
    week: date
    status: TrendingOutcomeStatus
    note: Note | None = None


def trending_papers(ctx: Context, now: datetime, size: int = SIZE) -> list[TrendingPaper]:
    """The papers people in this workspace liked most in the :data:`DAYS` before ``now``, then those
    they saved most."""
    counts = ctx.store.liked_or_saved_since(iso_utc(now - timedelta(days=DAYS)), size)
    papers = ctx.store.get_papers([pid for pid, _, _ in counts])
    return [TrendingPaper(papers[pid], likes, saves) for pid, likes, saves in counts if pid in papers]


def week_of(now: datetime) -> date:
    """The Monday (UTC) of the week ``now`` is in: what a week's post is keyed by."""
    today = now.astimezone(UTC).date()
    return today - timedelta(days=(today.weekday() - DUE_WEEKDAY) % 7)


def due_at(week: date) -> datetime:
    """When the trending post of ``week`` is due: that Monday at 09:00 UTC."""
    return datetime.combine(week, DUE_TIME, tzinfo=UTC)


def post_due_trending(ctx: Context, now: datetime, poster: Poster, owner: str | None = None,
                      clock: Clock = utc_now, alive: Alive = owner_alive) -> list[TrendingOutcome]:
    """Post every trending post due at ``now`` in this workspace, each once a week (see the module).
    Before a week's due time this asks the database nothing."""
    week = week_of(now)
    due = due_at(week)
    if now < due:
        return []
    owner = owner or owner_id()
    channels = ctx.store.trending_channels(week.isoformat(), iso_utc(due))
    return each_channel("trending post", ((channel, week) for channel in channels),
                        lambda channel, week: _post_one(ctx, channel, week, now, poster, owner, clock, alive),
                        lambda channel, week, note: TrendingOutcome(channel, week, "incomplete", note))


def _post_one(ctx: Context, channel: str, week: date, now: datetime, poster: Poster, owner: str,
              clock: Clock, alive: Alive) -> TrendingOutcome | None:
    store, key = ctx.store, (channel, week.isoformat())

    def holder() -> str | None:
        record = store.get_trending_post(*key)
        return record.owner if record else None

    def send() -> tuple[str, bool]:
        papers = trending_papers(ctx, now)
        return poster(channel, papers), not papers

    lease = WeeklyLease(TRENDING, key, holder, lambda who, ts: store.record_trending_message(*key, who, ts))
    ended = post_once(ctx, lease, now, send, owner, clock, alive, "trending post")
    return TrendingOutcome(channel, week, ended.status, ended.note) if ended else None
