"""A person's own numbers and a workspace's 👍 share, read from what is stored already (``shown``,
``feedback``, ``saved``): nothing is counted apart, so nothing can drift. Statements use qmark
placeholders (run through the store's :class:`~storage.dialect.Dialect`), each written once for both
backends."""

from __future__ import annotations

from typing import NamedTuple, Protocol

from storage.dialect import Shared

#: Everything a person did or was shown since a moment, one row each: ('shown', when, 0, NULL, 0),
#: ('rated', when, +1 or -1, the reason the paper was shown with, 1 if it was shown at all) and
#: ('saved', when, 0, NULL, 0). Each part reads its table's primary key (ws, user_id, …); a person's
#: eight weeks are a few hundred rows.
PERSON_ACTIVITY = (
    "select 'shown', s.shown_at, 0, null, 0 from shown s where s.ws = ? and s.user_id = ? and s.shown_at >= ?"
    " union all"
    " select 'rated', f.created_at, f.value, s.reason, case when s.paper_id is null then 0 else 1 end"
    "  from feedback f left join shown s on s.ws = f.ws and s.user_id = f.user_id and s.paper_id = f.paper_id"
    "  where f.ws = ? and f.user_id = ? and f.created_at >= ? and f.value <> 0"
    " union all"
    " select 'saved', v.saved_at, 0, null, 0 from saved v"
    "  where v.ws = ? and v.user_id = ? and v.saved_at >= ?"
)

#: The ratings people (a channel is nobody) gave from ``since`` to before ``until`` to papers paperbot had
#: shown them: (👍, all). A rating of a paper never shown (an imported library, a pasted link) says
#: nothing of paperbot's picks, so it is left out. ``{where}``: the workspace's, or every workspace's.
_RATINGS = (
    "select coalesce(sum(case when f.value > 0 then 1 else 0 end), 0), count(*) from feedback f"
    " join shown s on s.ws = f.ws and s.user_id = f.user_id and s.paper_id = f.paper_id"
    " where {where} f.created_at >= ? and f.created_at < ? and f.value <> 0"
    " and not exists (select 1 from channels c where c.ws = f.ws and c.channel_id = f.user_id)"
)
RATINGS = _RATINGS.format(where="f.ws = ? and")
RATINGS_EVERYWHERE = _RATINGS.format(where="")


class Activity(NamedTuple):
    """One thing of :data:`PERSON_ACTIVITY`: ``kind`` ('shown', 'rated' or 'saved') at ``at`` (ISO UTC);
    a rating's ``value`` (+1, -1), the ``reason`` its paper was shown with (None if it was not) and
    whether it was ``shown`` at all."""

    kind: str
    at: str
    value: int
    reason: str | None
    shown: bool


class ActivityStore(Protocol):
    """What a person was shown, rated and saved over some weeks, and a workspace's 👍 share."""

    def person_activity(self, user_id: str, since: str) -> list[Activity]:
        """Every paper shown to a person since ``since`` (ISO UTC, by when it was last shown), every
        rating they gave since then (by when it was last given; with the reason its paper was shown
        with) and every save, in no particular order: one statement."""
        ...

    def rating_counts(self, since: str, until: str, everywhere: bool = False) -> tuple[int, int]:
        """(👍, ratings) people of this workspace (with ``everywhere``, of every workspace) gave from
        ``since`` to before ``until`` (ISO UTC) to papers paperbot had shown them; channels count for
        nothing, and neither does a rating of a paper never shown. Never who."""
        ...


class Activities(Shared):
    """A person's numbers and a workspace's 👍 share, over what is stored."""

    def person_activity(self, user_id: str, since: str) -> list[Activity]:
        args = [self._ws, user_id, since] * 3
        return [Activity(str(r[0]), str(r[1]), int(r[2]), r[3], bool(r[4]))
                for r in self._sql.all(PERSON_ACTIVITY, args)]

    def rating_counts(self, since: str, until: str, everywhere: bool = False) -> tuple[int, int]:
        row = (self._sql.one(RATINGS_EVERYWHERE, [since, until]) if everywhere
               else self._sql.one(RATINGS, [self._ws, since, until]))
        return (int(row[0]), int(row[1])) if row else (0, 0)
