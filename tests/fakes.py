"""The tests' shared stand-ins, one of each kind: a clock the test moves, the process dying, a Slack Web API
client without a network, a courier over fake direct messages, and the fault suite's tally.

A test that needs something these can't do keeps a fake of its own and says why beside it (e.g. the
racing clock of tests/bot/sources/test_rate_limiter_threads.py).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from slack_sdk import WebClient
from slack_sdk.web import SlackResponse

from bot.errors import Outage
from bot.slack.views.digest_texts import phrase
from bot.usecases.digest_vocabulary import Courier, Posted

# -- time ------------------------------------------------------------------------------------------------


class Clock:
    """A clock the test moves by hand: ``clock()`` is ``clock.now``, a number (a monotonic clock's
    seconds) or an aware datetime (the digests' ``clock=``). ``sleep`` moves it instead of waiting, and
    keeps what it was asked in ``slept``."""

    def __init__(self, start: float | datetime = 1000.0):
        self.now = start
        self.slept: list[float] = []

    def __call__(self):
        return self.now

    def advance(self, delta: float | timedelta) -> None:
        """Move the clock on by ``delta`` (seconds, or a timedelta for a datetime clock)."""
        if isinstance(self.now, datetime) and not isinstance(delta, timedelta):
            delta = timedelta(seconds=delta)
        self.now += delta

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.advance(seconds)


# -- the process dying -------------------------------------------------------------------------------------


class Death(BaseException):
    """The process dies here (SIGKILL): nothing after it runs, not even ``except Exception`` handlers."""


# -- Slack's Web API ---------------------------------------------------------------------------------------

Answer = dict | Callable[[dict], dict]


class FakeWebClient(WebClient):
    """A Slack Web API client that never opens a socket. Each call is recorded in ``calls`` as (method,
    arguments) and answered from ``answers`` (method -> an answer, or a function of the arguments giving
    one), else as Slack would answer ok: auth.test as workspace T1, conversations.open with DM D1, a post
    with a fresh ts. An answer with ``"ok": False`` raises SlackApiError, as the real client does."""

    def __init__(self, answers: dict[str, Answer] | None = None, token: str = "xoxb-unit"):
        super().__init__(token=token, base_url="http://127.0.0.1:9/api/")  # port 9: nothing listens
        self.answers = dict(answers or {})
        self.calls: list[tuple[str, dict]] = []
        self._ts = 0
        self._lock = threading.Lock()

    def api_call(self, api_method: str, **kwargs) -> SlackResponse:
        args = kwargs.get("json") or kwargs.get("params") or kwargs.get("data") or {}
        with self._lock:
            self.calls.append((api_method, args))
            answer = self.answers.get(api_method)
            data = answer(args) if callable(answer) else answer
            if data is None:
                data = self._ok(api_method, args)
        return SlackResponse(client=self, http_verb="POST", api_url=api_method, req_args=kwargs, data=data,
                             headers={}, status_code=200).validate()

    def _ok(self, method: str, args: dict) -> dict:
        if method == "auth.test":
            return {"ok": True, "team_id": "T1", "user_id": "UBOT", "bot_id": "BBOT", "user": "paperbot"}
        if method == "conversations.open":
            return {"ok": True, "channel": {"id": "D1"}}
        self._ts += 1
        return {"ok": True, "channel": args.get("channel", "D1"), "ts": f"{self._ts}.0"}

    def called(self, method: str) -> list[dict]:
        """The arguments of every call of ``method``, in order."""
        return [args for name, args in self.calls if name == method]

    def posts(self) -> list[dict]:
        """The arguments of every chat.postMessage, in order."""
        return self.called("chat.postMessage")


# -- a courier over fake direct messages -------------------------------------------------------------------


class FakeCourier:
    """Slack's direct messages as a digest's courier sees them, recording every post in ``posts`` as
    (channel, "header" or "paper", text or paper id). What it can be told to do:

    - ``fail``: what to fail ("open", "header", or a paper id) -> the exception to raise; a failed paper in
      ``landed`` arrived nonetheless (Slack carried the post out, the answer was lost).
    - ``die_after``: the process dies (:class:`Death`) once that many papers of a DM went out, before it
      records the last one (0: right after the header). ``kill_after``: it dies before posting once that
      many papers of a DM went out.
    - ``in_flight``: with ``die_after``, the last post is only in flight when the process dies: it lands
      when the test calls :meth:`land` (Slack carries it out a moment later).
    - ``down``: Slack is down (every call, lookups included, raises Outage) until set False; with
      ``down_after`` it goes down once that many posts went out. ``tries`` keeps when each DM was tried.
    - ``history``: what :meth:`find_posted` sees besides its own posts (another courier's: the same DMs),
      or an exception to raise; None (with nothing else asked) leaves the courier without ``find_posted``.
    - ``delay`` before each paper, ``on_paper`` called before each paper, ``settle`` for the courier.
    """

    def __init__(self, *, fail: dict[str, BaseException] | None = None, landed=(),
                 die_after: int | None = None, kill_after: int | None = None, in_flight: bool = False,
                 down: bool = False, down_after: int | None = None,
                 history: FakeCourier | Exception | None = None, find_posted: bool = True,
                 delay: float = 0.0, settle: timedelta | None = None,
                 clock: Callable[[], datetime] | None = None):
        self.fail, self.landed = dict(fail or {}), set(landed)
        self.die_after, self.kill_after, self.in_flight = die_after, kill_after, in_flight
        self.down, self.down_after, self.clock = down, down_after, clock
        self.history, self.looks_back = history, find_posted
        self.delay, self.settle = delay, settle
        self.posts: list[tuple[str, str, str]] = []
        self.flying: list[tuple[str, str, str]] = []  # received by Slack, not yet carried out
        self.tries: dict[str, list[datetime]] = {}  # channel -> when Slack was called (posts, lookups)
        self.on_paper: Callable | None = None
        self.lock = threading.Lock()

    def courier(self) -> Courier:
        options = {} if self.settle is None else {"settle": self.settle}
        return Courier(open=self.open, post_text=self.post_text, post_paper=self.post_paper, phrase=phrase,
                       find_posted=self.find_posted if self.looks_back else None, **options)

    # -- what Slack does ------------------------------------------------------------------------------

    def _gate(self, channel: str, posting: bool = True) -> None:
        self.tries.setdefault(channel, []).append(self.clock() if self.clock else datetime.now(UTC))
        if posting and self.down_after is not None and len(self.posts) >= self.down_after:
            self.down = True
        if self.down:
            raise Outage("Slack answered 500 internal_error", maybe_delivered=True)

    def open(self, user_id: str) -> str:
        if "open" in self.fail:
            raise self.fail["open"]
        return "D" + user_id

    def post_text(self, channel: str, text: str) -> str:
        self._gate(channel)
        if "header" in self.fail:
            raise self.fail["header"]
        with self.lock:
            self.posts.append((channel, "header", text))
            if self.die_after == 0:
                raise Death()  # the header went out, never recorded
            return f"{len(self.posts)}.0"

    def post_paper(self, channel: str, rec) -> tuple[str, str]:
        if self.on_paper:
            self.on_paper(rec)
        if self.delay:
            time.sleep(self.delay)  # Slack taking its time over a post
        self._gate(channel)
        paper = rec.paper.id
        with self.lock:
            if self.kill_after is not None and len(self.papers(channel)) >= self.kill_after:
                raise Death()
            if paper in self.fail:
                if paper in self.landed:
                    self.posts.append((channel, "paper", paper))
                raise self.fail[paper]
            dying = self.die_after is not None and len(self.papers(channel)) + 1 >= self.die_after
            if self.in_flight and dying:
                self.flying.append((channel, "paper", paper))
                raise Death()  # Slack has it; it lands after its poster died
            self.posts.append((channel, "paper", paper))
            if self.die_after is not None and len(self.papers(channel)) >= self.die_after:
                raise Death()  # posted, never recorded
            return channel, f"{len(self.posts)}.0"

    def land(self) -> None:
        """Slack carries out the posts it had received."""
        with self.lock:
            self.posts += self.flying
            self.flying = []

    def find_posted(self, channel: str, since) -> Posted:
        self._gate(channel, posting=False)
        if isinstance(self.history, Exception):
            raise self.history
        seen = (self.history.posts if isinstance(self.history, FakeCourier) else []) + self.posts
        found = Posted()
        for i, (c, kind, what) in enumerate(seen):
            if c == channel and kind == "header":
                found.header_ts = found.header_ts or f"{i + 1}.0"
            elif c == channel:
                found.papers.setdefault(what, (c, f"{i + 1}.0"))
        return found

    # -- what the test reads --------------------------------------------------------------------------

    def papers(self, channel: str | None = None) -> list[str]:
        return [what for c, kind, what in self.posts if kind == "paper" and channel in (None, c)]

    def headers(self, channel: str | None = None) -> list[str]:
        return [what for c, kind, what in self.posts if kind == "header" and channel in (None, c)]

    def of(self, user: str, kind: str) -> list[str]:
        """What went into ``user``'s DM: their "header"s or "paper"s."""
        return [what for c, k, what in self.posts if c == "D" + user and k == kind]


# -- the fault suite's tally -------------------------------------------------------------------------------


class Tally:
    """How often one kind of fault was tried and how often everything held. Each count also goes into the
    table the fault suite prints at the end of a run (tests/fault/probe.py), under ``name``."""

    def __init__(self, name: str):
        self.name, self.tries, self.holds = name, 0, 0

    def tried(self, n: int = 1) -> None:
        from tests.fault.probe import record  # the table belongs to the fault suite

        self.tries += n
        record(self.name, n, 0)

    def held(self, n: int = 1) -> None:
        from tests.fault.probe import record

        self.holds += n
        record(self.name, 0, n)

    def reset(self) -> None:
        """Start this tally's own counts again (the run's table keeps what it was told)."""
        self.tries = self.holds = 0

    def line(self) -> str:
        return f"{self.name}: {self.tries} tried, {self.holds} held"
