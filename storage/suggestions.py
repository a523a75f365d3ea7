"""Papers suggested by a colleague ("Who should read this?", the ``suggestions`` table) on either
backend: who may be suggested a paper, and the one suggestion of a paper to a person.

A row names the colleague (``user_id``) and the asker (``by_user``): forgetting the colleague deletes it
(it is theirs, a personal table); forgetting the asker only takes their id out of it (``by_user`` is a
naming column, see :data:`storage.tables.NAMING_COLUMNS`), so the colleague keeps what they were sent.
Statements use qmark placeholders (run through the store's :class:`~storage.dialect.Dialect`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from storage.dialect import Shared
from storage.records import utcnow

#: People of the workspace open to being suggested a paper: opted in (``suggest``), not a channel, and
#: never shown, saved, liked, disliked or already suggested that paper. The asker is left out by the
#: caller's ``user_id <> ?``.
_OPEN = (" from people p where p.ws = ? and p.suggest = 1 and p.user_id <> ?"
         " and not exists (select 1 from channels c where c.ws = p.ws and c.channel_id = p.user_id)"
         " and not exists (select 1 from shown s where s.ws = p.ws and s.user_id = p.user_id"
         "                 and s.paper_id = ?)"
         " and not exists (select 1 from saved v where v.ws = p.ws and v.user_id = p.user_id"
         "                 and v.paper_id = ?)"
         " and not exists (select 1 from feedback f where f.ws = p.ws and f.user_id = p.user_id"
         "                 and f.paper_id = ?)"
         " and not exists (select 1 from suggestions g where g.ws = p.ws and g.user_id = p.user_id"
         "                 and g.paper_id = ?)")
OPEN_TO = "select p.user_id" + _OPEN + " order by p.user_id"
#: The same, of the listed people only (a relation ``c(id)`` from the dialect, in place of ``{listed}``).
OPEN_AMONG = ("select p.user_id" + _OPEN  # noqa: S608 - constants only
              + " and p.user_id in (select id from {listed}) order by p.user_id")
#: One suggestion of a paper to a person, whoever asks: the second (even at the same moment) adds nothing.
SUGGEST = ("insert into suggestions (ws, user_id, paper_id, by_user, sent_at) values (?, ?, ?, ?, ?)"
           " on conflict (ws, user_id, paper_id) do nothing")
#: A suggestion taken back because Slack did not take its message (so a later Send may try again).
UNSUGGEST = "delete from suggestions where ws = ? and user_id = ? and paper_id = ? and by_user = ?"
#: Forgetting an asker: the suggestions they made stay the colleagues', without their id.
FORGET_ASKER = "update suggestions set by_user = null where ws = ? and by_user = ?"


class SuggestionsStore(Protocol):
    """"Who should read this?": who may be suggested a paper, and each suggestion made once."""

    def open_to_suggestion(self, paper_id: str, asker: str,
                           among: Sequence[str] | None = None) -> list[str]:
        """The people of this workspace a colleague may suggest paper ``paper_id`` (its stored id) to,
        by id: those who opted in (``Person.suggest``), neither ``asker`` nor a channel, who were never
        shown, never saved, never liked or disliked it and were never suggested it. ``among``: of those
        people only (None: of everyone)."""
        ...

    def record_suggestion(self, user_id: str, paper_id: str, by_user: str) -> bool:
        """Record that ``by_user`` suggested paper ``paper_id`` to ``user_id``: True when it is the first
        suggestion of it to them (any asker's, even one at the same moment), False when one was made."""
        ...

    def drop_suggestion(self, user_id: str, paper_id: str, by_user: str) -> bool:
        """Take back ``by_user``'s suggestion of the paper to ``user_id`` (its message never reached
        them), so it may be made again; False when there was none of theirs."""
        ...

    def suggested_by(self, user_id: str, paper_id: str) -> str | None:
        """Who suggested the paper to ``user_id`` (None: nobody, or someone since forgotten)."""
        ...


class Suggestions(Shared):
    """The suggestions of one workspace's people (see the module)."""

    def open_to_suggestion(self, paper_id: str, asker: str,
                           among: Sequence[str] | None = None) -> list[str]:
        args = [self._ws, asker, paper_id, paper_id, paper_id, paper_id]
        if among is None:
            return [r[0] for r in self._sql.all(OPEN_TO, args)]
        ids = list(dict.fromkeys(among))
        if not ids:
            return []
        listed, listed_args = self._sql.listed(ids)
        return [r[0] for r in self._sql.all(OPEN_AMONG.format(listed=listed), [*args, *listed_args])]

    def record_suggestion(self, user_id: str, paper_id: str, by_user: str) -> bool:
        return self._sql.run(SUGGEST, [self._ws, user_id, paper_id, by_user, utcnow()]) > 0

    def drop_suggestion(self, user_id: str, paper_id: str, by_user: str) -> bool:
        return self._sql.run(UNSUGGEST, [self._ws, user_id, paper_id, by_user]) > 0

    def suggested_by(self, user_id: str, paper_id: str) -> str | None:
        row = self._sql.one("select by_user from suggestions where ws = ? and user_id = ? and paper_id = ?",
                            [self._ws, user_id, paper_id])
        return row[0] if row else None
