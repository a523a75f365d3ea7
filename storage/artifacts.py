"""Saved models (named, versioned blobs: the fitted index) on either backend. Reading the blob back is
each store's own (PostgreSQL reads it in binary); the version is one statement on both."""

from __future__ import annotations

from typing import Protocol

from storage.dialect import Shared
from storage.records import utcnow

#: A new version in one statement, so two processes saving at once get two versions. A damaged version
#: (NULL, text) counts as 0: older than any model saved after it.
SAVE = ("insert into artifacts (name, version, created_at, data) values (?, 1, ?, ?)"
        " on conflict (name) do update set version = coalesce(cast(artifacts.version as integer), 0) + 1,"
        " created_at = excluded.created_at, data = excluded.data returning version")
VERSION = "select coalesce(cast(version as integer), 0) from artifacts where name = ?"


class ArtifactsStore(Protocol):
    """Named, versioned blobs (fitted models), shared by every workspace."""

    def save_artifact(self, name: str, data: bytes) -> int:
        """Store a named blob (a fitted model); returns its new version number (two processes saving at
        once get two versions)."""
        ...

    def artifact_version(self, name: str) -> int:
        """The version of a named blob; 0 when there is none."""
        ...

    def load_artifact(self, name: str) -> tuple[int, bytes | None] | None:
        """(version, data) of a named blob, or None when there is none. ``data`` is whatever the row
        holds, as bytes (on SQLite, text as its UTF-8, a number as its digits), or None for NULL:
        judging whether it is usable is the caller's business."""
        ...


class Artifacts(Shared):
    """Saving a named blob and asking its version (shared by every workspace)."""

    def save_artifact(self, name: str, data: bytes) -> int:
        return int(self._sql.returning(SAVE, [name, utcnow(), data])[0][0])

    def artifact_version(self, name: str) -> int:
        row = self._sql.one(VERSION, [name])
        return int(row[0]) if row else 0
