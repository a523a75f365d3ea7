"""The feedback line on a paper message (bot/slack/views/marks.py) and the gate admitting Save and More like
this clicks on messages only with a response_url, like 👍 and 👎."""

from __future__ import annotations

import pytest
from slack_sdk.models.blocks import Block

from bot.slack.views.marks import MARK_BLOCK, SAVE_LABEL, SAVED_LABEL, mark_line, marked, posted_paper
from bot.slack.views.messages import ACTIONS_BLOCK, MORE_ACTION, SAVE_ACTION, paper_blocks
from bot.usecases.recommend import Recommendation
from bot.usecases.saved import Marks
from storage import Paper
from tests.bot.slack.test_gate import FORM, click, verdict
from tests.fakes import FakeWebClient

REC = Recommendation(Paper(id="p", title="Cats", abstract="About cats."), 1.0, "Matches “cats”")


def save_label(blocks) -> str:
    actions = next(b for b in blocks if b.get("block_id") == ACTIONS_BLOCK)
    return next(e["text"]["text"] for e in actions["elements"] if e["action_id"] == SAVE_ACTION)


@pytest.mark.parametrize(("marks", "line"), [
    (Marks(saved=True, liked=True), "Saved"), (Marks(liked=True), "You liked this"),
    (Marks(disliked=True), "fewer like this"), (Marks(), None),
])
def test_the_line_says_saved_liked_or_nothing(marks, line):
    blocks = marked(paper_blocks(REC), marks)
    found = [b for b in blocks if b.get("block_id") == MARK_BLOCK]
    if line is None:
        assert found == [] and mark_line(marks) is None
    else:
        assert line in found[0]["elements"][0]["text"]
        assert blocks.index(found[0]) == len(blocks) - 2  # just above the buttons
    assert save_label(blocks) == (SAVED_LABEL if marks.saved else SAVE_LABEL)
    for block in blocks:
        Block.parse(block).validate_json()  # well-formed Block Kit


def test_marking_again_replaces_the_line_and_unmarking_removes_it():
    once = marked(paper_blocks(REC), Marks(saved=True))
    twice = marked(once, Marks(liked=True))
    assert [b.get("block_id") for b in twice].count(MARK_BLOCK) == 1
    assert marked(twice, Marks()) == marked(paper_blocks(REC), Marks())


@pytest.mark.parametrize("action", [SAVE_ACTION, MORE_ACTION])
def test_the_gate_admits_the_new_buttons_on_messages_only_with_a_response_url(action):
    actions = [{"action_id": action, "block_id": "b1", "type": "button"}]
    assert verdict(click(actions=actions), FORM).admitted
    assert verdict(click(actions=actions, response_url=None), FORM).status == 400


def test_a_paper_message_without_a_place_is_never_asked_of_slack():
    client = FakeWebClient()
    assert posted_paper(client, None, "1.0")() is None and posted_paper(client, "D1", None)() is None
    assert client.calls == []


def test_slack_refusing_to_say_what_a_message_carries_is_one_log_line_without_a_traceback(caplog):
    client = FakeWebClient({"conversations.history": {"ok": False, "error": "channel_not_found"}})
    assert posted_paper(client, "C404", "1.0")() is None
    [record] = [r for r in caplog.records if "metadata" in r.getMessage()]
    assert "channel_not_found" in record.getMessage() and record.exc_info is None
