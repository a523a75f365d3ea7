from datetime import UTC, datetime, timedelta

from bot.slack.digests import TICK_SECONDS, tick_trigger


def test_ticks_fall_on_the_minute_and_half_minute_so_digests_are_not_late():
    now = datetime(2026, 3, 29, 0, 59, 47, 123456, tzinfo=UTC)
    trigger = tick_trigger(TICK_SECONDS, now)
    first = trigger.get_next_fire_time(None, now)
    assert first == datetime(2026, 3, 29, 1, 0, tzinfo=UTC)  # a digest due at 01:00 goes at 01:00:00
    second = trigger.get_next_fire_time(first, first + timedelta(microseconds=1))
    assert second == datetime(2026, 3, 29, 1, 0, 30, tzinfo=UTC)
