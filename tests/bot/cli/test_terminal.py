"""What the command line says of the digests it did not send."""

from __future__ import annotations

from datetime import UTC, date, datetime

from bot.cli.terminal import not_due_reason
from bot.usecases.digest_schedule import WHY_KINDS, NotDue


def test_why_someone_gets_no_digest_is_said_for_every_reason():
    when = datetime(2026, 7, 15, 14, 0, tzinfo=UTC)
    items = [NotDue("U1", "off"), NotDue("U1", "unknown"), NotDue("U1", "broken_time", "25:99"),
             NotDue("U1", "weekly", "09:00", "Europe/Berlin", weekday=0),
             NotDue("U1", "ended", "09:00", None, local_date=date(2026, 7, 15), status="sent"),
             NotDue("U1", "due_later", "23:00", "Asia/Tokyo", when),
             NotDue("U1", "starts_tomorrow", "08:00", None, when)]
    assert {item.why for item in items} == set(WHY_KINDS)
    said = [not_due_reason(item) for item in items]
    assert len(set(said)) == len(said)
    assert said[3] == "weekly, on Mondays" and said[5] == "due at 23:00 Asia/Tokyo (14:00 UTC)"
    assert said[6] == "schedule set after 08:00 UTC (14:00 UTC) today: starts tomorrow"
