"""Requests for another workspace than the token's are refused by a Bolt middleware (HTTP and Socket Mode)."""

from __future__ import annotations

import json
import time
from datetime import timedelta
from urllib.parse import urlencode

from bot.slack.workspace import NOT_INSTALLED, Workspace
from tests.bot.slack.conftest import signed
from tests.fakes import FakeWebClient


def foreign_command(text: str, team: str = "TOTHER", user: str = "U1"):
    body = urlencode({"team_id": team, "user_id": user, "channel_id": "C1", "command": "/papers",
                      "text": text, "api_app_id": "A1", "response_url": "http://127.0.0.1:9/respond",
                      "trigger_id": "t"})
    return signed(body, "application/x-www-form-urlencoded")


def foreign_event(event: dict, event_id: str, team: str = "TOTHER"):
    body = json.dumps({"type": "event_callback", "team_id": team, "api_app_id": "A1", "event": event,
                       "event_id": event_id, "event_time": int(time.time()),
                       "authorizations": [{"team_id": team, "user_id": "UBOT", "is_bot": True}]})
    return signed(body, "application/json")


def test_the_workspace_comes_from_auth_test():
    assert Workspace.of(FakeWebClient()) == Workspace("T1")


def test_a_workspace_admits_its_own_team_and_an_org_install_its_own_org():
    assert Workspace("T1").admits("T1", None) and Workspace("T1", "E1").admits("T1", "E1")
    assert not Workspace("T1").admits("T2", None) and not Workspace("T1").admits(None, None)
    assert not Workspace(None).admits(None, None)
    org = Workspace("E1", "E1", org_install=True)
    assert org.admits("T7", "E1") and not org.admits("T7", "E2") and not org.admits("T7", None)


def test_a_foreign_slash_command_is_told_and_writes_nothing(slack_bot):
    response = slack_bot.app.dispatch(foreign_command("follow cats"))
    assert response.status == 200
    assert json.loads(response.body) == {"response_type": "ephemeral", "text": NOT_INSTALLED}
    slack_bot.runtime.background.shutdown()
    assert slack_bot.ctx.store.get_person("U1") is None
    assert slack_bot.ctx.store.db["topics"].count == 0


def test_a_foreign_event_is_an_empty_200_and_not_even_its_id_is_stored(slack_bot):
    store = slack_bot.ctx.store
    with store.transaction():
        store.ensure_person("U1")
        store.add_topics("U1", ["cats"])
        store.record_timezone("U1", "Europe/Berlin")
    change = {"type": "user_change", "user": {"id": "U1", "tz": "Asia/Tokyo"}}
    response = slack_bot.app.dispatch(foreign_event(change, "EvFOREIGN"))
    assert response.status == 200 and response.body == ""
    slack_bot.runtime.background.shutdown()
    assert store.get_person("U1").tz == "Europe/Berlin"
    assert store.db["once_keys"].count == 0
    assert store.claim_once("event:EvFOREIGN", timedelta(minutes=1))  # never claimed by the refused request


def test_the_installed_workspace_is_served(slack_bot):
    response = slack_bot.app.dispatch(foreign_command("help", team="T1"))
    assert response.status == 200 and "/papers follow" in json.loads(response.body)["text"]
