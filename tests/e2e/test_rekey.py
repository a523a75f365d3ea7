"""End to end: PAPERBOT_SECRET_KEY changed (issue 18), on both backends. Two workspaces, one installed through
the real flow under the key that is now an old one, one saved under a key since lost; `paperbot run`
with the new key re-seals the first at start and serves it, names the second in its log, and tells the
second's people why nothing works there."""

from __future__ import annotations

import json

from slack_sdk.oauth.installation_store import Installation

from bot.slack.oauth.installations import PaperbotInstallationStore, WorkspaceUnreadable
from bot.slack.oauth.token_crypto import TokenBox
from tests.e2e.harness import FakeSlack, LogCapture, opened
from tests.e2e.oauth_flow import SECRET_KEY, command, install, oauth_bot
from tests.e2e.test_oauth import follow_and_check_token

NEW_KEY, LOST_KEY = "e2e-the-new-secret-key-of-forty-chars!!!", "e2e-a-key-nobody-kept-of-forty-chars!!!!"


def test_a_new_key_serves_the_workspace_an_old_key_sealed_and_names_the_one_no_key_opens(
        standin, db_path):
    kept, lost = standin.add_workspace("T0KEPT01", installer="UADMINK"), \
        standin.add_workspace("T0LOST01", installer="UADMINL")
    with oauth_bot(standin, db_path) as bot:  # PAPERBOT_SECRET_KEY=SECRET_KEY
        install(bot, kept)
    with opened(db_path) as store:  # saved by a paperbot whose key was lost since
        PaperbotInstallationStore(store, TokenBox(LOST_KEY)).save(Installation(
            app_id="A0PAPERBOT", team_id=lost.team_id, bot_token=lost.token, bot_id="B0LOST",
            bot_user_id="U0BOT", user_id=lost.installer))
    rotated = {"PAPERBOT_SECRET_KEY": NEW_KEY, "PAPERBOT_OLD_SECRET_KEYS": SECRET_KEY}
    with LogCapture() as log, oauth_bot(standin, db_path, settings=rotated) as bot:
        said = [line for line in log.lines if "T0LOST01" in line]
        assert len(said) == 1 and "not served" in said[0] and "PAPERBOT_OLD_SECRET_KEYS" in said[0], said
        assert "T0KEPT01" not in log.text and "Traceback" not in log.text
        with opened(db_path) as store:  # re-sealed at start: the new key alone opens it now
            assert PaperbotInstallationStore(store, TokenBox(NEW_KEY)).bot_token("T0KEPT01") == kept.token
        slack = FakeSlack(bot.url, standin)
        follow_and_check_token(slack, standin, kept)
        status, ack, key = command(slack, "UOTHER1", "follow cats", "T0LOST01")
        told = json.dumps(ack) + "".join(c.params.get("text", "") for c in standin.responses(key))
        assert status == 200 and "can't read its installation" in told, told
        assert str(WorkspaceUnreadable("T0LOST01")).split(":")[0] in told
        assert "Traceback" not in log.text
