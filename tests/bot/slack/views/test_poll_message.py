"""A reading-group poll's Block Kit, the Vote button's value, the `/papers channel poll` parser and what a
voter is told: valid blocks within Slack's limits, every outside text escaped, no buttons once closed."""

from __future__ import annotations

import json

import pytest
from slack_sdk.models.blocks import Block

from bot.errors import BadArgument
from bot.slack.listeners.poll_votes import CLOSED, UNKNOWN, vote_reply
from bot.slack.subcommands.channel_poll import PollCommand, parse_poll
from bot.slack.subcommands.personal import REGISTRY, help_text
from bot.slack.views.home_view import home_view
from bot.slack.views.messages import MESSAGE_BLOCKS
from bot.slack.views.poll_message import VOTE_ACTION, discussion_text, poll_message, vote_value, voted_for
from bot.usecases.polls import Choice, Closed, Poll, Voted
from bot.usecases.recommend import Recommendation
from storage import Paper
from tests.bot.slack.views.test_home_view import check_view, data

NASTY = "<!channel> & <https://evil.example|click> *bold*"


def _poll(votes: list[int], is_open: bool = True, winner: str | None = None, title: str = "Paper") -> Poll:
    papers = [Paper(id=f"p{i}", abstract="An abstract.", title=f"{title} {i}", venue="ICML",
                    authors=["Ada Lovelace", "Alan Turing"], url=f"https://arxiv.org/abs/2601.0000{i}")
              for i in range(len(votes))]
    choices = [Choice(Recommendation(paper, 0.5, "Matches: cats"), n)
               for paper, n in zip(papers, votes, strict=True)]
    return Poll("abc123", "C1", "1.000001", is_open, choices, sum(votes), "2026-12-01T10:00:00+00:00", winner)


def _buttons(blocks: list[dict]) -> list[dict]:
    return [b["accessory"] for b in blocks if "accessory" in b]


def test_an_open_poll_has_a_vote_button_and_a_count_per_paper_in_rank_order():
    message = poll_message(_poll([2, 0, 1]))
    blocks = message["blocks"]
    for block in blocks:
        Block.parse(block).validate_json()
    assert blocks[0]["type"] == "header" and "Reading-group poll" in blocks[0]["text"]["text"]
    buttons = _buttons(blocks)
    assert [b["action_id"] for b in buttons] == [VOTE_ACTION] * 3
    assert [voted_for(b["value"]) for b in buttons] == [("abc123", "p0"), ("abc123", "p1"), ("abc123", "p2")]
    counts = [e["text"] for b in blocks if b["type"] == "context" for e in b["elements"]]
    assert counts[:3] == [":ballot_box_with_ballot: 2 votes", ":ballot_box_with_ballot: no votes",
                          ":ballot_box_with_ballot: 1 vote"]
    assert counts[3] == "3 votes so far."
    text = json.dumps(blocks)
    assert "<https://arxiv.org/abs/2601.00000|Paper 0>" in text and "Ada Lovelace, Alan Turing" in text
    assert "Matches: cats" in text and "/papers channel poll close" in text
    assert "1. Paper 0 (2 votes)" in message["text"]


def test_a_closed_poll_has_no_buttons_and_names_the_winner():
    message = poll_message(_poll([2, 3, 1], is_open=False, winner="p1"))
    blocks = message["blocks"]
    for block in blocks:
        Block.parse(block).validate_json()
    assert not _buttons(blocks) and "(closed)" in blocks[0]["text"]["text"]
    text = json.dumps(blocks)
    assert text.count(":trophy:") == 1 and "3 votes  \\u00b7  :trophy:" in text
    assert "Closed with 6 votes: \\u201cPaper 1\\u201d won" in text
    nobody = json.dumps(poll_message(_poll([0, 0], is_open=False, winner="p0"))["blocks"])
    assert "Nobody voted, so the top-ranked paper, \\u201cPaper 0\\u201d" in nobody


def test_every_outside_text_is_escaped_and_six_papers_fit_one_message():
    message = poll_message(_poll([0] * 6, title=NASTY + " " + "long words " * 60))
    blocks = message["blocks"]
    assert len(blocks) <= MESSAGE_BLOCKS
    for block in blocks:
        Block.parse(block).validate_json()
    everything = json.dumps(message)
    assert "<!channel>" not in everything and "<https://evil" not in everything
    assert "&lt;!channel&gt; &amp;" in everything
    assert len(message["text"]) <= 3000


def test_the_thread_s_first_reply_says_how_the_paper_won():
    won = _poll([1, 3], is_open=False, winner="p1")
    assert "with 3 votes of 4" in discussion_text(Closed(won, won.choices[1]))
    none = _poll([0, 0], is_open=False, winner="p0")
    assert "Nobody voted" in discussion_text(Closed(none, none.choices[0]))


def test_a_vote_value_names_the_poll_and_the_paper_and_nothing_else_passes():
    assert voted_for(vote_value("abc", "doi:10.1/x y")) == ("abc", "doi:10.1/x y")
    for value in ("", "abc", " p1", "abc "):
        assert voted_for(value) is None


@pytest.mark.parametrize(("text", "parsed"), [
    ("", PollCommand("open", 4)), ("3", PollCommand("open", 3)), ("6", PollCommand("open", 6)),
    ("2", PollCommand("open", 2)), ("close", PollCommand("close")), ("CLOSE", PollCommand("close")),
])
def test_the_poll_parser_takes_a_number_of_papers_or_close(text, parsed):
    assert parse_poll(text) == parsed
    assert REGISTRY.parse(f"channel poll {text}", "C1").args.args == parsed


@pytest.mark.parametrize(("text", "says"), [
    ("1", "2 to 6 papers, not 1"), ("7", "2 to 6 papers, not 7"), ("-3", "not -3"), ("0", "not 0"),
    ("three", "not “three”"), ("close now", "not “close now”"), ("٣", "not “٣”"),
])
def test_a_bad_poll_argument_says_what_was_wrong(text, says):
    with pytest.raises(BadArgument, match=says):
        parse_poll(text)


def test_the_channel_help_tells_of_polls():
    details = help_text("channel")
    assert "`/papers channel poll`" in details and "`/papers channel poll close`" in details
    assert help_text("poll") == details == help_text("polls")


def test_what_a_voter_is_told():
    poll = _poll([1, 0])
    assert "Your vote: “Paper 0”" in vote_reply(Voted("voted", poll, "p0"))
    assert "moved from your earlier choice" in vote_reply(Voted("voted", poll, "p0", before="p1"))
    assert "already" in vote_reply(Voted("voted", poll, "p0", before="p0"))
    assert vote_reply(Voted("closed", poll)) == CLOSED
    assert vote_reply(Voted("unknown")) == UNKNOWN


def test_home_tells_of_a_channel_s_papers_and_polls():
    view = home_view(data())
    check_view(view)
    text = json.dumps(view)
    assert "`/papers channel poll`" in text and "reading-group poll" in text
