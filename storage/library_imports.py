"""Library exports shared in paperbot's DM (the ``library_imports`` table), on either backend: each file is
read once per person, whichever of Slack's two events for one share (or a redelivery) comes first, and a
failed read may be tried again. Statements use qmark placeholders (run through the store's
:class:`~storage.dialect.Dialect`)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Protocol

from storage.dialect import Shared
from storage.models import LibraryImport, LibraryImportStatus

# Not a lease (storage.leases): a read lasts one request and is never renewed or given back, so started_at
# names the claim and one upsert takes it.
#: Of the requests racing for one file exactly one inserts the row; a later one takes it over only when
#: the last read failed a while ago, or was left "running" long ago (its process died).
CLAIM = ("insert into library_imports (ws, user_id, file_id, status, started_at)"
         " values (?, ?, ?, 'running', ?)"
         " on conflict (ws, user_id, file_id) do update set status = 'running',"
         " started_at = excluded.started_at, finished_at = null, counts = null, error = null"
         " where (library_imports.status = 'failed' and library_imports.finished_at <= ?)"
         " or (library_imports.status = 'running' and library_imports.started_at <= ?)")
#: Only the request that holds the file (since ``started_at``) says how its read ended.
FINISH = ("update library_imports set status = ?, finished_at = ?, counts = ?, error = ?"
          " where ws = ? and user_id = ? and file_id = ? and status = 'running' and started_at = ?")
GET = ("select user_id, file_id, status, started_at, finished_at, counts, error from library_imports"
       " where ws = ? and user_id = ? and file_id = ?")


class LibraryImportsStore(Protocol):
    """Library exports shared in the DM, each file read once per person."""

    def claim_library_import(self, user_id: str, file_id: str, at: str, failed_before: str,
                             running_before: str) -> bool:
        """Claim the reading of a person's shared file ``file_id`` (Slack's id), as "running" since ``at``
        (ISO UTC): True for exactly one of racing claims. A file claimed before is claimed again only when
        its read failed before ``failed_before`` or has been running since before ``running_before``."""
        ...

    def finish_library_import(self, user_id: str, file_id: str, started_at: str,
                              status: LibraryImportStatus, at: str, counts: Mapping[str, int] | None = None,
                              error: str | None = None) -> bool:
        """Say how the read claimed at ``started_at`` ended (not "running"), with the reply's counts or the
        error; False when that claim is no longer the file's (taken over, or forgotten)."""
        ...

    def library_import(self, user_id: str, file_id: str) -> LibraryImport | None:
        """A person's import of file ``file_id``, or None."""
        ...


class LibraryImports(Shared):
    """One workspace's library imports (see the module)."""

    def claim_library_import(self, user_id: str, file_id: str, at: str, failed_before: str,
                             running_before: str) -> bool:
        return self._sql.run(CLAIM, [self._ws, user_id, file_id, at, failed_before, running_before]) > 0

    def finish_library_import(self, user_id: str, file_id: str, started_at: str,
                              status: LibraryImportStatus, at: str, counts: Mapping[str, int] | None = None,
                              error: str | None = None) -> bool:
        data = json.dumps(dict(counts), sort_keys=True) if counts is not None else None
        return self._sql.run(FINISH, [status, at, data, error, self._ws, user_id, file_id, started_at]) > 0

    def library_import(self, user_id: str, file_id: str) -> LibraryImport | None:
        row = self._sql.one(GET, [self._ws, user_id, file_id])
        if row is None:
            return None
        user, file, status, started_at, finished_at, counts, error = row
        return LibraryImport(user, file, status, started_at, finished_at, json.loads(counts or "{}"), error)
