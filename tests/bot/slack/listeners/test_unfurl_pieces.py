"""The pieces of unfurls, the Save paper shortcut and DM commands that need no server: the card's Block
Kit, which clicks are on a card, where a message's links are, what people are told, and the gate."""

import json
from urllib.parse import urlencode

import pytest
from slack_sdk.models.blocks import Block

from bot.slack.listeners.dm_commands import dm_reply, is_typed_message, typed_command
from bot.slack.listeners.shortcuts import saved_reply
from bot.slack.shortcut_messages import message_text
from bot.slack.views.messages import LIKE_ACTION, MORE_ACTION, SAVE_ACTION, WHO_ACTION
from bot.slack.views.unfurl_card import UNFURL_ACTIONS, VALUE_PREFIX, unfurl_blocks, unfurled_paper
from bot.usecases.save_named import NamedSave
from storage import Paper
from tests.bot.slack.test_gate import FORM, event, verdict
from tests.bot.slack.views.test_messages import HOSTILE, check_limits, hostile_paper


def arxiv_paper(**fields) -> Paper:
    return Paper(**{"id": "arxiv:2501.01234", "title": "Tidal locking of exomoons", "authors": ["Ann Smith"],
                    "abstract": "Exomoons lock. " * 80, "arxiv_id": "2501.01234", "arxiv_version": 2,
                    "venue": "arXiv", "published": "2025-01-14", **fields})


def buttons(blocks):
    [actions] = [b for b in blocks if b["type"] == "actions"]
    return actions


def test_the_card_is_valid_block_kit_within_limits_with_four_buttons_naming_the_paper():
    for paper in (arxiv_paper(), hostile_paper(), hostile_paper(50), Paper(id="x", abstract="Only this.")):
        blocks = unfurl_blocks(paper)
        check_limits(blocks)
        for block in blocks:
            Block.parse(block).validate_json()
        actions = buttons(blocks)
        assert actions["block_id"] == UNFURL_ACTIONS
        assert [e["action_id"] for e in actions["elements"]] == [SAVE_ACTION, LIKE_ACTION, MORE_ACTION,
                                                                    WHO_ACTION]
        assert {e["value"] for e in actions["elements"]} == {VALUE_PREFIX + paper.id}
        assert all(len(e["text"]["text"]) <= 75 for e in actions["elements"])
    head = unfurl_blocks(arxiv_paper())[0]["text"]["text"]
    assert head.startswith("*<https://arxiv.org/abs/2501.01234|Tidal locking of exomoons>*")
    assert "Ann Smith" in head
    assert "<!channel>" in HOSTILE and "<!channel>" not in json.dumps(unfurl_blocks(hostile_paper()))


def test_a_paper_id_too_long_for_a_button_gets_a_card_without_buttons():
    blocks = unfurl_blocks(arxiv_paper(id="x" * 3000))
    assert not [b for b in blocks if b["type"] == "actions"]


def click(container: dict, value: str = VALUE_PREFIX + "arxiv:2501.01234") -> dict:
    return {"type": "block_actions", "container": container, "actions": [{"action_id": SAVE_ACTION,
                                                                            "value": value}]}


def test_a_click_names_its_paper_only_on_an_unfurl():
    unfurl = {"type": "message_attachment", "message_ts": "1.1", "attachment_id": 1, "channel_id": "C1",
              "is_app_unfurl": True, "app_unfurl_url": "https://arxiv.org/abs/2501.01234"}
    assert unfurled_paper(click(unfurl)) == "arxiv:2501.01234"
    assert unfurled_paper(click({"type": "message", "message_ts": "1.1", "channel_id": "D1"})) is None
    assert unfurled_paper(click({"type": "message", "channel_id": "D1"}, value="save")) is None
    assert unfurled_paper(click(unfurl, value="save")) is None
    assert unfurled_paper(click(unfurl, value=VALUE_PREFIX)) is None


def test_a_messages_text_attachments_and_blocks_are_all_read():
    message = {
        "text": "look <https://arxiv.org/abs/2501.01234|here>",
        "attachments": [{"from_url": "https://arxiv.org/pdf/2502.00001", "fallback": "doi:10.1000/x.1",
                         "is_app_unfurl": True}],
        "blocks": [{"type": "rich_text", "elements": [{"type": "rich_text_section", "elements": [
            {"type": "link", "url": "https://arxiv.org/html/2503.00002v1"},
            {"type": "text", "text": " and 2504.00003"}]}]}],
        "user": "U1", "ts": "1.1",
    }
    text = message_text(message)
    for piece in ("2501.01234", "2502.00001", "10.1000/x.1", "2503.00002", "2504.00003"):
        assert piece in text
    assert "U1" not in text  # only the fields a link can be in


def test_the_shortcut_answer_says_what_was_saved_and_what_was_not_found():
    paper = arxiv_paper(title="A & <b>")
    assert "found no arXiv link" in saved_reply(NamedSave())
    text = saved_reply(NamedSave(named=["2501.01234", "10.1/x"], saved=[paper], missing=["10.1/x"]))
    assert text.startswith(":bookmark: Saved 1 paper: “A &amp; &lt;b&gt;”") and "`/papers saved`" in text
    assert "I couldn't find `10.1/x`." in text
    down = saved_reply(NamedSave(named=["2501.01234"], missing=["2501.01234"], unreachable=True))
    assert "arXiv isn't answering" in down
    assert "Already in your saved papers" in saved_reply(NamedSave(named=["2501.01234"], already=[paper]))


@pytest.mark.parametrize("typed, command", [
    ("recommend 3", "recommend 3"), ("/papers recommend 3", "recommend 3"), ("papers  saved", "saved"),
    ("  help ", "help"), ("search a &amp; b", "search a & b"),
])
def test_a_dm_is_read_as_a_subcommand_with_or_without_papers_in_front(typed, command):
    assert typed_command(typed) == command


def test_unparseable_dms_get_the_help_and_link_only_ones_nothing(ctx):
    from bot.slack.runtime import Runtime

    rt = Runtime(ctx)
    try:
        assert dm_reply(rt, None, "U1", "hello there")["text"].startswith("I didn't understand that.")
        assert "`/papers follow" in dm_reply(rt, None, "U1", "hello there")["text"]
        assert dm_reply(rt, None, "U1", "<https://arxiv.org/abs/2501.01234>") is None
        bad = dm_reply(rt, None, "U1", "recommend lots")["text"]
        assert "takes a number" in bad and bad.endswith("Type `help` for everything I understand.")
        assert "paperbot" in dm_reply(rt, None, "U1", "help")["text"]
    finally:
        rt.background.shutdown()


def test_only_peoples_own_new_dm_messages_are_answered():
    typed = {"type": "message", "channel_type": "im", "user": "U1", "channel": "D1", "text": "saved"}
    assert is_typed_message(typed)
    assert not is_typed_message({**typed, "bot_id": "B1"})
    assert not is_typed_message({**typed, "subtype": "message_changed"})
    assert not is_typed_message({**typed, "channel_type": "channel"})
    assert not is_typed_message({**typed, "text": "  "})


def form(payload: dict) -> str:
    return urlencode({"payload": json.dumps(payload)})


SHORTCUT = {"type": "message_action", "callback_id": "save_paper", "trigger_id": "t1",
            "response_url": "https://hooks.slack.com/x", "user": {"id": "U1"}, "channel": {"id": "C1"},
            "team": {"id": "T1"}, "message": {"type": "message", "text": "2501.01234", "ts": "1.1"}}
LINK = {"type": "link_shared", "user": "U1", "channel": "C1", "message_ts": "1.1", "unfurl_id": "u1",
        "source": "conversations_history",
        "links": [{"domain": "arxiv.org", "url": "https://arxiv.org/abs/2501.01234"}]}


def test_the_gate_admits_the_shortcut_link_shared_and_dm_messages_of_the_right_shape():
    assert verdict(form(SHORTCUT), FORM).admitted
    assert verdict(form({**SHORTCUT, "callback_id": "who_should_read"}), FORM).admitted
    assert verdict(form({**SHORTCUT, "callback_id": "other"}), FORM).kind == "ignored"
    assert verdict(form({**SHORTCUT, "message": "text"}), FORM).status == 400
    assert verdict(form({**SHORTCUT, "message": {"text": 5}}), FORM).status == 400
    assert verdict(form({**SHORTCUT, "user": {"id": 7}}), FORM).status == 400
    assert verdict(event(LINK)).admitted
    assert verdict(event({**LINK, "links": "https://arxiv.org"})).status == 400
    assert verdict(event({**LINK, "links": [{"url": 5}]})).status == 400
    dm = {"type": "message", "channel_type": "im", "user": "U1", "channel": "D1", "text": "saved",
          "ts": "1.2"}
    assert verdict(event(dm)).admitted
    assert verdict(event({**dm, "text": ["saved"]})).status == 400
