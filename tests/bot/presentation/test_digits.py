"""Numbers and times in what people type are ASCII digits: "²" or "٣" is a bad argument, never a crash."""

from __future__ import annotations

import pytest

from bot.errors import BadArgument
from bot.slack.subcommands import Command
from bot.slack.subcommands.personal import parse
from bot.sources.normalize import parse_arxiv_id
from bot.usecases.digest_due import parse_hhmm


@pytest.mark.parametrize("arg", ["²", "³", "¹⁰", "٣", "５", "𝟓", "1²", "Ⅴ", "⑤", "9" * 5000, "-1", "0", "21",
                                 "1.5"])
def test_recommend_with_anything_but_a_number_from_1_to_20_is_a_bad_argument(arg):
    with pytest.raises(BadArgument, match="takes a number from 1 to"):
        parse(f"recommend {arg}")


def test_recommend_with_ascii_digits():
    assert parse("recommend 7") == Command("recommend", count=7)
    assert parse("recommend 007").count == 7


@pytest.mark.parametrize("text", ["٠٨:٣٠", "０８:３０", "8:3٠", "²:30", "08:30\n:", "08:30x", "24:00", "8:5"])
def test_times_of_day_are_ascii_hh_mm(text):
    with pytest.raises(BadArgument):
        parse_hhmm(text)
    with pytest.raises(BadArgument, match="is not a time from 00:00 to 23:59"):
        parse(f"digest {text}")


def test_ascii_times_still_parse():
    assert parse_hhmm(" 8:30 ") == "08:30" and parse("digest 23:59") == Command("digest-at", time="23:59")


def test_arxiv_ids_are_ascii_digits():
    assert parse_arxiv_id("2401.12345v2") == ("2401.12345", 2)
    assert parse_arxiv_id("٢٤٠١.١٢٣٤٥") is None and parse_arxiv_id("2401.12345v٢") is None
