"""Who is due for a digest now, and when someone's next one comes.

The schedule lives in the people table (``HH:MM`` in the person's timezone, and for a weekly digest its
weekday). A digest is due once the person's time has come on their local day
(:mod:`bot.usecases.digest_due`) and that day's digest has not ended yet, so one missed while nothing
was running is due until that local day ends. A weekly digest is the daily one on its weekday only: it
is keyed by the local date of that day, so it goes out once a week with the daily digest's catch-up and
crash rules (it is due until its day ends; after that the week's is over).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

from bot.errors import BadTime
from bot.state.context import Context
from bot.usecases.digest_due import due_today
from storage import Person

#: A day's digest with one of these statuses has ended: nothing more is sent for that day.
FINAL = frozenset({"sent", "empty", "failed"})
DEFAULT_TIME = "09:00"  # a person's digest time until they choose one
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")


@dataclass(frozen=True)
class Due:
    """A digest to send: whose, for which local day, due since when."""

    user_id: str
    local_date: date
    due_at: datetime


#: Why someone gets no digest now (:attr:`NotDue.why`), and the group each falls in (:attr:`NotDue.kind`):
#: "done" (today's has ended), "later" (due later today, or another day), "off" (digests off or no
#: such person), "broken" (an unreadable time).
WHY_KINDS = {"ended": "done", "due_later": "later", "starts_tomorrow": "later", "weekly": "later",
             "off": "off", "unknown": "off", "broken_time": "broken"}


@dataclass(frozen=True)
class NotDue:
    """Someone who gets no digest now, and why (a key of :data:`WHY_KINDS`), with what the adapters
    need to say it: the person's ``digest_time`` and ``tz``, ``due_at`` (UTC) for "due_later" and
    "starts_tomorrow", ``weekday`` (0 = Monday) for "weekly", ``local_date`` and ``status`` for "ended"."""

    user_id: str
    why: str
    digest_time: str | None = None
    tz: str | None = None
    due_at: datetime | None = None
    weekday: int | None = None
    local_date: date | None = None
    status: str | None = None

    @property
    def kind(self) -> str:
        return WHY_KINDS[self.why]


def due_digests(people: Iterable[Person], statuses: dict[tuple[str, str], str], now: datetime,
                force: bool = False) -> tuple[list[Due], list[NotDue]]:
    """Split people with digests on into those due at ``now`` and the rest (with the reason).

    Due: the local time has come today and today's digest has not ended. A schedule set after that
    day's time starts the next day (setting the current minute counts as in time). ``force`` ignores
    the time of day, never the once-a-day rule. Earliest due first.
    """
    due, not_due = [], []
    for person in people:
        if not person.digest_enabled or not person.digest_time:
            not_due.append(NotDue(person.user_id, "off"))
            continue
        try:
            day, when, past = due_today(person.tz, person.digest_time, now)
        except BadTime:
            not_due.append(NotDue(person.user_id, "broken_time", person.digest_time, person.tz))
            continue
        if person.digest_weekday is not None and day.weekday() != person.digest_weekday:
            not_due.append(NotDue(person.user_id, "weekly", person.digest_time, person.tz,
                                  weekday=person.digest_weekday))
            continue
        status = statuses.get((person.user_id, day.isoformat()))
        if status in FINAL:
            not_due.append(NotDue(person.user_id, "ended", person.digest_time, person.tz, local_date=day,
                                  status=status))
            continue
        if not force:
            if not past:
                not_due.append(NotDue(person.user_id, "due_later", person.digest_time, person.tz, when))
                continue
            since = _since(person.digest_since)
            if since is not None and when < since:
                not_due.append(NotDue(person.user_id, "starts_tomorrow", person.digest_time, person.tz, when))
                continue
        due.append(Due(person.user_id, day, when))
    due.sort(key=lambda d: (d.due_at, d.user_id))
    return due, not_due


def _since(text: str | None) -> datetime | None:
    if not text:
        return None
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return None
    moment = moment if moment.tzinfo else moment.replace(tzinfo=UTC)
    return moment.replace(second=0, microsecond=0)  # the minute it was set in still counts


def find_due(ctx: Context, now: datetime, users: Iterable[str] | None = None,
             force: bool = False) -> tuple[list[Due], list[NotDue]]:
    """:func:`due_digests` over the store (optionally only ``users``)."""
    people = ctx.store.people_with_digests()
    off: list[NotDue] = []
    if users is not None:
        wanted = list(dict.fromkeys(users))
        people = [p for p in people if p.user_id in set(wanted)]
        found = {p.user_id for p in people}
        off = [NotDue(u, "unknown") for u in wanted if u not in found]
    # Local days run from UTC-12 to UTC+14: every day that can be "today" somewhere.
    statuses = ctx.store.digest_statuses((now.astimezone(UTC).date() - timedelta(days=1)).isoformat())
    due, not_due = due_digests(people, statuses, now, force)
    return due, off + not_due


def next_digest(ctx: Context, user_id: str, now: datetime) -> date | None:
    """The local day of the person's next digest (today or tomorrow; for a weekly one, within a week),
    or None when digests are off."""
    person = ctx.store.get_person(user_id)
    if person is None or not person.digest_enabled or not person.digest_time:
        return None
    day, when, past = due_today(person.tz, person.digest_time, now)
    step = 1 if person.digest_weekday is None else 7
    if step == 7 and day.weekday() != person.digest_weekday:
        return day + timedelta(days=(person.digest_weekday - day.weekday()) % 7)
    today = ctx.store.get_digest(user_id, day.isoformat())
    since = _since(person.digest_since)
    if (today is not None and today.status in FINAL) or (past and since is not None and when < since):
        return day + timedelta(days=step)
    return day


def set_digest_time(ctx: Context, user_id: str, hhmm: str) -> None:
    """Daily digests on, at ``hhmm`` (already parsed) in the person's timezone, starting from now."""
    with ctx.store.transaction():
        ctx.store.set_digest_schedule(user_id, hhmm, True)
        ctx.store.set_digest_weekday(user_id, None)


def weekday_name(weekday: int) -> str:
    """"Monday" for 0, … "Sunday" for 6."""
    return WEEKDAYS[weekday].capitalize()


def set_weekly(ctx: Context, user_id: str, weekday: int, hhmm: str) -> None:
    """Weekly digests on ``weekday`` (0 = Monday) at ``hhmm``, in place of daily ones, from now."""
    with ctx.store.transaction():
        ctx.store.lock_person(user_id)
        ctx.store.set_digest_schedule(user_id, hhmm, True)
        ctx.store.set_digest_weekday(user_id, weekday)


def set_daily(ctx: Context, user_id: str, hhmm: str | None) -> str:
    """Daily digests again, at ``hhmm`` (None: the time already set, else 09:00); returns the time."""
    with ctx.store.transaction():
        ctx.store.lock_person(user_id)  # the time read is the time kept
        person = ctx.store.get_person(user_id)
        hhmm = hhmm or (person.digest_time if person else None) or DEFAULT_TIME
        ctx.store.set_digest_schedule(user_id, hhmm, True)
        ctx.store.set_digest_weekday(user_id, None)
    return hhmm


def stop_digests(ctx: Context, user_id: str) -> bool:
    """Daily digests off, keeping the time for when they are turned on again. Someone paperbot does
    not know has no digests to stop: nothing is stored for them (False)."""
    with ctx.store.transaction():
        ctx.store.lock_person(user_id)  # a new time set meanwhile is not overwritten with the old one
        person = ctx.store.get_person(user_id)
        if person is None:
            return False
        ctx.store.set_digest_schedule(user_id, person.digest_time, False)
    return True
