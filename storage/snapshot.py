"""One person's rows as ranking reads them, fetched together.

Choosing a digest reads a person's schedule, topics, feedback, named feeds, followed authors, muted
words, alerts, and what they were shown, saved and had picked for which feed: on PostgreSQL that was ten round
trips a person. :meth:`Snapshots.person_view` reads them at once (one statement on PostgreSQL) and hands
back a :class:`PersonView`: the store, with those reads of that person answered from the snapshot.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from storage.models import Feedback, Person, SharedPaper

#: A person's muted words (kind 0), alerts (kind 1) and shared papers (kind 2) in one read, each in the order
#: of its own method (the shares' reversed: newest first): what a snapshot read one table at a time (SQLite)
#: reads of the three.
LISTS = ("select 0, word, '', added_at from mutes where ws = ? and user_id = ?"
         " union all select 1, key, phrase, added_at from alerts where ws = ? and user_id = ?"
         " union all select 2, paper_id, '', shared_at from shares where ws = ? and user_id = ?"
         " order by 1, 4, 2")


@dataclass(frozen=True)
class PersonSnapshot:
    """Everything :class:`PersonView` answers from, as the store's own methods return it."""

    user_id: str
    person: Person | None
    topics: list[str] = field(default_factory=list)
    feedback: list[Feedback] = field(default_factory=list)
    feeds: dict[str, list[str]] = field(default_factory=dict)
    followed_authors: list[tuple[str, str]] = field(default_factory=list)
    mutes: list[str] = field(default_factory=list)
    shown: frozenset[str] = frozenset()
    saved: frozenset[str] = frozenset()
    paper_feeds: dict[str, str] = field(default_factory=dict)
    alerts: list[tuple[str, str]] = field(default_factory=list)
    shares: list[SharedPaper] = field(default_factory=list)


class PersonView:
    """A store whose reads of one person come from a :class:`PersonSnapshot`; everything else (other
    people, papers, every write) goes to the store itself.

    Read-only by intent: it is for choosing papers, which reads a person once and writes nothing of
    them. A write through it reaches the store but leaves the snapshot as it was.
    """

    def __init__(self, store: Any, snapshot: PersonSnapshot):
        self._store = store
        self.snapshot = snapshot

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)

    def _mine(self, user_id: str) -> bool:
        return user_id == self.snapshot.user_id

    def get_person(self, user_id: str) -> Person | None:
        """As :meth:`storage.Store.get_person`."""
        return self.snapshot.person if self._mine(user_id) else self._store.get_person(user_id)

    def get_topics(self, user_id: str) -> list[str]:
        """As :meth:`storage.Store.get_topics`."""
        return list(self.snapshot.topics) if self._mine(user_id) else self._store.get_topics(user_id)

    def get_feedback(self, user_id: str) -> list[Feedback]:
        """As :meth:`storage.Store.get_feedback`."""
        return list(self.snapshot.feedback) if self._mine(user_id) else self._store.get_feedback(user_id)

    def get_feeds(self, user_id: str) -> dict[str, list[str]]:
        """As :meth:`storage.Store.get_feeds`."""
        if not self._mine(user_id):
            return self._store.get_feeds(user_id)
        return {feed: list(topics) for feed, topics in self.snapshot.feeds.items()}

    def get_followed_authors(self, user_id: str) -> list[tuple[str, str]]:
        """As :meth:`storage.Store.get_followed_authors`."""
        if not self._mine(user_id):
            return self._store.get_followed_authors(user_id)
        return list(self.snapshot.followed_authors)

    def get_mutes(self, user_id: str) -> list[str]:
        """As :meth:`storage.Store.get_mutes`."""
        return list(self.snapshot.mutes) if self._mine(user_id) else self._store.get_mutes(user_id)

    def shown_paper_ids(self, user_id: str) -> set[str]:
        """As :meth:`storage.Store.shown_paper_ids`."""
        return set(self.snapshot.shown) if self._mine(user_id) else self._store.shown_paper_ids(user_id)

    def saved_paper_ids(self, user_id: str) -> set[str]:
        """As :meth:`storage.Store.saved_paper_ids`."""
        return set(self.snapshot.saved) if self._mine(user_id) else self._store.saved_paper_ids(user_id)

    def paper_feeds(self, user_id: str) -> dict[str, str]:
        """As :meth:`storage.Store.paper_feeds`."""
        return dict(self.snapshot.paper_feeds) if self._mine(user_id) else self._store.paper_feeds(user_id)

    def get_alerts(self, user_id: str) -> list[tuple[str, str]]:
        """As :meth:`storage.Store.get_alerts`."""
        return list(self.snapshot.alerts) if self._mine(user_id) else self._store.get_alerts(user_id)

    def shared_papers(self, user_id: str) -> list[SharedPaper]:
        """As :meth:`storage.Store.shared_papers`."""
        return list(self.snapshot.shares) if self._mine(user_id) else self._store.shared_papers(user_id)


class SnapshotsStore(Protocol):
    """One person's rows read at once."""

    def person_snapshot(self, user_id: str) -> PersonSnapshot:
        """The person's rows that :class:`~storage.snapshot.PersonView` answers from, each part ordered
        as its own method orders it (on PostgreSQL in one statement)."""
        ...

    def person_view(self, user_id: str) -> PersonView:
        """This store, with its reads of ``user_id`` answered from one snapshot taken now."""
        ...


class Snapshots:
    """Mixed into both stores: :meth:`person_view`, over each store's :meth:`person_snapshot`."""

    def person_snapshot(self, user_id: str) -> PersonSnapshot:
        # The person's rows that :class:`PersonView` answers from; a store that can read them in one round
        # trip overrides this (PostgreSQL), SQLite reads them one table at a time, in process.
        store: Any = self
        mutes: list[str] = []
        alerts: list[tuple[str, str]] = []
        shares: list[SharedPaper] = []
        # One statement for three lists: a digest run's cost per person stays (tests/…/test_growth_guard.py).
        for kind, first, phrase, at in store._sql.all(LISTS, [store._ws, user_id] * 3):
            if kind == 0:
                mutes.append(first)
            elif kind == 1:
                alerts.append((first, phrase))
            else:
                shares.append(SharedPaper(first, at))
        shares.reverse()
        return PersonSnapshot(
            user_id, store.get_person(user_id), store.get_topics(user_id), store.get_feedback(user_id),
            store.get_feeds(user_id), store.get_followed_authors(user_id), mutes,
            frozenset(store.shown_paper_ids(user_id)), frozenset(store.saved_paper_ids(user_id)),
            store.paper_feeds(user_id), alerts, shares)

    def person_view(self, user_id: str) -> PersonView:
        return PersonView(self, self.person_snapshot(user_id))
