"""The inbox (issue 24): every command, event and click acknowledged to Slack, kept until it is carried
out, on either backend. Statements use qmark placeholders (run through the store's
:class:`~storage.dialect.Dialect`).

Each item is a lease (as digests are, :data:`storage.leases.INBOX_ITEM`): a claim marks it "running" for
an owner until ``lease_until``; the owner then finishes it ("done"), fails it (to be retried from a given
time, or "failed" for good) or hands it back. Every write after the claim is the lease's own statement
(renew, release, finish), which names the owner and the "running" status, so a process that lost its
lease changes nothing.

The claim is the inbox's own, not a lease's take: it takes many items at once, each subject's oldest only,
where a take names one key. It is one ``UPDATE … RETURNING`` whose ``WHERE`` says everything it relies on,
so the database decides who gets what: on PostgreSQL the candidates are row-locked (``FOR UPDATE SKIP
LOCKED``, and a row changed since the statement's snapshot is checked again on its newest version), so two
claims never take the same item; on SQLite the statement runs in a write transaction, which excludes any
other.

One subject's (a person's or a channel's) items run in arrival order: an item is claimed only when no
earlier item of its subject is waiting or running, which also means a claim takes at most one item of a
subject. An item that failed for good no longer holds the later ones back.

Items are shared by every view of the store: each carries its own workspace.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import Protocol

from storage import leases
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

# Each write after the claim is a lease's (storage.leases, INBOX_ITEM): it names the item, its owner and
# the "running" status. A finished item keeps its key (a replay is turned away) but neither what the
# request said nor whose it was.
#
# A process's own, not a lease's (whose statements name one key): every item an owner holds at once.
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


class InboxStore(Protocol):
    """The inbox (issue 24): acknowledged work, each item carried out once. Shared by every view: each item
    names its workspace. Items of one subject run in arrival order."""

    def inbox_put(self, entries: Iterable[InboxEntry], hold: timedelta | None = None) -> list[InboxEntry]:
        """Keep these entries to be carried out, in one transaction, in the order given (their arrival
        order). An entry whose key its workspace holds already is ignored (a request sent again, a
        journal replayed); returns the entries that were new. Each is held by its ``taker`` (see
        :meth:`inbox_release`). With ``hold``, :meth:`inbox_claim` leaves
        each alone until ``hold`` after it was received (the process that took it claims it at once
        with :meth:`inbox_claim_one`; the others only when it didn't)."""
        ...

    def inbox_claim(self, owner: str, lease_until: str, now: str, limit: int) -> list[InboxItem]:
        """Claim up to ``limit`` items for ``owner`` until ``lease_until``, as of ``now``, oldest first:
        waiting ones due and running ones whose lease ran out, but never one whose subject has an earlier
        item waiting or running (so at most one per subject). Each item is claimed by one caller only,
        whatever the number of processes claiming at once; each claim counts an attempt."""
        ...

    def inbox_claim_one(self, ws: str, key: str, owner: str, lease_until: str) -> InboxItem | None:
        """Claim the waiting item keyed ``key`` in ``ws`` for ``owner`` until ``lease_until``, held back or
        not, unless an earlier item of its subject is waiting (it then goes after that one, through
        :meth:`inbox_claim`); None when it is not there, not waiting (claimed, done, failed) or must wait
        for an earlier one."""
        ...

    def inbox_renew(self, ws: str, key: str, owner: str, lease_until: str) -> bool:
        """Extend ``owner``'s lease of an item; False if it is no longer theirs (they must stop)."""
        ...

    def inbox_renew_all(self, owner: str, lease_until: str) -> int:
        """Extend every lease ``owner`` holds to ``lease_until``; how many."""
        ...

    def inbox_owners(self) -> list[str]:
        """Who holds items now, running or taken (each owner once), to hand back a dead one's."""
        ...

    def inbox_done(self, ws: str, key: str, owner: str, at: str | None = None) -> bool:
        """``owner`` carried the item out (at ``at``, now by default); False if it was not theirs."""
        ...

    def inbox_failed(self, ws: str, key: str, owner: str, error: str, retry_at: str | None,
                     at: str | None = None) -> bool:
        """``owner`` failed the item with ``error``: to be claimed again by anyone from ``retry_at``, or,
        without one, failed for good (its subject's later items may then run). False if not theirs."""
        ...

    def inbox_release(self, owner: str) -> int:
        """Hand back every item ``owner`` holds (a stopping or dead process): those it runs and those it
        took and has not claimed yet (an entry's ``taker``), to be claimed at once by anyone; how many."""
        ...

    def inbox_purge(self, finished_before: str) -> int:
        """Delete the items done or failed for good before ``finished_before`` (their keys then no longer
        turn a replay away); how many."""
        ...

    def inbox_pending_count(self) -> int:
        """How many items are waiting or running, in every workspace."""
        ...

    def inbox_item(self, ws: str, key: str) -> InboxItem | None:
        """The item keyed ``key`` in workspace ``ws``, or None."""
        ...

    def inbox_unfinished(self, ws: str, subjects: Iterable[str]) -> set[str]:
        """Those of ``subjects`` (people's or channels' ids) with an item waiting or running in workspace
        ``ws``: requests acknowledged and not yet carried out (or failed for good)."""
        ...


class Inbox(Shared):
    """The inbox's part of a store (see the module); its contract is :class:`InboxStore`."""

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
        return self._sql.write(*leases.renew(leases.INBOX_ITEM, (ws, key), owner, lease_until)) > 0

    def inbox_done(self, ws: str, key: str, owner: str, at: str | None = None) -> bool:
        done = leases.finish(leases.INBOX_ITEM, (ws, key), owner, "done", at or utcnow(), None, None)
        return self._sql.write(*done) > 0

    def inbox_failed(self, ws: str, key: str, owner: str, error: str, retry_at: str | None,
                     at: str | None = None) -> bool:
        if retry_at is None:  # failed for good: never claimed again, and the subject's later items may run
            failed = leases.finish(leases.INBOX_ITEM, (ws, key), owner, "failed", at or utcnow(), error, None)
            return self._sql.write(*failed) > 0
        # Failed, to be claimed again from ``retry_at`` by anyone (the owner lets go).
        again = leases.release(leases.INBOX_ITEM, (ws, key), owner, retry_at, True, None, error)
        return bool(self._sql.returning(*again))

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
