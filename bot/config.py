"""Settings: the one place paperbot reads its environment (and a ``.env`` file beside it)."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from dotenv import dotenv_values

from bot.errors import ConfigError
from bot.slack.oauth.token_crypto import check_old_secret_keys, check_secret_key
from storage.opening import UnknownDatabase, database_target

DEFAULT_API_URL = "https://slack.com/api/"
DEFAULT_ARXIV_API_URL = "https://export.arxiv.org/api/query"
#: arXiv's daily listings (a category's is this followed by its name, e.g. ``…/rss/cs.LG``).
DEFAULT_ARXIV_RSS_URL = "https://rss.arxiv.org/rss/"
_CLIENT_ID = re.compile(r"[0-9]{1,20}\.[0-9]{1,20}")  # as Slack shows it under App Credentials
_CLIENT_SECRET = re.compile(r"[A-Za-z0-9]{16,64}")
_CHANNEL_ID = re.compile(r"[CG][A-Z0-9]{2,20}")  # a public (C…) or private (G…) channel, as Slack shows it
LOG_FORMATS = ("text", "json")
DEFAULT_DB = "paperbot.db"


@dataclass(frozen=True)
class Settings:
    """Everything configurable, validated. docs/configuration.md lists them."""

    bot_token: str | None = None
    signing_secret: str | None = None
    app_token: str | None = None
    api_url: str = DEFAULT_API_URL
    db_path: str = DEFAULT_DB
    #: Where ``db_path`` came from: "PAPERBOT_DB", "--db" (:meth:`with_database`), or None (the default).
    db_from: str | None = None
    port: int = 3000
    digest_size: int = 5
    feeds: list[str] = field(default_factory=list)
    client_id: str | None = None
    client_secret: str | None = None
    secret_key: str | None = None
    #: PAPERBOT_OLD_SECRET_KEYS: earlier values of PAPERBOT_SECRET_KEY, still read (and re-sealed from).
    old_secret_keys: tuple[str, ...] = ()
    arxiv_api_url: str = DEFAULT_ARXIV_API_URL
    #: PAPERBOT_ARXIV_RSS_URL: where ``arxiv:`` sources read each category's daily listing (ends in "/").
    arxiv_rss_url: str = DEFAULT_ARXIV_RSS_URL
    embeddings: bool = False  # PAPERBOT_EMBEDDINGS: blend sentence embeddings in (paperbot[embeddings])
    #: PAPERBOT_DIGEST_PROCESSES: processes that send a big run of digests, the run's own included
    #: (:mod:`bot.usecases.digests.helpers`); from the environment it defaults to :func:`default_processes`.
    digest_processes: int = 1
    #: PAPERBOT_LOG_FORMAT: "text" (the default) or "json" (one JSON object a line on stdout).
    log_format: str = "text"
    #: PAPERBOT_METRICS_PORT: serve /metrics on this port instead of the bot's (None: the bot's own; 0: any
    #: free port, named in the start-up line, as `run --port 0` does for the bot's).
    metrics_port: int | None = None
    #: PROMETHEUS_MULTIPROC_DIR: where `paperbot run` and its helper processes keep their metrics (None: a
    #: private temporary directory; bot/metrics_dir.py).
    metrics_dir: str | None = None
    #: PAPERBOT_ADMIN_CHANNEL: a channel id told once a day of failed feeds, empty days, failed digests.
    admin_channel: str | None = None

    @classmethod
    def load(cls, environ: Mapping[str, str] | None = None, dotenv: str | Path | None = ".env") -> Settings:
        """Read settings from ``.env`` (if present) overlaid by the environment. Raises ConfigError."""
        env: dict[str, str] = {}
        if dotenv and Path(dotenv).is_file():
            env.update({k: v for k, v in dotenv_values(dotenv).items() if v is not None})
        env.update(os.environ if environ is None else environ)

        def get(name: str) -> str | None:
            value = env.get(name, "").strip()
            return value or None

        bot_token = get("SLACK_BOT_TOKEN")
        if bot_token and not bot_token.startswith("xoxb-"):
            raise ConfigError("SLACK_BOT_TOKEN must be a bot token starting with 'xoxb-'")
        app_token = get("SLACK_APP_TOKEN")
        if app_token and not app_token.startswith("xapp-"):
            raise ConfigError("SLACK_APP_TOKEN must be an app-level token starting with 'xapp-'")
        api_url = get("SLACK_API_URL") or DEFAULT_API_URL
        if not api_url.startswith(("http://", "https://")):
            raise ConfigError(f"SLACK_API_URL must be an http(s) URL, got {api_url!r}")
        client_id, client_secret, secret_key = get("SLACK_CLIENT_ID"), get("SLACK_CLIENT_SECRET"), \
            get("PAPERBOT_SECRET_KEY")
        if client_id and not _CLIENT_ID.fullmatch(client_id):
            raise ConfigError("SLACK_CLIENT_ID must be the app's Client ID as Slack shows it "
                              "(digits, a dot, digits)")
        if client_secret and not _CLIENT_SECRET.fullmatch(client_secret):
            raise ConfigError("SLACK_CLIENT_SECRET must be the app's Client Secret as Slack shows it "
                              "(16 to 64 letters and digits)")
        if secret_key:
            check_secret_key(secret_key)
        old_secret_keys = _old_secret_keys(get("PAPERBOT_OLD_SECRET_KEYS"), secret_key)
        arxiv_api_url = get("PAPERBOT_ARXIV_API_URL") or DEFAULT_ARXIV_API_URL
        if not arxiv_api_url.lower().startswith(("http://", "https://")) or any(
                ch.isspace() for ch in arxiv_api_url):
            raise ConfigError(f"PAPERBOT_ARXIV_API_URL must be an http(s) URL, got {arxiv_api_url!r}")
        arxiv_rss_url = get("PAPERBOT_ARXIV_RSS_URL") or DEFAULT_ARXIV_RSS_URL
        if not arxiv_rss_url.lower().startswith(("http://", "https://")) or any(
                ch.isspace() or ch in "?#" for ch in arxiv_rss_url):
            raise ConfigError("PAPERBOT_ARXIV_RSS_URL must be an http(s) URL to which a category's name is "
                              f"added (like https://rss.arxiv.org/rss/), got {arxiv_rss_url!r}")
        embeddings = _embeddings_setting(get("PAPERBOT_EMBEDDINGS"))
        log_format = (get("PAPERBOT_LOG_FORMAT") or "text").lower()
        if log_format not in LOG_FORMATS:
            raise ConfigError(f"PAPERBOT_LOG_FORMAT must be text or json, got {log_format!r}")
        admin_channel = get("PAPERBOT_ADMIN_CHANNEL")
        if admin_channel and not _CHANNEL_ID.fullmatch(admin_channel):
            raise ConfigError("PAPERBOT_ADMIN_CHANNEL must be a channel id such as C0123456789 (in Slack: "
                              f"the channel's details, at the bottom), got {admin_channel!r}")
        metrics_port = get("PAPERBOT_METRICS_PORT")
        db = get("PAPERBOT_DB")
        return cls(
            bot_token=bot_token,
            signing_secret=get("SLACK_SIGNING_SECRET"),
            app_token=app_token,
            api_url=api_url if api_url.endswith("/") else api_url + "/",
            db_path=_database("PAPERBOT_DB", db) if db else DEFAULT_DB,
            db_from="PAPERBOT_DB" if db else None,
            port=_int_setting("PORT", get("PORT"), 3000, 1, 65535),
            digest_size=_int_setting("PAPERBOT_DIGEST_SIZE", get("PAPERBOT_DIGEST_SIZE"), 5, 1, 20),
            feeds=(get("PAPERBOT_FEEDS") or "").split(),
            client_id=client_id,
            client_secret=client_secret,
            secret_key=secret_key,
            old_secret_keys=old_secret_keys,
            arxiv_api_url=arxiv_api_url,
            arxiv_rss_url=arxiv_rss_url if arxiv_rss_url.endswith("/") else arxiv_rss_url + "/",
            embeddings=embeddings,
            digest_processes=_int_setting("PAPERBOT_DIGEST_PROCESSES", get("PAPERBOT_DIGEST_PROCESSES"),
                                          default_processes(), 1, 64),
            log_format=log_format,
            metrics_port=_int_setting("PAPERBOT_METRICS_PORT", metrics_port, 0, 0, 65535) if metrics_port
            else None,
            admin_channel=admin_channel,
            metrics_dir=get("PROMETHEUS_MULTIPROC_DIR"),
        )

    def with_database(self, value: str, setting: str = "--db") -> Settings:
        """These settings with the database ``value`` names (given as ``setting``, which a refusal of its
        form names): see :func:`storage.database_target`."""
        return replace(self, db_path=_database(setting, value), db_from=setting)

    @property
    def oauth(self) -> bool:
        """Whether paperbot serves many workspaces, installed through Slack's OAuth flow: no
        SLACK_BOT_TOKEN, and any of the OAuth settings set (:meth:`require_oauth` names a missing one).
        With SLACK_BOT_TOKEN it is the one-workspace set-up, whatever else is set."""
        return not self.bot_token and bool(self.client_id or self.client_secret or self.secret_key)

    def require_oauth(self) -> None:
        """Raise ConfigError (one line naming the setting) unless OAuth can run: HTTP mode, with the
        client id and secret, the signing secret and the key that encrypts the stored tokens."""
        if self.app_token:
            raise ConfigError("SLACK_APP_TOKEN (Socket Mode) can't be used with OAuth (SLACK_CLIENT_ID): "
                              "Slack installs only HTTP apps into many workspaces; unset SLACK_APP_TOKEN")
        self.require("SLACK_CLIENT_ID", "SLACK_CLIENT_SECRET", "SLACK_SIGNING_SECRET")
        check_secret_key(self.secret_key)

    def require(self, *names: str) -> None:
        """Raise ConfigError naming the first of these settings (by variable name) that is unset."""
        for name in names:
            if not getattr(self, _ATTRIBUTE[name]):
                raise ConfigError(f"{name} is not set: see 'Connect to Slack' in the README")


_ATTRIBUTE = {
    "SLACK_BOT_TOKEN": "bot_token",
    "SLACK_SIGNING_SECRET": "signing_secret",
    "SLACK_APP_TOKEN": "app_token",
    "SLACK_CLIENT_ID": "client_id",
    "SLACK_CLIENT_SECRET": "client_secret",
    "PAPERBOT_SECRET_KEY": "secret_key",
}


def default_processes() -> int:
    """How many processes send a big run of digests by default: the cores this process may use, at
    most 4 (each holds its own copy of the index)."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        cores = os.cpu_count() or 1
    return max(1, min(4, cores))


def _old_secret_keys(raw: str | None, secret_key: str | None) -> tuple[str, ...]:
    """PAPERBOT_OLD_SECRET_KEYS: comma-separated earlier keys (blanks around them and empty items are
    ignored), each validated as PAPERBOT_SECRET_KEY is; they need a current key to re-seal under."""
    keys = tuple(key.strip() for key in (raw or "").split(",") if key.strip())
    if keys and not secret_key:
        raise ConfigError("PAPERBOT_OLD_SECRET_KEYS is set but PAPERBOT_SECRET_KEY is not: set the new key "
                          "as PAPERBOT_SECRET_KEY and keep the earlier ones in PAPERBOT_OLD_SECRET_KEYS")
    check_old_secret_keys(keys)
    return keys


def _embeddings_setting(raw: str | None) -> bool:
    """PAPERBOT_EMBEDDINGS: off unless set to 1 (or true/yes/on); on, it needs the optional extra."""
    value = (raw or "0").lower()
    if value not in ("0", "1", "true", "false", "yes", "no", "on", "off"):
        raise ConfigError(f"PAPERBOT_EMBEDDINGS must be 1 or 0, got {raw!r}")
    if value not in ("1", "true", "yes", "on"):
        return False
    from bot.state.embedding_model import INSTALL, available

    if not available():
        raise ConfigError(f"PAPERBOT_EMBEDDINGS=1 needs the optional extra: {INSTALL}")
    return True


def _database(setting: str, value: str) -> str:
    """The database ``value`` names, or a ConfigError naming ``setting`` and the forms it takes."""
    try:
        return database_target(value)
    except UnknownDatabase as exc:
        raise ConfigError(f"{setting}: {exc}") from None


def _int_setting(name: str, raw: str | None, default: int, low: int, high: int) -> int:
    if raw is None:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ConfigError(f"{name} must be a whole number, got {raw!r}") from None
    if not low <= value <= high:
        raise ConfigError(f"{name} must be between {low} and {high}, got {value}")
    return value
