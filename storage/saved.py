"""A person's reading list (the ``saved`` table) on either backend, a week's likes and saves per paper
(what trending ranks by), and the statement that hands over everything stored about a person.
Statements use qmark placeholders (run through the store's :class:`~storage.dialect.Dialect`); table
and column names come from :mod:`storage.tables`, never from input."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from storage.dialect import Shared
from storage.models import SavedPaper
from storage.moments import utcnow_micro
from storage.tables import UNEXPORTED_COLUMNS, about_person, columns, order_by

#: A paper saved once: the second save of the same paper changes nothing (and says so). A save is its
#: own signal: it writes no feedback (``like_from_save`` stays 0; it told, before m020, that the save
#: had made a like).
SAVE = ("insert into saved (ws, user_id, paper_id, saved_at) values (?, ?, ?, ?)"
        " on conflict (ws, user_id, paper_id) do nothing")
#: Of two unsaves at once, one deletes the row.
UNSAVE = "delete from saved where ws = ? and user_id = ? and paper_id = ?"
LIST = ("select paper_id, saved_at from saved where ws = ? and user_id = ?"
        " order by saved_at desc, paper_id desc")
IDS = "select paper_id from saved where ws = ? and user_id = ?"
#: A stretch of the reading list, newest first, of papers still stored (as the list shows them): what a
#: reply shows without reading the whole list. The index on (ws, user_id, saved_at) gives the order.
PAGE = ("select paper_id, saved_at from saved where ws = ? and user_id = ?"
        " and exists (select 1 from papers p where p.id = saved.paper_id)"
        " order by saved_at desc, paper_id desc limit ? offset ?")
COUNT = ("select count(*) from saved where ws = ? and user_id = ?"
         " and exists (select 1 from papers p where p.id = saved.paper_id)")
#: A week's likes and saves per paper, of people (a channel's feedback is nobody's), each person once:
#: by their like, else by their save when they neither liked nor disliked the paper (as a profile counts
#: them). Most-liked first, then most-saved, then the latest.
SIGNALS_SINCE = (
    "select paper_id, sum(l) as likes, sum(s) as saves, max(at) as latest from ("
    " select f.paper_id, 1 as l, 0 as s, f.created_at as at from feedback f"
    "  where f.ws = ? and f.value > 0 and f.created_at >= ?"
    "  and not exists (select 1 from channels c where c.ws = f.ws and c.channel_id = f.user_id)"
    " union all"
    " select v.paper_id, 0 as l, 1 as s, v.saved_at as at from saved v"
    "  where v.ws = ? and v.saved_at >= ?"
    "  and not exists (select 1 from feedback f where f.ws = v.ws and f.user_id = v.user_id"
    "                  and f.paper_id = v.paper_id)"
    ") t group by paper_id order by likes desc, saves desc, latest desc, paper_id limit ?"
)

#: How many people of a workspace saved each of some papers, unless the workspace turned these counts off
#: (`paperbot workspaces set TID social off`): what a paper message may say. Read by the index on
#: (ws, paper_id); one statement a message or a digest.
SAVED_COUNTS = (
    "select s.paper_id, count(*) from {listed} join saved s on s.ws = ? and s.paper_id = c.id"
    " where not exists (select 1 from workspace_settings w where w.ws = ? and w.social = 0)"
    " group by s.paper_id"
)


def saved_now() -> str:
    """Now as ISO UTC to the microsecond: two saves within one second still order newest first."""
    return utcnow_micro()


def rows_of_person(backend: str, table: str) -> tuple[str, tuple[str, ...]]:
    """The ``select`` of every row of ``table`` (one of :data:`~storage.tables.TABLES_ABOUT_A_PERSON`)
    about or naming one person (``ws = ?`` and their id ``= ?``), in the order it is copied, and its
    column names (all that are exported)."""
    names = tuple(c for c in columns(table) if c not in UNEXPORTED_COLUMNS.get(table, ()))
    # Table and column names come from storage.tables, never from input.
    sql = (f"select {', '.join(names)} from {table} where ws = ? and {about_person(table)}"  # noqa: S608
           f" order by {order_by(backend, table)}")
    return sql, names


class SavedStore(Protocol):
    """The reading list (saves), a person's own, and what a workspace may say of it."""

    def save_paper(self, user_id: str, paper_id: str) -> bool:
        """Put a paper on a person's reading list (a save of its own: no like or dislike comes with it).
        True if it was not there yet (a second save, even one at the same time, changes nothing)."""
        ...

    def unsave_paper(self, user_id: str, paper_id: str) -> bool:
        """Take a paper off the reading list (only the save: feedback stays); False if it was not on it."""
        ...

    def saved_papers(self, user_id: str) -> list[SavedPaper]:
        """A person's reading list, newest first."""
        ...

    def saved_paper_ids(self, user_id: str) -> set[str]:
        """Every paper on a person's reading list."""
        ...

    def saved_page(self, user_id: str, limit: int, offset: int = 0) -> list[SavedPaper]:
        """At most ``limit`` papers of a person's reading list, newest first, after the first ``offset``;
        papers no longer stored are left out (as :meth:`count_saved` leaves them out)."""
        ...

    def count_saved(self, user_id: str) -> int:
        """How many papers a person's reading list holds (of papers still stored)."""
        ...

    def shown_saved_counts(self, paper_ids: Sequence[str]) -> dict[str, int]:
        """How many people of this workspace saved each of ``paper_ids`` (a paper none saved is left out):
        what its paper messages may say, so nothing at all where the workspace turned these counts off
        (:meth:`set_social_counts`). Never who; one statement however many papers."""
        ...

    def liked_or_saved_since(self, since: str, limit: int) -> list[tuple[str, int, int]]:
        """The papers people of this workspace liked or saved since ``since`` (ISO UTC): (paper id, how
        many liked it, how many saved it without liking or disliking it), most-liked first, then
        most-saved, then the latest; at most ``limit``. Channels count for nothing. Never who."""
        ...


class SavedPapers(Shared):
    """The reading lists of one workspace's people."""

    def save_paper(self, user_id: str, paper_id: str) -> bool:
        return self._sql.run(SAVE, [self._ws, user_id, paper_id, saved_now()]) > 0

    def unsave_paper(self, user_id: str, paper_id: str) -> bool:
        return self._sql.run(UNSAVE, [self._ws, user_id, paper_id]) > 0

    def saved_papers(self, user_id: str) -> list[SavedPaper]:
        return [SavedPaper(*r) for r in self._sql.all(LIST, [self._ws, user_id])]

    def saved_paper_ids(self, user_id: str) -> set[str]:
        return {r[0] for r in self._sql.all(IDS, [self._ws, user_id])}

    def saved_page(self, user_id: str, limit: int, offset: int = 0) -> list[SavedPaper]:
        if limit <= 0:
            return []
        return [SavedPaper(*r) for r in self._sql.all(PAGE, [self._ws, user_id, limit, max(offset, 0)])]

    def count_saved(self, user_id: str) -> int:
        row = self._sql.one(COUNT, [self._ws, user_id])
        return int(row[0]) if row else 0

    def shown_saved_counts(self, paper_ids: Sequence[str]) -> dict[str, int]:
        if not paper_ids:
            return {}
        listed, args = self._sql.listed(list(dict.fromkeys(paper_ids)))
        rows = self._sql.all(SAVED_COUNTS.format(listed=listed), [*args, self._ws, self._ws])
        return {r[0]: int(r[1]) for r in rows}

    def liked_or_saved_since(self, since: str, limit: int) -> list[tuple[str, int, int]]:
        return [(r[0], int(r[1]), int(r[2]))
                for r in self._sql.all(SIGNALS_SINCE, [self._ws, since, self._ws, since, limit])]
