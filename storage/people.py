"""People's part of the store, on either backend: a person and their settings, their topics, their
feedback, what they were shown, and forgetting them.

Every statement filters or writes the store's workspace ``self._ws``. A person's settings are the fields
of :class:`~storage.models.Person`, read and written by name (:mod:`storage.records`), so a new setting
needs its column and its field, and no code here.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import AbstractContextManager
from typing import Any, Protocol

from storage import merging
from storage.channel_settings import FORGET_SETTER
from storage.dialect import Shared
from storage.inbox import INBOX, INBOX_FORGET
from storage.models import Feedback, Person
from storage.records import person_from_row, person_values, utcnow
from storage.saved import rows_of_person
from storage.suggestions import FORGET_ASKER
from storage.tables import PERSONAL_TABLES, TABLES_ABOUT_A_PERSON, about_person
from storage.workspaces import FORGET_INSTALLER, FORGET_INSTALLER_CLASH

#: A person opened Home: written once, whichever process handles which of their openings.
HOME_OPENED = ("insert into home_opened (ws, user_id, opened_at) values (?, ?, ?)"
               " on conflict (ws, user_id) do nothing")
OPENED_HOME = "select 1 from home_opened where ws = ? and user_id = ?"


class PeopleStore(Protocol):
    """The people of this view's workspace: their settings, digest schedule, topics, DM channel, and the holds
    and locks that keep one person's work in order."""

    def get_person(self, user_id: str) -> Person | None:
        """The person, or None if paperbot has never heard of them."""
        ...

    def ensure_person(self, user_id: str) -> Person:
        """The person, created with no schedule if new."""
        ...

    def list_people(self) -> list[Person]:
        """Everyone paperbot knows."""
        ...

    def people_with_digests(self) -> list[Person]:
        """Everyone whose daily digest is on, with a time set."""
        ...

    def set_digest_schedule(self, user_id: str, digest_time: str | None, enabled: bool,
                            since: str | None = None) -> None:
        """Set (or clear) a person's local digest time and whether digests are on, as of ``since``
        (ISO UTC, default now)."""
        ...

    def set_digest_weekday(self, user_id: str, weekday: int | None) -> None:
        """Make a person's digest weekly on ``weekday`` (0 = Monday), or daily with None. The time and
        whether digests are on stay as :meth:`set_digest_schedule` set them."""
        ...

    def set_timezone(self, user_id: str, tz: str | None) -> None:
        """Remember a person's IANA timezone name."""
        ...

    def set_person_settings(self, user_id: str, **settings: object) -> None:
        """Set settings of a person (created if new) by their :class:`Person` field names, e.g.
        ``digest_weekday=2``: a new per-person setting is its column and its field, written and read
        with no code of its own. ValueError for a name that is not a setting of :class:`Person`."""
        ...

    def timezone_checked_at(self, user_id: str) -> str | None:
        """When a person's timezone was last read from Slack (ISO UTC), or None."""
        ...

    def record_timezone(self, user_id: str, tz: str | None) -> bool:
        """Remember a known person's IANA timezone as just read from Slack. Never creates a person: an
        answer from Slack arriving after they asked to be forgotten writes nothing. True if recorded."""
        ...

    def record_home_opened(self, user_id: str) -> bool:
        """Record that the person has opened paperbot's Home tab; True the first time (a second call, from
        any process, even at the same moment, writes nothing and returns False)."""
        ...

    def opened_home(self, user_id: str) -> bool:
        """Whether the person has opened Home since they were first known (or last forgotten): a change
        to what it shows is published only to them, since Home is published each time it is opened."""
        ...

    def dm_channel(self, user_id: str) -> str | None:
        """The DM channel last opened with a person, or None."""
        ...

    def remember_dm_channel(self, user_id: str, channel: str) -> None:
        """Keep the DM channel opened with a person (one statement: callers need no transaction)."""
        ...

    def forget_dm_channel(self, channel: str) -> None:
        """Stop using a DM channel Slack no longer accepts (it is opened again next time)."""
        ...

    def get_topics(self, user_id: str) -> list[str]:
        """A person's topics, oldest first."""
        ...

    def add_topics(self, user_id: str, topics: Iterable[str]) -> list[str]:
        """Add topics; returns those that were new (case-insensitive)."""
        ...

    def remove_topic(self, user_id: str, topic: str) -> list[str]:
        """Remove a topic (case-insensitive); returns the stored spellings removed."""
        ...

    def remove_all_topics(self, user_id: str) -> int:
        """Remove every topic of a person; returns how many there were."""
        ...

    def hold_person(self, user_id: str) -> AbstractContextManager[None]:
        """Hold off every other process's ``hold_person`` for this person until the block ends: for
        work that spans many transactions and Slack calls (a recommendation or digest being delivered,
        so two never pick the same papers). A process that dies loses its hold. Waits as long as the
        holder takes."""
        ...

    def lock_person(self, user_id: str) -> None:
        """Serialise this transaction with every other that locks the same person, in any process,
        until it ends (call it first inside :meth:`transaction`), so reading what they have and writing
        what follows from it are one step."""
        ...


class FeedbackStore(Protocol):
    """Likes and dislikes, a person's own, in this view's workspace."""

    def set_feedback(self, user_id: str, paper_id: str, value: int) -> None:
        """Record a like (+1) or dislike (-1), replacing any earlier one for that paper."""
        ...

    def remove_feedback(self, user_id: str, paper_id: str, value: int | None = None) -> bool:
        """Take feedback back; with ``value``, only if it is that value. True if something was removed."""
        ...

    def get_feedback(self, user_id: str) -> list[Feedback]:
        """A person's likes and dislikes, oldest first."""
        ...

    def likes_by_person(self) -> list[list[str]]:
        """Every person's liked paper ids (one list a person) in this workspace: what people with similar
        taste liked (colleagues' likes never cross workspaces)."""
        ...

    def feedback_version(self) -> int:
        """A number that changes whenever anyone's feedback in this workspace changes (a trigger counts
        every write in the workspace's own counter, in the writer's transaction, so the number and the
        feedback become visible together)."""
        ...


class ShownStore(Protocol):
    """What was shown to whom, and as which Slack message, in this view's workspace."""

    def mark_shown(self, user_id: str, paper_id: str, reason: str = "", channel: str | None = None,
                   message_ts: str | None = None) -> None:
        """Remember that a paper was shown to a person (and, from Slack, in which message)."""
        ...

    def shown_paper_ids(self, user_id: str) -> set[str]:
        """Every paper ever shown to a person."""
        ...

    def shown_among(self, user_id: str, paper_ids: Iterable[str]) -> set[str]:
        """Those of ``paper_ids`` already shown to a person (an id merged into a paper shown, too)."""
        ...

    def shown_at(self, user_id: str, paper_id: str) -> str | None:
        """When a paper was (last) shown to a person (ISO UTC), or None if never shown."""
        ...

    def shown_reason(self, user_id: str, paper_id: str) -> str | None:
        """Why a paper shown to a person was picked (as its message says), or None if never shown."""
        ...

    def paper_for_message(self, channel: str, message_ts: str) -> tuple[str, str] | None:
        """(user_id, paper_id) of the paper posted as this Slack message in this workspace, or None."""
        ...

    def papers_on_message(self, channel: str, message_ts: str) -> list[tuple[str, str]]:
        """(user_id, paper_id) of every paper posted as this Slack message in this workspace (several
        for a compact digest), in no particular order; [] for none."""
        ...


class ForgettingStore(Protocol):
    """Everything about one person: what they may see of it, and forgetting it."""

    def person_rows(self, user_id: str) -> dict[str, list[dict]]:
        """Every row about a person, per personal table, and every row of the workspace's naming them (an
        installation they made, a channel they set up: :data:`~storage.tables.NAMING_COLUMNS`), each row
        its copied columns but an installation's sealed tokens: what they may ask to see of themselves."""
        ...

    def rows_about(self, user_id: str) -> dict[str, int]:
        """How many rows each personal table holds about a person, and each table naming them (see
        :meth:`person_rows`), for checks and `forget`."""
        ...

    def forget_person(self, user_id: str) -> dict[str, int]:
        """Delete every row about a person from every table, and take their id out of the rows of the
        workspace's that name them (an installation keeps its token under the installer id "", a
        channel its settings with ``set_by`` NULL); returns rows deleted or cleared per table. Holds the
        person's lock (:meth:`lock_person`): a write for them under way elsewhere (a paper recorded as
        shown, a like) finishes first, or waits and then finds them gone, never adding a row after.
        Then :meth:`scrub_log`, so nothing of the person lingers where it can reach."""
        ...

    def scrub_log(self) -> None:
        """Leave rows deleted before now nowhere a reader of the database could find them: SQLite folds
        its write-ahead log into the file and truncates it (waiting for readers, up to the busy
        timeout); PostgreSQL vacuums the tables holding people's rows (outside a transaction only; inside
        one, autovacuum's later pass does it), so their dead versions leave the tables and indexes. What
        the server keeps beyond that (free space not yet reused, WAL, backups) is in docs/operations.md."""
        ...


class People(Shared):
    """People, topics, feedback and what was shown, of one workspace (see the module)."""

    # -- people ----------------------------------------------------------------------------------

    def _people(self, where: str = "", args: Iterable[Any] = ()) -> Iterator[Person]:
        # ``where`` is a constant condition of this module.
        for row in self._sql.rows(f"select * from people where ws = ?{where} order by user_id",  # noqa: S608
                                  [self._ws, *args]):
            yield person_from_row(row)

    def get_person(self, user_id: str) -> Person | None:
        return next(self._people(" and user_id = ?", [user_id]), None)

    def ensure_person(self, user_id: str) -> Person:
        self._sql.run("insert into people (ws, user_id, digest_enabled, created_at) values (?, ?, 0, ?)"
                      " on conflict (ws, user_id) do nothing", [self._ws, user_id, utcnow()])
        person = self.get_person(user_id)
        assert person is not None  # just made, and nothing deletes a person but forget_person
        return person

    def list_people(self) -> list[Person]:
        return list(self._people())

    def people_with_digests(self) -> list[Person]:
        return list(self._people(" and digest_enabled = 1 and digest_time is not null"))

    def _set_person(self, user_id: str, **settings: Any) -> int:
        """Write settings (fields of :class:`Person`) of a person; how many rows changed (0: no such
        person)."""
        values = person_values(settings)
        assignments = ", ".join(f"{name} = ?" for name in values)  # names checked by person_values
        return self._sql.run(f"update people set {assignments} where ws = ? and user_id = ?",  # noqa: S608
                             [*values.values(), self._ws, user_id])

    def set_digest_schedule(self, user_id: str, digest_time: str | None, enabled: bool,
                            since: str | None = None) -> None:
        schedule = {"digest_time": digest_time, "digest_enabled": enabled, "digest_since": since or utcnow()}
        # One statement for someone known (a first follow has just made them); made first otherwise.
        if not self._set_person(user_id, **schedule):
            self.ensure_person(user_id)
            self._set_person(user_id, **schedule)

    def set_timezone(self, user_id: str, tz: str | None) -> None:
        self.ensure_person(user_id)
        self._set_person(user_id, tz=tz)

    def set_person_settings(self, user_id: str, **settings: object) -> None:
        person_values(settings)  # an unknown name fails before the person is made
        self.ensure_person(user_id)
        self._set_person(user_id, **settings)

    def set_digest_weekday(self, user_id: str, weekday: int | None) -> None:
        self._set_person(user_id, digest_weekday=weekday)

    def timezone_checked_at(self, user_id: str) -> str | None:
        row = self._sql.one("select tz_checked_at from people where ws = ? and user_id = ?",
                            [self._ws, user_id])
        return row[0] if row else None

    def record_timezone(self, user_id: str, tz: str | None) -> bool:
        return self._sql.run("update people set tz = ?, tz_checked_at = ? where ws = ? and user_id = ?",
                             [tz, utcnow(), self._ws, user_id]) > 0

    def record_home_opened(self, user_id: str) -> bool:
        return self._sql.run(HOME_OPENED, [self._ws, user_id, utcnow()]) > 0

    def opened_home(self, user_id: str) -> bool:
        return self._sql.one(OPENED_HOME, [self._ws, user_id]) is not None

    def dm_channel(self, user_id: str) -> str | None:
        row = self._sql.one("select dm_channel from people where ws = ? and user_id = ?", [self._ws, user_id])
        return row[0] if row else None

    def remember_dm_channel(self, user_id: str, channel: str) -> None:
        self._sql.write("update people set dm_channel = ? where ws = ? and user_id = ?",
                        [channel, self._ws, user_id])

    def forget_dm_channel(self, channel: str) -> None:
        self._sql.run("update people set dm_channel = null where ws = ? and dm_channel = ?",
                      [self._ws, channel])

    # -- topics ----------------------------------------------------------------------------------

    def get_topics(self, user_id: str) -> list[str]:
        # The order is a constant of the dialect.
        return [r[0] for r in self._sql.all("select topic from topics where ws = ? and user_id = ?"  # noqa: S608
                                            f" order by added_at, {self._sql.insertion_order}",
                                            [self._ws, user_id])]

    def add_topics(self, user_id: str, topics: Iterable[str]) -> list[str]:
        known = {t.casefold() for t in self.get_topics(user_id)}
        added = []
        now = utcnow()
        for topic in topics:
            if topic.casefold() in known:
                continue
            known.add(topic.casefold())
            # The unique index on (ws, user_id, lower(topic)) (m008, m009) has the last word.
            if self._sql.run("insert into topics (ws, user_id, topic, added_at) values (?, ?, ?, ?)"
                             " on conflict do nothing", [self._ws, user_id, topic, now]):
                added.append(topic)
        return added

    def remove_topic(self, user_id: str, topic: str) -> list[str]:
        gone = [t for t in self.get_topics(user_id) if t.casefold() == topic.casefold()]
        if gone:
            listed, args = self._sql.listed(gone)
            self._sql.run("delete from topics where ws = ? and user_id = ?"  # noqa: S608
                          f" and topic in (select id from {listed})", [self._ws, user_id, *args])
        return gone

    def remove_all_topics(self, user_id: str) -> int:
        return self._sql.run("delete from topics where ws = ? and user_id = ?", [self._ws, user_id])

    # -- feedback --------------------------------------------------------------------------------

    def set_feedback(self, user_id: str, paper_id: str, value: int) -> None:
        # An id merged into another paper counts for that paper.
        self._sql.run("insert into feedback (ws, user_id, paper_id, value, created_at)"  # noqa: S608
                      f" values (?, ?, {merging.RESOLVED}, ?, ?)"
                      " on conflict (ws, user_id, paper_id) do update set value = excluded.value,"
                      " created_at = excluded.created_at",
                      [self._ws, user_id, paper_id, paper_id, value, utcnow()])

    def remove_feedback(self, user_id: str, paper_id: str, value: int | None = None) -> bool:
        sql = f"delete from feedback where ws = ? and user_id = ? and paper_id = {merging.RESOLVED}"  # noqa: S608
        args: list[Any] = [self._ws, user_id, paper_id, paper_id]
        if value is not None:
            sql, args = sql + " and value = ?", [*args, value]
        return self._sql.run(sql, args) > 0

    def likes_by_person(self) -> list[list[str]]:
        likes: dict[str, list[str]] = {}
        order = self._sql.insertion_order
        for user_id, paper_id in self._sql.all("select user_id, paper_id from feedback where ws = ?"  # noqa: S608
                                               f" and value > 0 order by user_id, {order}", [self._ws]):
            likes.setdefault(user_id, []).append(paper_id)
        return list(likes.values())

    def feedback_version(self) -> int:
        # A number that changes whenever anyone's feedback in this workspace changes (counted in the
        # workspace's own counter by the writers).
        row = self._sql.one("select value from feedback_counters where ws = ?", [self._ws])
        return int(row[0]) if row else 0

    def get_feedback(self, user_id: str) -> list[Feedback]:
        # The order is a constant of the dialect.
        sql = ("select paper_id, value, created_at from feedback where ws = ? and user_id = ?"  # noqa: S608
               f" order by created_at, {self._sql.insertion_order}")
        return [Feedback(*r) for r in self._sql.all(sql, [self._ws, user_id])]

    # -- what was shown --------------------------------------------------------------------------

    def mark_shown(self, user_id: str, paper_id: str, reason: str = "", channel: str | None = None,
                   message_ts: str | None = None) -> None:
        self._sql.run(
            "insert into shown (ws, user_id, paper_id, shown_at, reason, channel, message_ts)"  # noqa: S608
            f" values (?, ?, {merging.RESOLVED}, ?, ?, ?, ?)"
            " on conflict (ws, user_id, paper_id) do update set shown_at = excluded.shown_at,"
            " reason = excluded.reason, channel = excluded.channel, message_ts = excluded.message_ts",
            [self._ws, user_id, paper_id, paper_id, utcnow(), reason, channel, message_ts])

    def shown_paper_ids(self, user_id: str) -> set[str]:
        return {r[0] for r in self._sql.all("select paper_id from shown where ws = ? and user_id = ?",
                                            [self._ws, user_id])}

    def paper_for_message(self, channel: str, message_ts: str) -> tuple[str, str] | None:
        row = self._sql.one("select user_id, paper_id from shown where ws = ? and channel = ?"
                            " and message_ts = ? limit 1", [self._ws, channel, message_ts])
        return (row[0], row[1]) if row else None

    def papers_on_message(self, channel: str, message_ts: str) -> list[tuple[str, str]]:
        return [(r[0], r[1]) for r in self._sql.all("select user_id, paper_id from shown where ws = ?"
                                                    " and channel = ? and message_ts = ?",
                                                    [self._ws, channel, message_ts])]

    def shown_among(self, user_id: str, paper_ids: Iterable[str]) -> set[str]:
        ids = list(dict.fromkeys(paper_ids))
        if not ids:
            return set()
        listed, args = self._sql.listed(ids)
        return {r[0] for r in self._sql.all(f"select c.id from {listed}"  # noqa: S608
                                            " left join paper_aliases a on a.alias = c.id"
                                            " join shown s on s.paper_id = coalesce(a.paper_id, c.id)"
                                            " where s.ws = ? and s.user_id = ?", [*args, self._ws, user_id])}

    def shown_at(self, user_id: str, paper_id: str) -> str | None:
        row = self._sql.one("select shown_at from shown where ws = ? and user_id = ? and paper_id = ?",
                            [self._ws, user_id, paper_id])
        return row[0] if row else None

    def shown_reason(self, user_id: str, paper_id: str) -> str | None:
        row = self._sql.one("select reason from shown where ws = ? and user_id = ? and paper_id = ?",
                            [self._ws, user_id, paper_id])
        return row[0] if row else None

    # -- everything about a person ---------------------------------------------------------------

    def person_rows(self, user_id: str) -> dict[str, list[dict]]:
        found = {}
        with self.transaction():  # one consistent read of every table
            for table in TABLES_ABOUT_A_PERSON:
                sql, names = rows_of_person(self._sql.name, table)
                found[table] = [dict(zip(names, row, strict=True))
                                for row in self._sql.all(sql, [self._ws, user_id])]
        return found

    def rows_about(self, user_id: str) -> dict[str, int]:
        return {t: self._count_about(t, user_id) for t in TABLES_ABOUT_A_PERSON}

    def _count_about(self, table: str, user_id: str) -> int:
        """How many rows of ``table`` (one of TABLES_ABOUT_A_PERSON) name ``user_id`` in this workspace."""
        # Table and column names come from storage.tables, never from input.
        sql = f"select count(*) from {table} where ws = ? and {about_person(table)}"  # noqa: S608
        return int(self._sql.all(sql, [self._ws, user_id])[0][0])

    def forget_person(self, user_id: str) -> dict[str, int]:
        # Delete every row about a person from every table, and their id from the rows of the workspace's
        # that name them (NAMING_COLUMNS); returns rows deleted (or cleared of them) per table. Holds the
        # person's lock (:meth:`lock_person`): a write for them under way elsewhere (a paper recorded as
        # shown, a like) finishes first, or waits and then finds them gone, never adding a row after. Then
        # the store's :meth:`scrub_log` leaves nothing of them where it can reach.
        deleted = {}
        with self.transaction():
            self.lock_person(user_id)
            for table in PERSONAL_TABLES:
                # Table names come from PERSONAL_TABLES, never from input.
                deleted[table] = self._sql.run(f"delete from {table} where ws = ? and user_id = ?",  # noqa: S608
                                               [self._ws, user_id])
            # Their requests as received (a slash command's text), done or still to do, go too: work in
            # passing, not data about them (so neither counted in rows_about nor exported).
            deleted[INBOX] = self._sql.run(INBOX_FORGET, [self._ws, user_id])
            if user_id:  # "" is no one's id: it is what an installation without an installer holds
                # Rows of the workspace's that name them (an installation, a channel's settings) stay,
                # without their id; counted as the rows that named them.
                deleted["installations"] = self._count_about("installations", user_id)
                self._sql.run(FORGET_INSTALLER_CLASH, [self._ws, user_id, self._ws, user_id])
                self._sql.run(FORGET_INSTALLER, [self._ws, user_id])
                deleted["channels"] = self._sql.run(FORGET_SETTER, [self._ws, user_id])
                # Suggestions they made stay the colleagues' (theirs as colleague went above).
                deleted["suggestions"] += self._sql.run(FORGET_ASKER, [self._ws, user_id])
        self.scrub_log()
        return deleted
