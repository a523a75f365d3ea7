"""The loop the weekly posts (trending, recap) share over their due channels: one channel's failure
stops no other."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import date

from bot.usecases.digest_vocabulary import Note
from bot.usecases.weekly_posts import WeeklyStatus, each_channel

WEEK = date(2026, 12, 4)


@dataclass
class Told:
    channel_id: str
    week: date
    status: WeeklyStatus
    note: Note | None = None


def post(channel: str, week: date) -> Told | None:
    if channel == "CBROKEN":
        raise RuntimeError("the papers table is gone")
    if channel == "CDONE":
        return None  # someone else's meanwhile: nothing to tell
    return Told(channel, week, "posted")


def test_a_channel_that_fails_is_told_as_crashed_and_the_others_are_still_posted(caplog):
    due = [("CBROKEN", WEEK), ("CDONE", WEEK), ("CFINE", WEEK)]
    with caplog.at_level(logging.INFO, logger="bot.usecases.weekly_posts"):
        told = each_channel("recap", due, post, lambda c, w, note: Told(c, w, "incomplete", note))
    assert [(t.channel_id, t.status) for t in told] == [("CBROKEN", "incomplete"), ("CFINE", "posted")]
    assert told[0].note is not None and told[0].note.why == "crashed"
    assert "the papers table is gone" in (told[0].note.detail or "")
    lines = [r.getMessage() for r in caplog.records]
    assert "the recap of CBROKEN failed" in lines
    assert "recap 2026-12-04 for CFINE: posted" in lines
    assert not any("CDONE" in line for line in lines)
