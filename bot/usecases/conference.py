"""Conference plans (issue 43): a person's best papers of a venue paperbot holds, Going or Skip on each, a
reminder before each Going paper's session, and a channel's papers of a venue that several of its members
would want.

A venue is asked for by any part of its name, case ignored ("icml 2025" is "ICML 2025 poster" and "ICML
2025 oral"). The papers are picked by the one pipeline (:func:`bot.usecases.recommend.recommend`, the
venue's papers its only candidates); a plan is kept per person and venue (``conference_plans``), so asking
again shows the same papers with what was chosen, topped up to :data:`PLAN_SIZE`. Where the records carry
sessions (``paper_sessions``), the plan is in the order they start; each Going paper's reminder is claimed
once in the database before it is sent (:func:`send_reminders`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from bot.errors import Missing, NoInterests, UnknownVenue
from bot.state.context import Context
from bot.usecases.picking import Recommendation
from bot.usecases.recommend import recommend
from bot.usecases.social import social_counts_on
from storage import Paper
from storage.conference import Choice
from storage.models import PaperSession
from storage.moments import iso_utc

#: The papers of a plan.
PLAN_SIZE = 15
#: How long before a Going paper's session its reminder comes.
REMIND_BEFORE = timedelta(minutes=15)
#: Venues an unknown venue's answer names, at most.
KNOWN_SHOWN = 4
#: A channel's paper is one at least this many of its opted-in members would want.
SEVERAL = 2
#: A channel's papers, at most.
CHANNEL_SIZE = 10
CHOICES: tuple[Choice, ...] = ("going", "skip")


@dataclass(frozen=True)
class Venue:
    """A venue as asked for (``key``: the words, lower case, the plan's key) and the held venue names it
    matched."""

    key: str
    names: tuple[str, ...]


@dataclass
class PlanEntry:
    """A paper of a plan: why it is there (the reason its pick gave; "" for a paper kept from before that
    no longer ranks), what the person chose, and its session when the records carry one."""

    paper: Paper
    reason: str
    choice: Choice | None = None
    session: PaperSession | None = None


@dataclass
class Plan:
    """A person's plan for a venue: its papers, in the order their sessions start when ``timed`` (those
    without a start last), else best first."""

    venue: Venue
    entries: list[PlanEntry]
    timed: bool
    tz: str | None = None  # the person's timezone, for the times shown


@dataclass(frozen=True)
class Reminder:
    """A Going paper whose session starts soon, for one person."""

    user_id: str
    paper: Paper
    session: PaperSession
    tz: str | None = None  # the person's timezone, for the time shown


@dataclass
class Wanted:
    """A venue's paper several of a channel's opted-in members would want: how many, and who only when
    the workspace shows who (its social setting on). No reason: one member's would tell what they like."""

    paper: Paper
    count: int
    who: list[str] | None = None


@dataclass
class ChannelPlan:
    """A channel's papers of a venue, the most wanted first; ``asked``: how many opted-in members were
    asked (those with interests)."""

    venue: Venue
    papers: list[Wanted]
    asked: int


def venue_key(asked: str) -> str:
    """How a venue asked for is kept: its words, lower case."""
    return " ".join(asked.split()).lower()


def find_venue(ctx: Context, asked: str) -> Venue:
    """The held venues whose names hold ``asked`` (case and spacing ignored); :class:`UnknownVenue` with
    a few held venues when none does, :class:`Missing` when nothing was asked."""
    key = venue_key(asked)
    if not key:
        raise Missing("conference")
    held = ctx.store.venues()
    names = tuple(name for name, _ in held if key in venue_key(name))
    if not names:
        raise UnknownVenue(" ".join(asked.split()), tuple(name for name, _ in held[:KNOWN_SHOWN]))
    return Venue(key, names)


def venue_papers(ctx: Context, venue: Venue) -> set[str]:
    """The ids of a venue's papers."""
    return {pid for name in venue.names for pid in ctx.store.venue_paper_ids(name)}


def best_of_venue(ctx: Context, user_id: str, venue: Venue, n: int = PLAN_SIZE,
                  now: datetime | None = None, leave: Iterable[str] = ()) -> list[Recommendation]:
    """A person's ``n`` best papers of a venue (none of ``leave``), by the one picking pipeline."""
    candidates = venue_papers(ctx, venue) - set(leave)
    if not candidates or n <= 0:
        return []
    return recommend(ctx, user_id, n, remember=False, now=now, candidates=candidates)


def plan_for(ctx: Context, user_id: str, asked: str, now: datetime | None = None) -> Plan:
    """A person's plan for a venue: the papers kept from before, with what they chose, topped up with
    their best others of the venue to :data:`PLAN_SIZE`; :class:`NoInterests` for someone who follows
    nothing and has no plan there yet."""
    venue = find_venue(ctx, asked)
    kept = ctx.store.plan(user_id, venue.key)
    try:
        picks = best_of_venue(ctx, user_id, venue, PLAN_SIZE, now)
    except NoInterests:
        if not kept:
            raise
        picks = []
    planned = {p.paper_id for p in kept}
    more = [r for r in picks if r.paper.id not in planned][: max(PLAN_SIZE - len(kept), 0)]
    if more:
        ctx.store.add_to_plan(user_id, venue.key, [r.paper.id for r in more],
                              first_place=max((p.place for p in kept), default=-1) + 1)
    return _plan(ctx, user_id, venue, {r.paper.id: r.reason for r in picks})


def choose(ctx: Context, user_id: str, venue_asked: str, paper_id: str, choice: str) -> Plan | None:
    """Record Going or Skip for a paper of a person's plan for a venue (as its key); the plan as it is
    now, or None when the paper is not in their plan (a forgotten person's old message)."""
    if choice not in CHOICES:
        raise ValueError(f"not a choice: {choice!r}")
    key = venue_key(venue_asked)
    if not ctx.store.choose_in_plan(user_id, key, paper_id, choice):
        return None
    names = tuple(name for name, _ in ctx.store.venues() if key in venue_key(name))
    return _plan(ctx, user_id, Venue(key, names), {})


def _plan(ctx: Context, user_id: str, venue: Venue, reasons: dict[str, str]) -> Plan:
    rows = ctx.store.plan(user_id, venue.key)
    papers = ctx.store.get_papers([r.paper_id for r in rows])
    sessions = ctx.store.paper_sessions(papers[r.paper_id].id for r in rows if r.paper_id in papers)
    entries = []
    for row in rows:
        paper = papers.get(row.paper_id)
        if paper is not None:
            entries.append(PlanEntry(paper, reasons.get(paper.id, ""), row.choice, sessions.get(paper.id)))
    timed = any(e.session is not None and e.session.starts_at for e in entries)
    if timed:  # stable: papers of one session stay best first
        entries.sort(key=lambda e: (e.session is None or not e.session.starts_at,
                                    e.session.starts_at if e.session else ""))
    person = ctx.store.get_person(user_id)
    return Plan(venue, entries, timed, person.tz if person else None)


def send_reminders(ctx: Context, now: datetime, post: Callable[[Reminder], bool]) -> int:
    """Remind each person of their Going papers whose sessions start within :data:`REMIND_BEFORE` of
    ``now``: each reminder claimed once in the database before ``post`` sends it; one ``post`` could not
    send (False: Slack refused it or could not be reached) is given back, and claimed again at a later
    call until its session starts. How many were sent."""
    now = now.astimezone(UTC)
    due = ctx.store.going_between(iso_utc(now), iso_utc(now + REMIND_BEFORE))
    papers = ctx.store.get_papers(d.paper_id for d in due)
    sent = 0
    for item in due:
        paper = papers.get(item.paper_id)
        if paper is None or item.session.starts_at is None:
            continue
        claim = ctx.store.claim_reminder(item.user_id, item.paper_id, item.session.starts_at)
        if claim is None:
            continue
        person = ctx.store.get_person(item.user_id)
        if post(Reminder(item.user_id, paper, item.session, person.tz if person else None)):
            sent += 1
        else:
            ctx.store.release_reminder(item.user_id, item.paper_id, item.session.starts_at, claim)
    return sent


def channel_plan(ctx: Context, asked: str, members: Iterable[str],
                 now: datetime | None = None) -> ChannelPlan:
    """A venue's papers that at least :data:`SEVERAL` of ``members`` (a channel's) who opted in to
    suggestions (``/papers suggest on``) would want: each one's best :data:`PLAN_SIZE` of the venue,
    counted; the most wanted first, at most :data:`CHANNEL_SIZE`. Who wants each is said only in a
    workspace that shows who (:func:`bot.usecases.social.social_counts_on`)."""
    venue = find_venue(ctx, asked)
    members = set(members)
    opted = [p.user_id for p in ctx.store.list_people() if p.suggest and p.user_id in members]
    counts: Counter[str] = Counter()
    wanters: dict[str, list[str]] = {}
    first: dict[str, Recommendation] = {}
    asked_n = 0
    for user_id in sorted(opted):
        try:
            picks = best_of_venue(ctx, user_id, venue, PLAN_SIZE, now)
        except NoInterests:
            continue
        asked_n += 1
        for rec in picks:
            counts[rec.paper.id] += 1
            wanters.setdefault(rec.paper.id, []).append(user_id)
            first.setdefault(rec.paper.id, rec)
    order = sorted((pid for pid, n in counts.items() if n >= SEVERAL), key=lambda pid: (-counts[pid], pid))
    show_who = social_counts_on(ctx)
    papers = [Wanted(first[pid].paper, counts[pid], wanters[pid] if show_who else None)
              for pid in order[:CHANNEL_SIZE]]
    return ChannelPlan(venue, papers, asked_n)
