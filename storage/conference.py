"""Conference plans (issue 43) on either backend: where and when papers are presented (``paper_sessions``,
shared by every workspace as the papers are), each person's plan for a venue with Going or Skip per paper
(``conference_plans``), and the reminders of Going papers' sessions (``conference_reminders``).

What must happen once is the database's: a reminder is a row claimed (insert … on conflict do nothing)
before it is sent, so of two processes at once one sends it. Statements use qmark placeholders, run
through the store's dialect, and filter or write the view's workspace ``self._ws`` (sessions and venues
excepted: they are the papers').
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from storage.dialect import Shared
from storage.models import PaperSession
from storage.moments import utcnow, utcnow_micro

#: What a person chose for a paper of their plan.
Choice = Literal["going", "skip"]

SET_SESSION = ("insert into paper_sessions (paper_id, session, starts_at, location) values (?, ?, ?, ?)"
               " on conflict (paper_id) do update set session = excluded.session,"
               " starts_at = excluded.starts_at, location = excluded.location")
VENUES = ("select venue, count(*) from papers where venue is not null and venue <> ''"
          " group by venue order by count(*) desc, venue")
VENUE_PAPERS = "select id from papers where venue = ? order by id"
ADD_PLANNED = ("insert into conference_plans (ws, user_id, venue, paper_id, place, added_at)"
               " values (?, ?, ?, ?, ?, ?) on conflict (ws, user_id, venue, paper_id) do nothing")
PLAN = ("select paper_id, place, choice from conference_plans where ws = ? and user_id = ? and venue = ?"
        " order by place, paper_id")
CHOOSE = ("update conference_plans set choice = ?, decided_at = ? where ws = ? and user_id = ? and venue = ?"
          " and paper_id = ?")
#: Going papers whose session starts in (after, until]: one row per person and paper, whatever their plans.
GOING_BETWEEN = ("select distinct p.user_id, p.paper_id, s.starts_at, s.session, s.location"
                 " from conference_plans p join paper_sessions s on s.paper_id = p.paper_id"
                 " where p.ws = ? and p.choice = 'going' and s.starts_at > ? and s.starts_at <= ?"
                 " order by s.starts_at, p.user_id, p.paper_id")
CLAIM = ("insert into conference_reminders (ws, user_id, paper_id, starts_at, claimed_at)"
         " values (?, ?, ?, ?, ?) on conflict (ws, user_id, paper_id, starts_at) do nothing")
#: A claim given back: the reminder Slack did not take is claimed again at the next tick.
RELEASE = ("delete from conference_reminders where ws = ? and user_id = ? and paper_id = ? and starts_at = ?"
           " and claimed_at = ?")


@dataclass(frozen=True)
class Planned:
    """A paper of a person's plan: its rank in the plan, and what they chose (None: not yet)."""

    paper_id: str
    place: int
    choice: Choice | None


@dataclass(frozen=True)
class DueReminder:
    """A Going paper of a person whose session starts soon."""

    user_id: str
    paper_id: str
    session: PaperSession


class ConferenceStore(Protocol):
    """Sessions of papers, people's conference plans and their reminders (issue 43)."""

    def set_paper_sessions(self, sessions: Iterable[tuple[str, PaperSession]]) -> int:
        """Store where and when each paper (by id) is presented, replacing what was stored; how many."""
        ...

    def paper_sessions(self, paper_ids: Iterable[str]) -> dict[str, PaperSession]:
        """The sessions of those papers that have one, by id."""
        ...

    def venues(self) -> list[tuple[str, int]]:
        """Every venue the papers name, with how many papers each, the biggest first."""
        ...

    def venue_paper_ids(self, venue: str) -> list[str]:
        """The ids of the papers of a venue, named exactly as stored."""
        ...

    def add_to_plan(self, user_id: str, venue: str, paper_ids: Sequence[str], first_place: int = 0) -> int:
        """Add papers to a person's plan for ``venue``, ranked from ``first_place`` on, no choice made;
        a paper already in it stays as it is. How many were added."""
        ...

    def plan(self, user_id: str, venue: str) -> list[Planned]:
        """A person's plan for ``venue``, in rank order (empty when they have none)."""
        ...

    def choose_in_plan(self, user_id: str, venue: str, paper_id: str, choice: Choice) -> bool:
        """Record Going or Skip for a paper of a person's plan; False when it is not in the plan."""
        ...

    def going_between(self, after: str, until: str) -> list[DueReminder]:
        """The Going papers of this workspace's people whose sessions start after ``after`` and at the
        latest ``until`` (ISO UTC), soonest first, one per person and paper."""
        ...

    def claim_reminder(self, user_id: str, paper_id: str, starts_at: str) -> str | None:
        """Claim the one reminder of a person's Going paper starting at ``starts_at``: the claim (its moment)
        for the one caller that gets it (the database decides), None while it is claimed."""
        ...

    def release_reminder(self, user_id: str, paper_id: str, starts_at: str, claim: str) -> None:
        """Give back the claim ``claim`` of a reminder that could not be sent, so it is claimed again."""
        ...


class Conference(Shared):
    """Conference plans of one workspace's people, and the papers' sessions (see the module)."""

    def set_paper_sessions(self, sessions: Iterable[tuple[str, PaperSession]]) -> int:
        count = 0
        with self.transaction():
            for paper_id, s in sessions:
                count += self._sql.run(SET_SESSION, [paper_id, s.session, s.starts_at, s.location]) > 0
        return count

    def paper_sessions(self, paper_ids: Iterable[str]) -> dict[str, PaperSession]:
        ids = list(dict.fromkeys(paper_ids))
        if not ids:
            return {}
        listed, args = self._sql.listed(ids)
        rows = self._sql.all(f"select s.paper_id, s.session, s.starts_at, s.location from {listed}"  # noqa: S608
                             " join paper_sessions s on s.paper_id = c.id", args)
        return {pid: PaperSession(session, starts, where) for pid, session, starts, where in rows}

    def venues(self) -> list[tuple[str, int]]:
        return [(venue, int(n)) for venue, n in self._sql.all(VENUES)]

    def venue_paper_ids(self, venue: str) -> list[str]:
        return [row[0] for row in self._sql.all(VENUE_PAPERS, [venue])]

    def add_to_plan(self, user_id: str, venue: str, paper_ids: Sequence[str], first_place: int = 0) -> int:
        at = utcnow()
        added = 0
        with self.transaction():
            for place, paper_id in enumerate(paper_ids, start=first_place):
                added += self._sql.run(ADD_PLANNED, [self._ws, user_id, venue, paper_id, place, at]) > 0
        return added

    def plan(self, user_id: str, venue: str) -> list[Planned]:
        return [Planned(pid, int(place), choice)
                for pid, place, choice in self._sql.all(PLAN, [self._ws, user_id, venue])]

    def choose_in_plan(self, user_id: str, venue: str, paper_id: str, choice: Choice) -> bool:
        return self._sql.run(CHOOSE, [choice, utcnow(), self._ws, user_id, venue, paper_id]) > 0

    def going_between(self, after: str, until: str) -> list[DueReminder]:
        rows = self._sql.all(GOING_BETWEEN, [self._ws, after, until])
        return [DueReminder(user, pid, PaperSession(session, starts, where))
                for user, pid, starts, session, where in rows]

    def claim_reminder(self, user_id: str, paper_id: str, starts_at: str) -> str | None:
        claim = utcnow_micro()
        return claim if self._sql.run(CLAIM, [self._ws, user_id, paper_id, starts_at, claim]) > 0 else None

    def release_reminder(self, user_id: str, paper_id: str, starts_at: str, claim: str) -> None:
        self._sql.run(RELEASE, [self._ws, user_id, paper_id, starts_at, claim])
