"""The install in a real browser: headless Chromium opens ``/slack/install``, clicks *Add to Slack*, the
stand-in's authorize page sends it back to ``/slack/oauth_redirect`` with the state cookie Bolt set, and
the installation is stored and the installer welcomed.

On SQLite only: what is under test is the page, the link and the cookie in a browser; the stores are
tested on both backends in test_oauth.py. Skips (one line) where Chromium is not installed;
PAPERBOT_REQUIRE_BROWSER=1 (CI) makes that a failure.
"""

from __future__ import annotations

from bot.slack.manifest import INSTALL_PATH, REDIRECT_PATH
from tests.e2e.browser import Chromium, chromium_path  # noqa: F401 (the fixture)
from tests.e2e.test_oauth import running, welcomes  # noqa: F401 (the OAuth bot fixture)

BACKEND = "sqlite"



def test_a_browser_installs_through_the_add_to_slack_page(chromium_path, running, standin, store,  # noqa: F811
                                                          tmp_path):
    workspace = standin.add_workspace("T0BROWSR", installer="UBROWSER")
    root = f"http://127.0.0.1:{running.server.port}"
    with Chromium(chromium_path, tmp_path / "profile") as browser:
        browser.open(f"{root}{INSTALL_PATH}?team={workspace.key}")
        assert browser.evaluate("document.getElementById('add-to-slack').textContent") == "Add to Slack"
        browser.evaluate("document.getElementById('add-to-slack').click()")
        browser.wait_for(lambda: (browser.evaluate("location.href") or "").startswith(root + REDIRECT_PATH)
                         and browser.evaluate("document.readyState") == "complete", "the redirect back")
        page_text = browser.evaluate("document.body.innerText")
    assert store.find_installation(workspace.key) is not None, page_text
    assert len(welcomes(standin, workspace)) == 1
    assert [c.params.get("team") for c in standin.calls("oauth.authorize")][-1] == workspace.key
