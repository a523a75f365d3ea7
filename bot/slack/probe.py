"""What ``paperbot doctor`` asks of Slack: ``auth.test`` for a token, with the scopes Slack says it
grants (its ``x-oauth-scopes`` header) and the time Slack says it is (its ``Date`` header), and the
tokens to ask about: SLACK_BOT_TOKEN, or with OAuth each installed workspace's."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime
from email.utils import parsedate_to_datetime

from slack_sdk.errors import SlackApiError

from bot.config import Settings
from bot.slack.client import build_client, unreachable
from bot.slack.manifest import SCOPES

_QUIET = logging.getLogger("paperbot.doctor.slack")
_QUIET.propagate = False
_QUIET.addHandler(logging.NullHandler())


@dataclass(frozen=True)
class AuthAnswer:
    """Slack's answer to ``auth.test``: ``error`` (Slack's code, or why it could not be reached) when it
    refused or failed; otherwise the workspace, the granted scopes (None when Slack did not say) and the
    time of Slack's clock (None when it did not say)."""

    error: str | None = None
    team: str | None = None
    scopes: frozenset[str] | None = None
    slack_time: datetime | None = None


class SlackProbe:
    """Slack's side of a set-up, through the client every part of paperbot uses (no retries on 429:
    a check should answer now)."""

    def __init__(self, settings: Settings):
        self.settings = settings
        #: The bot scopes the manifest asks for, which every token must have been granted.
        self.scopes = SCOPES

    def auth_test(self, token: str) -> AuthAnswer:
        """``auth.test`` with ``token``."""
        # Failures are the check's result, said once in its line: slack_sdk's own log lines would repeat them.
        client = build_client(self.settings, rate_limit_retries=0, token=token, logger=_QUIET)
        try:
            response = client.auth_test()
        except SlackApiError as exc:
            return AuthAnswer(error=str(exc.response.get("error") or f"HTTP {exc.response.status_code}"),
                              slack_time=_date(exc.response.headers))
        except Exception as exc:  # unreachable, refused, timed out: said in one line
            return AuthAnswer(error=f"Slack did not answer: {unreachable(exc)}")
        headers = _lower(response.headers)
        granted = headers.get("x-oauth-scopes")
        scopes = None if granted is None else frozenset(s.strip() for s in granted.split(",") if s.strip())
        return AuthAnswer(team=str(response.get("team_id") or response.get("enterprise_id") or ""),
                          scopes=scopes, slack_time=_date(headers))

    def workspace_tokens(self, store) -> dict[str, str | None]:
        """Each installed workspace's bot token (None where no key opens it), by workspace key."""
        from bot.slack.oauth.installations import PaperbotInstallationStore
        from bot.slack.oauth.token_crypto import TokenBox

        installations = PaperbotInstallationStore(store, TokenBox.of(self.settings))
        return {ws: installations.bot_token(ws) for ws in installations.installed()}


def _lower(headers) -> dict[str, str]:
    return {str(name).lower(): str(value) for name, value in (headers or {}).items()}


def _date(headers) -> datetime | None:
    value = _lower(headers).get("date")
    try:
        return parsedate_to_datetime(value) if value else None
    except (TypeError, ValueError):
        return None
