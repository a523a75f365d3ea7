"""The days and times of `/papers digest …` (and `/papers channel digest …`, whose parser says its own
command in their place): read from the command's words, and what to type when they are not a day and a
time. The schedule itself, and what a time of day is, are the digest pipeline's
(:mod:`bot.usecases.digest_schedule`, :func:`bot.usecases.digest_due.parse_hhmm`)."""

from __future__ import annotations

from bot.errors import BadArgument, BadTime
from bot.usecases import digest_due as due
from bot.usecases.digest_schedule import DEFAULT_TIME, WEEKDAYS


def parse_hhmm(text: str) -> str:
    """A local time of day as zero-padded ``HH:MM``. Raises BadArgument saying what to type."""
    try:
        return due.parse_hhmm(text)
    except BadTime:
        raise BadArgument(f"'{text}' is not a time of day: use 24-hour HH:MM, e.g. 08:30") from None


def parse_weekday(text: str) -> int:
    """A day of the week (0 = Monday), written in full or as its first three letters or more, any case."""
    word = text.strip().casefold()
    for number, name in enumerate(WEEKDAYS):
        if len(word) >= 3 and name.startswith(word):
            return number
    raise BadArgument(f"“{text[:40]}” is not a day of the week; try `/papers digest weekly monday 09:00`")


def parse_weekly(text: str) -> tuple[int, str]:
    """``[DAY] [HH:MM]`` of ``digest weekly`` as (weekday, time): Monday and 09:00 when left out.
    Raises BadArgument saying what was wrong and what to type."""
    words = text.split()
    if len(words) > 2:
        raise BadArgument("`/papers digest weekly` takes a day and a time at most, "
                          "e.g. `/papers digest weekly friday 16:00`")
    weekday, hhmm = 0, DEFAULT_TIME
    for word in words:
        if ":" in word:
            hhmm = _time(word, "weekly friday 16:00")
        else:
            weekday = parse_weekday(word)
    if len(words) == 2 and (":" in words[0]) == (":" in words[1]):
        raise BadArgument("Give one day and one time: `/papers digest weekly friday 16:00`")
    return weekday, hhmm


def parse_daily(text: str) -> str | None:
    """``[HH:MM]`` of ``digest daily``: the time, or None to keep the current one. Raises BadArgument."""
    words = text.split()
    if len(words) > 1:
        raise BadArgument("`/papers digest daily` takes a time at most, e.g. `/papers digest daily 08:30`")
    return _time(words[0], "daily 08:30") if words else None


def _time(word: str, example: str) -> str:
    try:
        return due.parse_hhmm(word)
    except BadTime:
        raise BadArgument(f"“{word[:40]}” is not a time from 00:00 to 23:59; "
                          f"try `/papers digest {example}`") from None
