"""A Bolt app built by paperbot's own factory, over an offline Web API client (no network at all)."""

from __future__ import annotations

import itertools
import json
import time
from urllib.parse import urlencode

import pytest
from slack_bolt import BoltRequest
from slack_sdk.signature import SignatureVerifier

from bot.config import Settings
from bot.slack.app import create_app
from tests.fakes import FakeWebClient

SECRET = "unit-signing-secret"
_TRIGGERS = itertools.count(1)


@pytest.fixture
def slack_bot(ctx, monkeypatch):
    for name in ("SLACK_CLIENT_ID", "SLACK_CLIENT_SECRET", "SLACK_SIGNING_SECRET", "SLACK_BOT_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    settings = Settings.load(environ={"SLACK_BOT_TOKEN": "xoxb-unit", "SLACK_SIGNING_SECRET": SECRET},
                             dotenv=None)
    bot = create_app(settings, ctx, client=FakeWebClient())
    yield bot
    bot.listener_executor.shutdown(wait=True)
    bot.runtime.background.shutdown()


def signed(body: str, content_type: str) -> BoltRequest:
    ts = str(int(time.time()))
    signature = SignatureVerifier(SECRET).generate_signature(timestamp=ts, body=body)
    return BoltRequest(body=body, headers={"content-type": [content_type], "x-slack-request-timestamp": [ts],
                                           "x-slack-signature": [signature]})


def event_request(event: dict, event_id: str = "Ev1") -> BoltRequest:
    body = json.dumps({"type": "event_callback", "team_id": "T1", "api_app_id": "A1", "event": event,
                       "event_id": event_id, "event_time": int(time.time())})
    return signed(body, "application/json")


def command_request(text: str, command: str = "/papers", user: str = "U1",
                    trigger_id: str | None = None) -> BoltRequest:
    """A signed slash command; each gets a trigger id of its own, as from Slack, unless one is given."""
    body = urlencode({"team_id": "T1", "user_id": user, "channel_id": "C1", "command": command, "text": text,
                      "api_app_id": "A1", "response_url": "http://127.0.0.1:9/respond",
                      "trigger_id": trigger_id or f"t{next(_TRIGGERS)}"})
    return signed(body, "application/x-www-form-urlencoded")
