"""What both stores run to serve many workspaces from one database: moving the rows of a database from
before workspaces into one (``adopt_workspace``), deleting a workspace, summing them up, and the shared
installations and OAuth states. Statements use qmark placeholders (PostgreSQL's store turns them into
its own); table and column names come from :mod:`storage.tables`, never from input.

A workspace key ``ws`` is a plain string: the team id of a workspace install, or the enterprise id of an
org-wide install; "" holds rows not assigned to a workspace yet.
"""

from __future__ import annotations

from collections.abc import Iterable

from storage.models import WorkspaceSummary
from storage.tables import COPIED_TABLES, WORKSPACE_TABLES

#: Every table ``delete_workspace`` empties of a workspace's rows.
DELETED_TABLES = (*WORKSPACE_TABLES, "installations")

#: The tables ``adopt_workspace`` moves, in order; the feedback counter of "" is dropped after them (the
#: moved feedback already counted in the workspace's own).
MOVED_TABLES = ("people", "topics", "feedback", "shown", "digests", "once_keys", "saved", "installations",
                "feed_topics", "followed_authors", "mutes", "feed_papers", "channels", "trending_posts")

#: Where a moved row meets the workspace's own with the same key, the workspace's is kept; a person's
#: row also takes from the old one what it never had: a timezone, a DM channel, a schedule never set
#: (``digest_since`` is set with every schedule), and the earlier creation time.
_PERSON_MERGE = (
    "on conflict (ws, user_id) do update set"
    " tz = coalesce(people.tz, excluded.tz),"
    " tz_checked_at = coalesce(people.tz_checked_at, excluded.tz_checked_at),"
    " dm_channel = coalesce(people.dm_channel, excluded.dm_channel),"
    " digest_time = case when people.digest_since is null then excluded.digest_time"
    " else people.digest_time end,"
    " digest_enabled = case when people.digest_since is null then excluded.digest_enabled"
    " else people.digest_enabled end,"
    " digest_weekday = case when people.digest_since is null then excluded.digest_weekday"
    " else people.digest_weekday end,"
    " digest_since = coalesce(people.digest_since, excluded.digest_since),"
    " created_at = case when people.created_at is null or excluded.created_at < people.created_at"
    " then excluded.created_at else people.created_at end"
)


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


def summaries(installations: Iterable[tuple], people: Iterable[tuple], last_digests: Iterable[tuple]
              ) -> list[WorkspaceSummary]:
    """One summary per workspace with an installation or a person, by ``ws``: from the rows of
    :data:`INSTALLATION_ROWS` (latest first), :data:`PEOPLE_COUNTS` and :data:`LAST_DIGESTS`."""
    latest: dict[str, tuple] = {}
    for row in installations:
        latest.setdefault(row[0], row)
    counts = {ws: int(n) for ws, n in people}
    digests = dict(last_digests)
    found = []
    for ws in sorted(set(latest) | set(counts)):
        _, team_id, enterprise_id, org, installed_at = latest.get(ws, (ws, None, None, 0, None))
        found.append(WorkspaceSummary(ws=ws, team_id=team_id, enterprise_id=enterprise_id,
                                      is_enterprise_install=bool(org), installed_at=installed_at,
                                      people=counts.get(ws, 0), last_digest_at=digests.get(ws)))
    return found
