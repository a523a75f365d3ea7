"""OAuth mode's settings and start: each problem one line naming its setting, never a traceback."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from bot.cli.main import cli
from bot.config import Settings
from bot.slack.gate import judge
from bot.slack.oauth.flow import authorization_url
from bot.slack.oauth.installations import PaperbotInstallationStore
from bot.slack.oauth.token_crypto import TokenBox
from storage import open_store
from tests.bot.slack.test_gate import NOW, SECRET, event, headers
from tests.e2e.harness import SLACK_ENVIRONMENT

OAUTH = {"SLACK_CLIENT_ID": "1111111111.2222222222",
         "SLACK_CLIENT_SECRET": "0123456789abcdef0123456789abcdef",
         "SLACK_SIGNING_SECRET": "s", "PAPERBOT_SECRET_KEY": "k" * 40,
         "SLACK_API_URL": "http://127.0.0.1:9/api/"}


@pytest.fixture
def clean_env(monkeypatch, tmp_path):
    for name in SLACK_ENVIRONMENT:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)  # no .env file


def run(env: dict[str, str]):
    result = CliRunner().invoke(cli, ["run"], obj={}, env=env)
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1, result.output
    return result.output


@pytest.mark.parametrize("missing", ["SLACK_CLIENT_ID", "SLACK_CLIENT_SECRET", "SLACK_SIGNING_SECRET",
                                     "PAPERBOT_SECRET_KEY"])
def test_run_names_a_missing_oauth_setting(clean_env, missing):
    assert missing in run({k: v for k, v in OAUTH.items() if k != missing})


@pytest.mark.parametrize("name, value", [("SLACK_CLIENT_ID", "client"), ("SLACK_CLIENT_SECRET", "a b"),
                                         ("PAPERBOT_SECRET_KEY", "too-short")])
def test_run_names_a_malformed_oauth_setting(clean_env, name, value):
    assert name in run({**OAUTH, name: value})


def test_run_refuses_socket_mode_with_oauth(clean_env):
    output = run({**OAUTH, "SLACK_APP_TOKEN": "xapp-1"})
    assert "SLACK_APP_TOKEN" in output and "OAuth" in output


def test_run_with_a_wrong_secret_key_is_one_line(clean_env, tmp_path):
    from slack_sdk.oauth.installation_store import Installation

    db = str(tmp_path / "p.db")
    store = open_store(db)
    try:
        PaperbotInstallationStore(store, TokenBox("another-key-" + "x" * 30)).save(
            Installation(team_id="T1", bot_token="xoxb-1", user_id="U1"))
    finally:
        store.close()
    said = run({**OAUTH, "PAPERBOT_DB": db})
    assert "no stored Slack installation opens" in said and "PAPERBOT_OLD_SECRET_KEYS" in said


def test_the_authorize_page_is_beside_the_web_api():
    assert authorization_url("https://slack.com/api/") == "https://slack.com/oauth/v2/authorize"
    assert authorization_url("http://127.0.0.1:8123/api") == "http://127.0.0.1:8123/oauth/v2/authorize"
    assert authorization_url("https://proxy.example/slack/") == "https://proxy.example/slack/oauth/v2/authorize"


def test_a_bot_token_keeps_the_one_workspace_mode_even_with_client_settings_in_the_environment(
        clean_env, monkeypatch, ctx):
    # Bolt turns OAuth on by itself when these two are in the environment.
    from bot.slack.app import create_app
    from tests.fakes import FakeWebClient

    monkeypatch.setenv("SLACK_CLIENT_ID", OAUTH["SLACK_CLIENT_ID"])
    monkeypatch.setenv("SLACK_CLIENT_SECRET", OAUTH["SLACK_CLIENT_SECRET"])
    settings = Settings.load(environ={**OAUTH, "SLACK_BOT_TOKEN": "xoxb-unit"}, dotenv=None)
    bot = create_app(settings, ctx, client=FakeWebClient())
    try:
        assert bot.app.oauth_flow is None and bot.installations is None
    finally:
        bot.listener_executor.shutdown(wait=True)
        bot.runtime.background.shutdown()


def uninstall_verdict(event_body: dict):
    body = event(event_body)
    return judge(headers(body), body.encode(), SECRET, now=NOW)


def test_the_gate_admits_the_uninstall_events():
    assert uninstall_verdict({"type": "app_uninstalled"}).admitted
    revoked = {"type": "tokens_revoked", "tokens": {"oauth": ["U1"], "bot": ["UBOT"]}}
    assert uninstall_verdict(revoked).admitted


@pytest.mark.parametrize("tokens", [None, "all", {"bot": "UBOT"}, {"oauth": [1]}])
def test_the_gate_refuses_a_malformed_tokens_revoked(tokens):
    verdict = uninstall_verdict({"type": "tokens_revoked", "tokens": tokens})
    assert verdict.status == 400 and "tokens" in verdict.reason, json.dumps(tokens)
