"""A Slack channel's own settings, on either backend, and the counts its trending post shows.

A channel's profile (topics, feedback, what it was shown, its digests and their schedule) lives in the
person-level tables under the channel's id, as if the channel were a person: the digest machinery's
exactly-once rules then hold for it unchanged. The ``channels`` table says which of those subjects
are channels, who set each up, and whether its weekly trending post is on; ``trending_posts`` holds
the lease of each week's post (:data:`storage.leases.TRENDING`, keyed by the week's Monday).

:class:`ChannelSettings` is mixed into both stores like :class:`storage.preferences.Preferences`: its
statements (qmark placeholders, no literal ``?`` or ``%``) run through the store's dialect, and
every one filters or writes the store's workspace ``self._ws``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from storage.dialect import Shared
from storage.models import TrendingStatus
from storage.records import utcnow


@dataclass(frozen=True)
class ChannelRecord:
    """A channel paperbot keeps settings for: who set it up last, and since when (ISO UTC) its weekly
    trending post is on (``trending``)."""

    channel_id: str
    set_by: str | None
    trending: bool
    trending_since: str | None
    created_at: str | None


@dataclass(frozen=True)
class TrendingRecord:
    """The lease of one channel's trending post for one week (see :mod:`storage.leases`)."""

    channel_id: str
    week: str
    status: TrendingStatus  # "posting" while someone holds it, then "posted", "empty" or "failed"
    owner: str | None
    lease_until: str | None
    attempts: int
    error: str | None
    message_ts: str | None


#: Likes of one workspace since a moment, counted once per person per paper. A channel's own feedback
#: (a subject listed in ``channels``) is no person's and is left out.
LIKED_SINCE = (
    "select f.paper_id, count(distinct f.user_id) as n, max(f.created_at) as latest from feedback f"
    " where f.ws = ? and f.value > 0 and f.created_at >= ?"
    " and not exists (select 1 from channels c where c.ws = f.ws and c.channel_id = f.user_id)"
    " group by f.paper_id order by n desc, latest desc, f.paper_id limit ?"
)


#: Forgetting a person: the channels they set up keep their settings (they are the channel's), without
#: the name of who set them up.
FORGET_SETTER = "update channels set set_by = null where ws = ? and set_by = ?"


class ChannelsStore(Protocol):
    """Channels' settings in this view's workspace, and their weekly trending posts."""

    def add_channel(self, channel_id: str, set_by: str | None = None) -> bool:
        """Keep settings for a channel (``set_by``: who ran the command, kept as the latest); True if
        the channel is new."""
        ...

    def get_channel(self, channel_id: str) -> ChannelRecord | None:
        """A channel's settings, or None for a channel paperbot keeps none for."""
        ...

    def set_trending(self, channel_id: str, on: bool, since: str | None = None) -> bool:
        """Turn a known channel's weekly trending post on (as of ``since``, ISO UTC, default now) or off;
        False for a channel paperbot keeps no settings for."""
        ...

    def trending_channels(self, week: str, on_since: str) -> list[str]:
        """The channels whose trending post is on since ``on_since`` (ISO UTC) or earlier and whose post
        for ``week`` has not ended (none yet, or one still "posting"): who may be due. Whether one is
        taken is the lease's to decide."""
        ...

    def get_trending_post(self, channel_id: str, week: str) -> TrendingRecord | None:
        """The lease of a channel's trending post for ``week``, or None before anyone took it."""
        ...

    def record_trending_message(self, channel_id: str, week: str, owner: str, message_ts: str) -> bool:
        """Remember the message ``owner``'s trending post went out as; False if it is not theirs."""
        ...

    def liked_since(self, since: str, limit: int) -> list[tuple[str, int]]:
        """The papers people of this workspace liked since ``since`` (ISO UTC), most-liked first (then
        the latest liked), at most ``limit``: (paper id, how many people liked it). Never who."""
        ...


class ChannelSettings(Shared):
    """Channels' settings and trending counts of one workspace (see the module)."""


    def add_channel(self, channel_id: str, set_by: str | None = None) -> bool:
        new = self._sql.run("insert into channels (ws, channel_id, set_by, trending, created_at)"
                             " values (?, ?, ?, 0, ?) on conflict do nothing",
                             [self._ws, channel_id, set_by, utcnow()]) > 0
        if not new and set_by is not None:
            self._sql.run("update channels set set_by = ? where ws = ? and channel_id = ?",
                           [set_by, self._ws, channel_id])
        return new

    def get_channel(self, channel_id: str) -> ChannelRecord | None:
        rows = self._sql.all("select channel_id, set_by, trending, trending_since, created_at from channels"
                               " where ws = ? and channel_id = ?", [self._ws, channel_id])
        if not rows:
            return None
        channel, set_by, trending, since, created = rows[0]
        return ChannelRecord(channel, set_by, bool(trending), since, created)

    def set_trending(self, channel_id: str, on: bool, since: str | None = None) -> bool:
        return self._sql.run("update channels set trending = ?, trending_since = ? where ws = ?"
                              " and channel_id = ?",
                              [int(on), (since or utcnow()) if on else None, self._ws, channel_id]) > 0

    def trending_channels(self, week: str, on_since: str) -> list[str]:
        rows = self._sql.all(
            "select c.channel_id from channels c where c.ws = ? and c.trending = 1 and c.trending_since <= ?"
            " and not exists (select 1 from trending_posts t where t.ws = c.ws"
            " and t.channel_id = c.channel_id and t.week = ? and t.status <> 'posting')"
            " order by c.channel_id", [self._ws, on_since, week])
        return [r[0] for r in rows]

    def get_trending_post(self, channel_id: str, week: str) -> TrendingRecord | None:
        rows = self._sql.all("select channel_id, week, status, owner, lease_until, attempts, error,"
                               " message_ts from trending_posts where ws = ? and channel_id = ? and week = ?",
                               [self._ws, channel_id, week])
        if not rows:
            return None
        channel, week, status, owner, lease_until, attempts, error, message_ts = rows[0]
        return TrendingRecord(channel, week, status, owner, lease_until, int(attempts or 0), error,
                              message_ts)

    def record_trending_message(self, channel_id: str, week: str, owner: str, message_ts: str) -> bool:
        return self._sql.run("update trending_posts set message_ts = ? where ws = ? and channel_id = ?"
                              " and week = ? and owner = ? and status = 'posting'",
                              [message_ts, self._ws, channel_id, week, owner]) > 0

    def liked_since(self, since: str, limit: int) -> list[tuple[str, int]]:
        return [(r[0], int(r[1])) for r in self._sql.all(LIKED_SINCE, [self._ws, since, limit])]
