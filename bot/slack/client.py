"""The Slack Web API client paperbot uses everywhere, with its retry policy.

Kept apart from the Bolt app so that ``paperbot digest`` (which needs only the client) does not
import Bolt.
"""

from __future__ import annotations

import logging
import random
from urllib.error import URLError

from slack_sdk import WebClient
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
