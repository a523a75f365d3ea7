"""A channel's weekly recap, on either backend: its setting (``channel_recaps``: the weekday, the time
and the timezone it is meant in), the lease of each week's post (``recap_posts``, kind
:data:`storage.leases.RECAP`, keyed by the local date it is due: made once, as a trending post is), and
which of some papers nobody in the workspace was shown or rated (the recap's "unclaimed").

The week's likes and saves are :mod:`storage.saved`'s (``liked_or_saved_since``), the trending post's.
:class:`Recaps` is mixed into both stores like :class:`storage.channel_settings.ChannelSettings`: its
statements use qmark placeholders, run through the store's dialect, and every one filters or writes
the store's workspace ``self._ws``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from storage.dialect import Shared
from storage.models import TrendingStatus


@dataclass(frozen=True)
class RecapSetting:
    """A channel's weekly recap: on ``weekday`` (0 = Monday) at ``at_time`` (HH:MM) in ``tz`` (None:
    UTC), set at ``since`` (ISO UTC); ``last_week``: the latest week whose post ended (None: none yet)."""

    channel_id: str
    weekday: int
    at_time: str
    tz: str | None
    since: str | None
    last_week: str | None = None


@dataclass(frozen=True)
class RecapPost:
    """The lease of one channel's recap for one week (see :mod:`storage.leases`)."""

    channel_id: str
    week: str
    status: TrendingStatus  # "posting" while someone holds it, then "posted", "empty" or "failed"
    owner: str | None
    attempts: int
    message_ts: str | None


#: A recap set again replaces the channel's setting (its posts of past weeks stay).
SET = ("insert into channel_recaps (ws, channel_id, weekday, at_time, tz, since) values (?, ?, ?, ?, ?, ?)"
       " on conflict (ws, channel_id) do update set weekday = excluded.weekday, at_time = excluded.at_time,"
       " tz = excluded.tz, since = excluded.since")
OFF = "delete from channel_recaps where ws = ? and channel_id = ?"
#: Every recap of the workspace, each with the latest week whose post ended: one statement a scheduler
#: tick, whoever is due is decided from it (and then by the lease).
SETTINGS = (
    "select r.channel_id, r.weekday, r.at_time, r.tz, r.since, (select max(p.week) from recap_posts p"
    " where p.ws = r.ws and p.channel_id = r.channel_id and p.status <> 'posting')"
    " from channel_recaps r where r.ws = ?"
)
#: Of some papers, those nobody in the workspace (a person or a channel) was shown, rated or saved.
#: Each condition is read by its table's index on paper_id.
UNCLAIMED = (
    "select c.id from {listed} where not exists (select 1 from shown s where s.paper_id = c.id and s.ws = ?)"
    " and not exists (select 1 from feedback f where f.paper_id = c.id and f.ws = ?)"
    " and not exists (select 1 from saved v where v.paper_id = c.id and v.ws = ?)"
)


class RecapsStore(Protocol):
    """Channels' weekly recaps in this view's workspace (see the module)."""

    def set_recap(self, channel_id: str, weekday: int, at_time: str, tz: str | None, since: str) -> None:
        """Turn the channel's weekly recap on (or change it): ``weekday`` (0 = Monday) at ``at_time``
        (HH:MM) in ``tz`` (None: UTC), as of ``since`` (ISO UTC)."""
        ...

    def recap_off(self, channel_id: str) -> bool:
        """Turn the channel's recap off; False if it had none."""
        ...

    def get_recap(self, channel_id: str) -> RecapSetting | None:
        """The channel's recap, or None when it has none."""
        ...

    def recap_settings(self) -> list[RecapSetting]:
        """Every recap of the workspace, each with the latest week whose post ended, by channel id."""
        ...

    def get_recap_post(self, channel_id: str, week: str) -> RecapPost | None:
        """The lease of a channel's recap for ``week``, or None before anyone took it."""
        ...

    def record_recap_message(self, channel_id: str, week: str, owner: str, message_ts: str) -> bool:
        """Remember the message ``owner``'s recap went out as; False if it is not theirs."""
        ...

    def unclaimed(self, paper_ids: Sequence[str]) -> set[str]:
        """Those of ``paper_ids`` nobody in this workspace (a person or a channel) was shown, liked,
        disliked or saved."""
        ...


class Recaps(Shared):
    """Channels' weekly recaps of one workspace (see the module)."""

    def set_recap(self, channel_id: str, weekday: int, at_time: str, tz: str | None, since: str) -> None:
        self._sql.run(SET, [self._ws, channel_id, weekday, at_time, tz, since])

    def recap_off(self, channel_id: str) -> bool:
        return self._sql.run(OFF, [self._ws, channel_id]) > 0

    def get_recap(self, channel_id: str) -> RecapSetting | None:
        return next((r for r in self._settings(" and r.channel_id = ?", [channel_id])), None)

    def recap_settings(self) -> list[RecapSetting]:
        return self._settings(" order by r.channel_id", [])

    def _settings(self, tail: str, args: list) -> list[RecapSetting]:
        rows = self._sql.all(SETTINGS + tail, [self._ws, *args])
        return [RecapSetting(r[0], int(r[1]), r[2], r[3], r[4], r[5]) for r in rows]

    def get_recap_post(self, channel_id: str, week: str) -> RecapPost | None:
        rows = self._sql.all("select channel_id, week, status, owner, attempts, message_ts from recap_posts"
                             " where ws = ? and channel_id = ? and week = ?", [self._ws, channel_id, week])
        if not rows:
            return None
        channel, week, status, owner, attempts, message_ts = rows[0]
        return RecapPost(channel, week, status, owner, int(attempts or 0), message_ts)

    def record_recap_message(self, channel_id: str, week: str, owner: str, message_ts: str) -> bool:
        return self._sql.run("update recap_posts set message_ts = ? where ws = ? and channel_id = ?"
                             " and week = ? and owner = ? and status = 'posting'",
                             [message_ts, self._ws, channel_id, week, owner]) > 0

    def unclaimed(self, paper_ids: Sequence[str]) -> set[str]:
        if not paper_ids:
            return set()
        listed, args = self._sql.listed(list(dict.fromkeys(paper_ids)))
        rows = self._sql.all(UNCLAIMED.format(listed=listed), [*args, self._ws, self._ws, self._ws])
        return {r[0] for r in rows}
