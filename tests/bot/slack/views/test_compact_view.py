"""A compact digest's Block Kit (bot/slack/views/compact.py): within Slack's limits for the largest
digest and the worst papers; its buttons name their paper; a click rewrites only that paper's section;
and the courier posts it with metadata naming every paper, found again by ``find_posted``."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from slack_sdk.models.blocks import Block

from bot.slack.delivery.digests import slack_courier
from bot.slack.views.compact import (
    ACTIONS_BLOCK,
    MOST_PAPERS,
    PAPER_BLOCK,
    clicked_place,
    compact_blocks,
    compact_click,
    compact_text,
    remarked,
)
from bot.slack.views.messages import LIKE_ACTION, MESSAGE_BLOCKS, SAVE_ACTION
from bot.slack.views.metadata import COMPACT_EVENT
from bot.usecases.digests.send import header_text
from bot.usecases.saved import Marks
from tests.bot.slack.views.test_block_kit import check_message, every_rec, rec
from tests.fakes import FakeWebClient

HEADER = header_text(20, datetime(2026, 7, 15).date(), weekly=True, compact=True,
                     by_feed=[("main", 10), ("robotics", 10)])


def test_the_largest_digest_of_the_worst_papers_fits_one_message():
    recs = every_rec()
    assert len(recs) >= 20  # a weekly digest: twice the daily size at most
    for each in (recs[:20], recs):
        blocks = compact_blocks(HEADER, each)
        message = {"text": compact_text(HEADER, each), "blocks": blocks}
        check_message(message)
        assert len(blocks) <= MESSAGE_BLOCKS and len(blocks) == 1 + 2 * min(len(each), MOST_PAPERS)
        for block in blocks:
            Block.parse(block).validate_json()
    assert MOST_PAPERS >= 20


def test_each_paper_has_its_own_buttons_valued_with_its_id_and_its_reason_and_feed():
    papers = [r.paper for r in every_rec()[:3]]
    recs = [rec(p, "Matches “cats”", f) for p, f in zip(papers, [None, "pets", "main"], strict=True)]
    blocks = compact_blocks(HEADER, recs)
    for place, r in enumerate(recs):
        section = next(b for b in blocks if b.get("block_id") == f"{PAPER_BLOCK}{place}")
        actions = next(b for b in blocks if b.get("block_id") == f"{ACTIONS_BLOCK}{place}")
        assert {e["value"] for e in actions["elements"]} == {r.paper.id}
        assert "Matches “cats”" in section["text"]["text"]
        text = section["text"]["text"]
        assert (f"*Feed:* {r.feed}" in text) if r.feed else "*Feed:*" not in text


def test_a_click_rewrites_only_its_paper_s_section():
    recs = every_rec()[:5]
    blocks = compact_blocks(HEADER, recs)
    after = remarked(json.loads(json.dumps(blocks)), 2, recs[2], Marks(liked=True, saved=True))
    changed = [i for i, (a, b) in enumerate(zip(blocks, after, strict=True)) if a != b]
    assert changed == [1 + 2 * 2, 2 + 2 * 2]  # its section and its buttons, nothing else
    assert "You liked this" not in str(after[1 + 2 * 2]) and "Saved" in after[1 + 2 * 2]["text"]["text"]
    save = next(e for e in after[2 + 2 * 2]["elements"] if e["action_id"] == SAVE_ACTION)
    assert "Saved" in save["text"]["text"] and save["value"] == recs[2].paper.id
    assert remarked(blocks, 9, recs[0], Marks()) is None  # no such paper in it
    again = remarked(after, 2, recs[2], Marks())
    assert again == blocks


def test_a_click_is_read_from_its_payload():
    blocks = compact_blocks(HEADER, every_rec()[:2])
    body = {"message": {"blocks": blocks, "text": "t"}}
    click = compact_click(body, {"action_id": LIKE_ACTION, "block_id": f"{ACTIONS_BLOCK}1", "value": "p1"})
    assert (click.place, click.paper_id, click.blocks, click.text) == (1, "p1", blocks, "t")
    assert click.posted_as() == "p1"
    single = {"action_id": LIKE_ACTION, "block_id": "paper_actions", "value": "like"}  # a one-paper message's
    assert compact_click(body, single) is None
    for block_id in (None, "", f"{ACTIONS_BLOCK}x", f"{ACTIONS_BLOCK}1234", f"{ACTIONS_BLOCK}٣"):
        assert clicked_place(block_id) is None


def test_the_courier_posts_it_with_metadata_found_again_after_a_crash():
    client = FakeWebClient()
    courier = slack_courier(None, client)  # a channel id: no DM to open or remember
    recs = every_rec()[:3]
    channel, ts = courier.post_compact("C1", HEADER, recs)
    method, args = client.calls[-1]
    assert method == "chat.postMessage" and args["metadata"]["event_type"] == COMPACT_EVENT
    assert args["metadata"]["event_payload"]["paper_ids"] == [r.paper.id for r in recs]
    history = {"ok": True, "messages": [{"ts": ts, "metadata": args["metadata"]}]}
    client.answers["conversations.history"] = history
    found = courier.find_posted("C1", datetime(2026, 7, 15, tzinfo=UTC))
    assert found.header_ts == ts and found.papers == {r.paper.id: ("C1", ts) for r in recs}
    assert slack_courier(None, client, header_event=None).post_compact is None  # not for recommend's
