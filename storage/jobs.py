"""Claimed work on either backend: the lease primitive's four operations (:mod:`storage.leases` writes
their statements, each one compare-and-set) and the shared daily jobs, which are leases of kind
:data:`~storage.leases.JOB`. On SQLite each runs under the write lock, on PostgreSQL in autocommit
(inside a transaction, a competing writer waits for the row); :meth:`Dialect.serialised` says which.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Protocol

from storage import leases
from storage.dialect import Shared
from storage.models import JobRecord, JobStatus, LeaseEnd, LeaseKindName, LeaseTaken
from storage.records import job_from_row


class JobsStore(Protocol):
    """Shared daily jobs: leases of kind :data:`~storage.leases.JOB`."""

    def get_job(self, name: str) -> JobRecord | None:
        """The last run of a daily job, or None if it never ran."""
        ...

    def start_job(self, name: str, day: str, owner: str, lease_until: str, at: str) -> None:
        """Start a daily job's run for UTC ``day`` whoever holds it (a tool's or a test's override;
        claims use :meth:`take_lease` with ``leases.JOB``)."""
        ...

    def finish_job(self, name: str, owner: str, status: JobStatus, at: str, error: str | None = None,
                   again_at: str | None = None) -> bool:
        """End ``owner``'s run of a daily job as "done" or "failed"; it may run again from ``again_at``
        (ISO UTC; None: whenever asked). False if the run was not theirs."""
        ...


class Jobs(Shared):
    """Leases of one workspace's (and the shared) work, and the daily jobs (see the module)."""


    def take_lease(self, kind: LeaseKindName, key: Sequence[str], owner: str, until: str, now: str,
                   dead: Iterable[str] = (), early: bool = False,
                   fresh: Mapping[str, object] | None = None) -> LeaseTaken | None:
        lease, key = leases.keyed(kind, key, self._ws)
        with self._sql.serialised():
            if self._sql.run(*leases.take_insert(lease, key, owner, until, fresh)) > 0:
                return "new"
            statement = leases.take_update(lease, key, owner, until, now, dead, early, fresh)
            return "taken" if self._sql.run(*statement) > 0 else None

    def renew_lease(self, kind: LeaseKindName, key: Sequence[str], owner: str, until: str) -> bool:
        return self._sql.write(*leases.renew(*leases.keyed(kind, key, self._ws), owner, until)) > 0

    def release_lease(self, kind: LeaseKindName, key: Sequence[str], owner: str, retry_at: str,
                      disown: bool = False, count: str | None = None, error: str | None = None) -> int | None:
        statement = leases.release(*leases.keyed(kind, key, self._ws), owner, retry_at, disown, count, error)
        rows = self._sql.returning(*statement)
        return None if not rows else int(rows[0][0] if count else 0)

    def finish_lease(self, kind: LeaseKindName, key: Sequence[str], owner: str, status: LeaseEnd, at: str,
                     error: str | None = None, again_at: str | None = None) -> bool:
        statement = leases.finish(*leases.keyed(kind, key, self._ws), owner, status, at, error, again_at)
        return self._sql.write(*statement) > 0

    # -- daily jobs ------------------------------------------------------------------------------

    def get_job(self, name: str) -> JobRecord | None:
        rows = self._sql.rows("select * from jobs where name = ?", [name])
        return job_from_row(rows[0]) if rows else None

    def start_job(self, name: str, day: str, owner: str, lease_until: str, at: str) -> None:
        self._sql.run("insert into jobs (name, day, status, owner, lease_until, started_at, finished_at,"
                      " error) values (?, ?, 'running', ?, ?, ?, null, null) on conflict (name) do update set"
                      " day = excluded.day, status = excluded.status, owner = excluded.owner,"
                      " lease_until = excluded.lease_until, started_at = excluded.started_at,"
                      " finished_at = null, error = null", [name, day, owner, lease_until, at])

    def finish_job(self, name: str, owner: str, status: JobStatus, at: str, error: str | None = None,
                   again_at: str | None = None) -> bool:
        return self.finish_lease(leases.JOB, (name,), owner, status, at, error, again_at)
