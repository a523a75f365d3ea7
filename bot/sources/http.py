"""Fetching feeds and arXiv API pages over HTTP, politely, with errors as SourceError."""

from __future__ import annotations

import http.client
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

from bot.sources.records import SourceError

#: The arXiv API query endpoint.
ARXIV_API_URL = "https://export.arxiv.org/api/query"
#: arXiv's daily listings: a category's is this followed by its name (``…/rss/cs.LG``).
ARXIV_RSS_URL = "https://rss.arxiv.org/rss/"
#: api.biorxiv.org, which answers for bioRxiv and medRxiv (``biorxiv:`` and ``medrxiv:`` sources).
BIORXIV_API_URL = "https://api.biorxiv.org"
#: api.biorxiv.org states no rate limit: one request a second is polite, and reads a day of a server
#: (a few hundred records, 30 a page) in well under a minute.
BIORXIV_INTERVAL = 1.0
#: NCBI's E-utilities (``pubmed:`` sources).
PUBMED_API_URL = "https://eutils.ncbi.nlm.nih.gov/entrez/eutils"
#: NCBI allows 3 requests a second without an API key, 10 with one; a little slower than each.
PUBMED_INTERVAL = 0.34
PUBMED_KEY_INTERVAL = 0.11
#: The OpenReview API v2 (``openreview:`` sources).
OPENREVIEW_API_URL = "https://api2.openreview.net"
#: OpenReview allows a guest 20 requests a minute (openreview/openreview issue 254); one every 3.5 s stays
#: under it, and a venue of 5,000 accepted papers is 5 pages of 1,000.
OPENREVIEW_INTERVAL = 3.5
#: The ACL Anthology (``acl:`` sources): a static site that states no rate limit; one request a second
#: is polite (a volume is one request, and the papers it lacks an abstract for one each).
ACL_URL = "https://aclanthology.org"
ACL_INTERVAL = 1.0
USER_AGENT = "paperbot/0.1 (+https://github.com/paperbot)"
#: arXiv asks API clients for no more than one request every three seconds.
ARXIV_INTERVAL = 3.0
#: Answers that mean "not now": arXiv's rate limit (429) and its busy or down-for-a-moment answer (503).
BUSY = frozenset({429, 503})
#: Tries of one request a busy answer allows after the first, each after the wait it asked for.
RETRIES = 4
#: A busy answer without Retry-After waits this long, then twice as long each time.
BACKOFF = 10.0
#: The longest wait a Retry-After is obeyed for; asked for more, the request fails at once.
LONGEST_WAIT = 300.0


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

    def hold_off(self, seconds: float) -> None:
        """No call to :meth:`wait` (in any thread) returns for ``seconds`` from now: the server asked
        the whole process to wait (a 429's Retry-After), not just the request it refused."""
        with self._lock:
            until = self.clock() + seconds - self.interval
            self._last = until if self._last is None else max(self._last, until)

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

    ``api_url`` is the arXiv API query endpoint, ``rss_url`` the base of arXiv's daily listings and
    ``biorxiv_url`` api.biorxiv.org's; tests point them at a local server. By default requests are
    spaced :data:`ARXIV_INTERVAL` seconds apart; pass ``RateLimiter(0)`` to turn that off. A busy
    answer (429, 503) is tried again up to ``retries`` times after the wait its Retry-After asks
    (seconds or an HTTP date, read against ``wall``), else :data:`BACKOFF` doubling; the wait holds off
    every request sharing the limiter,
    and sleeps through the limiter's own (injectable) sleep.
    """

    def __init__(
        self,
        api_url: str = ARXIV_API_URL,
        *,
        rss_url: str = ARXIV_RSS_URL,
        biorxiv_url: str = BIORXIV_API_URL,
        pubmed_url: str = PUBMED_API_URL,
        acl_url: str = ACL_URL,
        ncbi_key: str | None = None,
        ncbi_email: str | None = None,
        openreview_url: str = OPENREVIEW_API_URL,
        timeout: float = 30.0,
        limiter: RateLimiter | None = None,
        user_agent: str = USER_AGENT,
        retries: int = RETRIES,
        wall: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self.api_url = api_url
        self.rss_url = rss_url
        self.biorxiv_url = biorxiv_url
        self.pubmed_url = pubmed_url
        self.acl_url = acl_url
        # NCBI's api_key and the contact email it asks of tools (``PAPERBOT_NCBI_KEY``, ``_EMAIL``).
        self.ncbi_key = ncbi_key
        self.ncbi_email = ncbi_email
        self.openreview_url = openreview_url
        self.timeout = timeout
        self.limiter = limiter if limiter is not None else RateLimiter()
        self.user_agent = user_agent
        self.retries = retries
        self.wall = wall

    def get(self, url: str) -> bytes:
        """The body of ``url``; SourceError("couldn't fetch URL: reason") on any network or HTTP error,
        and on a busy answer still busy after :attr:`retries` more tries (or asking too long a wait)."""
        if not url.lower().startswith(("http://", "https://")):
            raise SourceError(f"couldn't fetch {url}: only http(s) URLs can be fetched")
        for attempt in range(self.retries + 1):
            try:
                return self._get(url)
            except urllib.error.HTTPError as e:
                e.close()  # the refusal's body is not read: give its connection back
                if e.code not in BUSY:
                    raise SourceError(f"couldn't fetch {url}: HTTP {e.code} {e.reason}") from e
                wait = self._retry_after(e.headers.get("Retry-After") if e.headers else None, attempt)
                if wait > LONGEST_WAIT:
                    raise SourceError(f"couldn't fetch {url}: HTTP {e.code} {e.reason}, and the server asks "
                                      f"to wait {wait:.0f} s; paperbot tries again on its next run") from e
                if attempt == self.retries:
                    raise SourceError(f"couldn't fetch {url}: HTTP {e.code} {e.reason}, still after "
                                      f"{self.retries + 1} tries; paperbot tries again on its next run"
                                      ) from e
                self.limiter.hold_off(wait)
        raise AssertionError("unreachable")  # pragma: no cover - the loop returns or raises

    def _retry_after(self, value: str | None, attempt: int) -> float:
        return retry_after(value, attempt, self.wall)

    def _get(self, url: str) -> bytes:
        self.limiter.wait()
        # The scheme is checked by get, so no file: or custom-scheme URL gets opened.
        request = urllib.request.Request(url, headers={"User-Agent": self.user_agent})  # noqa: S310
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:  # noqa: S310
                return response.read()
        except urllib.error.HTTPError:
            raise  # get decides: busy answers are tried again
        except urllib.error.URLError as e:
            raise SourceError(f"couldn't fetch {url}: {_reason(e.reason)}") from e
        except TimeoutError as e:
            raise SourceError(f"couldn't fetch {url}: timed out after {self.timeout:g} s") from e
        except (OSError, http.client.HTTPException, ValueError) as e:
            # ValueError: a URL urllib can't even parse (e.g. "http://[::1").
            raise SourceError(f"couldn't fetch {url}: {_reason(e)}") from e


def retry_after(value: str | None, attempt: int, wall: Callable[[], datetime],
                backoff: float = BACKOFF) -> float:
    """Seconds a busy answer asks to wait: its Retry-After (delay-seconds or an HTTP date, read against
    ``wall``), else the back-off of this ``attempt`` (``backoff`` seconds, twice as long each time). The one
    reading of Retry-After, for every client paperbot has over urllib (the sources', the summaries')."""
    value = (value or "").strip()
    if value.isdigit():
        return float(value)
    if value:
        try:
            when = parsedate_to_datetime(value)
        except (TypeError, ValueError, IndexError):
            when = None
        if when is not None:
            if when.tzinfo is None:  # an HTTP date is GMT, whatever the text says
                when = when.replace(tzinfo=UTC)
            return max(0.0, (when - wall()).total_seconds())
    return backoff * 2**attempt


def reason(error: object) -> str:
    """What a network error says, briefly (an OSError's strerror, else its text or its type's name)."""
    return _reason(error)


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


_own: dict[str, Fetcher] = {}


def _with_own_limiter(source: str, interval: float) -> Fetcher:
    """The process-wide Fetcher of ``source``, with a rate limiter of its own spacing requests
    ``interval`` seconds apart (made on first use; two threads asking at once get the same one)."""
    with _default_guard:
        if source not in _own:
            _own[source] = Fetcher(limiter=RateLimiter(interval))
        return _own[source]


def default_biorxiv_fetcher() -> Fetcher:
    """The process-wide Fetcher of api.biorxiv.org: a limiter of its own (:data:`BIORXIV_INTERVAL`), so
    bioRxiv pages don't wait behind arXiv's three seconds, nor arXiv's behind them."""
    return _with_own_limiter("biorxiv", BIORXIV_INTERVAL)


def use_biorxiv_api(url: str = BIORXIV_API_URL) -> None:
    """Point this process's ``biorxiv:`` and ``medrxiv:`` sources at ``url``
    (``PAPERBOT_BIORXIV_API_URL``)."""
    default_biorxiv_fetcher().biorxiv_url = url


def default_pubmed_fetcher() -> Fetcher:
    """The process-wide Fetcher of NCBI's E-utilities: a limiter of its own (:data:`PUBMED_INTERVAL`, or
    :data:`PUBMED_KEY_INTERVAL` once a key is set), so reading PubMed never waits on arXiv's spacing."""
    return _with_own_limiter("pubmed", PUBMED_INTERVAL)


def use_pubmed_api(url: str = PUBMED_API_URL, key: str | None = None, email: str | None = None) -> None:
    """Point this process's ``pubmed:`` sources at ``url`` (``PAPERBOT_PUBMED_API_URL``), with NCBI's key
    and the contact email when set."""
    fetcher = default_pubmed_fetcher()
    fetcher.pubmed_url, fetcher.ncbi_key, fetcher.ncbi_email = url, key, email
    fetcher.limiter.interval = PUBMED_KEY_INTERVAL if key else PUBMED_INTERVAL


def default_openreview_fetcher() -> Fetcher:
    """The process-wide Fetcher of the OpenReview API: a limiter of its own (:data:`OPENREVIEW_INTERVAL`),
    so reading a venue never waits on arXiv's spacing, nor arXiv on it."""
    return _with_own_limiter("openreview", OPENREVIEW_INTERVAL)


def use_openreview_api(url: str = OPENREVIEW_API_URL) -> None:
    """Point this process's ``openreview:`` sources at ``url`` (``PAPERBOT_OPENREVIEW_API_URL``)."""
    default_openreview_fetcher().openreview_url = url


def default_acl_fetcher() -> Fetcher:
    """The process-wide Fetcher of the ACL Anthology: a limiter of its own (:data:`ACL_INTERVAL`), so a
    volume's lookups never wait on arXiv's spacing, nor arXiv's on them."""
    return _with_own_limiter("acl", ACL_INTERVAL)


def use_acl_url(url: str = ACL_URL) -> None:
    """Point this process's ``acl:`` sources at ``url`` (``PAPERBOT_ACL_URL``)."""
    default_acl_fetcher().acl_url = url
