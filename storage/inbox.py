"""The inbox (issue 24): every command, event and click acknowledged to Slack, kept until it is carried
out, on either backend. Statements use qmark placeholders (run through the store's
:class:`~storage.dialect.Dialect`).

Each item is a lease (as digests are, :mod:`storage.leases`): a claim marks it "running" for an owner
until ``lease_until``; the owner then finishes it ("done"), fails it (to be retried from a given time, or
"failed" for good) or hands it back. Every write after the claim names the owner and the "running"
status, so a process that lost its lease changes nothing.

A claim is one ``UPDATE … RETURNING`` whose ``WHERE`` says everything it relies on, so the database
decides who gets what: on PostgreSQL the candidates are row-locked (``FOR UPDATE SKIP LOCKED``, and a
row changed since the statement's snapshot is checked again on its newest version), so two claims never
take the same item; on SQLite the statement runs in a write transaction, which excludes any other.

One subject's (a person's or a channel's) items run in arrival order: an item is claimed only when no
earlier item of its subject is waiting or running, which also means a claim takes at most one item of a
subject. An item that failed for good no longer holds the later ones back.

Items are shared by every view of the store: each carries its own workspace.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta

from storage.dialect import Shared
from storage.models import InboxEntry, InboxItem
from storage.moments import iso_utc
from storage.records import utcnow

#: A new item, unless its key is there already in its workspace (a request Slack sent again, or a
#: journal replayed): then nothing happens, and no row is returned.
PUT = ("insert into inbox (ws, key, kind, subject, payload, received_at, lease_until, owner)"
       " values (?, ?, ?, ?, ?, ?, ?, ?) on conflict (ws, key) do nothing returning seq")

_COLUMNS = "seq, ws, key, kind, subject, payload, received_at, status, owner, lease_until, attempts, error"

#: Up to ``limit`` items for an owner, oldest first: waiting ones due (no retry time, or one passed) and
#: running ones whose lease ran out, each only when its subject has no earlier unfinished item. ``{lock}``
#: is the backend's row locking of the candidates (PostgreSQL's; SQLite's write transaction needs none).
_CLAIM = (
    "with due as materialized (select i.seq from inbox i where"  # noqa: S608 - constant text
    " ((i.status = 'waiting' and (i.lease_until is null or i.lease_until <= ?))"
    " or (i.status = 'running' and i.lease_until <= ?))"
    " and not exists (select 1 from inbox e where e.ws = i.ws and e.subject = i.subject and e.seq < i.seq"
    " and e.status in ('waiting', 'running'))"
    " order by i.seq limit ?{lock})"
    " update inbox set status = 'running', owner = ?, lease_until = ?, attempts = attempts + 1"
    f" where seq in (select seq from due) returning {_COLUMNS}"
)
CLAIM = {"sqlite": _CLAIM.format(lock=""), "postgres": _CLAIM.format(lock=" for update of i skip locked")}

#: One waiting item, by its key, for an owner (the process that took it claims it at once, held back
#: or not), unless an earlier item of its subject still waits to be claimed (left by a process that
#: died, say): then it goes after that one, through :data:`CLAIM`. An earlier one running elsewhere
#: doesn't hold it back (the process that took each runs its own in order).
CLAIM_ONE = (
    "update inbox set status = 'running', owner = ?, lease_until = ?, attempts = attempts + 1"  # noqa: S608
    " where ws = ? and key = ? and status = 'waiting'"
    " and not exists (select 1 from inbox e where e.ws = inbox.ws and e.subject = inbox.subject"
    " and e.seq < inbox.seq and e.status = 'waiting')"
    f" returning {_COLUMNS}"
)

# Each write after the claim names the item, its owner and the "running" status. A finished item keeps
# its key (a replay is turned away) but neither what the request said nor whose it was.
RENEW = "update inbox set lease_until = ? where ws = ? and key = ? and owner = ? and status = 'running'"
DONE = ("update inbox set status = 'done', finished_at = ?, lease_until = null, error = null, payload = '',"
        " subject = ''"
        " where ws = ? and key = ? and owner = ? and status = 'running'")
#: Failed, to be claimed again from ``lease_until`` by anyone (the owner lets go).
RETRY = ("update inbox set status = 'waiting', owner = null, lease_until = ?, error = ?"
         " where ws = ? and key = ? and owner = ? and status = 'running'")
#: Failed for good: never claimed again, and the subject's later items may run.
GIVE_UP = ("update inbox set status = 'failed', finished_at = ?, lease_until = null, error = ?, payload = '',"
           " subject = ''"
           " where ws = ? and key = ? and owner = ? and status = 'running'")
#: Every lease an owner holds, extended (its heartbeat).
RENEW_ALL = "update inbox set lease_until = ? where owner = ? and status = 'running'"
#: Who holds items now (running, or waiting for the process that took them): a stopping or dead owner's
#: are handed back (:data:`RELEASE`).
OWNERS = "select distinct owner from inbox where status in ('waiting', 'running') and owner is not null"
#: Everything an owner holds (running, or taken and not yet claimed), handed back to be claimed at once
#: by anyone. The attempt still counts: the owner may have begun it.
RELEASE = ("update inbox set status = 'waiting', owner = null, lease_until = null"
           " where owner = ? and status in ('waiting', 'running')")
#: Finished items (done or failed for good) before a time: their keys no longer guard against a replay.
PURGE = "delete from inbox where status in ('done', 'failed') and finished_at < ?"
#: A person's (or channel's) requests, deleted by ``forget`` (storage.people).
INBOX = "inbox"
INBOX_FORGET = "delete from inbox where ws = ? and subject = ?"
PENDING = "select count(*) from inbox where status in ('waiting', 'running')"
GET = f"select {_COLUMNS} from inbox where ws = ? and key = ?"  # noqa: S608
#: Which of the subjects ``{listed}`` names have items waiting or running in a workspace (a digest waits
#: for them: what they asked for must count in it).
UNFINISHED = ("select distinct i.subject from {listed} join inbox i on i.subject = c.id"
              " where i.ws = ? and i.status in ('waiting', 'running')")


def item_from_row(row: tuple) -> InboxItem:
    """An :class:`InboxItem` from a row of :data:`_COLUMNS`."""
    seq, ws, key, kind, subject, payload, received_at, status, owner, lease_until, attempts, error = row
    return InboxItem(InboxEntry(ws, key, kind, subject, payload, received_at), int(seq), status, owner,
                     lease_until, int(attempts), error)


class Inbox(Shared):
    """The inbox's part of a store (see the module); the contracts are :class:`storage.store.Store`'s."""

    def inbox_put(self, entries: Iterable[InboxEntry], hold: timedelta | None = None) -> list[InboxEntry]:
        batch = list(entries)
        if len(batch) == 1:  # an ack's own: one statement is its own transaction (fewer round trips)
            return batch if self._put(batch[0], hold) else []
        with self.transaction():
            return [e for e in batch if self._put(e, hold)]

    def _put(self, e: InboxEntry, hold: timedelta | None) -> bool:
        held = _after(e.received_at, hold) if hold else None
        return bool(self._sql.returning(PUT, [e.ws, e.key, e.kind, e.subject, e.payload, e.received_at, held,
                                              e.taker or None]))

    def inbox_claim(self, owner: str, lease_until: str, now: str, limit: int) -> list[InboxItem]:
        if limit <= 0:
            return []
        rows = self._sql.returning(CLAIM[self._sql.name], [now, now, limit, owner, lease_until])
        return sorted((item_from_row(r) for r in rows), key=lambda item: item.seq)

    def inbox_claim_one(self, ws: str, key: str, owner: str, lease_until: str) -> InboxItem | None:
        rows = self._sql.returning(CLAIM_ONE, [owner, lease_until, ws, key])
        return item_from_row(rows[0]) if rows else None

    def inbox_renew_all(self, owner: str, lease_until: str) -> int:
        return self._sql.write(RENEW_ALL, [lease_until, owner])

    def inbox_owners(self) -> list[str]:
        return [row[0] for row in self._sql.all(OWNERS) if row[0]]

    def inbox_renew(self, ws: str, key: str, owner: str, lease_until: str) -> bool:
        return self._sql.write(RENEW, [lease_until, ws, key, owner]) > 0

    def inbox_done(self, ws: str, key: str, owner: str, at: str | None = None) -> bool:
        return self._sql.write(DONE, [at or utcnow(), ws, key, owner]) > 0

    def inbox_failed(self, ws: str, key: str, owner: str, error: str, retry_at: str | None,
                     at: str | None = None) -> bool:
        if retry_at is None:
            return self._sql.write(GIVE_UP, [at or utcnow(), error, ws, key, owner]) > 0
        return self._sql.write(RETRY, [retry_at, error, ws, key, owner]) > 0

    def inbox_release(self, owner: str) -> int:
        return self._sql.write(RELEASE, [owner])

    def inbox_purge(self, finished_before: str) -> int:
        return self._sql.run(PURGE, [finished_before])

    def inbox_pending_count(self) -> int:
        row = self._sql.one(PENDING)
        return int(row[0]) if row else 0

    def inbox_item(self, ws: str, key: str) -> InboxItem | None:
        row = self._sql.one(GET, [ws, key])
        return item_from_row(row) if row else None

    def inbox_unfinished(self, ws: str, subjects: Iterable[str]) -> set[str]:
        wanted = sorted(set(subjects))
        if not wanted:
            return set()
        listed, args = self._sql.listed(wanted)
        return {row[0] for row in self._sql.all(UNFINISHED.format(listed=listed), [*args, ws])}


def _after(iso: str, hold: timedelta) -> str:
    """``hold`` after the ISO UTC time ``iso`` (as written by :func:`storage.records.utcnow`)."""
    return iso_utc(datetime.fromisoformat(iso) + hold)
