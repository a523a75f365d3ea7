"""Bolt's installation store and OAuth state store, kept in paperbot's own database (either backend).

Slack's SDK defines the interfaces (:class:`~slack_sdk.oauth.installation_store.InstallationStore`,
:class:`~slack_sdk.oauth.state_store.OAuthStateStore`); storage keeps opaque rows. In between, each
:class:`~slack_sdk.oauth.installation_store.Installation` is stored as its JSON sealed by a
:class:`~bot.slack.oauth.token_crypto.TokenBox`, so no token is ever written in clear.

Every installation belongs to a *workspace key* (:func:`bot.slack.team.workspace_key`): the team id
of a workspace install, or the enterprise id of an org-wide (Enterprise Grid) install, which then serves every
workspace of that org.
"""

from __future__ import annotations

import json
import logging
import secrets
from datetime import UTC, datetime, timedelta

from slack_bolt.error import BoltError
from slack_sdk.oauth.installation_store import Bot, Installation, InstallationStore
from slack_sdk.oauth.state_store import OAuthStateStore

from bot.slack.oauth.token_crypto import TokenBox, WrongSecretKey
from bot.slack.team import workspace_key
from storage import StorageError

log = logging.getLogger(__name__)

STATE_SECONDS = 10 * 60  # an install started more than 10 minutes ago must start again
#: What Bolt's Bot holds of an Installation: copied back when Bolt saves a refreshed bot token.
_BOT_FIELDS = ("bot_token", "bot_id", "bot_user_id", "bot_scopes", "bot_refresh_token",
               "bot_token_expires_at")


def installation_key(installation: Installation | Bot) -> str:
    """The workspace key of an installation (or its bot)."""
    return workspace_key(team_id=installation.team_id, enterprise_id=installation.enterprise_id,
                         is_enterprise_install=installation.is_enterprise_install)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class PaperbotInstallationStore(InstallationStore):
    """Installations in paperbot's storage, encrypted with ``box``. ``store`` is the unscoped store
    (installations are not a workspace's rows but what names the workspaces)."""

    def __init__(self, store, box: TokenBox, logger: logging.Logger = log):
        self._store = store
        self._box = box
        self._logger = logger

    @classmethod
    def of(cls, ctx, box: TokenBox) -> PaperbotInstallationStore:
        """The installations of the database behind ``ctx`` (a use cases' context)."""
        return cls(ctx.store, box)

    @property
    def logger(self) -> logging.Logger:
        return self._logger

    # -- Bolt's interface ------------------------------------------------------------------------

    def save(self, installation: Installation) -> None:
        """Store ``installation`` (sealed) as its workspace's latest and as its installer's."""
        ws = installation_key(installation)
        if not ws:
            raise BoltError("an installation without a team or enterprise id")
        sealed = self._box.seal(json.dumps(installation.__dict__))
        try:
            self._store.save_installation(
                ws, installation.enterprise_id, installation.team_id, installation.user_id or "",
                bool(installation.is_enterprise_install), sealed, _now())
        except StorageError as exc:  # Bolt answers the install with its failure page for a BoltError
            raise BoltError(f"could not save the installation: {exc}") from None

    def save_bot(self, bot: Bot) -> None:
        """Store a refreshed bot token (token rotation) into the workspace's latest installation."""
        ws = installation_key(bot)
        installation = self._load(self._find(ws, None)) or Installation(
            user_id="", app_id=bot.app_id, enterprise_id=bot.enterprise_id,
            enterprise_name=bot.enterprise_name, team_id=bot.team_id, team_name=bot.team_name,
            is_enterprise_install=bot.is_enterprise_install)
        for name in _BOT_FIELDS:
            setattr(installation, name, getattr(bot, name))
        self.save(installation)

    def find_installation(self, *, enterprise_id: str | None, team_id: str | None, user_id: str | None = None,
                          is_enterprise_install: bool | None = False) -> Installation | None:
        """The installation serving a request from this team (or org): the workspace's own, else its
        org's org-wide one; with ``user_id``, that person's installation there."""
        for ws in _candidates(enterprise_id, team_id, is_enterprise_install):
            installation = self._load(self._find(ws, user_id))
            if installation is not None:
                return installation
        return None

    def find_bot(self, *, enterprise_id: str | None, team_id: str | None,
                 is_enterprise_install: bool | None = False) -> Bot | None:
        """The bot of :meth:`find_installation`, if it has a bot token."""
        installation = self.find_installation(enterprise_id=enterprise_id, team_id=team_id,
                                              is_enterprise_install=is_enterprise_install)
        if installation is None or not installation.bot_token:
            return None
        return installation.to_bot()

    def delete_bot(self, *, enterprise_id: str | None, team_id: str | None) -> None:
        """Without its bot the workspace has no installation left worth keeping."""
        self.delete_all(enterprise_id=enterprise_id, team_id=team_id)

    def delete_installation(self, *, enterprise_id: str | None, team_id: str | None,
                            user_id: str | None = None) -> None:
        ws = self.workspace_of(enterprise_id, team_id)
        if ws:
            self._store.delete_installations(ws, user_id)

    def delete_all(self, *, enterprise_id: str | None, team_id: str | None) -> None:
        ws = self.workspace_of(enterprise_id, team_id)
        if ws:
            self._store.delete_installations(ws)

    # -- paperbot's own ----------------------------------------------------------------------------

    def workspace_of(self, enterprise_id: str | None, team_id: str | None,
                     is_enterprise_install: bool | None = None) -> str | None:
        """The workspace key of the installation that serves this team (or org), or None if none does."""
        for ws in _candidates(enterprise_id, team_id, is_enterprise_install):
            if self._find(ws, None) is not None:
                return ws
        return None

    def delete_user(self, ws: str, user_id: str) -> int:
        """Forget one person's installation row in workspace ``ws`` (their user token was revoked)."""
        return self._store.delete_installations(ws, user_id)

    def installed(self) -> list[str]:
        """Every workspace key with an installation (for work outside a request: digests)."""
        return self._store.installation_keys()

    def bot_token(self, ws: str) -> str | None:
        """The bot token of workspace key ``ws`` (for work outside a request: digests)."""
        installation = self._load(self._find(ws, None))
        return installation.bot_token if installation is not None else None

    def check_key(self) -> None:
        """Raise WrongSecretKey unless the stored installations open with this key: checked at start,
        so a wrong PAPERBOT_SECRET_KEY stops ``paperbot run`` with one line, not each request."""
        for ws in self._store.installation_keys()[:1]:
            data = self._store.find_installation(ws)
            if data is not None:
                self._box.open(data)

    def _find(self, ws: str, user_id: str | None) -> str | None:
        return self._store.find_installation(ws, user_id) if ws else None

    def _load(self, data: str | None) -> Installation | None:
        if data is None:
            return None
        try:
            return Installation(**json.loads(self._box.open(data)))
        except WrongSecretKey as exc:  # a request gets "not installed"; the admin gets this line
            self._logger.error("%s", exc)
            return None


def _candidates(enterprise_id: str | None, team_id: str | None,
                is_enterprise_install: bool | None) -> list[str]:
    """Workspace keys to look in, best first: an org-wide install is the org's; a request from a
    workspace is served by that workspace's install, or else by its org's org-wide one."""
    if is_enterprise_install and enterprise_id:
        return [enterprise_id]
    return [ws for ws in dict.fromkeys((team_id, enterprise_id)) if ws]


class PaperbotOAuthStateStore(OAuthStateStore):
    """The single-use ``state`` of each install, in paperbot's storage: consumed once, whichever host
    the person's browser comes back to, and never after :data:`STATE_SECONDS`."""

    def __init__(self, store, expiration_seconds: int = STATE_SECONDS, logger: logging.Logger = log):
        self._store = store
        self._seconds = expiration_seconds
        self._logger = logger

    @property
    def logger(self) -> logging.Logger:
        return self._logger

    def issue(self, *args, **kwargs) -> str:
        """A new random state, remembered until it expires."""
        state = secrets.token_urlsafe(32)
        expires = datetime.now(UTC) + timedelta(seconds=self._seconds)
        self._store.issue_oauth_state(state, expires.isoformat(timespec="seconds"))
        return state

    def consume(self, state: str) -> bool:
        """True once for a state issued here and not expired; False for any other (and on a second try)."""
        if not isinstance(state, str) or not state:
            return False
        try:
            return self._store.consume_oauth_state(state, _now())
        except StorageError as exc:  # no proof the state is good: the install fails, the person retries
            self._logger.warning("could not check an install's state: %s", exc)
            return False
