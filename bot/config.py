"""Settings: the one place paperbot reads its environment (and a ``.env`` file beside it)."""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TypeVar
from urllib.parse import SplitResult, urlsplit

from dotenv import dotenv_values

from bot.errors import ConfigError
from storage.opening import UnknownDatabase, database_target

DEFAULT_API_URL = "https://slack.com/api/"
DEFAULT_ARXIV_API_URL = "https://export.arxiv.org/api/query"
#: arXiv's daily listings (a category's is this followed by its name, e.g. ``…/rss/cs.LG``).
DEFAULT_ARXIV_RSS_URL = "https://rss.arxiv.org/rss/"
#: api.biorxiv.org, for the ``biorxiv:`` and ``medrxiv:`` sources.
DEFAULT_BIORXIV_API_URL = "https://api.biorxiv.org"
#: NCBI's E-utilities, for the ``pubmed:`` sources.
DEFAULT_PUBMED_API_URL = "https://eutils.ncbi.nlm.nih.gov/entrez/eutils"
#: The OpenReview API v2, for the ``openreview:`` sources.
DEFAULT_OPENREVIEW_API_URL = "https://api2.openreview.net"
#: The ACL Anthology, for the ``acl:`` sources (a volume's BibTeX under ``/volumes/``, a paper's beside it).
DEFAULT_ACL_URL = "https://aclanthology.org"
_CLIENT_ID = re.compile(r"[0-9]{1,20}\.[0-9]{1,20}")  # as Slack shows it under App Credentials
_CLIENT_SECRET = re.compile(r"[A-Za-z0-9]{16,64}")
_CHANNEL_ID = re.compile(r"[CG][A-Z0-9]{2,20}")  # a public (C…) or private (G…) channel, as Slack shows it
LOG_FORMATS = ("text", "json")
DEFAULT_DB = "paperbot.db"
#: PAPERBOT_SECRET_KEY's least length (and each of PAPERBOT_OLD_SECRET_KEYS'): a random string that long.
MIN_SECRET_KEY_LENGTH = 32
_T = TypeVar("_T")


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
    #: PAPERBOT_BIORXIV_API_URL: where ``biorxiv:`` and ``medrxiv:`` sources are read (api.biorxiv.org).
    biorxiv_api_url: str = DEFAULT_BIORXIV_API_URL
    #: PAPERBOT_PUBMED_API_URL: where ``pubmed:`` sources are read (NCBI's E-utilities).
    pubmed_api_url: str = DEFAULT_PUBMED_API_URL
    #: PAPERBOT_ACL_URL: where ``acl:`` sources are read (the ACL Anthology).
    acl_url: str = DEFAULT_ACL_URL
    #: PAPERBOT_NCBI_KEY: NCBI's API key (10 requests a second instead of 3); not shown in repr.
    ncbi_key: str | None = field(default=None, repr=False)
    #: PAPERBOT_NCBI_EMAIL: the contact NCBI asks tools to send with each request.
    ncbi_email: str | None = None
    #: PAPERBOT_OPENREVIEW_API_URL: where ``openreview:`` sources are read (the OpenReview API v2).
    openreview_api_url: str = DEFAULT_OPENREVIEW_API_URL
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
    #: PAPERBOT_LLM_URL: the base of an OpenAI-compatible API (``…/v1``; ``/chat/completions`` and ``/models``
    #: are added to it) whose model writes checked summaries (bot/summaries); None: highlights only.
    llm_url: str | None = None
    #: PAPERBOT_LLM_MODEL: the model's name as that endpoint knows it (required with PAPERBOT_LLM_URL).
    llm_model: str | None = None
    #: PAPERBOT_LLM_KEY: a bearer key for the endpoint (optional); never shown in a repr or a log.
    llm_key: str | None = field(default=None, repr=False)
    #: PAPERBOT_LLM_DAILY_LIMIT: calls to the endpoint a UTC day, across every process (the database counts).
    llm_daily_limit: int = 500

    #: The settings that didn't parse, when loaded with ``lenient=True``: (setting, why), each one's
    #: default in its place (the doctor reports them and checks the rest).
    problems: tuple[tuple[str, str], ...] = ()

    @classmethod
    def load(cls, environ: Mapping[str, str] | None = None, dotenv: str | Path | None = ".env",
             lenient: bool = False) -> Settings:
        """Read settings from ``.env`` (if present) overlaid by the environment. Raises ConfigError on the
        first setting that doesn't parse, unless ``lenient``: then each is listed in ``problems``."""
        env: dict[str, str] = {}
        if dotenv and Path(dotenv).is_file():
            env.update({k: v for k, v in dotenv_values(dotenv).items() if v is not None})
        env.update(os.environ if environ is None else environ)
        problems: list[tuple[str, str]] = []

        def get(name: str) -> str | None:
            value = env.get(name, "").strip()
            return value or None

        def parsed(name: str, parse: Callable[[str | None], _T], fallback: _T) -> _T:
            try:
                return parse(get(name))
            except ConfigError as exc:
                if not lenient:
                    raise
                problems.append((name, str(exc)))
                return fallback

        bot_token = parsed("SLACK_BOT_TOKEN", _bot_token, None)
        app_token = parsed("SLACK_APP_TOKEN", _app_token, None)
        api_url = parsed("SLACK_API_URL", _api_url, DEFAULT_API_URL)
        client_id = parsed("SLACK_CLIENT_ID", _client_id, None)
        client_secret = parsed("SLACK_CLIENT_SECRET", _client_secret, None)
        secret_key = parsed("PAPERBOT_SECRET_KEY", _secret_key, None)
        old_secret_keys = parsed("PAPERBOT_OLD_SECRET_KEYS",
                                 lambda raw: _old_secret_keys(raw, secret_key), ())
        arxiv_api_url = parsed("PAPERBOT_ARXIV_API_URL", _arxiv_api_url, DEFAULT_ARXIV_API_URL)
        arxiv_rss_url = parsed("PAPERBOT_ARXIV_RSS_URL", _arxiv_rss_url, DEFAULT_ARXIV_RSS_URL)
        biorxiv_api_url = parsed("PAPERBOT_BIORXIV_API_URL", _biorxiv_api_url, DEFAULT_BIORXIV_API_URL)
        pubmed_api_url = parsed("PAPERBOT_PUBMED_API_URL", _pubmed_api_url, DEFAULT_PUBMED_API_URL)
        acl_url = parsed("PAPERBOT_ACL_URL", _acl_url, DEFAULT_ACL_URL)
        ncbi_key = parsed("PAPERBOT_NCBI_KEY", _ncbi_key, None)
        ncbi_email = parsed("PAPERBOT_NCBI_EMAIL", _ncbi_email, None)
        openreview_api_url = parsed("PAPERBOT_OPENREVIEW_API_URL", _openreview_api_url,
                                    DEFAULT_OPENREVIEW_API_URL)
        embeddings = parsed("PAPERBOT_EMBEDDINGS", _embeddings_setting, False)
        log_format = parsed("PAPERBOT_LOG_FORMAT", _log_format, "text")
        admin_channel = parsed("PAPERBOT_ADMIN_CHANNEL", _admin_channel, None)
        llm_url = parsed("PAPERBOT_LLM_URL", _llm_url, None)
        # The URL as given: one that doesn't parse is its own problem, not also the model's.
        llm_model = parsed("PAPERBOT_LLM_MODEL", lambda raw: _llm_model(raw, get("PAPERBOT_LLM_URL")), None)
        db = get("PAPERBOT_DB")
        db_path = parsed("PAPERBOT_DB", lambda raw: _database("PAPERBOT_DB", raw) if raw else DEFAULT_DB,
                         DEFAULT_DB)

        def number(name: str, default: int, low: int, high: int) -> int:
            return parsed(name, lambda raw: _int_setting(name, raw, default, low, high), default)

        metrics_port = get("PAPERBOT_METRICS_PORT")
        return cls(
            bot_token=bot_token,
            signing_secret=get("SLACK_SIGNING_SECRET"),
            app_token=app_token,
            api_url=api_url if api_url.endswith("/") else api_url + "/",
            db_path=db_path,
            db_from="PAPERBOT_DB" if db else None,
            port=number("PORT", 3000, 1, 65535),
            digest_size=number("PAPERBOT_DIGEST_SIZE", 5, 1, 20),
            feeds=parsed("PAPERBOT_FEEDS", _feeds, []),
            client_id=client_id,
            client_secret=client_secret,
            secret_key=secret_key,
            old_secret_keys=old_secret_keys,
            arxiv_api_url=arxiv_api_url,
            arxiv_rss_url=arxiv_rss_url if arxiv_rss_url.endswith("/") else arxiv_rss_url + "/",
            biorxiv_api_url=biorxiv_api_url.rstrip("/"),
            pubmed_api_url=pubmed_api_url.rstrip("/"),
            acl_url=acl_url.rstrip("/"),
            ncbi_key=ncbi_key,
            ncbi_email=ncbi_email,
            openreview_api_url=openreview_api_url.rstrip("/"),
            embeddings=embeddings,
            digest_processes=number("PAPERBOT_DIGEST_PROCESSES", default_processes(), 1, 64),
            log_format=log_format,
            metrics_port=number("PAPERBOT_METRICS_PORT", 0, 0, 65535) if metrics_port else None,
            admin_channel=admin_channel,
            llm_url=llm_url if llm_model else None,  # a URL without its model is one problem, said once
            llm_model=llm_model,
            llm_key=get("PAPERBOT_LLM_KEY"),
            llm_daily_limit=number("PAPERBOT_LLM_DAILY_LIMIT", 500, 0, 1_000_000),
            metrics_dir=get("PROMETHEUS_MULTIPROC_DIR"),
            problems=tuple(problems),
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


def _bot_token(raw: str | None) -> str | None:
    if raw and not raw.startswith("xoxb-"):
        raise ConfigError("SLACK_BOT_TOKEN must be a bot token starting with 'xoxb-'")
    return raw


def _app_token(raw: str | None) -> str | None:
    if raw and not raw.startswith("xapp-"):
        raise ConfigError("SLACK_APP_TOKEN must be an app-level token starting with 'xapp-'")
    return raw


def _api_url(raw: str | None) -> str:
    api_url = raw or DEFAULT_API_URL
    if not api_url.startswith(("http://", "https://")):
        raise ConfigError(f"SLACK_API_URL must be an http(s) URL, got {api_url!r}")
    return api_url


def _client_id(raw: str | None) -> str | None:
    if raw and not _CLIENT_ID.fullmatch(raw):
        raise ConfigError("SLACK_CLIENT_ID must be the app's Client ID as Slack shows it "
                          "(digits, a dot, digits)")
    return raw


def _client_secret(raw: str | None) -> str | None:
    if raw and not _CLIENT_SECRET.fullmatch(raw):
        raise ConfigError("SLACK_CLIENT_SECRET must be the app's Client Secret as Slack shows it "
                          "(16 to 64 letters and digits)")
    return raw


def _secret_key(raw: str | None) -> str | None:
    if raw:
        check_secret_key(raw)
    return raw


def check_secret_key(secret_key: str | None) -> None:
    """Raise ConfigError (naming PAPERBOT_SECRET_KEY) unless it is set and long enough."""
    if not secret_key:
        raise ConfigError("PAPERBOT_SECRET_KEY is not set: OAuth needs it to encrypt the stored Slack tokens")
    if len(secret_key) < MIN_SECRET_KEY_LENGTH:
        raise ConfigError(f"PAPERBOT_SECRET_KEY must be at least {MIN_SECRET_KEY_LENGTH} characters "
                          f"(a random string; it has {len(secret_key)})")


def check_old_secret_keys(old_keys: Sequence[str]) -> None:
    """Raise ConfigError (naming PAPERBOT_OLD_SECRET_KEYS and which one, never the key) unless each of
    the earlier keys is as long as PAPERBOT_SECRET_KEY must be."""
    for place, key in enumerate(old_keys, start=1):
        if len(key) < MIN_SECRET_KEY_LENGTH:
            raise ConfigError(f"PAPERBOT_OLD_SECRET_KEYS: key {place} of {len(old_keys)} is shorter than "
                              f"{MIN_SECRET_KEY_LENGTH} characters (it has {len(key)}), so it can't be an "
                              "earlier PAPERBOT_SECRET_KEY")


def _arxiv_api_url(raw: str | None) -> str:
    url = raw or DEFAULT_ARXIV_API_URL
    if not url.lower().startswith(("http://", "https://")) or any(ch.isspace() for ch in url):
        raise ConfigError(f"PAPERBOT_ARXIV_API_URL must be an http(s) URL, got {url!r}")
    return url


def _biorxiv_api_url(raw: str | None) -> str:
    url = raw or DEFAULT_BIORXIV_API_URL
    if not url.lower().startswith(("http://", "https://")) or any(ch.isspace() or ch in "?#" for ch in url):
        raise ConfigError("PAPERBOT_BIORXIV_API_URL must be an http(s) URL (like "
                          f"{DEFAULT_BIORXIV_API_URL}), got {url!r}")
    return url


def _openreview_api_url(raw: str | None) -> str:
    url = raw or DEFAULT_OPENREVIEW_API_URL
    if not url.lower().startswith(("http://", "https://")) or any(ch.isspace() or ch in "?#" for ch in url):
        raise ConfigError("PAPERBOT_OPENREVIEW_API_URL must be an http(s) URL (like "
                          f"{DEFAULT_OPENREVIEW_API_URL}), got {url!r}")
    return url


def _feeds(raw: str | None) -> list[str]:
    """The sources, separated by spaces; quotes keep a source with spaces whole (``pubmed:"crispr screen"``
    is the one source ``pubmed:crispr screen``), as a shell would."""
    try:
        return shlex.split(raw or "")
    except ValueError as exc:  # "No closing quotation"
        raise ConfigError(f"PAPERBOT_FEEDS: {str(exc).lower()}: quote a source with spaces whole, as in "
                          'pubmed:"crispr screen"') from None


def _pubmed_api_url(raw: str | None) -> str:
    url = raw or DEFAULT_PUBMED_API_URL
    if not url.lower().startswith(("http://", "https://")) or any(ch.isspace() or ch in "?#" for ch in url):
        raise ConfigError("PAPERBOT_PUBMED_API_URL must be an http(s) URL (like "
                          f"{DEFAULT_PUBMED_API_URL}), got {url!r}")
    return url


def _acl_url(raw: str | None) -> str:
    url = raw or DEFAULT_ACL_URL
    if not url.lower().startswith(("http://", "https://")) or any(ch.isspace() or ch in "?#" for ch in url):
        raise ConfigError(f"PAPERBOT_ACL_URL must be an http(s) URL (like {DEFAULT_ACL_URL}), got {url!r}")
    return url


def _ncbi_key(raw: str | None) -> str | None:
    key = (raw or "").strip()
    # NCBI's keys are 36 hexadecimal digits; anything else is a paste gone wrong.
    if key and not key.isalnum():
        raise ConfigError("PAPERBOT_NCBI_KEY must be the key of an NCBI account (letters and digits), "
                          "as shown in its Account Settings")
    return key or None


def _ncbi_email(raw: str | None) -> str | None:
    email = (raw or "").strip()
    if email and not re.fullmatch(r"[^@\s]+@[^@\s]+\.[^@\s]+", email):
        raise ConfigError(f"PAPERBOT_NCBI_EMAIL must be an email address, got {email!r}")
    return email or None


def _arxiv_rss_url(raw: str | None) -> str:
    url = raw or DEFAULT_ARXIV_RSS_URL
    if not url.lower().startswith(("http://", "https://")) or any(ch.isspace() or ch in "?#" for ch in url):
        raise ConfigError("PAPERBOT_ARXIV_RSS_URL must be an http(s) URL to which a category's name is "
                          f"added (like https://rss.arxiv.org/rss/), got {url!r}")
    return url


def _log_format(raw: str | None) -> str:
    log_format = (raw or "text").lower()
    if log_format not in LOG_FORMATS:
        raise ConfigError(f"PAPERBOT_LOG_FORMAT must be text or json, got {log_format!r}")
    return log_format


def _admin_channel(raw: str | None) -> str | None:
    if raw and not _CHANNEL_ID.fullmatch(raw):
        raise ConfigError("PAPERBOT_ADMIN_CHANNEL must be a channel id such as C0123456789 (in Slack: "
                          f"the channel's details, at the bottom), got {raw!r}")
    return raw


#: What an OpenAI-compatible base URL may end with that is one of its endpoints, not the base: taken off.
_LLM_ENDPOINTS = ("/chat/completions", "/completions", "/models")


def _llm_url(raw: str | None) -> str | None:
    """PAPERBOT_LLM_URL: the API's base (``http://localhost:11434/v1``), without a trailing slash; the full
    chat-completions URL is taken too, as people copy it from their server's docs."""
    if raw is None:
        return None
    parts = urlsplit(raw)
    if "@" in parts.netloc:  # urllib sends no credentials from a URL; said without echoing them
        raise ConfigError("PAPERBOT_LLM_URL must not hold a user or password: give the endpoint's key in "
                          "PAPERBOT_LLM_KEY")
    if (parts.scheme.lower() not in ("http", "https") or not parts.hostname or parts.query or parts.fragment
            or any(ch.isspace() for ch in raw) or _bad_port(parts)):
        raise ConfigError("PAPERBOT_LLM_URL must be the http(s) base of an OpenAI-compatible API, like "
                          f"http://localhost:11434/v1, got {raw!r}")
    base = raw.rstrip("/")
    for endpoint in _LLM_ENDPOINTS:
        if base.lower().endswith(endpoint):
            base = base[:-len(endpoint)].rstrip("/")
            break
    return base


def _bad_port(parts: SplitResult) -> bool:
    try:
        parts.port  # noqa: B018 - reading it is the check: urllib raises for a port that is no number
    except ValueError:
        return True
    return False


def _llm_model(raw: str | None, llm_url: str | None) -> str | None:
    """PAPERBOT_LLM_MODEL, needed with PAPERBOT_LLM_URL (``llm_url``, as given) and only with it."""
    if llm_url and not raw:
        raise ConfigError("PAPERBOT_LLM_MODEL is not set: PAPERBOT_LLM_URL needs the model's name as the "
                          "endpoint knows it (for Ollama, e.g. llama3.1:8b)")
    if raw and not llm_url:
        raise ConfigError("PAPERBOT_LLM_MODEL is set but PAPERBOT_LLM_URL is not: set the endpoint's base, "
                          "like http://localhost:11434/v1, or unset PAPERBOT_LLM_MODEL")
    if raw and (len(raw) > 200 or any(ch.isspace() or not ch.isprintable() for ch in raw)):
        raise ConfigError(f"PAPERBOT_LLM_MODEL must be a model's name without spaces, got {raw!r}")
    return raw


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
