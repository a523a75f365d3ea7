"""A compact digest end to end, on both backends: `/papers digest compact on`, then the digest arrives as
one message (a header line, then each paper with its own buttons), each paper recorded as shown with that
message's ts; a click on one paper's 👍 likes that paper only and rewrites only its section."""

from __future__ import annotations

import json

from bot.slack.views.compact import ACTIONS_BLOCK, PAPER_BLOCK
from bot.slack.views.messages import LIKE_ACTION, SAVE_ACTION
from tests.e2e.harness import posts_to, query, user_ids

new_user = user_ids("UCMP")


def dm(user: str) -> str:
    return "D" + user


def blocks_of(params: dict) -> list[dict]:
    blocks = params.get("blocks") or []
    return json.loads(blocks) if isinstance(blocks, str) else blocks


def press(slack, user: str, action_id: str, channel: str, ts: str, message: dict, place: int,
          paper_id: str) -> str:
    """Click a button of the ``place``-th paper of a compact digest, the payload carrying the message
    as Slack's does; the answer the clicker sees."""
    payload, key = slack.click_payload(user, action_id, channel, ts)
    payload["message"] = {"type": "message", "ts": ts, "user": "UPAPERBOT", "text": message["text"],
                          "blocks": blocks_of(message)}
    payload["actions"][0].update(block_id=f"{ACTIONS_BLOCK}{place}", value=paper_id)
    assert slack.interaction(payload)[0] == 200
    return slack.standin.wait_for(lambda: slack.standin.responses(key), what="the answer")[0].params["text"]


def test_compact_on_sends_one_message_and_a_click_updates_only_its_paper(slack, standin, store, running):
    user = new_user()
    slack.ask(user, "follow feline cats whiskers")
    on = slack.ask(user, "digest compact on").text
    assert "one message" in on
    assert "as one message" in slack.ask(user, "interests").text
    before = len(posts_to(standin, dm(user)))
    assert slack.ask(user, "digest now").text == "I sent you 3 papers in our direct messages."
    posted = posts_to(standin, dm(user))[before:]
    assert len(posted) == 1  # header and papers in one message
    message, ts = posted[0].params, posted[0].response["ts"]
    blocks = blocks_of(message)
    assert "Your digest" in blocks[0]["text"]["text"] and len(blocks) == 1 + 2 * 3
    shown = {r["paper_id"]: r["message_ts"] for r in query(store, "select * from shown where user_id = ?",
                                                           [user])}
    assert len(shown) == 3 and set(shown.values()) == {ts}
    ids = [next(e["value"] for e in b["elements"]) for b in blocks if b["block_id"].startswith(ACTIONS_BLOCK)]
    assert set(ids) == set(shown)

    answer = press(slack, user, LIKE_ACTION, dm(user), ts, message, 1, ids[1])
    assert answer.startswith(":+1: Noted: more like")
    assert {f.paper_id: f.value for f in store.get_feedback(user)} == {ids[1]: 1}
    update = standin.wait_for(lambda: [c for c in standin.calls("chat.update", ts=ts) if c.status == 200],
                              what="the rewrite")[0]
    after = blocks_of(update.params)
    changed = [b["block_id"] for b, a in zip(blocks, after, strict=True) if a != b]
    assert changed == [f"{PAPER_BLOCK}1"] and "You liked this" in after[3]["text"]["text"]

    # Save on another paper: saved, and its section alone shows it, the like above kept.
    assert ":bookmark: Saved" in press(slack, user, SAVE_ACTION, dm(user), ts, update.params, 2, ids[2])
    assert [p.paper_id for p in store.saved_papers(user)] == [ids[2]]
    latest = standin.wait_for(lambda: [c for c in standin.calls("chat.update", ts=ts) if c.status == 200][1:],
                              what="the second rewrite")[0]
    final = blocks_of(latest.params)
    assert "You liked this" in final[3]["text"]["text"] and "Saved" in final[5]["text"]["text"]
    assert final[1] == blocks[1] and final[0] == blocks[0]

    # A reaction on the message can't say which paper: nothing changes.
    assert slack.reaction(user, "-1", dm(user), ts) == 200
    running.settle()  # it has had its chance to count
    assert {f.paper_id: f.value for f in store.get_feedback(user)} == {ids[1]: 1}  # a save is no like
