"""A channel's weekly recap end to end: `/papers channel recap weekly` run in a channel through a signed
request to the real Bolt app, then the recap posted once at its time by the scheduler's run, with counts
and nobody's id, against the local Slack stand-in, on both backends."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from bot.config import Settings
from bot.slack.delivery.digests import Served, digest_client, serve_workspaces
from bot.state.context import Context
from bot.usecases.digest_due import due_at
from stand_ins.driving import reply_of
from tests.e2e.harness import TEAM_ID, bot_environment, query, user_ids
from tests.fakes import Clock

new_user = user_ids("UREC")
BERLIN = ZoneInfo("Europe/Berlin")  # the stand-in's timezone for everyone


def ask_in(slack, user: str, text: str, channel: str):
    """`/papers TEXT` as ``user`` in ``channel``: the reply the caller sees (the ack's or a respond's)."""
    body, key = slack.command_body(user, text, channel=channel)
    status, data, _ = slack.post(body, "application/x-www-form-urlencoded")
    assert status == 200, data
    ack = json.loads(data) if data.startswith(b"{") else None
    if ack and (ack.get("text") or ack.get("blocks")):
        return reply_of(ack, "ack")
    call = slack.standin.wait_for(lambda: slack.standin.responses(key),
                                  what=f"a reply to /papers {text!r}")[0]
    return reply_of(call.params, "respond")


def posted_in(standin, channel: str) -> list:
    return [c for c in standin.calls("chat.postMessage", channel=channel) if (c.response or {}).get("ok")]


def test_recap_weekly_is_posted_once_at_its_time_with_counts_and_no_user_ids(slack, standin, store, db_path):
    setter, channel = new_user(), "C0RECAPE2E"
    ask_in(slack, setter, "channel follow feline cats whiskers", channel)
    reply = ask_in(slack, setter, "channel recap weekly", channel)
    assert "Every Friday at 16:00 (Europe/Berlin time)" in reply.text and "never who" in reply.text
    likers = [new_user() for _ in range(3)]
    with store.transaction():
        for user in likers:
            store.set_feedback(user, "robots-1", 1)
        store.save_paper(likers[0], "robots-2")
    today = datetime.now(BERLIN).date()
    friday = today + timedelta(days=(4 - today.weekday()) % 7)
    due = due_at("Europe/Berlin", "16:00", friday)
    if due <= datetime.now(UTC):
        due = due_at("Europe/Berlin", "16:00", friday + timedelta(days=7))
    clock = Clock(due - timedelta(minutes=1))
    settings = Settings.load(environ=bot_environment(standin, db_path), dotenv=None)
    root = Context.open(str(db_path))
    try:
        served = [Served(TEAM_ID, digest_client(settings))]
        serve_workspaces(root, served, [], users=[], clock=clock)  # a minute early: nothing
        assert posted_in(standin, channel) == []
        clock.advance(timedelta(minutes=1, seconds=1))
        serve_workspaces(root, served, [], users=[], clock=clock)
        clock.advance(timedelta(seconds=30))
        serve_workspaces(root, served, [], users=[], clock=clock)  # the next tick: nothing again
    finally:
        root.close()
    (post,) = posted_in(standin, channel)
    text, blocks = post.params["text"], json.dumps(post.params["blocks"], ensure_ascii=False)
    assert "The lab's week" in text and "(3 likes)" in text and ":+1: 3 likes" in blocks
    assert "(1 save)" in text and "Unclaimed" in text and "*Why:*" in blocks
    assert "UREC" not in text + blocks  # counts, never who
    rows = query(store, "select status, message_ts from recap_posts where ws = ? and channel_id = ?",
                 [TEAM_ID, channel])
    assert [(r["status"], r["message_ts"]) for r in rows] == [("posted", post.response["ts"])]
