"""A person's reading list (the ``saved`` table) on either backend, and the statement that hands over
everything stored about a person. Statements use qmark placeholders (run through the store's
:class:`~storage.dialect.Dialect`); table and column names come from :mod:`storage.tables`, never from
input."""

from __future__ import annotations

from datetime import UTC, datetime

from storage.dialect import Shared
from storage.models import SavedPaper
from storage.tables import columns, order_by

#: A paper saved once: the second save of the same paper changes nothing (and says so).
SAVE = ("insert into saved (ws, user_id, paper_id, saved_at, like_from_save) values (?, ?, ?, ?, ?)"
        " on conflict (ws, user_id, paper_id) do nothing")
#: One statement takes the save away and tells whether its like came with it: of two unsaves at once,
#: one gets the row.
UNSAVE = "delete from saved where ws = ? and user_id = ? and paper_id = ? returning like_from_save"
#: A like given on its own to a saved paper: unsaving it no longer takes the like back.
KEEP_LIKE = "update saved set like_from_save = 0 where ws = ? and user_id = ? and paper_id = ?"
LIST = ("select paper_id, saved_at from saved where ws = ? and user_id = ?"
        " order by saved_at desc, paper_id desc")
IDS = "select paper_id from saved where ws = ? and user_id = ?"


def saved_now() -> str:
    """Now as ISO UTC to the microsecond: two saves within one second still order newest first."""
    return datetime.now(UTC).isoformat(timespec="microseconds")


def rows_of_person(backend: str, table: str) -> tuple[str, tuple[str, ...]]:
    """The ``select`` of every row of personal ``table`` about one person (``ws = ? and user_id = ?``),
    in the order it is copied, and its column names."""
    names = columns(table)
    # Table and column names come from storage.tables, never from input.
    sql = (f"select {', '.join(names)} from {table} where ws = ? and user_id = ?"  # noqa: S608
           f" order by {order_by(backend, table)}")
    return sql, names


class SavedPapers(Shared):
    """The reading lists of one workspace's people."""

    def save_paper(self, user_id: str, paper_id: str, like_from_save: bool = False) -> bool:
        # Put a paper on a person's reading list; ``like_from_save``: the like it comes with was made by this
        # save. True if it was not there yet (a second save changes nothing).
        return self._sql.run(SAVE, [self._ws, user_id, paper_id, saved_now(), int(like_from_save)]) > 0

    def unsave_paper(self, user_id: str, paper_id: str) -> bool | None:
        rows = self._sql.returning(UNSAVE, [self._ws, user_id, paper_id])
        return bool(rows[0][0]) if rows else None

    def keep_saved_like(self, user_id: str, paper_id: str) -> None:
        self._sql.run(KEEP_LIKE, [self._ws, user_id, paper_id])

    def saved_papers(self, user_id: str) -> list[SavedPaper]:
        return [SavedPaper(*r) for r in self._sql.all(LIST, [self._ws, user_id])]

    def saved_paper_ids(self, user_id: str) -> set[str]:
        return {r[0] for r in self._sql.all(IDS, [self._ws, user_id])}
