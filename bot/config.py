"""Settings: the one place paperbot reads its environment (and a ``.env`` file beside it)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from dotenv import dotenv_values

from bot.errors import ConfigError

DEFAULT_API_URL = "https://slack.com/api/"


@dataclass(frozen=True)
class Settings:
    """Everything configurable, validated. See the README's configuration table."""

    bot_token: str | None = None
    signing_secret: str | None = None
    app_token: str | None = None
    api_url: str = DEFAULT_API_URL
    db_path: str = "paperbot.db"
    port: int = 3000
    digest_size: int = 5
    feeds: list[str] = field(default_factory=list)

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
        return cls(
            bot_token=bot_token,
            signing_secret=get("SLACK_SIGNING_SECRET"),
            app_token=app_token,
            api_url=api_url if api_url.endswith("/") else api_url + "/",
            db_path=get("PAPERBOT_DB") or "paperbot.db",
            port=_int_setting("PORT", get("PORT"), 3000, 1, 65535),
            digest_size=_int_setting("PAPERBOT_DIGEST_SIZE", get("PAPERBOT_DIGEST_SIZE"), 5, 1, 20),
            feeds=(get("PAPERBOT_FEEDS") or "").split(),
        )

    def require(self, *names: str) -> None:
        """Raise ConfigError naming the first of these settings (by variable name) that is unset."""
        for name in names:
            if not getattr(self, _ATTRIBUTE[name]):
                raise ConfigError(f"{name} is not set: see 'Connect to Slack' in the README")


_ATTRIBUTE = {
    "SLACK_BOT_TOKEN": "bot_token",
    "SLACK_SIGNING_SECRET": "signing_secret",
    "SLACK_APP_TOKEN": "app_token",
}


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
