from datetime import UTC, date, datetime

import pytest

from bot.errors import BadArgument
from bot.usecases.digest_due import due_at, due_today, local_date, next_due, parse_hhmm


def utc(*args):
    return datetime(*args, tzinfo=UTC)


@pytest.mark.parametrize("text, expected", [("9:05", "09:05"), ("00:00", "00:00"), (" 23:59 ", "23:59")])
def test_parse_hhmm(text, expected):
    assert parse_hhmm(text) == expected


@pytest.mark.parametrize("text", ["24:00", "12:60", "noon", "7", "07:5", "-1:00", ""])
def test_parse_hhmm_rejects(text):
    with pytest.raises(BadArgument):
        parse_hhmm(text)


def test_plain_offsets_and_half_hour_zones():
    assert due_at("Europe/Berlin", "09:00", date(2026, 1, 15)) == utc(2026, 1, 15, 8, 0)
    assert due_at("Europe/Berlin", "09:00", date(2026, 7, 15)) == utc(2026, 7, 15, 7, 0)
    assert due_at("Asia/Kolkata", "09:00", date(2026, 7, 15)) == utc(2026, 7, 15, 3, 30)
    assert due_at("Asia/Kathmandu", "09:00", date(2026, 7, 15)) == utc(2026, 7, 15, 3, 15)
    assert due_at("America/St_Johns", "09:00", date(2026, 1, 15)) == utc(2026, 1, 15, 12, 30)


def test_spring_forward_gap_moves_past_the_jump():
    # New York, 2026-03-08: 02:00 EST jumps to 03:00 EDT; 02:30 does not exist.
    assert due_at("America/New_York", "02:30", date(2026, 3, 8)) == utc(2026, 3, 8, 7, 30)  # 03:30 EDT
    # The day before and after use their own offsets.
    assert due_at("America/New_York", "09:00", date(2026, 3, 7)) == utc(2026, 3, 7, 14, 0)
    assert due_at("America/New_York", "09:00", date(2026, 3, 8)) == utc(2026, 3, 8, 13, 0)


def test_fall_back_repeated_hour_is_due_once_at_its_first_occurrence():
    assert due_at("America/New_York", "01:30", date(2026, 11, 1)) == utc(2026, 11, 1, 5, 30)  # 01:30 EDT


def test_half_hour_dst_of_lord_howe():
    # Lord Howe moves its clocks by 30 minutes: 02:00 +10:30 becomes 02:30 +11 on 2026-10-04.
    assert due_at("Australia/Lord_Howe", "02:15", date(2026, 10, 4)) == utc(2026, 10, 3, 15, 45)
    assert due_at("Australia/Lord_Howe", "09:00", date(2026, 10, 4)) == utc(2026, 10, 3, 22, 0)


def test_local_day_boundaries():
    # 23:30 UTC on the 1st is already the 2nd in Tokyo and still the 1st in Los Angeles.
    now = utc(2026, 6, 1, 23, 30)
    assert local_date("Asia/Tokyo", now) == date(2026, 6, 2)
    assert local_date("America/Los_Angeles", now) == date(2026, 6, 1)
    assert local_date("Pacific/Kiritimati", utc(2026, 6, 1, 10, 0)) == date(2026, 6, 2)


def test_due_today_before_and_after():
    day, when, due = due_today("Europe/Berlin", "09:00", utc(2026, 1, 15, 7, 59))
    assert (day, when, due) == (date(2026, 1, 15), utc(2026, 1, 15, 8, 0), False)
    assert due_today("Europe/Berlin", "09:00", utc(2026, 1, 15, 8, 0))[2]
    assert due_today("Europe/Berlin", "09:00", utc(2026, 1, 15, 22, 59))[2]
    # Just past local midnight it is a new day, not yet due.
    assert due_today("Europe/Berlin", "09:00", utc(2026, 1, 15, 23, 1))[:3:2] == (date(2026, 1, 16), False)


def test_next_due_rolls_to_tomorrow_and_across_dst():
    assert next_due("America/New_York", "09:00", utc(2026, 3, 7, 15, 0)) == utc(2026, 3, 8, 13, 0)
    assert next_due("Asia/Kolkata", "09:00", utc(2026, 7, 15, 3, 0)) == utc(2026, 7, 15, 3, 30)


def test_unknown_or_missing_zone_falls_back_to_utc():
    assert due_at(None, "09:00", date(2026, 1, 1)) == utc(2026, 1, 1, 9, 0)
    assert due_at("Mars/Olympus_Mons", "09:00", date(2026, 1, 1)) == utc(2026, 1, 1, 9, 0)
