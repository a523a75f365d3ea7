"""What both stores run to serve many workspaces from one database: moving the rows of a database from
before workspaces into one (``adopt_workspace``, each backend's own over :func:`copy_into`), deleting a
workspace, summing them up, the shared installations and OAuth states, and counting every table.
Statements use qmark placeholders (run through the store's :class:`~storage.dialect.Dialect`); table
and column names come from :mod:`storage.tables`, never from input.

A workspace key ``ws`` is a plain string: the team id of a workspace install, or the enterprise id of an
org-wide install; "" holds rows not assigned to a workspace yet.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

from storage.dialect import Shared
from storage.models import StoredInstallation, WorkspaceSummary
from storage.tables import COPIED_TABLES, PERSON_SETTINGS, WORKSPACE_TABLES

#: Every table ``delete_workspace`` empties of a workspace's rows.
DELETED_TABLES = (*WORKSPACE_TABLES, "installations")

#: The tables ``adopt_workspace`` moves, in order; the feedback counter of "" is dropped after them (the
#: moved feedback already counted in the workspace's own).
MOVED_TABLES = ("people", "topics", "feedback", "shown", "digests", "once_keys", "saved", "installations",
                "feed_topics", "followed_authors", "mutes", "feed_papers", "channels", "trending_posts",
                "workspace_settings", "polls", "poll_votes", "suggestions", "channel_recaps", "recap_posts")

#: A person's settings written with their schedule (``digest_since`` is set with every schedule): taken
#: from the old row together, and only when the workspace's own never set one.
_WITH_SCHEDULE = ("digest_time", "digest_enabled", "digest_weekday")
_UNLESS_SCHEDULED = "case when people.digest_since is null then excluded.{0} else people.{0} end"
_UNLESS_SET = "coalesce(people.{0}, excluded.{0})"
#: Where a moved row meets the workspace's own with the same key, the workspace's is kept; a person's
#: row also takes from the old one what it never had: any other setting (a timezone, say), a DM channel,
#: a schedule never set, and the earlier creation time.
_PERSON_MERGE = "on conflict (ws, user_id) do update set " + ", ".join(
    [f"{c} = " + (_UNLESS_SCHEDULED if c in _WITH_SCHEDULE else _UNLESS_SET).format(c)
     for c in (*PERSON_SETTINGS, "tz_checked_at", "dm_channel")]
    + ["created_at = case when people.created_at is null or excluded.created_at < people.created_at"
       " then excluded.created_at else people.created_at end"])


def moved_columns(table: str) -> tuple[str, ...]:
    """The columns of ``table`` a move carries (all but ``ws``)."""
    return tuple(c for c in COPIED_TABLES[table] if c != "ws")


def on_collision(table: str) -> str:
    """What inserting a moved row of ``table`` does where the workspace has that key already."""
    return _PERSON_MERGE if table == "people" else "on conflict do nothing"


def copy_into(table: str, source: str, where: str, order: str | None) -> str:
    """``insert`` of the rows of ``source`` (``table`` itself, or a CTE of its moved columns) that match
    ``where`` into workspace ``?`` of ``table``, in ``order``; collisions as :func:`on_collision`."""
    names = ", ".join(moved_columns(table))
    ordered = f" order by {order}" if order else ""
    # Always a WHERE: SQLite would read "from x on conflict" as a join.
    return (f"insert into {table} (ws, {names}) select ?, {names} from {source} where {where}"  # noqa: S608
            f"{ordered} {on_collision(table)}")


# -- installations and OAuth states ------------------------------------------------------------------

#: Upsert of one user's installation in a workspace. ``seq`` numbers the saves, so the latest saved is
#: the last one made whatever the hosts' clocks said (``installed_at``); two saves at the very same time
#: on PostgreSQL may draw the same number, and either is then the latest.
SAVE_INSTALLATION = (
    "insert into installations (ws, installer_id, enterprise_id, team_id, is_enterprise_install, data,"
    " installed_at, seq) values (?, ?, ?, ?, ?, ?, ?, (select coalesce(max(seq), 0) + 1 from installations))"
    " on conflict (ws, installer_id) do update set enterprise_id = excluded.enterprise_id,"
    " team_id = excluded.team_id, is_enterprise_install = excluded.is_enterprise_install,"
    " data = excluded.data, installed_at = excluded.installed_at, seq = excluded.seq"
)
LATEST = "order by seq desc, installed_at desc, installer_id desc"
FIND_LATEST_INSTALLATION = f"select data from installations where ws = ? {LATEST} limit 1"  # noqa: S608
FIND_INSTALLATION = "select data from installations where ws = ? and installer_id = ?"
DELETE_INSTALLATIONS = "delete from installations where ws = ?"
DELETE_INSTALLATION = "delete from installations where ws = ? and installer_id = ?"
INSTALLATION_KEYS = "select distinct ws from installations order by ws"
INSTALLATIONS = "select ws, installer_id, data from installations order by ws, installer_id"
#: Only while the row still holds what the caller read: a save (or another process's replacement) made
#: since is kept. On PostgreSQL a second update waiting on the first sees its row and matches nothing.
REPLACE_INSTALLATION = "update installations set data = ? where ws = ? and installer_id = ? and data = ?"

# Forgetting an installer (``forget_person``). Their installation row stays: it holds the workspace's bot
# token, and deleting it could leave the workspace uninstalled. Their id goes from its key: it becomes
# "", the installer id of an installation saved without one (``save_installation``, Bolt's ``save_bot``),
# a value no Slack user id takes, so the row no longer names anyone, the workspace is still served by
# its latest row (``seq`` unchanged) and nobody's user-scoped lookup finds it. NULL can't be a key column.
# The key (ws, installer_id) must stay unique: where the workspace has a row of "" already, the older of
# the two goes first. Both are nobody's then, and the latest of the two is kept, so the workspace's
# latest installation, the one that serves it, is never the one deleted. The sealed ``data`` is opaque
# here: the installer's id inside it (Bolt's Installation.user_id) goes when the OAuth layer, which holds
# the key, seals it again without it (PaperbotInstallationStore.forget_installer, after a forget).
FORGET_INSTALLER_CLASH = (
    "delete from installations where ws = ? and installer_id in ('', ?) and installer_id <> ("  # noqa: S608
    f"select installer_id from installations where ws = ? and installer_id in ('', ?) {LATEST} limit 1)")
FORGET_INSTALLER = "update installations set installer_id = '' where ws = ? and installer_id = ?"

ISSUE_STATE = "insert into oauth_states (state, expires_at) values (?, ?) on conflict (state) do nothing"
#: One statement takes the state away: of two consumers at once, one gets its row.
TAKE_STATE = "delete from oauth_states where state = ? returning expires_at"
DROP_EXPIRED_STATES = "delete from oauth_states where expires_at <= ?"


# -- summaries ---------------------------------------------------------------------------------------

INSTALLATION_ROWS = ("select ws, team_id, enterprise_id, is_enterprise_install, installed_at"  # noqa: S608
                     f" from installations {LATEST}")
#: People, that is: not the channels whose own digests live in ``people`` too.
PEOPLE_COUNTS = ("select ws, count(*) from people p where not exists (select 1 from channels c"
                 " where c.ws = p.ws and c.channel_id = p.user_id) group by ws")
LAST_DIGESTS = "select ws, max(finished_at) from digests where finished_at is not null group by ws"
#: The workspaces that turned "saved by N people here" off (on, the default, needs no row).
SOCIAL_OFF = "select ws from workspace_settings where social = 0"

# -- a workspace's settings ----------------------------------------------------------------------------

SOCIAL = "select social from workspace_settings where ws = ?"
SET_SOCIAL = ("insert into workspace_settings (ws, social, updated_at) values (?, ?, ?)"
              " on conflict (ws) do update set social = excluded.social, updated_at = excluded.updated_at")


def summaries(installations: Iterable[tuple], people: Iterable[tuple], last_digests: Iterable[tuple],
              social_off: Iterable[tuple] = ()) -> list[WorkspaceSummary]:
    """One summary per workspace with an installation or a person, by ``ws``: from the rows of
    :data:`INSTALLATION_ROWS` (latest first), :data:`PEOPLE_COUNTS`, :data:`LAST_DIGESTS` and
    :data:`SOCIAL_OFF`."""
    latest: dict[str, tuple] = {}
    for row in installations:
        latest.setdefault(row[0], row)
    counts = {ws: int(n) for ws, n in people}
    digests = dict(last_digests)
    unsocial = {row[0] for row in social_off}
    found = []
    for ws in sorted(set(latest) | set(counts)):
        _, team_id, enterprise_id, org, installed_at = latest.get(ws, (ws, None, None, 0, None))
        found.append(WorkspaceSummary(ws=ws, team_id=team_id, enterprise_id=enterprise_id,
                                      is_enterprise_install=bool(org), installed_at=installed_at,
                                      people=counts.get(ws, 0), last_digest_at=digests.get(ws),
                                      social=ws not in unsocial))
    return found


class WorkspacesStore(Protocol):
    """Whole workspaces: adopting, deleting and listing them, and their own settings."""

    def adopt_workspace(self, ws: str) -> int:
        """Move every row of workspace "" (a database from before workspaces) into ``ws``, in one
        transaction; returns how many rows moved (0 the second time). Where ``ws`` has a row with the
        same key already, its own is kept, a person's taking from the old what it lacks
        (:mod:`storage.workspaces`). A row written to "" meanwhile is either moved or left for next
        time, never lost; two adoptions at once take turns."""
        ...

    def delete_workspace(self, ws: str) -> dict[str, int]:
        """Delete every row of workspace ``ws`` from every table holding workspace rows, its
        installations included, in one transaction; returns rows deleted per table. Like
        :meth:`forget_person`, nothing of it is left in the file or its log."""
        ...

    def workspaces(self) -> list[WorkspaceSummary]:
        """Every workspace with an installation or a person, by key: its latest installation, how many
        people, when its latest digest finished, and whether it shows saved counts."""
        ...

    def social_counts_on(self) -> bool:
        """Whether this workspace's paper messages say how many people here saved the paper (on unless
        :meth:`set_social_counts` turned it off)."""
        ...

    def set_social_counts(self, on: bool, at: str) -> None:
        """Turn this workspace's saved counts on or off; ``at``: when (ISO UTC)."""
        ...


class InstallationsStore(Protocol):
    """Slack installations and OAuth states, shared by every view (each installation names its workspace)."""

    def save_installation(self, ws: str, enterprise_id: str | None, team_id: str | None, user_id: str,
                          is_enterprise_install: bool, data: str, at: str) -> None:
        """Keep the installation of workspace ``ws`` by ``user_id`` (the installing user; "" allowed):
        ``data`` is whatever the caller saves, encrypted by it, never read here; ``at`` is when (ISO
        UTC). Replaces that user's earlier one; the latest saved is the workspace's
        (:meth:`find_installation` without a user)."""
        ...

    def find_installation(self, ws: str, user_id: str | None = None) -> str | None:
        """The data of ``user_id``'s installation in ``ws``, or (``user_id`` None) of the latest saved
        there; None without one."""
        ...

    def delete_installations(self, ws: str, user_id: str | None = None) -> int:
        """Delete ``user_id``'s installation in ``ws``, or (None) all of them; returns how many."""
        ...

    def installation_keys(self) -> list[str]:
        """Every workspace key with an installation, in order."""
        ...

    def installations(self) -> list[StoredInstallation]:
        """Every installation row (each installer's in each workspace), by workspace key and installer."""
        ...

    def replace_installation(self, ws: str, user_id: str, expected: str, data: str) -> bool:
        """Replace the data of ``user_id``'s installation in ``ws`` by ``data``, only while it is still
        ``expected`` (what the caller read): True if replaced. Its time and place in the order of saves
        stay, so the latest saved stays the latest; a save or a replacement made meanwhile is never
        overwritten, and of racing replacements of the same data exactly one wins."""
        ...

    def issue_oauth_state(self, state: str, expires_at: str) -> None:
        """Remember an OAuth state handed out, usable once until ``expires_at`` (ISO UTC)."""
        ...

    def consume_oauth_state(self, state: str, now: str) -> bool:
        """Use up ``state``: True exactly once for a state issued and unexpired at ``now`` (ISO UTC),
        however many consume it at once. Expired states are dropped on the way."""
        ...


class Workspaces(Shared):
    """Whole workspaces, installations and OAuth states (see the module)."""

    def _adopt(self, ws: str) -> int:  # pragma: no cover - each store's own
        raise NotImplementedError

    def adopt_workspace(self, ws: str) -> int:
        # Move every row of workspace "" (a database from before workspaces) into ``ws``, in one transaction;
        # returns how many rows moved (0 the second time). Where ``ws`` has a row with the same key already,
        # its own is kept, a person's taking from the old what it lacks (:func:`copy_into`). How two
        # adoptions at once take turns is the store's own (:meth:`_adopt`).
        if ws == "":
            return 0  # already there (moving "" into itself would only delete it)
        return self._adopt(ws)

    def delete_workspace(self, ws: str) -> dict[str, int]:
        # Delete every row of workspace ``ws`` from every table holding workspace rows, its installations
        # included, in one transaction; returns rows deleted per table. Like :meth:`forget_person`, the
        # store's :meth:`scrub_log` then leaves nothing of it where it can reach.
        deleted = {}
        with self.transaction():
            for table in DELETED_TABLES:
                # Table names come from DELETED_TABLES, never from input.
                deleted[table] = self._sql.run(f"delete from {table} where ws = ?", [ws])  # noqa: S608
        self.scrub_log()
        return deleted

    def workspaces(self) -> list[WorkspaceSummary]:
        with self.transaction():  # one consistent read of the four
            return summaries(self._sql.all(INSTALLATION_ROWS), self._sql.all(PEOPLE_COUNTS),
                             self._sql.all(LAST_DIGESTS), self._sql.all(SOCIAL_OFF))

    def social_counts_on(self) -> bool:
        row = self._sql.one(SOCIAL, [self._ws])
        return row is None or bool(row[0])

    def set_social_counts(self, on: bool, at: str) -> None:
        self._sql.write(SET_SOCIAL, [self._ws, int(bool(on)), at])

    def table_counts(self) -> dict[str, int]:
        # Table names come from COPIED_TABLES, never from input.
        sql = " union all ".join(f"select '{t}', count(*) from {t}" for t in COPIED_TABLES)  # noqa: S608
        found = dict(self._sql.all(sql))
        return {t: int(found[t]) for t in COPIED_TABLES}

    # -- installations and OAuth states (shared) -------------------------------------------------

    def save_installation(self, ws: str, enterprise_id: str | None, team_id: str | None, user_id: str,
                          is_enterprise_install: bool, data: str, at: str) -> None:
        self._sql.write(SAVE_INSTALLATION, [ws, user_id or "", enterprise_id, team_id,
                                            int(bool(is_enterprise_install)), data, at])

    def find_installation(self, ws: str, user_id: str | None = None) -> str | None:
        if user_id is None:
            row = self._sql.one(FIND_LATEST_INSTALLATION, [ws])
        else:
            row = self._sql.one(FIND_INSTALLATION, [ws, user_id])
        return row[0] if row else None

    def delete_installations(self, ws: str, user_id: str | None = None) -> int:
        if user_id is None:
            return self._sql.run(DELETE_INSTALLATIONS, [ws])
        return self._sql.run(DELETE_INSTALLATION, [ws, user_id])

    def installation_keys(self) -> list[str]:
        return [r[0] for r in self._sql.all(INSTALLATION_KEYS)]

    def installations(self) -> list[StoredInstallation]:
        return [StoredInstallation(*row) for row in self._sql.all(INSTALLATIONS)]

    def replace_installation(self, ws: str, user_id: str, expected: str, data: str) -> bool:
        return self._sql.write(REPLACE_INSTALLATION, [data, ws, user_id or "", expected]) == 1

    def issue_oauth_state(self, state: str, expires_at: str) -> None:
        self._sql.run(ISSUE_STATE, [state, expires_at])

    def consume_oauth_state(self, state: str, now: str) -> bool:
        # Not a lease (storage.leases): a state used up, not work held; nothing to renew, give back or finish.
        # Use up ``state``: True exactly once for a state issued and unexpired at ``now`` (ISO UTC), however
        # many consume it at once (one statement takes it away). Expired states are dropped on the way.
        rows = self._sql.returning(TAKE_STATE, [state])
        self._sql.run(DROP_EXPIRED_STATES, [now])
        return bool(rows) and rows[0][0] > now
