"""End to end: installing paperbot into several workspaces through Bolt's OAuth flow, on both backends.

The real HTTP server (as `paperbot run` serves it) in OAuth mode, the Slack stand-in as Slack (its
authorize page, ``oauth.v2.access``, per-token ``auth.test``), and a small cookie-keeping client as the
installer's browser: ``GET /slack/install`` → its *Add to Slack* link → the stand-in's authorize page →
its redirect to ``/slack/oauth_redirect`` with the state cookie Bolt set.
"""

from __future__ import annotations

import json
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest

from bot.slack.oauth.flow import WELCOME
from bot.slack.workspace import NOT_INSTALLED
from stand_ins.slack import AUTHORIZE, SlackStandIn, Workspace
from tests.e2e.harness import (
    query,
    table_columns,
    user_ids,
)
from tests.e2e.oauth_flow import (
    CLIENT_ID,
    CLIENT_SECRET,
    STATE_COOKIE,
    Browser,
    command,
    install,
    oauth_bot,
)

new_user = user_ids("UOA")


@pytest.fixture(scope="module")
def running(standin, db_path):
    with oauth_bot(standin, db_path) as bot:
        yield bot


def installation_count(store) -> int:
    return query(store, "select count(*) as n from installations")[0]["n"]


def welcomes(standin: SlackStandIn, workspace: Workspace) -> list:
    return [c for c in standin.calls("chat.postMessage") if c.token == workspace.token
            and c.params.get("channel") == "D" + workspace.installer and c.params.get("text") == WELCOME]


def told_not_installed(ack, standin: SlackStandIn, key: str) -> bool:
    """Whether the caller heard that paperbot isn't installed (Bolt says it through the response_url)."""
    told = json.dumps(ack) + "".join(c.params.get("text", "") for c in standin.responses(key))
    return NOT_INSTALLED in told


def follow_and_check_token(slack, standin, workspace: Workspace, team_id: str | None = None,
                           **kwargs) -> None:
    """`/papers follow` from the workspace is answered, and its Slack calls carry that workspace's token."""
    user = new_user()
    team_id = team_id or workspace.team_id
    status, _, key = command(slack, user, "follow graph neural networks", team_id, **kwargs)
    assert status == 200
    reply = standin.wait_for(lambda: standin.responses(key), what="the reply to /papers follow")[0]
    assert "graph neural networks" in reply.params["text"], reply.params
    lookups = standin.calls("users.info", user=user)
    assert lookups and {c.token for c in lookups} == {workspace.token}


@pytest.fixture(scope="module")
def two_workspaces(running, standin):
    """Two workspaces installed through the real flow."""
    first, second = standin.add_workspace("T0AAAA1", installer="UADMINA"), \
        standin.add_workspace("T0BBBB2", installer="UADMINB")
    done = [install(running, first), install(running, second)]
    return first, second, done


# -- tests ------------------------------------------------------------------------------------------

def test_two_workspaces_install_through_the_real_flow_and_each_is_welcomed(two_workspaces, standin, store):
    first, second, done = two_workspaces
    for workspace, result in zip((first, second), done, strict=True):
        assert STATE_COOKIE in result.install_page.headers.get("set-cookie", "")
        assert result.finished.status == 200, result.finished
        assert store.find_installation(workspace.key) is not None
        assert len(welcomes(standin, workspace)) == 1  # with this workspace's own token, to its installer
    assert len(standin.calls("oauth.v2.access")) >= 2
    authorize = standin.calls(AUTHORIZE)[0].params
    assert authorize["client_id"] == CLIENT_ID and "chat:write" in authorize["scope"]


def test_each_workspace_is_served_with_its_own_token(two_workspaces, slack, standin):
    first, second, _ = two_workspaces
    follow_and_check_token(slack, standin, first)
    follow_and_check_token(slack, standin, second)


def test_no_token_is_stored_in_plain_text(two_workspaces, store):
    first, second, _ = two_workspaces
    secrets = [first.token, second.token, CLIENT_SECRET, "xoxb-"]
    tables = table_columns(store)
    assert "installations" in tables
    for table, columns in tables.items():
        for row in query(store, f"select * from {table}"):
            for column in columns:
                text = str(row[column])
                assert not any(s in text for s in secrets), (table, column)


def test_a_second_install_of_a_workspace_sends_no_second_welcome(two_workspaces, running, standin):
    first, _, _ = two_workspaces
    assert install(running, first).finished.status == 200
    assert len(welcomes(standin, first)) == 1


def test_a_bad_state_installs_nothing(running, standin, store):
    stranger = standin.add_workspace("T0BADST", installer="UBADST")
    before, exchanges = installation_count(store), len(standin.calls("oauth.v2.access"))
    browser = Browser()
    forged = browser.get(f"{standin.root}/oauth/v2/authorize?" + urlencode(
        {"client_id": CLIENT_ID, "state": "forged-state", "team": stranger.key}))
    assert forged.status == 302
    # With a cookie naming the same forged state (so only the store can tell), and with none at all.
    with_cookie = browser.get(forged.headers["location"], cookies={STATE_COOKIE: "forged-state"})
    without = Browser().get(forged.headers["location"])
    assert with_cookie.status >= 400 and without.status >= 400
    assert store.find_installation(stranger.key) is None
    assert installation_count(store) == before
    assert len(standin.calls("oauth.v2.access")) == exchanges  # the code was never even tried
    assert not welcomes(standin, stranger)


def test_a_replayed_state_installs_nothing(running, standin, store):
    replayer = standin.add_workspace("T0REPLAY", installer="UREPLAY")
    browser = Browser()
    first = install(running, replayer, browser)
    assert first.finished.status == 200
    state = parse_qs(urlsplit(first.authorize.headers["location"]).query)["state"][0]
    store.delete_installations(replayer.key)  # so that a second install would show
    exchanges = len(standin.calls("oauth.v2.access"))
    # A fresh, valid code, sent back with the state (and cookie) already used.
    again = browser.get(f"{standin.root}/oauth/v2/authorize?" + urlencode(
        {"client_id": CLIENT_ID, "state": state, "team": replayer.key}))
    replayed = browser.get(again.headers["location"], cookies={STATE_COOKIE: state})
    assert replayed.status >= 400
    assert store.find_installation(replayer.key) is None
    assert len(standin.calls("oauth.v2.access")) == exchanges


def test_an_org_wide_install_serves_every_workspace_of_the_org(running, slack, standin, store):
    org = standin.add_workspace(None, enterprise_id="E0ORG1", org=True, installer="UORGADMIN")
    assert install(running, org).finished.status == 200
    assert store.find_installation("E0ORG1") is not None
    assert len(welcomes(standin, org)) == 1
    # A request from a workspace of the org, flagged as the org-wide install it is, and one without
    # the flag: both are served with the org's token.
    follow_and_check_token(slack, standin, org, team_id="T0ORGWS1", enterprise_id="E0ORG1", org=True)
    follow_and_check_token(slack, standin, org, team_id="T0ORGWS2", enterprise_id="E0ORG1")


def test_a_workspace_never_installed_is_told_so(running, slack, standin):
    status, ack, key = command(slack, new_user(), "follow cats", "T0NEVER")
    assert status == 200 and told_not_installed(ack, standin, key)


def test_uninstalling_deletes_the_workspace_and_the_others_keep_working(two_workspaces, running, slack,
                                                                       standin, store):
    first, _, _ = two_workspaces
    leaving = standin.add_workspace("T0LEAVE", installer="ULEAVE")
    assert install(running, leaving).finished.status == 200
    for ws in (first.key, leaving.key):  # a row of each workspace's own
        scoped = store.for_workspace(ws)
        with scoped.transaction():
            scoped.ensure_person("UKEPT")
            scoped.add_topics("UKEPT", ["volcanoes"])
    standin.revoke(leaving.token)  # Slack revokes the token, then tells the app
    status, _, _ = slack.event({"type": "app_uninstalled"}, team_id=leaving.team_id)
    assert status == 200
    standin.wait_for(lambda: store.find_installation(leaving.key) is None, what="the installation deleted")
    standin.wait_for(lambda: not store.for_workspace(leaving.key).get_topics("UKEPT"),
                     what="the workspace's rows deleted")
    assert store.for_workspace(first.key).get_topics("UKEPT") == ["volcanoes"]
    assert store.find_installation(first.key) is not None
    status, ack, key = command(slack, new_user(), "follow cats", leaving.team_id)
    assert status == 200 and told_not_installed(ack, standin, key)
    follow_and_check_token(slack, standin, first)


def test_a_revoked_bot_token_deletes_the_workspace(running, slack, standin, store):
    revoked = standin.add_workspace("T0REVOKE", installer="UREVOKE")
    assert install(running, revoked).finished.status == 200
    standin.revoke(revoked.token)
    event = {"type": "tokens_revoked", "tokens": {"oauth": [], "bot": ["UPAPERBOT"]}}
    assert slack.event(event, team_id=revoked.team_id)[0] == 200
    standin.wait_for(lambda: store.find_installation(revoked.key) is None, what="the installation deleted")


def test_a_revoked_user_token_deletes_only_that_persons_installation(running, slack, standin, store):
    from slack_sdk.oauth.installation_store import Installation

    team = standin.add_workspace("T0USERTK", installer="UOWNER")
    assert install(running, team).finished.status == 200
    # Someone else of the workspace installed too, granting a user token.
    running.bot.installations.save(Installation(team_id=team.team_id, user_id="UGRANTED",
                                                bot_token=team.token, user_token="xoxp-granted-user-token"))
    assert store.find_installation(team.key, "UGRANTED") is not None
    event = {"type": "tokens_revoked", "tokens": {"oauth": ["UGRANTED"], "bot": []}}
    assert slack.event(event, team_id=team.team_id)[0] == 200
    standin.wait_for(lambda: store.find_installation(team.key, "UGRANTED") is None, what="that row deleted")
    assert store.find_installation(team.key, "UOWNER") is not None
    follow_and_check_token(slack, standin, team)  # the workspace is still served


def test_slack_failing_the_code_exchange_installs_nothing_and_logs_no_traceback(running, standin, store):
    from tests.e2e.harness import LogCapture

    unlucky = standin.add_workspace("T0SLACKDOWN", installer="UUNLUCKY")
    standin.fail("oauth.v2.access", status=500, times=10)
    try:
        with LogCapture() as logs:
            result = install(running, unlucky)
    finally:
        standin.reset()
    assert 400 <= result.finished.status < 500
    assert store.find_installation(unlucky.key) is None and not welcomes(standin, unlucky)
    assert "Traceback" not in logs.text and "invalid_code" in logs.text


def test_the_installer_forgotten_is_named_nowhere_and_the_workspace_still_served(running, slack, standin,
                                                                                   store):
    from bot.slack.oauth.token_crypto import TokenBox
    from bot.slack.views.forget import FORGET_ACTION, FORGOTTEN
    from stand_ins.driving import reply_of
    from tests.e2e.forgetting import pressed, ticket_of
    from tests.e2e.oauth_flow import SECRET_KEY

    team = standin.add_workspace("T0FORGET", installer="UFORGOT")
    assert install(running, team).finished.status == 200
    status, ack, key = command(slack, team.installer, "forget", team.team_id)
    assert status == 200
    question = ack if isinstance(ack, dict) and ack.get("blocks") else standin.wait_for(
        lambda: standin.responses(key), what="forget's question")[0].params
    payload, pressed_key = slack.click_payload(team.installer, FORGET_ACTION, "C0GENERAL", "1.000001",
                                               team_id=team.team_id)
    payload["container"]["is_ephemeral"] = True
    payload.pop("message")
    payload["actions"][0].update(value=ticket_of(reply_of(question, "ack")), block_id="forget_actions")
    assert slack.interaction(payload)[0] == 200
    assert pressed(slack, pressed_key).text == FORGOTTEN
    sealed = store.find_installation(team.key)
    assert query(store, "select installer_id from installations where ws = ?", [team.key]) == [
        {"installer_id": ""}]
    assert team.installer not in TokenBox(SECRET_KEY).open(sealed)  # nor inside the sealed data
    follow_and_check_token(slack, standin, team)  # the workspace is still served
