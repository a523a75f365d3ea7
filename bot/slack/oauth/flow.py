"""Installing paperbot into many workspaces through Bolt's own OAuth flow.

Bolt serves the *Add to Slack* page (``/slack/install``) and the redirect back from Slack
(``/slack/oauth_redirect``): it issues a single-use ``state`` (a cookie in the installer's browser and a
row in the state store), checks both when Slack sends the browser back, exchanges the ``code`` at
``oauth.v2.access`` and saves the installation. Both stores live in paperbot's database
(:mod:`bot.slack.oauth.installations`). From then on Bolt picks each request's token by its team (or
org).

paperbot adds one thing on success: the first install of a workspace sends the installer a short DM
saying how to start. An install never takes the rows stored before workspaces existed: only
``paperbot workspaces adopt TID`` gives them to a workspace.
"""

from __future__ import annotations

import dataclasses
import html
import logging
from datetime import timedelta
from typing import Any

from slack_bolt.authorization import AuthorizeResult
from slack_bolt.authorization.authorize import InstallationStoreAuthorize
from slack_bolt.oauth.callback_options import CallbackOptions, FailureArgs, SuccessArgs
from slack_bolt.oauth.oauth_flow import OAuthFlow
from slack_bolt.oauth.oauth_settings import OAuthSettings
from slack_bolt.request import BoltRequest
from slack_bolt.response import BoltResponse
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError, SlackClientError
from slack_sdk.oauth.installation_store import Installation

from bot.config import Settings
from bot.slack.client import build_client
from bot.slack.manifest import COMMAND, INSTALL_PATH, REDIRECT_PATH, SCOPES
from bot.slack.oauth.installations import (
    PaperbotInstallationStore,
    PaperbotOAuthStateStore,
    WorkspaceUnreadable,
    installation_key,
)
from bot.slack.oauth.token_crypto import TokenBox
from storage import StorageError

log = logging.getLogger(__name__)

WELCOME = (f"Hi! paperbot is installed. Every morning it can send each person here a short digest of new "
           f"papers picked for them, and it learns from their reactions.\n"
           f"To start, say what you follow: `{COMMAND} follow graph neural networks, diffusion models`. "
           f"`{COMMAND} help` lists everything else.")
#: The key, in the workspace's own rows, that says its welcome went out: deleted with the workspace, so
#: installing again after an uninstall welcomes again.
WELCOME_KEY = "welcome"
WELCOME_KEPT = timedelta(days=100 * 365)


def authorization_url(api_url: str) -> str:
    """Slack's authorize page, beside the Web API at ``api_url``: ``https://slack.com/api/`` gives
    ``https://slack.com/oauth/v2/authorize``. Derived from SLACK_API_URL rather than fixed, so that a
    stand-in for the Web API (the tests') stands in for the authorize page too."""
    root = api_url.rstrip("/")
    if root.endswith("/api"):
        root = root[: -len("/api")]
    return root + "/oauth/v2/authorize"


INSTALL_PAGE = """<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Add paperbot to Slack</title><link rel="icon" href="data:,"></head>
<body style="font-family: sans-serif; text-align: center; padding: 3em 1em">
<h1>paperbot</h1>
<p>A short daily digest of new papers for each person in your workspace, learning from their reactions.</p>
<p><a id="add-to-slack" href="{url}" style="display: inline-block; padding: 0.7em 1.4em; border-radius: 6px;
background: #4a154b; color: #fff; text-decoration: none; font-weight: bold">Add to Slack</a></p>
</body>
</html>
"""


class PaperbotOAuthFlow(OAuthFlow):
    """Bolt's OAuth flow with paperbot's own install page: Bolt's loads its button image from Slack's
    servers; this one is self-contained."""

    def build_install_page_html(self, url: str, request: BoltRequest) -> str:
        return INSTALL_PAGE.format(url=html.escape(url, quote=True))


@dataclasses.dataclass
class OAuthSetup:
    """What the OAuth app is built from: Bolt's OAuth flow and paperbot's installation store."""

    flow: OAuthFlow
    installations: PaperbotInstallationStore

    @property
    def settings(self) -> OAuthSettings:
        return self.flow.settings


def oauth_setup(settings: Settings, store, client: WebClient, logger: logging.Logger = log) -> OAuthSetup:
    """Bolt's OAuth flow over ``store`` (either backend), with tokens sealed by PAPERBOT_SECRET_KEY.
    ``client`` (no token; SLACK_API_URL) is the one Bolt exchanges codes and refreshes tokens with.
    Raises ConfigError for a missing or malformed setting."""
    settings.require_oauth()
    installations = PaperbotInstallationStore(store, TokenBox.of(settings))
    welcome = Welcome(settings, store)

    def success(args: SuccessArgs) -> BoltResponse:
        welcome.once(args.installation)
        return args.default.success(args)

    def failure(args: FailureArgs) -> BoltResponse:
        logger.warning("an install failed: %s", args.reason)  # Bolt's reason names it: invalid_state, …
        return args.default.failure(args)

    oauth = OAuthSettings(
        client_id=settings.client_id, client_secret=settings.client_secret,
        scopes=list(SCOPES), user_scopes=[],
        install_path=INSTALL_PATH, redirect_uri_path=REDIRECT_PATH,
        authorization_url=authorization_url(settings.api_url),
        installation_store=installations, state_store=PaperbotOAuthStateStore(store),
        callback_options=CallbackOptions(success=success, failure=failure), logger=logger,
    )
    # Bolt's own authorize would refresh rotated tokens through a client of its own, at slack.com
    # whatever SLACK_API_URL says; this one uses ours.
    oauth.authorize = PaperbotAuthorize(
        logger=logger, installation_store=installations, client_id=oauth.client_id,
        client_secret=oauth.client_secret, client=client,
        token_rotation_expiration_minutes=oauth.token_rotation_expiration_minutes)
    return OAuthSetup(PaperbotOAuthFlow(client=client, logger=logger, settings=oauth), installations)


class PaperbotAuthorize(InstallationStoreAuthorize):
    """Bolt's authorize over the installation store, telling apart a workspace that isn't installed
    (Bolt's "not installed" answer) from one whose installation no key opens: that one raises
    :class:`WorkspaceUnreadable`, which the app's error handler turns into one line to the person."""

    installation_store: PaperbotInstallationStore

    def __call__(self, **kwargs: Any) -> AuthorizeResult | None:
        found = super().__call__(**kwargs)
        if found is None:
            ws = self.installation_store.unreadable(kwargs.get("enterprise_id"), kwargs.get("team_id"),
                                                    kwargs["context"].is_enterprise_install)
            if ws is not None:
                raise WorkspaceUnreadable(ws)
        return found


class Welcome:
    """The DM to the person who installed paperbot, once per workspace (the database decides)."""

    def __init__(self, settings: Settings, store):
        self._settings = settings
        self._store = store

    def once(self, installation: Installation) -> bool:
        """Send the welcome unless this workspace already had one; True if sent. Never raises: a
        welcome that can't be sent is logged, and the install still succeeds."""
        ws = installation_key(installation)
        try:
            if not self._store.for_workspace(ws).claim_once(WELCOME_KEY, WELCOME_KEPT):
                return False
            self._tell_of_unassigned_rows(ws)
        except StorageError as exc:
            log.warning("installed %s, but could not record its welcome: %s", ws, exc)
            return False
        if not installation.bot_token or not installation.user_id:
            return False
        client = build_client(self._settings, token=installation.bot_token)
        try:
            channel = client.conversations_open(users=installation.user_id)["channel"]["id"]
            client.chat_postMessage(channel=channel, text=WELCOME)
        except SlackApiError as exc:
            log.warning("installed %s, but Slack refused the welcome DM (%s)", ws, exc.response.get("error"))
            return False
        except (SlackClientError, OSError) as exc:
            log.warning("installed %s, but could not send the welcome DM (%s)", ws, exc)
            return False
        log.info("installed %s; welcomed its installer", ws)
        return True

    def _tell_of_unassigned_rows(self, ws: str) -> None:
        # Rows stored before workspaces (a one-workspace database) are never given to an install: with
        # public distribution the first to install may be a stranger, and those rows are people's likes
        # and schedules. The operator gives them to their workspace by hand; this says how, once per
        # workspace installed.
        if any(w.ws == "" and w.people for w in self._store.workspaces()):
            log.warning("installed %s; people stored before workspaces are no workspace's yet:"
                        " `paperbot workspaces adopt TID` gives them to theirs", ws)
