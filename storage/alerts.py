"""A person's alerts (the ``alerts`` table) on either backend: phrases whose new papers join their next
digest whatever their rank, and the one read of a digest that finds those papers through the full-text
index. Statements use qmark placeholders (run through the store's :class:`~storage.dialect.Dialect`)
and filter or write the store's workspace ``self._ws``. Uniqueness is the database's: one alert per
person and ``key`` (the phrase's words as the index cuts them), ON CONFLICT DO NOTHING."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from storage.dialect import Shared
from storage.fulltext import words
from storage.moments import utcnow_micro

LIST = "select key, phrase from alerts where ws = ? and user_id = ? order by added_at, key"
ADD = ("insert into alerts (ws, user_id, key, phrase, added_at) values (?, ?, ?, ?, ?)"
       " on conflict (ws, user_id, key) do nothing")
REMOVE = "delete from alerts where ws = ? and user_id = ? and key = ? returning phrase"
#: The papers holding any phrase (``{matches}``, the dialect's relation of those added since the oldest
#: moment asked) added since the person's latest digest of an earlier day began (``>=``: a paper of that
#: very second may have come after its choice), else since the first digest's window.
NEW_MATCHES = (
    "select p.id, coalesce(p.title, ''), coalesce(p.abstract, ''), p.added_at from papers p"
    " where p.id in (select paper_id from {matches})"
    " and p.added_at >= coalesce((select max(d.started_at) from digests d"
    "  where d.ws = ? and d.user_id = ? and d.local_date < ?), ?)")
#: Papers shown to a person since a moment with a reason that starts a given way (its length in
#: characters first): counted without LIKE, whose ``%`` and ``_`` would be patterns.
SHOWN_WITH_REASON = ("select count(*) from shown where ws = ? and user_id = ? and shown_at >= ?"
                     " and substr(reason, 1, ?) = ?")


class AlertsStore(Protocol):
    """A person's alerts (phrases) and the new papers that say them."""

    def get_alerts(self, user_id: str) -> list[tuple[str, str]]:
        """(key, phrase as typed) of a person's alerts, oldest first; ``key`` is the phrase's words as
        the full-text index cuts them (:func:`storage.fulltext.words`), joined by single spaces."""
        ...

    def add_alert(self, user_id: str, key: str, phrase: str) -> bool:
        """Add an alert; False (nothing written) when the person has one with this ``key`` already."""
        ...

    def remove_alert(self, user_id: str, key: str) -> str | None:
        """Remove the person's alert with ``key``; its phrase as typed, or None when there was none."""
        ...

    def new_papers_saying(self, user_id: str, phrases: Sequence[str], before_day: str, first_since: str,
                          oldest: str) -> list[tuple[str, str, str, str]]:
        """(id, title, abstract, added_at) of the papers whose full text (title, abstract or authors, as
        :meth:`search_text` reads it) holds any of ``phrases`` and that were added since the person's
        latest digest of a local day before ``before_day`` (YYYY-MM-DD) began, or since ``first_since``
        (ISO UTC) when they had none, and never before ``oldest`` (ISO UTC). In one statement, whatever
        the number of phrases; the caller checks which phrase each paper holds, and where."""
        ...

    def count_shown_with_reason(self, user_id: str, since: str, prefix: str) -> int:
        """How many papers were shown to a person at ``since`` (ISO UTC) or later with a reason that
        starts with ``prefix`` (compared as text, no pattern)."""
        ...


class Alerts(Shared):
    """Alerts of one workspace's people, and the papers they find (see the module)."""

    def get_alerts(self, user_id: str) -> list[tuple[str, str]]:
        return [(key, phrase) for key, phrase in self._sql.all(LIST, [self._ws, user_id])]

    def add_alert(self, user_id: str, key: str, phrase: str) -> bool:
        # To the microsecond: two alerts added within a second still list in the order they came.
        added = utcnow_micro()
        return self._sql.run(ADD, [self._ws, user_id, key, phrase, added]) > 0

    def remove_alert(self, user_id: str, key: str) -> str | None:
        rows = self._sql.returning(REMOVE, [self._ws, user_id, key])
        return rows[0][0] if rows else None

    def new_papers_saying(self, user_id: str, phrases: Sequence[str], before_day: str, first_since: str,
                          oldest: str) -> list[tuple[str, str, str, str]]:
        found = list(dict.fromkeys(p for p in (words(phrase) for phrase in phrases) if p))
        if not found:
            return []
        matches, args = self._sql.new_text_matches(found, oldest)
        # ``matches`` is the dialect's own relation; the phrases and the moment are its arguments.
        rows = self._sql.all(NEW_MATCHES.format(matches=matches),
                             [*args, self._ws, user_id, before_day, first_since])
        return [(pid, title, abstract, added) for pid, title, abstract, added in rows]

    def count_shown_with_reason(self, user_id: str, since: str, prefix: str) -> int:
        return int(self._sql.all(SHOWN_WITH_REASON, [self._ws, user_id, since, len(prefix), prefix])[0][0])
