"""Fetching feeds and arXiv API pages over HTTP, politely, with errors as SourceError."""

from __future__ import annotations

import http.client
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable

from bot.errors import SourceError

#: The arXiv API query endpoint.
ARXIV_API_URL = "https://export.arxiv.org/api/query"
USER_AGENT = "paperbot/0.1 (+https://github.com/paperbot)"
#: arXiv asks API clients for no more than one request every three seconds.
ARXIV_INTERVAL = 3.0


class RateLimiter:
    """Spaces calls to :meth:`wait` at least ``interval`` seconds apart, across threads.

    One limiter is shared by the whole process (:func:`default_fetcher`), so a link lookup and an
    ``arxiv:`` ingest may wait at once: the wait and the stamp are one step under a lock, so the
    second caller queues behind the first and then waits its own full interval.
    ``clock`` and ``sleep`` are injectable so tests can check the spacing without waiting.
    """

    def __init__(
        self,
        interval: float = ARXIV_INTERVAL,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.interval = interval
        self.clock = clock
        self.sleep = sleep
        self._last: float | None = None
        self._lock = threading.Lock()

    def wait(self) -> None:
        """Sleep as long as needed so this call comes ``interval`` after the previous one (in any
        thread)."""
        with self._lock:  # the sleep too: a caller arriving meanwhile must count from this stamp
            self._wait()

    def _wait(self) -> None:
        now = self.clock()
        if self._last is not None:
            delay = self._last + self.interval - now
            if delay > 0:
                self.sleep(delay)
                # Count from when the wait should have ended, even if the clock didn't move (fakes).
                now = max(self.clock(), self._last + self.interval)
        self._last = now


class Fetcher:
    """GETs URLs with a timeout and paperbot's User-Agent, one request per ``limiter`` interval.

    ``api_url`` is the arXiv API query endpoint; tests point it at a local server. By default
    requests are spaced :data:`ARXIV_INTERVAL` seconds apart; pass ``RateLimiter(0)`` to turn
    that off.
    """

    def __init__(
        self,
        api_url: str = ARXIV_API_URL,
        *,
        timeout: float = 30.0,
        limiter: RateLimiter | None = None,
        user_agent: str = USER_AGENT,
    ) -> None:
        self.api_url = api_url
        self.timeout = timeout
        self.limiter = limiter if limiter is not None else RateLimiter()
        self.user_agent = user_agent

    def get(self, url: str) -> bytes:
        """The body of ``url``; SourceError("couldn't fetch URL: reason") on any network or HTTP error."""
        if not url.lower().startswith(("http://", "https://")):
            raise SourceError(f"couldn't fetch {url}: only http(s) URLs can be fetched")
        self.limiter.wait()
        # The scheme is checked just above, so no file: or custom-scheme URL gets opened.
        request = urllib.request.Request(url, headers={"User-Agent": self.user_agent})  # noqa: S310
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:  # noqa: S310
                return response.read()
        except urllib.error.HTTPError as e:
            raise SourceError(f"couldn't fetch {url}: HTTP {e.code} {e.reason}") from e
        except urllib.error.URLError as e:
            raise SourceError(f"couldn't fetch {url}: {_reason(e.reason)}") from e
        except TimeoutError as e:
            raise SourceError(f"couldn't fetch {url}: timed out after {self.timeout:g} s") from e
        except (OSError, http.client.HTTPException, ValueError) as e:
            # ValueError: a URL urllib can't even parse (e.g. "http://[::1").
            raise SourceError(f"couldn't fetch {url}: {_reason(e)}") from e


def _reason(error: object) -> str:
    if isinstance(error, OSError) and error.strerror:
        return error.strerror
    return str(error) or type(error).__name__


_default: Fetcher | None = None
_default_guard = threading.Lock()


def default_fetcher() -> Fetcher:
    """The process-wide Fetcher, so the arXiv rate limit holds across sources read one after another
    and across threads (two threads asking at once still get the same one, with one limiter)."""
    global _default
    with _default_guard:
        if _default is None:
            _default = Fetcher()
        return _default
