"""Reading-group polls: a channel that follows topics votes on which of its best papers to read next.

A poll is the channel's N best papers it was never shown (2 to 6, chosen as its digest chooses them,
through :mod:`bot.usecases.picking`), posted as one message with a Vote button each. Everyone in the
channel has one vote, which they may change; the message shows the counts as the database has them.
Closing it picks the winner: most votes, a tie going to the better-ranked paper; when nobody voted,
the first-ranked paper. A channel has at most one open poll, and a poll is closed once: the store
decides both (:mod:`storage.polls`), whichever process asks.

Posting is the caller's (a ``post(poll) -> message ts`` function): the use cases return data.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import Literal

from bot.errors import OutOfRange
from bot.state.context import Context
from bot.usecases.digests.choose import choose_papers
from bot.usecases.picking import Recommendation, local_today
from bot.usecases.recommend import remember_shown
from storage.moments import iso_utc
from storage.polls import PollRecord

MIN_PAPERS, MAX_PAPERS, DEFAULT_PAPERS = 2, 6, 4
#: An open poll still without a message this long after it was opened was never posted (whoever opened it
#: stopped before Slack had it): it no longer keeps the channel from opening one.
UNPOSTED = timedelta(minutes=10)


@dataclass(frozen=True)
class Choice:
    """One paper of a poll, in rank order, and how many people voted for it."""

    rec: Recommendation
    votes: int


@dataclass(frozen=True)
class Poll:
    """A poll as its message shows it: its papers in rank order with their counts (as of ``version``),
    whether it is open, and once closed its winner's paper id."""

    poll_id: str
    channel_id: str
    message_ts: str | None
    is_open: bool
    choices: list[Choice]
    version: int
    opened_at: str | None = None
    winner: str | None = None

    @property
    def total(self) -> int:
        """Votes cast, one a person."""
        return sum(c.votes for c in self.choices)

    def choice(self, paper_id: str | None) -> Choice | None:
        """The choice of this paper, or None."""
        return next((c for c in self.choices if c.rec.paper.id == paper_id), None)


@dataclass(frozen=True)
class Opened:
    """What asking for a poll did: ``opened`` (``poll`` is the new one, posted), ``busy`` (the channel
    has an open poll: ``poll``), or ``too-few`` (only ``found`` papers to offer, fewer than two)."""

    status: Literal["opened", "busy", "too-few"]
    poll: Poll | None = None
    found: int = 0


@dataclass(frozen=True)
class Voted:
    """What a vote did: ``voted`` (``poll`` as it is now, ``before``: the paper the person had voted
    for, if any), ``closed`` (nothing stored) or ``unknown`` (no such poll, or not that paper)."""

    status: Literal["voted", "closed", "unknown"]
    poll: Poll | None = None
    paper_id: str | None = None
    before: str | None = None


@dataclass(frozen=True)
class Closed:
    """A poll just closed: as it ended, its winner (None when none of its papers is stored any more),
    and whether anybody voted (else the winner is its first-ranked paper)."""

    poll: Poll
    winner: Choice | None

    @property
    def nobody_voted(self) -> bool:
        return self.poll.total == 0


def check_size(n: int) -> int:
    """``n`` papers, if a poll may have that many; else BadArgument saying how many it may."""
    if not MIN_PAPERS <= n <= MAX_PAPERS:
        raise OutOfRange("poll", MIN_PAPERS, MAX_PAPERS, n)
    return n


def open_poll(ctx: Context, channel_id: str, n: int, post: Callable[[Poll], str],
              now: datetime | None = None) -> Opened:
    """Post a poll of the channel's ``n`` best papers it was never shown, unless it has one open, and
    record them as shown in the channel (the next poll or digest offers others). ``post(poll)`` posts
    its message and returns its ts; when it raises, nothing is kept (the poll is dropped) and the error
    goes on. Raises NoInterests for a channel that follows nothing, NoPapers before any paper."""
    check_size(n)
    now = now or datetime.now(UTC)
    existing = ctx.store.open_poll(channel_id)
    if existing is not None and _unposted(existing, now):
        ctx.store.drop_poll(existing.poll_id)
        existing = None
    if existing is not None:
        return Opened("busy", poll_of(ctx, existing))
    recs = choose_papers(ctx, channel_id, n, today=local_today(ctx, channel_id, now))[:n]
    if len(recs) < MIN_PAPERS:
        return Opened("too-few", found=len(recs))
    at = iso_utc(now)
    poll_id = ctx.store.start_poll(channel_id, [r.paper.id for r in recs], at)
    if poll_id is None:  # opened elsewhere meanwhile
        existing = ctx.store.open_poll(channel_id)
        return Opened("busy", poll_of(ctx, existing) if existing else None)
    poll = Poll(poll_id, channel_id, None, True, [Choice(r, 0) for r in recs], 0, at)
    try:
        message_ts = post(poll)
    except BaseException:
        ctx.store.drop_poll(poll_id)  # a poll nobody can see would keep the channel from opening one
        raise
    ctx.store.set_poll_message(poll_id, message_ts)
    for rec in recs:  # shown in the channel, but as no paper message of its own (reactions on it mean none)
        remember_shown(ctx, channel_id, rec, channel=channel_id)
    return Opened("opened", replace(poll, message_ts=message_ts))


def _unposted(record: PollRecord, now: datetime) -> bool:
    """Whether an open poll was never posted (see :data:`UNPOSTED`)."""
    if record.message_ts is not None or not record.opened_at:
        return False
    opened = datetime.fromisoformat(record.opened_at)
    return now - (opened if opened.tzinfo else opened.replace(tzinfo=UTC)) > UNPOSTED


def poll_of(ctx: Context, record: PollRecord) -> Poll:
    """A stored poll with its papers (those still stored), why each was picked, and the counts the
    database has now."""
    version, counts = ctx.store.poll_counts(record.poll_id)
    papers = ctx.store.get_papers(record.papers)
    choices = []
    for paper_id in record.papers:
        paper = papers.get(paper_id)
        if paper is not None:
            reason = ctx.store.shown_reason(record.channel_id, paper.id) or ""
            choices.append(Choice(Recommendation(paper, 0.0, reason), counts.get(paper_id, 0)))
    return Poll(record.poll_id, record.channel_id, record.message_ts, record.status == "open", choices,
                version, record.opened_at, record.winner)


def find_poll(ctx: Context, poll_id: str) -> Poll | None:
    """A poll of this workspace as its message should show it now, or None."""
    record = ctx.store.get_poll(poll_id)
    return poll_of(ctx, record) if record is not None else None


def poll_version(ctx: Context, poll_id: str) -> int:
    """How many votes were cast in a poll so far: a message showing an older version is out of date."""
    return ctx.store.poll_counts(poll_id)[0]


def vote(ctx: Context, channel_id: str, poll_id: str, user_id: str, paper_id: str,
         now: datetime | None = None, message_ts: str | None = None) -> Voted:
    """Record a person's vote for a paper of an open poll of this channel (theirs replaced, if they had
    one); nothing is stored for a closed poll, nor for a poll or paper that isn't one. ``message_ts``:
    the message the vote was cast on, kept for a poll whose opener stopped before recording it."""
    record = ctx.store.get_poll(poll_id)
    if record is None or record.channel_id != channel_id or paper_id not in record.papers:
        return Voted("unknown")
    if record.message_ts is None and message_ts:
        ctx.store.set_poll_message(poll_id, message_ts)
    if record.status != "open":
        return Voted("closed", poll_of(ctx, record))
    with ctx.store.transaction():
        ctx.store.lock_person(user_id)  # a forget of the voter is wholly before or after
        before = ctx.store.poll_vote(poll_id, user_id)
        counted = ctx.store.vote_in_poll(poll_id, user_id, paper_id, iso_utc(now or datetime.now(UTC)))
    if not counted:  # closed meanwhile
        return Voted("closed", find_poll(ctx, poll_id))
    return Voted("voted", find_poll(ctx, poll_id), paper_id, before)


def winner_of(poll: Poll) -> Choice | None:
    """The paper with most votes, a tie going to the better-ranked; with no votes, the first-ranked."""
    if not poll.choices:
        return None
    best = max(range(len(poll.choices)), key=lambda i: (poll.choices[i].votes, -i))
    return poll.choices[best]


def close_poll(ctx: Context, channel_id: str, now: datetime | None = None) -> Closed | None:
    """Close the channel's open poll and record its winner; None when no poll is open there (a second
    close, at the same moment or later, gets None)."""
    record = ctx.store.close_poll(channel_id, iso_utc(now or datetime.now(UTC)))
    if record is None:
        return None
    poll = poll_of(ctx, record)  # read after the close: no vote can come in any more
    winner = winner_of(poll)
    if winner is not None:
        ctx.store.set_poll_winner(poll.poll_id, winner.rec.paper.id)
        poll = replace(poll, winner=winner.rec.paper.id)
    return Closed(poll, winner)


def winner_posted(ctx: Context, closed: Closed, message_ts: str) -> None:
    """The winner went out as this message in the channel: its reactions and buttons then count for the
    channel, as a digest paper's do."""
    if closed.winner is None:
        return
    rec = closed.winner.rec
    ctx.store.set_poll_winner(closed.poll.poll_id, rec.paper.id, message_ts)
    remember_shown(ctx, closed.poll.channel_id, rec, channel=closed.poll.channel_id, message_ts=message_ts)
