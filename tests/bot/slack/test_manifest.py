"""The manifests in deploy/ ask for exactly what the code registers and calls."""

import json
import re
from pathlib import Path

import pytest

from bot.slack import manifest
from tests.bot.slack.conftest import command_request, event_request

ROOT = Path(__file__).resolve().parents[3]
SLACK_CODE = ROOT / "bot" / "slack"


@pytest.mark.parametrize("mode", ["socket", "http"])
def test_deploy_manifests_are_the_generated_ones(mode):
    path = ROOT / "deploy" / manifest.MANIFEST_FILES[mode]
    on_disk = json.loads(path.read_text())
    assert on_disk == manifest.manifest(mode), f"run: python -m bot.slack.manifest deploy ({path.name})"
    assert [c["command"] for c in on_disk["features"]["slash_commands"]] == [manifest.COMMAND]
    assert on_disk["settings"]["event_subscriptions"]["bot_events"] == list(manifest.BOT_EVENTS)
    assert on_disk["oauth_config"]["scopes"]["bot"] == list(manifest.SCOPES)
    assert on_disk["settings"]["socket_mode_enabled"] is (mode == "socket")
    assert on_disk["settings"]["interactivity"]["is_enabled"] is True
    if mode == "http":
        urls = {on_disk["settings"]["event_subscriptions"]["request_url"],
                on_disk["settings"]["interactivity"]["request_url"],
                on_disk["features"]["slash_commands"][0]["url"]}
        assert len(urls) == 1 and urls.pop().endswith(manifest.EVENTS_PATH)


def test_the_distribution_manifest_is_the_generated_one_and_matches_the_oauth_code():
    from bot.slack.oauth.flow import oauth_setup

    path = ROOT / "deploy" / manifest.MANIFEST_FILES["oauth"]
    on_disk = json.loads(path.read_text())
    assert on_disk == manifest.manifest("oauth"), f"run: python -m bot.slack.manifest deploy ({path.name})"
    settings = on_disk["settings"]
    assert settings["socket_mode_enabled"] is False and settings["org_deploy_enabled"] is True
    events = settings["event_subscriptions"]["bot_events"]
    assert events == list(manifest.BOT_EVENTS + manifest.UNINSTALL_EVENTS)
    redirects = on_disk["oauth_config"]["redirect_urls"]
    assert len(redirects) == 1 and redirects[0].endswith(manifest.REDIRECT_PATH)
    assert redirects[0][: -len(manifest.REDIRECT_PATH)] == settings["event_subscriptions"]["request_url"][
        : -len(manifest.EVENTS_PATH)]  # one host serves the events and the redirect
    # The scopes asked for at install are the manifest's, and Bolt serves the manifest's redirect path.
    from bot.config import Settings

    env = {"SLACK_CLIENT_ID": "1.2", "SLACK_CLIENT_SECRET": "0123456789abcdef", "SLACK_SIGNING_SECRET": "s",
           "PAPERBOT_SECRET_KEY": "k" * 32}
    flow = oauth_setup(Settings.load(env, dotenv=None), store=None, client=None).flow
    assert flow.settings.scopes == on_disk["oauth_config"]["scopes"]["bot"]
    assert (flow.install_path, flow.redirect_uri_path) == (manifest.INSTALL_PATH, manifest.REDIRECT_PATH)


def test_scopes_are_exactly_what_the_methods_and_features_need():
    # `commands`: the slash command; EVENT_SCOPES: what events need beyond the methods (link_shared).
    needed = {s for s in manifest.METHOD_SCOPES.values() if s} | {"commands"} | set(manifest.EVENT_SCOPES)
    assert set(manifest.SCOPES) == needed
    assert "reactions:read" in needed  # also what reaction_added / reaction_removed require
    assert {"links:read", "links:write", "im:history"} <= needed  # link_shared, chat.unfurl, message.im


def test_unfurls_and_the_shortcut_are_in_every_manifest_and_registered():
    from bot.slack import gate

    for mode in manifest.MANIFEST_FILES:
        features = manifest.manifest(mode)["features"]
        assert features["unfurl_domains"] == ["arxiv.org", "doi.org", "openreview.net", "biorxiv.org",
                                              "medrxiv.org"]
        assert [s["callback_id"] for s in features["shortcuts"]] == [
            manifest.SAVE_SHORTCUT, manifest.WHO_SHORTCUT] == ["save_paper", "who_should_read"]
        assert all(s["type"] == "message" and len(s["name"]) <= 24 and len(s["description"]) <= 80
                   for s in features["shortcuts"])
    assert "message" in manifest.EVENT_TYPES and "message.im" not in manifest.EVENT_TYPES
    assert "message_action" in gate.INTERACTIONS and "message_action" not in gate.IGNORED_INTERACTIONS
    shortcuts = (SLACK_CODE / "listeners" / "shortcuts.py").read_text()
    assert "@app.shortcut(SAVE_SHORTCUT)" in shortcuts
    assert "@app.shortcut(WHO_SHORTCUT)" in (SLACK_CODE / "listeners" / "who.py").read_text()


def test_every_web_api_method_the_code_calls_is_listed_with_its_scope():
    called = set()
    for path in SLACK_CODE.rglob("*.py"):
        for name in re.findall(r"client\.([a-z]+_[A-Za-z]+)\(", path.read_text()):
            called.add(name.replace("_", ".", 1))
    assert called, "no Web API calls found"
    assert called <= set(manifest.METHOD_SCOPES), called - set(manifest.METHOD_SCOPES)


def test_the_app_handles_every_subscribed_event_and_the_command(slack_bot):
    app = slack_bot.app
    samples = {
        "app_home_opened": {"type": "app_home_opened", "user": "U1", "tab": "messages"},
        "reaction_added": {"type": "reaction_added", "user": "U1", "reaction": "eyes",
                           "item": {"type": "message", "channel": "D1", "ts": "1.1"}},
        "reaction_removed": {"type": "reaction_removed", "user": "U1", "reaction": "eyes",
                             "item": {"type": "message", "channel": "D1", "ts": "1.1"}},
        "user_change": {"type": "user_change", "user": {"id": "U1", "tz": "Asia/Tokyo"}},
        "link_shared": {"type": "link_shared", "user": "U1", "channel": "C1", "message_ts": "1.1",
                        "links": [{"domain": "example.org", "url": "https://example.org/x"}]},
        "message.im": {"type": "message", "channel_type": "im", "user": "U1", "channel": "D1",
                       "text": "", "ts": "1.2"},
        # In a channel, not the DM: handled (and left alone).
        "file_shared": {"type": "file_shared", "channel_id": "C1", "file_id": "F1", "user_id": "U1",
                        "file": {"id": "F1"}, "event_ts": "1.3"},
    }
    assert set(samples) == set(manifest.BOT_EVENTS)
    for i, (name, event) in enumerate(samples.items()):
        assert app.dispatch(event_request(event, f"Ev{i}")).status == 200, name
    # Not subscribed, so not handled (Bolt answers 404 for a request no listener takes).
    assert app.dispatch(event_request({"type": "member_joined_channel", "user": "U1"}, "EvX")).status == 404
    assert app.dispatch(command_request("help")).status == 200
    assert app.dispatch(command_request("help", command="/other")).status == 404
