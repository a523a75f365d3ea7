"""Installing paperbot through Bolt's OAuth flow as an installer's browser does, and signed requests
from an installed workspace: what the OAuth and many-workspace end-to-end files share.

``GET /slack/install`` → its *Add to Slack* link → the stand-in's authorize page → its redirect to
``/slack/oauth_redirect`` with the state cookie Bolt set.
"""

from __future__ import annotations

import contextlib
import html
import http.client
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from http.cookies import SimpleCookie
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest

from bot.slack.manifest import INSTALL_PATH, REDIRECT_PATH
from stand_ins.slack import SlackStandIn, Workspace
from tests.e2e.harness import SIGNING_SECRET, SLACK_ENVIRONMENT, FakeSlack, RunningBot

CLIENT_ID = "1111111111.2222222222"
CLIENT_SECRET = "0123456789abcdef0123456789abcdef"
SECRET_KEY = "e2e-secret-key-of-forty-characters-long!"
STATE_COOKIE = "slack-app-oauth-state"


def oauth_environment(standin: SlackStandIn, db_path) -> dict[str, str]:
    """`paperbot run`'s environment for many workspaces: OAuth settings, no SLACK_BOT_TOKEN."""
    return {"SLACK_CLIENT_ID": CLIENT_ID, "SLACK_CLIENT_SECRET": CLIENT_SECRET,
            "SLACK_SIGNING_SECRET": SIGNING_SECRET, "PAPERBOT_SECRET_KEY": SECRET_KEY,
            "SLACK_API_URL": standin.base_url, "PAPERBOT_DB": str(db_path), "PAPERBOT_DIGEST_SIZE": "3"}


@contextlib.contextmanager
def oauth_bot(standin: SlackStandIn, db_path, digest_interval: float | None = None,
              settings: dict[str, str] | None = None) -> Iterator[RunningBot]:
    """The bot in OAuth mode (with ``digest_interval``, its digest scheduler too; ``settings`` over its
    environment's); the stand-in knows its credentials and redirect URL, as Slack would. The developer's
    Slack variables are cleared meanwhile."""
    with pytest.MonkeyPatch.context() as mp:
        for name in SLACK_ENVIRONMENT:
            mp.delenv(name, raising=False)
        bot = RunningBot({**oauth_environment(standin, db_path), **(settings or {})},
                         digest_interval=digest_interval)
        standin.client_id, standin.client_secret = CLIENT_ID, CLIENT_SECRET
        standin.redirect_url = f"http://127.0.0.1:{bot.server.port}{REDIRECT_PATH}"
        try:
            yield bot
        finally:
            bot.stop()


@dataclass
class Page:
    status: int
    headers: dict[str, str]
    body: str


class Browser:
    """A browser enough for the install: GETs without following redirects, keeping cookies per host."""

    def __init__(self) -> None:
        self.cookies: dict[str, dict[str, str]] = {}

    def get(self, url: str, cookies: dict[str, str] | None = None) -> Page:
        parts = urlsplit(url)
        jar = self.cookies.setdefault(parts.netloc, {})
        sent = {**jar, **(cookies or {})}
        conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
        try:
            headers = {"Cookie": "; ".join(f"{k}={v}" for k, v in sent.items())} if sent else {}
            conn.request("GET", parts.path + (f"?{parts.query}" if parts.query else ""), headers=headers)
            response = conn.getresponse()
            body = response.read().decode("utf-8", "replace")
            for header in response.headers.get_all("Set-Cookie") or []:
                for name, morsel in SimpleCookie(header).items():
                    jar[name] = morsel.value
            return Page(response.status, {k.lower(): v for k, v in response.getheaders()}, body)
        finally:
            conn.close()


def add_to_slack_link(page: Page) -> str:
    match = re.search(r'<a id="add-to-slack" href="([^"]+)"', page.body)
    assert match, page.body
    return html.unescape(match[1])


@dataclass
class Install:
    install_page: Page
    authorize: Page
    finished: Page


def install(running, workspace: Workspace, browser: Browser | None = None) -> Install:
    """Go through the whole install as the workspace's installer does."""
    browser = browser or Browser()
    root = f"http://127.0.0.1:{running.server.port}"
    page = browser.get(f"{root}{INSTALL_PATH}?team={workspace.key}")
    assert page.status == 200, page
    authorize = browser.get(add_to_slack_link(page))
    assert authorize.status == 302, authorize
    finished = browser.get(authorize.headers["location"])
    return Install(page, authorize, finished)


def command(slack: FakeSlack, user: str, text: str, team_id: str, enterprise_id: str | None = None,
            org: bool = False):
    """A signed `/papers TEXT` from a workspace (of an org), as Slack sends it; returns status, ack, key."""
    body, key = slack.command_body(user, text, team_id=team_id)
    fields = {k: v[0] for k, v in parse_qs(body, keep_blank_values=True).items()}
    if enterprise_id:
        fields.update({"enterprise_id": enterprise_id, "enterprise_name": "Org"})
    fields["is_enterprise_install"] = "true" if org else "false"
    status, data, _ = slack.post(urlencode(fields), "application/x-www-form-urlencoded")
    return status, (json.loads(data) if data.startswith(b"{") else data.decode()), key
