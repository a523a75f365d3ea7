"""Replays: the same signed request sent again (within Slack's 5-minute window) runs at most once.

Slack gives every slash command and click a trigger id of its own; the bot claims it in the database
before doing anything, so a captured request re-sent by someone else changes nothing."""

from __future__ import annotations

import json
import time
from urllib.parse import urlencode

from bot.slack.views.forget import FORGET_ACTION
from bot.slack.views.messages import LIKE_ACTION
from stand_ins.slack import SlackStandIn
from tests.e2e.forgetting import ticket_of
from tests.e2e.harness import FakeSlack, posts_to, user_ids

FORM = "application/x-www-form-urlencoded"
new_user = user_ids("UREPLAY", 3)


def send_twice(slack: FakeSlack, body: str) -> list[int]:
    """POST the very same signed request twice (same timestamp, same signature), as a replay does."""
    ts = int(time.time())
    return [slack.post(body, FORM, timestamp=ts)[0] for _ in range(2)]


def paper_posts(standin: SlackStandIn, user: str) -> list:
    return [c for c in posts_to(standin, "D" + user) if c.params.get("blocks")]


def test_a_replayed_recommend_sends_no_more_papers(slack, standin, running):
    user = new_user()
    slack.ask(user, "follow feline cats")
    body, key = slack.command_body(user, "recommend 2")
    assert send_twice(slack, body) == [200, 200]
    standin.wait_for(lambda: standin.responses(key), what="the recommend reply")
    running.settle()  # a second run, were there one, has posted
    assert len(paper_posts(standin, user)) == 2
    assert len(standin.responses(key)) == 1


def test_a_replayed_forget_me_press_keeps_what_was_added_since(slack, store, running):
    user = new_user()
    slack.ask(user, "follow feline cats")
    payload, key = slack.click_payload(user, FORGET_ACTION, "C0GENERAL", "1.000001")
    payload["actions"][0]["value"] = ticket_of(slack.ask(user, "forget"))
    body = urlencode({"payload": json.dumps(payload)})
    ts = int(time.time())
    assert slack.post(body, FORM, timestamp=ts)[0] == 200
    slack.standin.wait_for(lambda: slack.standin.responses(key), what="the answer to Forget me")
    assert store.get_topics(user) == []
    slack.ask(user, "follow quantum circuits")
    assert slack.post(body, FORM, timestamp=ts)[0] == 200  # the replay
    running.settle()
    assert store.get_topics(user) == ["quantum circuits"]


def test_a_replayed_click_counts_once(slack, standin, store, running):
    user = new_user()
    slack.ask(user, "follow graph neural networks")
    slack.ask(user, "recommend 1")
    post = paper_posts(standin, user)[-1]
    channel, ts = post.response["channel"], post.response["ts"]
    payload = {
        "type": "block_actions", "team": {"id": "T0STANDIN", "domain": "standin"},
        "user": {"id": user, "username": user.lower(), "team_id": "T0STANDIN"}, "api_app_id": "A0PAPERBOT",
        "token": "legacy", "trigger_id": "replayed.click.1",
        "container": {"type": "message", "message_ts": ts, "channel_id": channel, "is_ephemeral": False},
        "channel": {"id": channel, "name": "directmessage"},
        "message": {"type": "message", "ts": ts, "user": "UPAPERBOT", "text": "a paper"},
        "response_url": standin.response_url("replayed-click"),
        "actions": [{"action_id": LIKE_ACTION, "block_id": "b1", "type": "button", "value": "x",
                     "action_ts": f"{time.time():.6f}"}],
    }
    assert send_twice(slack, urlencode({"payload": json.dumps(payload)})) == [200, 200]
    standin.wait_for(lambda: standin.responses("replayed-click"), what="the click's answer")
    running.settle()
    assert len(standin.responses("replayed-click")) == 1
    assert [f.value for f in store.get_feedback(user)] == [1]
