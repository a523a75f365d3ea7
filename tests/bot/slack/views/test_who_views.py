""""Who should read this?" as Block Kit: the answer and the colleague's message are valid, within
Slack's limits, every outside text escaped; Send buttons carry what Send needs and nothing else
reads as one; every paper message, compact digest and card carries the button; Home shows the switch."""

from __future__ import annotations

import json

import pytest
from slack_sdk.models.blocks import Block

from bot.slack.views.compact import compact_blocks
from bot.slack.views.home_view import SUGGEST_ACTION, home_view
from bot.slack.views.messages import HOME_BLOCKS, WHO_ACTION, paper_blocks
from bot.slack.views.unfurl_card import VALUE_PREFIX, unfurl_blocks
from bot.slack.views.who import (
    NOBODY,
    SEND_ACTION,
    SUGGESTED_BLOCK,
    answer_blocks,
    answer_text,
    read_send_value,
    send_value,
    suggested_blocks,
)
from bot.usecases.home import HomeData
from bot.usecases.interests import Interests
from bot.usecases.recommend import Recommendation
from bot.usecases.suggestions import Colleague, SentSuggestion, WhoShouldRead
from storage import Paper
from tests.bot.slack.views.test_messages import HOSTILE, check_limits, hostile_paper, texts


def valid(blocks):
    check_limits(blocks)
    for block in blocks:
        Block.parse(block).validate_json()
    every = [b.get("accessory") or {} for b in blocks] + [e for b in blocks for e in b.get("elements", [])]
    for button in every:
        if button.get("type") == "button":
            assert len(button["value"]) <= 2000 and len(button["text"]["text"]) <= 75


def test_the_answer_names_each_colleague_with_why_and_send_all_escaped():
    paper = hostile_paper()
    answer = WhoShouldRead(paper, [Colleague("UA1", 0.9, HOSTILE * 50), Colleague("UB2", 0.5, "Matches “x”")])
    blocks = answer_blocks(answer)
    valid(blocks)
    shown = "\n".join(texts(blocks))
    assert "<@UA1>" in shown and "<@UB2>" in shown
    assert "<!channel>" not in shown and "<https://evil" not in shown  # only the colleagues are mentions
    sends = [b["accessory"] for b in blocks if b.get("accessory", {}).get("action_id") == SEND_ACTION]
    assert [read_send_value(s["value"])[:2] for s in sends] == [("p<1>", "UA1"), ("p<1>", "UB2")]
    assert "<@UA1>" in answer_text(answer) and "<!channel>" not in answer_text(answer)


@pytest.mark.parametrize("nobody", list(NOBODY))
def test_nobody_is_a_helpful_sentence_without_buttons(nobody):
    answer = WhoShouldRead(Paper(id="p1", title="A paper", abstract="x"), nobody=nobody)
    blocks = answer_blocks(answer)
    valid(blocks)
    assert NOBODY[nobody] in "\n".join(texts(blocks)) and NOBODY[nobody] in answer_text(answer)
    assert not any(b.get("accessory") for b in blocks)


def test_after_a_send_the_answer_says_what_it_did_first():
    paper = Paper(id="p1", title="A paper", abstract="x")
    done = SentSuggestion("sent", paper, "UA1")
    blocks = answer_blocks(WhoShouldRead(paper, nobody="all_have_it"), done)
    assert texts(blocks)[0].startswith(":white_check_mark: Sent to <@UA1>")
    assert "Nobody else to suggest it to." in texts(blocks)[1]


def test_a_send_value_fits_a_button_and_anything_else_reads_as_none():
    value = send_value("p" * 100, "UA1", "why " * 2000)
    assert len(value) <= 2000 and read_send_value(value)[:2] == ("p" * 100, "UA1")
    for bad in (None, "", "x", "[]", '{"p": "p1"}', '{"p": "p1", "u": "<!channel>"}', '{"p": 1, "u": "UA1"}',
                '{"p": "p1", "u": "UA1", "r": 5}'):
        assert read_send_value(bad) is None, bad


def test_the_colleague_s_message_opens_with_who_thought_of_them():
    blocks = suggested_blocks(Recommendation(hostile_paper(), 0.0, "Suggested by a colleague"), "UASK1")
    valid(blocks)
    assert blocks[0]["block_id"] == SUGGESTED_BLOCK
    assert blocks[0]["elements"][0]["text"] == "<@UASK1> thought you'd want to see this"


def test_every_paper_surface_has_the_button_naming_its_paper():
    paper = Paper(id="arxiv:2501.00001", title="T", abstract="A")
    rec = Recommendation(paper, 1.0, "why")
    for blocks, value in ((paper_blocks(rec), paper.id), (compact_blocks("Header", [rec]), paper.id),
                          (unfurl_blocks(paper), VALUE_PREFIX + paper.id)):
        found = [e for b in blocks if b["type"] == "actions" for e in b["elements"]
                 if e["action_id"] == WHO_ACTION]
        assert [e["value"] for e in found] == [value]
    assert not [e for b in paper_blocks(Recommendation(Paper(id="x" * 3000, abstract="A"), 1.0, ""))
                if b["type"] == "actions" for e in b["elements"] if e["action_id"] == WHO_ACTION]


@pytest.mark.parametrize("on", [True, False])
def test_home_shows_the_suggestions_switch(on):
    info = Interests(topics=[], liked=0, disliked=0, digest_time=None, digest_enabled=False, tz=None,
                     suggest=on)
    view = home_view(HomeData(info, [], 0, False))
    assert len(view["blocks"]) <= HOME_BLOCKS
    [block] = [b for b in view["blocks"] if (b.get("accessory") or {}).get("action_id") == SUGGEST_ACTION]
    assert block["accessory"]["value"] == ("off" if on else "on")
    assert ("colleagues:* on" if on else "colleagues:* off") in json.dumps(block)
