"""`/papers forget` end to end: the reply with its Forget me button, and pressing it as Slack would."""

from __future__ import annotations

from bot.slack.views.forget import FORGET_ACTION
from stand_ins.driving import FakeSlack, Reply, reply_of

GENERAL = "C0GENERAL"


def ticket_of(reply: Reply) -> str:
    """The value of the Forget me button on `forget`'s reply."""
    return next(e["value"] for b in reply.blocks if b.get("type") == "actions" for e in b["elements"]
                if e.get("action_id") == FORGET_ACTION)


def press(slack: FakeSlack, user: str, value: str, action_id: str = FORGET_ACTION,
          channel: str = GENERAL) -> str:
    """Press a button of `forget`'s (ephemeral) reply as ``user``; returns the click's response_url key."""
    payload, key = slack.click_payload(user, action_id, channel, "1.000001")
    payload["container"]["is_ephemeral"] = True
    payload.pop("message")  # Slack sends no message with a click on an ephemeral one
    payload["actions"][0].update(value=value, block_id="forget_actions")
    status = slack.interaction(payload)[0]
    assert status == 200, status
    return key


def pressed(slack: FakeSlack, key: str, timeout: float = 30.0) -> Reply:
    """What the press answered through its response_url."""
    calls = slack.standin.wait_for(lambda: slack.standin.responses(key), timeout, "the answer to a press")
    return reply_of(calls[0].params, "respond")


def forget_me(slack: FakeSlack, user: str, timeout: float = 30.0) -> str:
    """`/papers forget`, then Forget me: the one line that replaces the question."""
    question = slack.ask(user, "forget", timeout=timeout)
    return pressed(slack, press(slack, user, ticket_of(question)), timeout).text
