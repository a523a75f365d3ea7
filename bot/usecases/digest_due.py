"""When a person's daily digest is due: local wall-clock time to UTC instants, DST included.

Pure functions of (timezone, "HH:MM", now), so the scheduler, ``paperbot digest`` and the tests
agree on one answer.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from bot.errors import BadTime

_HHMM = re.compile(r"([01]?[0-9]|2[0-3]):([0-5][0-9])")  # ASCII digits: \d also takes "٠٨:٣٠"


def parse_hhmm(text: str) -> str:
    """Validate a local time of day and return it as zero-padded ``HH:MM``. Raises BadTime."""
    match = _HHMM.fullmatch(text.strip())
    if not match:
        raise BadTime(text)
    return f"{int(match.group(1)):02d}:{match.group(2)}"


def zone(name: str | None) -> ZoneInfo:
    """The IANA zone, UTC when unknown or unset (Slack users without a timezone)."""
    try:
        return ZoneInfo(name) if name else ZoneInfo("UTC")
    except (ZoneInfoNotFoundError, ValueError, OSError):  # OSError: "Europe" (a folder), a name too long
        return ZoneInfo("UTC")


def local_date(tz_name: str | None, now: datetime) -> date:
    """The person's calendar date at instant ``now`` (aware)."""
    return now.astimezone(zone(tz_name)).date()


def due_at(tz_name: str | None, hhmm: str, day: date) -> datetime:
    """The UTC instant of ``hhmm`` on local ``day``.

    A time skipped by a spring-forward change (02:30 when clocks jump 02:00→03:00) is due at the
    same distance past the jump (03:30), as a wall clock would show it; a time that happens twice in
    the autumn is due at its first occurrence.
    """
    tz = zone(tz_name)
    hour, minute = map(int, parse_hhmm(hhmm).split(":"))
    # zoneinfo reads a skipped wall time with the offset from before the jump (fold=0), which is
    # exactly "the same distance past the jump"; for a repeated time fold=0 is the first occurrence.
    wall = datetime.combine(day, time(hour, minute), tzinfo=tz).replace(fold=0)
    return wall.astimezone(UTC)


def due_today(tz_name: str | None, hhmm: str, now: datetime) -> tuple[date, datetime, bool]:
    """(local date, due instant that day, whether ``now`` is at or past it)."""
    day = local_date(tz_name, now)
    when = due_at(tz_name, hhmm, day)
    return day, when, now >= when


def next_due(tz_name: str | None, hhmm: str, now: datetime) -> datetime:
    """The next due instant strictly after ``now``."""
    day = local_date(tz_name, now)
    for offset in range(3):
        when = due_at(tz_name, hhmm, day + timedelta(days=offset))
        if when > now:
            return when
    raise AssertionError("unreachable: a time of day recurs within three days")
