"""The end-to-end and fault suites' harness: which backends their databases are made on, the bot's own
pieces run in the test's process, its logs, and what the tests read back. What the benchmarks drive the bot
with too (signed requests, seeded databases, the environment) is in stand_ins/driving.py.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import os
import re
import sqlite3
import subprocess
import threading
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from bot.config import Settings
from bot.slack.app import SlackBot
from bot.slack.delivery.digests import DigestScheduler
from bot.slack.manifest import EVENTS_PATH
from bot.slack.server import HttpServer, open_bot, start_scheduler
from stand_ins.driving import (
    BOT_TOKEN,
    DIGEST_TOPICS,
    ROOT,
    SIGNING_SECRET,
    SLACK_ENVIRONMENT,
    TEAM_ID,
    Answer,
    FakeSlack,
    PostgresTarget,
    Reply,
    add_people,
    bot_environment,
    opened,
    process_environment,
    query,
    seed_papers,
)
from stand_ins.slack import RESPONSE_URL, SlackStandIn
from stand_ins.waiting import wait_until
from storage import SqliteStore

# -- the backend under test ---------------------------------------------------------------------------

#: The end-to-end and fault suites run every test that takes the ``backend`` fixture (tests/e2e/fixtures.py)
#: once per backend: on a SQLite file and on a throwaway PostgreSQL database (on the server
#: tests/storage/conftest.py picks). ``PAPERBOT_TEST_BACKEND=sqlite`` (or ``postgres``) runs them on that
#: one only.
BACKEND_VARIABLE = "PAPERBOT_TEST_BACKEND"
BACKENDS = ("sqlite", "postgres")


def test_backends() -> tuple[str, ...]:
    """The backends the end-to-end databases are made on: both, unless PAPERBOT_TEST_BACKEND names one."""
    chosen = os.environ.get(BACKEND_VARIABLE, "").strip().lower()
    if not chosen:
        return BACKENDS
    if chosen not in BACKENDS:
        raise pytest.UsageError(f"{BACKEND_VARIABLE} must be sqlite or postgres, not {chosen!r}")
    return (chosen,)


def test_backend() -> str:
    """The backend of a database made without saying which: the first of :func:`test_backends`."""
    return test_backends()[0]


test_backends.__test__ = test_backend.__test__ = False  # helpers, not tests


@contextlib.contextmanager
def new_database(folder: Path, backend: str | None = None,
                 copy_of: Path | PostgresTarget | None = None) -> Iterator[Path | PostgresTarget]:
    """An empty database for one bot: ``folder``/paperbot.db, or (on "postgres") a throwaway PostgreSQL
    database dropped on the way out. Skips without a server (fails with PAPERBOT_REQUIRE_POSTGRES=1).
    With ``copy_of`` (another database of the same backend, closed) it starts as a copy of that one: what
    many tests would build alike is built once."""
    if (backend or test_backend()) == "sqlite":
        path = folder / "paperbot.db"
        if copy_of is not None:
            copy_sqlite_file(Path(copy_of), path)
        yield path
        return
    from stand_ins.postgres_servers import throwaway_database
    from tests.storage.conftest import _server, _server_problem, _skip_reason

    problem = _server_problem()
    if problem:
        if os.environ.get("PAPERBOT_REQUIRE_POSTGRES") == "1":
            pytest.fail(_skip_reason(problem) + " (PAPERBOT_REQUIRE_POSTGRES=1 makes this a failure)",
                        pytrace=False)
        pytest.skip(_skip_reason(problem))
    with throwaway_database(_server(), copy_of, later=True) as url:
        yield PostgresTarget(url, folder)


def copy_sqlite_file(source: Path, target: Path) -> None:
    """A copy of the closed SQLite database ``source`` at ``target``, through SQLite's backup (whatever a
    journal still holds comes along)."""
    with contextlib.closing(sqlite3.connect(source)) as src, \
            contextlib.closing(sqlite3.connect(target)) as dst:
        src.backup(dst)


def table_columns(store) -> dict[str, list[str]]:
    """Every table of the database with its columns: what a test that looks for traces goes through."""
    if isinstance(store, SqliteStore):
        return {t: [c[1] for c in store.db.execute(f"pragma table_info('{t}')")]
                for t in store.db.table_names()}
    rows = store._rows("select table_name, column_name from information_schema.columns"
                       " where table_schema = 'public' order by table_name, ordinal_position")
    tables: dict[str, list[str]] = {}
    for row in rows:
        tables.setdefault(row["table_name"], []).append(row["column_name"])
    return tables


def zone_far_from_midnight(zones: tuple[str, ...]) -> str:
    """The first of ``zones`` where it is now 01:00 to 21:59 (else UTC): its local day does not end within
    the next two hours, so a digest at 00:00 there stays due while a test runs."""
    now = datetime.now(UTC)
    for tz in zones:
        if 1 <= now.astimezone(ZoneInfo(tz)).hour <= 21:
            return tz
    return "UTC"


class RunningBot:
    """`paperbot run`'s own pieces (settings, Bolt app, uvicorn server) in a thread on a free port; with
    ``digest_interval`` (seconds) also its digest scheduler, ticking that often."""

    def __init__(self, environ: dict[str, str], digest_interval: float | None = None):
        self.settings = Settings.load(environ=environ, dotenv=None)
        self.bot: SlackBot = open_bot(self.settings)
        self.scheduler: DigestScheduler | None = None
        if digest_interval is not None:
            self.scheduler = start_scheduler(self.bot, self.settings, digest_interval)
        self.bot.runtime.background.start()  # as `paperbot run` does: the inbox's sweep
        self.server = HttpServer(self.bot, "127.0.0.1", 0)
        self.url = f"http://127.0.0.1:{self.server.port}{EVENTS_PATH}"
        self._thread = threading.Thread(target=self.server.run, name="paperbot-http", daemon=True)
        self._thread.start()

        def started() -> bool:
            if not self._thread.is_alive() and not self.server.started:
                raise RuntimeError("the bot's HTTP server ended before it started")
            return self.server.started

        wait_until(started, 10, "the bot's HTTP server to start", pause=0.01)

    def settle(self, timeout: float = 15.0) -> None:
        """Until the work after every request acknowledged so far has been carried out (the listeners
        queue it before the ack): what a test then reads is final, and a request that must change nothing
        has had its chance to. Work a failure put back for later is not waited for."""
        background = self.bot.runtime.background
        wait_until(lambda: background.busy() == 0, timeout, "the work after the acks to be carried out")

    def stop(self) -> None:
        self.server.stop()
        self._thread.join(timeout=30)
        if self.scheduler is not None:
            self.scheduler.shutdown()
        self.bot.close()


@contextlib.contextmanager
def standin_of_its_own(monkeypatch, **options) -> Iterator[SlackStandIn]:
    """A Slack stand-in for one test alone (its record of calls is that test's), with the developer's Slack
    variables cleared meanwhile: for a test that runs paperbot's own processes against it."""
    for name in SLACK_ENVIRONMENT:
        monkeypatch.delenv(name, raising=False)
    with SlackStandIn(**options) as standin:
        yield standin


@contextlib.contextmanager
def serving(standin: SlackStandIn, db_path: Path | str,
            digest_interval: float | None = None) -> Iterator[RunningBot]:
    """A :class:`RunningBot` over ``db_path`` talking to ``standin``, stopped on the way out; the developer's
    Slack variables are cleared meanwhile (Bolt reads some of them itself) and restored afterwards."""
    with pytest.MonkeyPatch.context() as mp:
        for name in SLACK_ENVIRONMENT:
            mp.delenv(name, raising=False)
        bot = RunningBot(bot_environment(standin, db_path), digest_interval=digest_interval)
        try:
            yield bot
        finally:
            bot.stop()


LISTENING = re.compile(r"listening on http://[\d.]+:(\d+)(/slack/events)")


def listening_url(process: subprocess.Popen) -> str:
    """The events URL that `paperbot run --port 0` (started with ``stderr=PIPE, text=True``) says it
    listens on; it fails with everything the process wrote if it ends first."""
    lines: list[str] = []
    while not lines or not (match := LISTENING.search(lines[-1])):
        lines.append(process.stderr.readline())
        assert lines[-1], "".join(lines) + process.stderr.read()
    return f"http://127.0.0.1:{match[1]}{match[2]}"


def user_ids(prefix: str, digits: int = 4) -> Callable[[], str]:
    """A maker of fresh user ids (``PREFIX0001``, ``PREFIX0002``, ...). Each file takes a prefix of its own:
    a file's tests share one database, and people must not meet across tests or files."""
    counter = itertools.count(1)
    return lambda: f"{prefix}{next(counter):0{digits}d}"


class LogCapture(logging.Handler):
    """Every log record (root and uvicorn's own loggers, which don't propagate) as formatted lines,
    tracebacks included. Use as a context manager."""

    LOGGERS = ("", "uvicorn", "uvicorn.error")

    def __init__(self, level: int = logging.INFO):
        super().__init__(level)
        self.setFormatter(logging.Formatter("%(levelname)s %(name)s %(message)s"))
        self.lines: list[str] = []
        self._levels: dict[str, int] = {}

    def emit(self, record: logging.LogRecord) -> None:  # logging holds self.lock around this
        self.lines.append(self.format(record))

    @property
    def text(self) -> str:
        with self.lock:
            return "\n".join(self.lines)

    def clear(self) -> None:
        with self.lock:
            self.lines.clear()

    def __enter__(self) -> LogCapture:
        for name in self.LOGGERS:
            logger = logging.getLogger(name)
            self._levels[name] = logger.level
            logger.addHandler(self)
            if logger.getEffectiveLevel() > self.level:
                logger.setLevel(self.level)
        return self

    def __exit__(self, *exc) -> None:
        for name in self.LOGGERS:
            logger = logging.getLogger(name)
            logger.removeHandler(self)
            logger.setLevel(self._levels[name])


def table_counts(db_path: Path | str) -> dict[str, int]:
    """Rows in every table of the database: what a refused request must leave unchanged. The inbox is
    left out: it keeps every acknowledged request's key for a day (to turn a replay away), with nothing
    of what it asked once it is carried out."""
    with opened(db_path) as store:
        return {name: query(store, f"select count(*) as n from {name}")[0]["n"]
                for name in table_columns(store) if name != "inbox"}


def posts_to(standin: SlackStandIn, channel: str) -> list:
    """Successful chat.postMessage calls into ``channel``, oldest first."""
    return [c for c in standin.calls("chat.postMessage", channel=channel) if c.status == 200]


__all__ = ["BOT_TOKEN", "DIGEST_TOPICS", "RESPONSE_URL", "ROOT", "SIGNING_SECRET", "SLACK_ENVIRONMENT",
           "TEAM_ID", "Answer", "FakeSlack", "LogCapture", "PostgresTarget", "Reply", "RunningBot",
           "add_people", "bot_environment", "listening_url", "opened", "posts_to", "process_environment",
           "query", "seed_papers", "serving", "standin_of_its_own", "table_counts", "user_ids",
           "zone_far_from_midnight"]
