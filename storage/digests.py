"""Daily digests' part of the store, on either backend. A digest row is a lease (:mod:`storage.leases`,
kind :data:`~storage.leases.DIGEST`): every write after the claim names the owner, so a process that
lost its claim changes nothing, and each is one statement, atomic alone (callers need no transaction).

What differs between backends stays with them: recording a posted paper and counting a failed one
(one statement on PostgreSQL, a transaction on SQLite).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Protocol

from storage import leases
from storage.jobs import Jobs
from storage.models import DigestRecord, DigestStatus
from storage.records import digest_from_row


class DigestsStore(Protocol):
    """Daily digests of this view's workspace: each a lease on its row (:mod:`storage.leases`), claimed,
    progressed and ended by its owner only."""

    def digest_statuses(self, since_date: str) -> dict[tuple[str, str], str]:
        """The status of every digest of local day ``since_date`` (YYYY-MM-DD) or later, by (user, day)."""
        ...

    def failed_digests(self, since_date: str, finished_since: str) -> list[DigestRecord]:
        """This workspace's digests of local days from ``since_date`` on that ended "failed" at
        ``finished_since`` (ISO UTC) or later."""
        ...

    def get_digest(self, user_id: str, local_date: str) -> DigestRecord | None:
        """One person's digest for one local day, or None if none was started."""
        ...

    def get_digests(self, keys: Iterable[tuple[str, str]]) -> dict[tuple[str, str], DigestRecord]:
        """:meth:`get_digest` for each (user id, local day) of ``keys``, in one statement: those started,
        by key."""
        ...

    def unfinished_digests(self, since_date: str) -> list[DigestRecord]:
        """Every digest of local day ``since_date`` (YYYY-MM-DD) or later still "sending" (under way, or
        waiting for its retry), oldest day first."""
        ...

    def start_digest(self, user_id: str, local_date: str, owner: str, lease_until: str, at: str) -> bool:
        """Claim a day's digest for ``owner`` (status "sending"). True if claimed; False, never an error,
        when the row exists already (someone else claimed it first: it owns the digest)."""
        ...

    def start_digests(self, keys: Iterable[tuple[str, str]], owner: str, lease_until: str,
                      at: str) -> set[tuple[str, str]]:
        """Claim for ``owner``, in one statement, each day's digest keyed (user id, local date) in ``keys``
        that has no row yet, as :meth:`start_digest` claims one (each is a lease of its own); returns
        the keys claimed. Those with a row already are left as they are (take them with
        :meth:`take_lease`, which decides whether they can be taken over)."""
        ...

    def take_over_digest(self, user_id: str, local_date: str, owner: str, lease_until: str) -> None:
        """Hand a "sending" digest to ``owner`` whoever holds it (a tool's or a test's override; claims
        take over with :meth:`take_lease`, which checks that the lease ran out or its owner died)."""
        ...

    def renew_digest_lease(self, user_id: str, local_date: str, owner: str, lease_until: str) -> bool:
        """Extend ``owner``'s claim. False if it is no longer theirs (then they must stop)."""
        ...

    def set_digest_papers(self, user_id: str, local_date: str, owner: str, papers: list[str],
                          reasons: dict[str, str], lease_until: str | None = None) -> bool:
        """Record the papers chosen for a digest (before any is posted), renewing ``owner``'s lease to
        ``lease_until`` in the same step when given. False if ``owner`` lost it."""
        ...

    def record_digest_header(self, user_id: str, local_date: str, owner: str, message_ts: str,
                             lease_until: str | None = None) -> bool:
        """Remember that the digest's header message went out, so it is never posted twice; with
        ``lease_until``, renew the owner's lease to it in the same update."""
        ...

    def record_posted(self, user_id: str, local_date: str, owner: str, paper_id: str, reason: str,
                      channel: str | None, message_ts: str | None, lease_until: str,
                      finished_at: str | None = None) -> bool:
        """A paper of ``owner``'s digest went out: renew the lease to ``lease_until`` (or, with
        ``finished_at``, end the digest "sent" then) and remember the paper as shown, in one step.
        False, and nothing written, if the digest is no longer ``owner``'s."""
        ...

    def record_digest_failure(self, user_id: str, local_date: str, owner: str, paper_id: str) -> int:
        """Count one more failed attempt to post a paper of a digest; returns that paper's count."""
        ...

    def release_digest(self, user_id: str, local_date: str, owner: str, retry_at: str) -> int:
        """Give a digest with something still to send back, to be retried from ``retry_at`` (ISO UTC)
        by any process; returns how many runs of it have ended so."""
        ...

    def postpone_digest(self, user_id: str, local_date: str, owner: str, retry_at: str, error: str) -> bool:
        """Give a digest back because Slack was unavailable: nobody owns it until ``retry_at`` (ISO
        UTC), then anyone may take it; counts one more outage, not an attempt. False if not ``owner``'s."""
        ...

    def finish_digest(self, user_id: str, local_date: str, owner: str, status: DigestStatus, at: str,
                      error: str | None = None) -> bool:
        """End a digest as "sent", "empty" or "failed"; it is never tried again that day."""
        ...

    def drop_digest(self, user_id: str, local_date: str, owner: str) -> None:
        """Withdraw ``owner``'s claim entirely, as if the digest had never been started."""
        ...


class Digests(Jobs):
    """Digests of one workspace's people (see the module), over the lease operations of :class:`Jobs`."""


    def _digests(self, where: str, args: list) -> list[DigestRecord]:
        # ``where`` is a constant condition of this module.
        return [digest_from_row(r) for r in self._sql.rows(f"select * from digests where ws = ? and {where}",  # noqa: S608
                                                           [self._ws, *args])]

    def digest_statuses(self, since_date: str) -> dict[tuple[str, str], str]:
        rows = self._sql.all("select user_id, local_date, status from digests where ws = ?"
                             " and local_date >= ?", [self._ws, since_date])
        return {(user, day): status for user, day, status in rows}

    def failed_digests(self, since_date: str, finished_since: str) -> list[DigestRecord]:
        return self._digests("local_date >= ? and status = 'failed' and finished_at >= ?",
                             [since_date, finished_since])

    def get_digest(self, user_id: str, local_date: str) -> DigestRecord | None:
        found = self._digests("user_id = ? and local_date = ?", [user_id, local_date])
        return found[0] if found else None

    def get_digests(self, keys: Iterable[tuple[str, str]]) -> dict[tuple[str, str], DigestRecord]:
        wanted = set(keys)
        if not wanted:
            return {}
        listed, args = self._sql.listed(sorted({user_id for user_id, _ in wanted}))
        found = self._digests(f"user_id in (select c.id from {listed}) and local_date >= ?",  # noqa: S608
                              [*args, min(day for _, day in wanted)])
        return {key: record for record in found if (key := (record.user_id, record.local_date)) in wanted}

    def unfinished_digests(self, since_date: str) -> list[DigestRecord]:
        return self._digests("local_date >= ? and status = 'sending' order by local_date, user_id",
                             [since_date])

    def start_digest(self, user_id: str, local_date: str, owner: str, lease_until: str, at: str) -> bool:
        # Claim a day's digest for ``owner`` (status "sending"). True if claimed; False, never an error, when
        # the row exists already (another process won the race: it owns the digest).
        lease, key = leases.keyed(leases.DIGEST, (user_id, local_date), self._ws)
        return self._sql.run(*leases.take_insert(lease, key, owner, lease_until, {"started_at": at})) > 0

    def start_digests(self, keys: Iterable[tuple[str, str]], owner: str, lease_until: str,
                      at: str) -> set[tuple[str, str]]:
        wanted = [(self._ws, user_id, local_date) for user_id, local_date in keys]
        if not wanted:
            return set()
        statement = leases.take_inserts(leases.KINDS[leases.DIGEST], wanted, owner, lease_until,
                                        {"started_at": at})
        return {(row[1], row[2]) for row in self._sql.returning(*statement)}

    def take_over_digest(self, user_id: str, local_date: str, owner: str, lease_until: str) -> None:
        self._sql.run("update digests set owner = ?, lease_until = ? where ws = ? and user_id = ?"
                      " and local_date = ? and status = 'sending'",
                      [owner, lease_until, self._ws, user_id, local_date])

    def renew_digest_lease(self, user_id: str, local_date: str, owner: str, lease_until: str) -> bool:
        return self.renew_lease(leases.DIGEST, (user_id, local_date), owner, lease_until)

    def release_digest(self, user_id: str, local_date: str, owner: str, retry_at: str) -> int:
        attempts = self.release_lease(leases.DIGEST, (user_id, local_date), owner, retry_at, count="attempts")
        if attempts is not None:
            return attempts
        record = self.get_digest(user_id, local_date)  # not theirs: counted nowhere
        return record.attempts if record else 0

    def postpone_digest(self, user_id: str, local_date: str, owner: str, retry_at: str, error: str) -> bool:
        return self.release_lease(leases.DIGEST, (user_id, local_date), owner, retry_at, disown=True,
                                  count="outages", error=error) is not None

    def finish_digest(self, user_id: str, local_date: str, owner: str, status: DigestStatus, at: str,
                      error: str | None = None) -> bool:
        return self.finish_lease(leases.DIGEST, (user_id, local_date), owner, status, at, error)

    def drop_digest(self, user_id: str, local_date: str, owner: str) -> None:
        self._sql.run("delete from digests where ws = ? and user_id = ? and local_date = ? and owner = ?"
                      " and status = 'sending'", [self._ws, user_id, local_date, owner])

    # -- progress marks: one owner-checked update each, optionally renewing the lease ------------

    def _digest_update(self, user_id: str, local_date: str, owner: str, assignments: str, args: list) -> bool:
        # ``assignments`` is a constant string of this module or a backend's, never input.
        return self._sql.write(f"update digests set {assignments} where ws = ? and user_id = ?"  # noqa: S608
                               " and local_date = ? and owner = ? and status = 'sending'",
                               [*args, self._ws, user_id, local_date, owner]) > 0

    def set_digest_papers(self, user_id: str, local_date: str, owner: str, papers: list[str],
                          reasons: dict[str, str], lease_until: str | None = None) -> bool:
        args = [json.dumps(papers), json.dumps(reasons, ensure_ascii=False)]
        if lease_until is None:
            return self._digest_update(user_id, local_date, owner, "papers = ?, reasons = ?", args)
        return self._digest_update(user_id, local_date, owner, "papers = ?, reasons = ?, lease_until = ?",
                                   [*args, lease_until])

    def record_digest_header(self, user_id: str, local_date: str, owner: str, message_ts: str,
                             lease_until: str | None = None) -> bool:
        if lease_until is None:
            return self._digest_update(user_id, local_date, owner, "header_ts = ?", [message_ts])
        return self._digest_update(user_id, local_date, owner, "header_ts = ?, lease_until = ?",
                                   [message_ts, lease_until])
