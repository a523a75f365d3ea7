"""The Slack Web API client paperbot uses everywhere, with its retry policy, and what a call that failed
after those retries means (:func:`classified`).

Kept apart from the Bolt app so that ``paperbot digest`` (which needs only the client) does not
import Bolt.
"""

from __future__ import annotations

import http.client
import logging
import random
from urllib.error import URLError

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError
from slack_sdk.http_retry.builtin_handlers import (
    ConnectionErrorRetryHandler,
    RateLimitErrorRetryHandler,
    ServerErrorRetryHandler,
)
from slack_sdk.http_retry.builtin_interval_calculators import BackoffRetryIntervalCalculator
from slack_sdk.http_retry.jitter import Jitter
from slack_sdk.http_retry.request import HttpRequest
from slack_sdk.http_retry.response import HttpResponse
from slack_sdk.http_retry.state import RetryState

from bot.config import Settings
from bot.errors import Outage, TokenRefused, Unreachable
from bot.slack.keepalive import KeepAliveWebClient

API_TIMEOUT = 15  # seconds per Web API call
RATE_LIMIT_RETRIES = 3  # 429s a listener's call waits out (each sleeps Retry-After)
#: Calls that post a message: sending one again after Slack may have received it would post it twice.
NOT_IDEMPOTENT = ("chat.postMessage", "chat.postEphemeral", "chat.meMessage", "files.upload")


class _ProportionalJitter(Jitter):
    """Up to half the interval again, so retries of many threads spread out without long waits."""

    def recalculate(self, duration: float) -> float:
        return duration * (1 + random.random() / 2)


class _NoRepostConnectionErrorRetryHandler(ConnectionErrorRetryHandler):
    """slack_sdk's retry of dropped connections, but never for a post that may have reached Slack.

    slack_sdk retries ``URLError`` (raised while the request was being sent: nothing arrived) and
    also ``ConnectionResetError`` / ``RemoteDisconnected`` raised while waiting for the answer, when
    Slack may already have posted the message: retrying those re-sends it. (A read timeout raises
    ``TimeoutError``, which slack_sdk does not retry.) Those are left to the caller, which looks in
    the DM before posting again.
    """

    def _can_retry(self, *, state: RetryState, request: HttpRequest, response: HttpResponse | None = None,
                   error: Exception | None = None) -> bool:
        if error is not None and not isinstance(error, URLError) and _posts(request):
            return False
        return super()._can_retry(state=state, request=request, response=response, error=error)


class _FailuresTheCallerSays(logging.Filter):
    """slack_sdk logs at ERROR each attempt that fails (before retrying it) and each answer it can't read,
    then raises, or returns an error, to its caller, which says the failure once in paperbot's words
    (startup's one line, a listener's reply, the courier's outage). Those lines are a detail of that
    failure: kept for ``-v`` (INFO), never shown before paperbot's own line."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno < logging.ERROR or not record.getMessage().startswith(_SAID_BY_THE_CALLER):
            return True
        record.levelno, record.levelname = logging.INFO, logging.getLevelName(logging.INFO)
        return logging.getLogger(record.name).isEnabledFor(logging.INFO)


_SAID_BY_THE_CALLER = ("Failed to send a request to Slack API server", "Failed to decode Slack API response")
#: Where the clients paperbot builds log (slack_sdk's lines, under paperbot's name and filter).
SDK_LOGGER = logging.getLogger("bot.slack.sdk")
SDK_LOGGER.addFilter(_FailuresTheCallerSays())


def unreachable(exc: BaseException) -> str:
    """Why Slack could not be reached, in a few words ("Connection refused", not urllib's wrapping)."""
    reason = getattr(exc, "reason", None) or exc  # a URLError's reason is the OSError under it
    said = getattr(reason, "strerror", None) or " ".join(str(reason).split()) or type(exc).__name__
    return said if len(said) <= 160 else said[:157] + "..."


def _posts(request: HttpRequest) -> bool:
    path = request.url.split("?", 1)[0].rstrip("/")
    return path.rsplit("/", 1)[-1] in NOT_IDEMPOTENT


def build_client(settings: Settings, rate_limit_retries: int = RATE_LIMIT_RETRIES,
                 token: str | None = None, logger: logging.Logger | None = None) -> WebClient:
    """A Web API client for ``SLACK_API_URL`` that retries 429s (honouring Retry-After, up to
    ``rate_limit_retries`` times), 500/503 and dropped connections (a post only when it cannot have
    reached Slack), over the process's kept-alive connections. ``token``: a workspace's bot token
    (default: SLACK_BOT_TOKEN). ``logger``: where slack_sdk logs its failed calls (default:
    :data:`SDK_LOGGER`, where a failed attempt is an INFO line: the caller says the failure)."""
    backoff = BackoffRetryIntervalCalculator(backoff_factor=0.25, jitter=_ProportionalJitter())
    return KeepAliveWebClient(
        token=token or settings.bot_token,
        base_url=settings.api_url,
        timeout=API_TIMEOUT,
        logger=logger or SDK_LOGGER,
        retry_handlers=[
            _NoRepostConnectionErrorRetryHandler(max_retry_count=2, interval_calculator=backoff),
            RateLimitErrorRetryHandler(max_retry_count=rate_limit_retries),
            ServerErrorRetryHandler(max_retry_count=2, interval_calculator=backoff),
        ],
    )


#: Slack's answers meaning this person can't get a DM from the bot today (deleted or deactivated
#: account, DM closed or archived, bot not allowed): skip them for the day, don't retry.
UNREACHABLE = frozenset({
    "user_not_found", "users_not_found", "user_disabled", "channel_not_found", "is_archived",
    "cannot_dm_bot", "messages_tab_disabled", "not_in_channel",
})
#: Slack's answers meaning Slack itself is down or overloaded (after the client's own retries): the
#: digest waits for it, counted against nobody. The first two say the call may have been carried out.
OUTAGE = frozenset({"internal_error", "fatal_error", "service_unavailable", "request_timeout",
                    "ratelimited", "rate_limited"})
MAYBE_CARRIED_OUT = frozenset({"internal_error", "fatal_error"})
#: Slack's answers meaning the workspace's token no longer works: nobody there can get a digest until
#: it is installed again. Its digests wait; other workspaces carry on.
TOKEN_REFUSED = frozenset({"invalid_auth", "not_authed", "account_inactive", "token_revoked", "token_expired",
                           "team_access_not_granted", "team_disabled", "app_uninstalled"})


def classified(exc: Exception) -> Exception:
    """What a failed Web API call means, once the client's retries (:func:`build_client`) are spent: for a
    digest, and for every other post that says so (trending, polls, the admins' report, Send, Save):
    TokenRefused (the workspace), Unreachable (this person or channel, for today), Outage (Slack down,
    overloaded or too slow) or ``exc`` itself (this message was refused: counted toward the paper's
    attempts)."""
    if isinstance(exc, SlackApiError):
        response = exc.response
        error = response.get("error") if response is not None else None
        status = getattr(response, "status_code", 200) or 200
        if error in UNREACHABLE:
            return Unreachable(f"Slack refused direct messages ({error})")
        if error in TOKEN_REFUSED:
            return TokenRefused(f"Slack refused the workspace's token ({error})")
        if error in OUTAGE or status >= 500 or status == 429:
            return Outage(f"Slack answered {status} {error or ''}".rstrip(),
                          maybe_delivered=error in MAYBE_CARRIED_OUT or status in (500, 502, 504))
        return exc
    if isinstance(exc, URLError):  # the request never got through: nothing can have been done
        return Outage(f"can't reach Slack ({exc.reason})")
    if isinstance(exc, (OSError, http.client.HTTPException)):  # sent, then no answer (timed out, cut)
        detail = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
        return Outage(f"no answer from Slack ({detail})", maybe_delivered=True)
    return exc
