"""Bolt's installation store and OAuth state store, kept in paperbot's own database (either backend).

Slack's SDK defines the interfaces (:class:`~slack_sdk.oauth.installation_store.InstallationStore`,
:class:`~slack_sdk.oauth.state_store.OAuthStateStore`); storage keeps opaque rows. In between, each
:class:`~slack_sdk.oauth.installation_store.Installation` is stored as its JSON sealed by a
:class:`~bot.slack.oauth.token_crypto.TokenBox`, so no token is ever written in clear.

Every installation belongs to a *workspace key* (:func:`bot.slack.team.workspace_key`): the team id
of a workspace install, or the enterprise id of an org-wide (Enterprise Grid) install, which then serves every
workspace of that org.

When PAPERBOT_SECRET_KEY changes, :meth:`PaperbotInstallationStore.rekey` seals what an old key sealed
again under the new one (at each start, and by ``paperbot workspaces rekey``); a workspace whose
installation no key opens is named, not served, and its people are told why when they ask.
"""

from __future__ import annotations

import json
import logging
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from slack_bolt.error import BoltError
from slack_sdk.oauth.installation_store import Bot, Installation, InstallationStore
from slack_sdk.oauth.state_store import OAuthStateStore

from bot.errors import PaperbotError
from bot.slack.oauth.token_crypto import TokenBox, WrongSecretKey
from bot.slack.team import workspace_key
from storage import StorageError
from storage.moments import iso_utc, utcnow

log = logging.getLogger(__name__)

STATE_SECONDS = 10 * 60  # an install started more than 10 minutes ago must start again
#: What Bolt's Bot holds of an Installation: copied back when Bolt saves a refreshed bot token.
#: What an installation holds of the person who installed it, besides their id (Bolt's Installation).
_INSTALLER_FIELDS = ("user_token", "user_refresh_token", "user_token_expires_at")
_BOT_FIELDS = ("bot_token", "bot_id", "bot_user_id", "bot_scopes", "bot_refresh_token",
               "bot_token_expires_at")


class WorkspaceUnreadable(PaperbotError):
    """A request from a workspace whose stored installation no key opens: its message is what the
    person who asked is told."""

    def __init__(self, ws: str):
        super().__init__("paperbot is installed in this workspace but can't read its installation: whoever "
                         "runs paperbot changed the key it was stored with. Please tell them; until they "
                         "give it the old key, or the app is installed here again, paperbot can't answer "
                         "here or send digests.")
        self.ws = ws


@dataclass(frozen=True)
class Rekeyed:
    """What sealing every installation under the current key found: ``resealed``, the installations this
    call sealed again (an old key had sealed them); ``opened``, those some key opens (``resealed``
    included); ``unopened``, the workspaces whose installation no key opens (not served); ``stale``, the
    workspaces served by a newer installation that still keep an earlier one no key opens."""

    resealed: int
    opened: int
    unopened: tuple[str, ...]
    stale: tuple[str, ...] = ()

    @property
    def resealed_text(self) -> str:
        """"1 Slack installation", "3 Slack installations": what was re-sealed, in words."""
        return f"{self.resealed} Slack installation{'' if self.resealed == 1 else 's'}"


def installation_key(installation: Installation | Bot) -> str:
    """The workspace key of an installation (or its bot)."""
    return workspace_key(team_id=installation.team_id, enterprise_id=installation.enterprise_id,
                         is_enterprise_install=installation.is_enterprise_install)


def _now() -> str:
    return utcnow()


class PaperbotInstallationStore(InstallationStore):
    """Installations in paperbot's storage, encrypted with ``box``. ``store`` is the unscoped store
    (installations are not a workspace's rows but what names the workspaces)."""

    def __init__(self, store, box: TokenBox, logger: logging.Logger = log):
        self._store = store
        self._box = box
        self._logger = logger
        #: (workspace, installer) whose installation was logged as opening with no key, so each is said once.
        self._reported: set[tuple[str, str | None]] = set()

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
        installation = self._load(self._find(ws, None), ws) or Installation(
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
            installation = self._load(self._find(ws, user_id), ws, user_id)
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
        installation = self._load(self._find(ws, None), ws)
        return installation.bot_token if installation is not None else None

    def rekey(self) -> Rekeyed:
        """Seal every installation an old key (PAPERBOT_OLD_SECRET_KEYS) sealed again under the current
        key, and name the workspaces whose installation no key opens. Safe beside other processes doing
        the same: a row is replaced only while it holds what was read here, so sealing one twice is
        harmless and a save made meanwhile is never undone."""
        resealed = opened = 0
        failed: dict[str, None] = {}
        for row in self._store.installations():
            try:
                fresh = self._box.reseal(row.data)
            except WrongSecretKey:
                failed[row.ws] = None
                continue
            opened += 1
            if fresh is not None and self._store.replace_installation(
                    row.ws, row.installer_id, row.data, fresh):
                resealed += 1
        # A workspace is served by its latest installation: only when that one doesn't open is it lost.
        unopened = tuple(ws for ws in failed if not self._opens(self._find(ws, None)))
        stale = tuple(ws for ws in failed if ws not in unopened)
        return Rekeyed(resealed, opened, unopened, stale)

    def forget_installer(self, ws: str, user_id: str) -> int:
        """Seal again, without ``user_id`` and the user token that came with them, each installation of
        ``ws`` whose sealed data names them as its installer: a forgotten person's id stays nowhere (the
        row's ``installer_id`` column is storage's to clear, :meth:`storage.Store.forget_person`), and a
        token refresh can't write it back. The workspace's bot token stays. Returns how many."""
        forgotten = 0
        for row in self._store.installations():
            if row.ws != ws or not user_id:
                continue
            try:
                fields = json.loads(self._box.open(row.data))
            except WrongSecretKey:  # named at start; nothing of it can be read, so nothing to clear
                continue
            if fields.get("user_id") != user_id:
                continue
            fields.update(dict.fromkeys(_INSTALLER_FIELDS), user_id="", user_scopes=[])
            sealed = self._box.seal(json.dumps(fields))
            if self._store.replace_installation(ws, row.installer_id, row.data, sealed):
                forgotten += 1
        return forgotten

    def check_keys(self) -> Rekeyed:
        """At start: :meth:`rekey`, logging one line for each workspace no key opens (it is not served;
        the others are). Raises WrongSecretKey, in one line naming the settings to check, only when
        there are installations and none opens."""
        found = self.rekey()
        if found.unopened and not found.opened:
            raise WrongSecretKey("no stored Slack installation opens with PAPERBOT_SECRET_KEY or any of "
                                 "PAPERBOT_OLD_SECRET_KEYS: check those two settings (the key the "
                                 "installations were saved with must be one of them)")
        for ws in found.unopened:
            self._reported.add((ws, None))  # said here: a request or a digest from it won't say it again
            self._logger.error("workspace %s is not served: %s", ws, _UNOPENED)
        if found.stale:
            self._logger.info("workspaces %s are served by a newer installation, but keep an earlier one "
                              "no key opens", ", ".join(found.stale))
        if found.resealed:
            self._logger.info("re-sealed %s under the current PAPERBOT_SECRET_KEY", found.resealed_text)
        return found

    def unreadable(self, enterprise_id: str | None, team_id: str | None,
                   is_enterprise_install: bool | None = None) -> str | None:
        """The workspace key whose installation would serve this team (or org) but no key opens; None
        when one opens, or there is none (the workspace is simply not installed)."""
        for ws in _candidates(enterprise_id, team_id, is_enterprise_install):
            data = self._find(ws, None)
            if data is not None:
                return None if self._opens(data) else ws
        return None

    def _opens(self, data: str | None) -> bool:
        if data is None:
            return False
        try:
            self._box.open(data)
        except WrongSecretKey:
            return False
        return True

    def _find(self, ws: str, user_id: str | None) -> str | None:
        return self._store.find_installation(ws, user_id) if ws else None

    def _load(self, data: str | None, ws: str = "", user_id: str | None = None) -> Installation | None:
        if data is None:
            return None
        try:
            installation = Installation(**json.loads(self._box.open(data)))
        except WrongSecretKey:  # a request gets "not installed"; the admin gets this line, once
            if (ws, user_id) not in self._reported:
                self._reported.add((ws, user_id))
                whose = f" (installed by {user_id})" if user_id else ""
                self._logger.error("workspace %s%s: %s", ws or "?", whose, _UNOPENED)
            return None
        self._reported.discard((ws, user_id))
        return installation


#: Why a workspace is not served, and what the admin can do.
_UNOPENED = ("neither PAPERBOT_SECRET_KEY nor any of PAPERBOT_OLD_SECRET_KEYS opens its stored installation "
             "(add the key it was saved with to PAPERBOT_OLD_SECRET_KEYS, or install the app there again)")


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
        self._store.issue_oauth_state(state, iso_utc(expires))
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
