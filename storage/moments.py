"""How the database stores a moment: the one text format every timestamp column holds, and the one place
a moment is written as text (the bot's code calls these too).

ISO 8601 in UTC, to the second; to the microsecond (:func:`iso_utc_micro`) where rows written within one
second must still come in order (saved papers, alerts, library imports): one width a column, so its
stamps compare as text.
"""

from __future__ import annotations

from datetime import UTC, datetime


def iso_utc(moment: datetime) -> str:
    """How the database stores a moment (digests, leases, jobs): ISO 8601 in UTC, to the second."""
    return moment.astimezone(UTC).isoformat(timespec="seconds")


def iso_utc_micro(moment: datetime) -> str:
    """A moment as ISO 8601 in UTC to the microsecond, for the columns that order rows by it."""
    return moment.astimezone(UTC).isoformat(timespec="microseconds")


def utcnow() -> str:
    """Now, as the ISO UTC text every timestamp column holds."""
    return iso_utc(datetime.now(UTC))


def utcnow_micro() -> str:
    """Now, to the microsecond (:func:`iso_utc_micro`)."""
    return iso_utc_micro(datetime.now(UTC))
