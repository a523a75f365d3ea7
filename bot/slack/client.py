"""The Slack Web API client paperbot uses everywhere, with its retry policy.

Kept apart from the Bolt app so that ``paperbot digest`` (which needs only the client) does not
import Bolt.
"""

from __future__ import annotations

import random

from slack_sdk import WebClient
from slack_sdk.http_retry.builtin_handlers import (
    ConnectionErrorRetryHandler,
    RateLimitErrorRetryHandler,
    ServerErrorRetryHandler,
)
from slack_sdk.http_retry.builtin_interval_calculators import BackoffRetryIntervalCalculator
from slack_sdk.http_retry.jitter import Jitter

from bot.config import Settings

API_TIMEOUT = 15  # seconds per Web API call
RATE_LIMIT_RETRIES = 3  # 429s a listener's call waits out (each sleeps Retry-After)


class _ProportionalJitter(Jitter):
    """Up to half the interval again, so retries of many threads spread out without long waits."""

    def recalculate(self, duration: float) -> float:
        return duration * (1 + random.random() / 2)  # noqa: S311 - spreading retries, not security


def build_client(settings: Settings, rate_limit_retries: int = RATE_LIMIT_RETRIES) -> WebClient:
    """A Web API client for ``SLACK_API_URL`` that retries 429s (honouring Retry-After, up to
    ``rate_limit_retries`` times), 500/503 and dropped connections."""
    backoff = BackoffRetryIntervalCalculator(backoff_factor=0.25, jitter=_ProportionalJitter())
    return WebClient(
        token=settings.bot_token,
        base_url=settings.api_url,
        timeout=API_TIMEOUT,
        retry_handlers=[
            ConnectionErrorRetryHandler(max_retry_count=2, interval_calculator=backoff),
            RateLimitErrorRetryHandler(max_retry_count=rate_limit_retries),
            ServerErrorRetryHandler(max_retry_count=2, interval_calculator=backoff),
        ],
    )
