"""`paperbot run`: a missing or bad setting is one clear line and a non-zero exit, never a traceback."""

import logging

import pytest
from click.testing import CliRunner

from bot.cli.main import cli
from tests.e2e.harness import SLACK_ENVIRONMENT


@pytest.fixture
def clean_env(monkeypatch, tmp_path):
    for name in SLACK_ENVIRONMENT:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)  # no .env file


@pytest.mark.parametrize("env, name", [
    ({}, "SLACK_BOT_TOKEN"),
    ({"SLACK_BOT_TOKEN": "xoxb-1"}, "SLACK_SIGNING_SECRET"),
    ({"SLACK_BOT_TOKEN": "nope"}, "SLACK_BOT_TOKEN"),
    ({"SLACK_BOT_TOKEN": "xoxb-1", "SLACK_APP_TOKEN": "xoxb-not-an-app-token"}, "SLACK_APP_TOKEN"),
    ({"SLACK_BOT_TOKEN": "xoxb-1", "SLACK_SIGNING_SECRET": "s", "PORT": "http"}, "PORT"),
    ({"SLACK_BOT_TOKEN": "xoxb-1", "SLACK_SIGNING_SECRET": "s", "SLACK_API_URL": "slack.com"},
     "SLACK_API_URL"),
])
def test_missing_or_bad_settings_are_one_line(clean_env, env, name):
    result = CliRunner().invoke(cli, ["run"], obj={}, env=env)
    assert result.exit_code == 1
    assert name in result.output and "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1, result.output


def test_an_unreachable_slack_api_is_one_line_too(clean_env, tmp_path, caplog):
    env = {"SLACK_BOT_TOKEN": "xoxb-1", "SLACK_SIGNING_SECRET": "s", "SLACK_API_URL": "http://127.0.0.1:9/api/",
           "PAPERBOT_DB": str(tmp_path / "x.db")}
    with caplog.at_level(logging.WARNING):
        result = CliRunner().invoke(cli, ["run"], obj={}, env=env)
    assert result.exit_code == 1
    assert result.output.strip() == ("Error: Can't reach the Slack API at http://127.0.0.1:9/api/ "
                                     "(Connection refused): check SLACK_API_URL and the network")
    # slack_sdk's line for each attempt ("Failed to send a request to Slack API server") is not shown.
    assert [r.getMessage() for r in caplog.records] == []


def test_run_help_documents_both_modes():
    result = CliRunner().invoke(cli, ["run", "--help"], obj={})
    assert "Socket Mode" in result.output and "/slack/events" in result.output and "--port" in result.output


def test_a_refused_token_is_one_line_with_slacks_code_and_what_to_do(clean_env, tmp_path):
    from stand_ins.slack import MINTED_PREFIX, SlackStandIn

    with SlackStandIn() as slack:
        env = {"SLACK_BOT_TOKEN": f"{MINTED_PREFIX}never-minted", "SLACK_SIGNING_SECRET": "s",
               "SLACK_API_URL": slack.base_url, "PAPERBOT_DB": str(tmp_path / "x.db")}
        result = CliRunner().invoke(cli, ["run"], obj={}, env=env)
    assert result.exit_code == 1
    assert result.output.strip() == ("Error: Slack did not accept SLACK_BOT_TOKEN (invalid_auth): copy the "
                                     "Bot User OAuth Token (xoxb-…) from the app's OAuth & Permissions page")
