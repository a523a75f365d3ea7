"""How the database stores a moment: the one text format every timestamp column holds."""

from __future__ import annotations

from datetime import UTC, datetime


def iso_utc(moment: datetime) -> str:
    """How the database stores a moment (digests, leases, jobs): ISO 8601 in UTC, to the second."""
    return moment.astimezone(UTC).isoformat(timespec="seconds")
