"""Scoop watches (the ``watches`` and ``watch_alerts`` tables, issue 43) on either backend: a person's (or
a channel's) private project descriptions, and each alert a close paper brought, once.

Once-only is the database's: an alert is a row keyed (ws, user_id, watch_id, paper_id), written in the same
transaction as the watch's compare-and-set of its day (:meth:`WatchesStore.record_watch_alert`), so of two
ingests comparing the same paper one alert is kept, and a watch gets at most one a day unless closer than
any before. Posting it is a lease on that row: taken by one compare-and-set (due, or sending with its lease
run out: its process died mid-send), finished with the message's place. Statements use qmark
placeholders (run through the store's :class:`~storage.dialect.Dialect`) and filter or write the store's
workspace ``self._ws``, except :meth:`WatchesStore.watches_everywhere` (an ingest compares every
workspace's watches with the papers every workspace shares).
"""

from __future__ import annotations

from typing import Protocol

from storage.dialect import Shared
from storage.models import Watch, WatchAlert

_WATCH = ("ws, user_id, watch_id, title, text, stricter, floor, best, alerted_at, seen_seq, created_at")
_ALERT = ("ws, user_id, watch_id, paper_id, score, status, attempts, found_at, channel, message_ts, verdict")
ADD = (f"insert into watches ({_WATCH}) values (?, ?, ?, ?, ?, 0, 0, 0, null, ?, ?)"  # noqa: S608
       " on conflict (ws, user_id, watch_id) do nothing")
LIST = f"select {_WATCH} from watches where ws = ? and user_id = ? order by created_at, watch_id"  # noqa: S608
EVERYWHERE = f"select {_WATCH} from watches order by ws, user_id, created_at, watch_id"  # noqa: S608
#: A watch's day: it takes an alert when it had none since the day began, or this one is closer than any
#: before; one statement, so two ingests at once can't both take the day.
TAKE_DAY = ("update watches set alerted_at = ?, best = case when best < ? then ? else best end"
            " where ws = ? and user_id = ? and watch_id = ?"
            " and (alerted_at is null or alerted_at < ? or best < ?)")
ADD_ALERT = ("insert into watch_alerts (ws, user_id, watch_id, paper_id, score, status, attempts, found_at)"
             " values (?, ?, ?, ?, ?, 'due', 0, ?) on conflict (ws, user_id, watch_id, paper_id) do nothing")
#: An alert to post: due, or held by a process whose lease ran out (it died mid-send).
DUE = (f"select {_ALERT} from watch_alerts where ws = ?"  # noqa: S608
       " and (status = 'due' or (status = 'sending' and lease_until < ?))"
       " order by found_at, watch_id, paper_id")
TAKE = ("update watch_alerts set status = 'sending', owner = ?, lease_until = ?, attempts = attempts + 1"
        " where ws = ? and user_id = ? and watch_id = ? and paper_id = ?"
        " and (status = 'due' or (status = 'sending' and lease_until < ?))")
FINISH = ("update watch_alerts set status = 'sent', owner = null, lease_until = null, sent_at = ?,"
          " channel = ?, message_ts = ? where ws = ? and user_id = ? and watch_id = ? and paper_id = ?"
          " and status = 'sending' and owner = ?")
RELEASE = ("update watch_alerts set status = ?, owner = null, lease_until = null"
           " where ws = ? and user_id = ? and watch_id = ? and paper_id = ?"
           " and status = 'sending' and owner = ?")


def _watch(row: tuple) -> Watch:
    ws, user_id, watch_id, title, text, stricter, floor, best, alerted_at, seen_seq, created_at = row
    return Watch(ws, user_id, watch_id, title, text, int(stricter), int(floor), int(best), alerted_at,
                 int(seen_seq), created_at)


def _alert(row: tuple) -> WatchAlert:
    ws, user_id, watch_id, paper_id, score, status, attempts, found_at, channel, ts, verdict = row
    return WatchAlert(ws, user_id, watch_id, paper_id, int(score), status, int(attempts), found_at, channel,
                      ts, verdict)


class WatchesStore(Protocol):
    """Scoop watches and their alerts, each alert once (see the module)."""

    def add_watch(self, user_id: str, watch_id: str, title: str | None, text: str, seen_seq: int,
                  created_at: str) -> bool:
        """Add a watch (compared with paper changes after ``seen_seq`` only); False when the id is taken."""
        ...

    def get_watches(self, user_id: str) -> list[Watch]:
        """A person's (or channel's) watches, oldest first."""
        ...

    def remove_watch(self, user_id: str, watch_id: str) -> bool:
        """Delete a watch and its alerts; False when there was none."""
        ...

    def watches_everywhere(self) -> list[Watch]:
        """Every workspace's watches (an ingest's comparison), by workspace and owner, oldest first."""
        ...

    def set_watch_seen(self, user_id: str, watch_id: str, seq: int) -> None:
        """Paper changes up to ``seq`` were compared with the watch."""
        ...

    def record_watch_alert(self, user_id: str, watch_id: str, paper_id: str, score: int, now: str,
                           day_began: str) -> bool:
        """Record that a paper came too close to a watch, to be posted: True only when it is the watch's
        first alert since ``day_began`` or closer than its ``best``, and the first of this paper to this
        watch (one transaction: both or neither)."""
        ...

    def due_watch_alerts(self, now: str) -> list[WatchAlert]:
        """This workspace's alerts waiting to be posted (due, or sending with their lease run out)."""
        ...

    def take_watch_alert(self, alert: WatchAlert, owner: str, lease_until: str, now: str) -> bool:
        """Take an alert to post it (one compare-and-set): False when another process has it or it went."""
        ...

    def finish_watch_alert(self, alert: WatchAlert, owner: str, channel: str, message_ts: str,
                           now: str) -> bool:
        """The alert was posted (``channel``, ``message_ts``); False when ``owner`` no longer held it."""
        ...

    def release_watch_alert(self, alert: WatchAlert, owner: str, failed: bool = False) -> bool:
        """The alert could not be posted: due again, or with ``failed`` never tried again."""
        ...

    def get_watch_alert(self, user_id: str, watch_id: str, paper_id: str) -> WatchAlert | None:
        """One alert, or None."""
        ...

    def set_watch_verdict(self, user_id: str, watch_id: str, paper_id: str, verdict: str) -> bool:
        """What the owner said of an alert ("close", "not_close"); False when there is no such alert."""
        ...

    def make_watch_stricter(self, user_id: str, watch_id: str, floor: int) -> bool:
        """One step stricter, and never again a paper no closer than ``floor``; False when no such watch."""
        ...


class Watches(Shared):
    """Scoop watches of one workspace's people and channels (see the module)."""

    def add_watch(self, user_id: str, watch_id: str, title: str | None, text: str, seen_seq: int,
                  created_at: str) -> bool:
        return self._sql.run(ADD, [self._ws, user_id, watch_id, title, text, seen_seq, created_at]) > 0

    def get_watches(self, user_id: str) -> list[Watch]:
        return [_watch(r) for r in self._sql.all(LIST, [self._ws, user_id])]

    def remove_watch(self, user_id: str, watch_id: str) -> bool:
        with self.transaction():
            self._sql.run("delete from watch_alerts where ws = ? and user_id = ? and watch_id = ?",
                          [self._ws, user_id, watch_id])
            return self._sql.run("delete from watches where ws = ? and user_id = ? and watch_id = ?",
                                 [self._ws, user_id, watch_id]) > 0

    def watches_everywhere(self) -> list[Watch]:
        return [_watch(r) for r in self._sql.all(EVERYWHERE)]

    def set_watch_seen(self, user_id: str, watch_id: str, seq: int) -> None:
        self._sql.run("update watches set seen_seq = ? where ws = ? and user_id = ? and watch_id = ?"
                      " and seen_seq < ?", [seq, self._ws, user_id, watch_id, seq])

    def record_watch_alert(self, user_id: str, watch_id: str, paper_id: str, score: int, now: str,
                           day_began: str) -> bool:
        with self.transaction():
            if self._sql.one("select 1 from watch_alerts where ws = ? and user_id = ? and watch_id = ?"
                             " and paper_id = ?", [self._ws, user_id, watch_id, paper_id]):
                return False
            day = [now, score, score, self._ws, user_id, watch_id, day_began, score]
            if not self._sql.run(TAKE_DAY, day):
                return False
            return self._sql.run(ADD_ALERT, [self._ws, user_id, watch_id, paper_id, score, now]) > 0

    def due_watch_alerts(self, now: str) -> list[WatchAlert]:
        return [_alert(r) for r in self._sql.all(DUE, [self._ws, now])]

    def take_watch_alert(self, alert: WatchAlert, owner: str, lease_until: str, now: str) -> bool:
        return self._sql.run(TAKE, [owner, lease_until, self._ws, alert.user_id, alert.watch_id,
                                    alert.paper_id, now]) > 0

    def finish_watch_alert(self, alert: WatchAlert, owner: str, channel: str, message_ts: str,
                           now: str) -> bool:
        return self._sql.run(FINISH, [now, channel, message_ts, self._ws, alert.user_id, alert.watch_id,
                                      alert.paper_id, owner]) > 0

    def release_watch_alert(self, alert: WatchAlert, owner: str, failed: bool = False) -> bool:
        return self._sql.run(RELEASE, ["failed" if failed else "due", self._ws, alert.user_id, alert.watch_id,
                                       alert.paper_id, owner]) > 0

    def get_watch_alert(self, user_id: str, watch_id: str, paper_id: str) -> WatchAlert | None:
        row = self._sql.one(f"select {_ALERT} from watch_alerts where ws = ? and user_id = ?"  # noqa: S608
                            " and watch_id = ? and paper_id = ?", [self._ws, user_id, watch_id, paper_id])
        return _alert(row) if row else None

    def set_watch_verdict(self, user_id: str, watch_id: str, paper_id: str, verdict: str) -> bool:
        return self._sql.run("update watch_alerts set verdict = ? where ws = ? and user_id = ?"
                             " and watch_id = ? and paper_id = ?",
                             [verdict, self._ws, user_id, watch_id, paper_id]) > 0

    def make_watch_stricter(self, user_id: str, watch_id: str, floor: int) -> bool:
        return self._sql.run("update watches set stricter = stricter + 1,"
                             " floor = case when floor < ? then ? else floor end"
                             " where ws = ? and user_id = ? and watch_id = ?",
                             [floor, floor, self._ws, user_id, watch_id]) > 0
