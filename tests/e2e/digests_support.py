"""What the two files of daily digests end to end share (tests/e2e/test_digests.py: the scheduler inside
the running bot; tests/e2e/test_digest_cli.py: `paperbot digest` from the command line): reading the
stand-in's record of a person's DM, a test's clean environment, and `paperbot digest` as a process. Two
files, so that loadfile can run them on two workers; each defines its own fixtures (a stand-in of its own).
"""

from __future__ import annotations

import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

from stand_ins.slack import SlackStandIn
from tests.e2e.harness import SLACK_ENVIRONMENT, bot_environment, posts_to, process_environment


def dispose(store) -> None:
    getattr(store, "dispose", store.close)()


def dm(user: str) -> str:
    return "D" + user


def headers(standin: SlackStandIn, user: str) -> list:
    return [c for c in posts_to(standin, dm(user)) if not c.params.get("blocks")]


def papers(standin: SlackStandIn, user: str) -> list[str]:
    """The titles of the paper messages posted into the person's DM, in order."""
    return [c.params["text"] for c in posts_to(standin, dm(user)) if c.params.get("blocks")]


def local_day(tz: str) -> str:
    return datetime.now(UTC).astimezone(ZoneInfo(tz)).date().isoformat()


def at_the_start_of_a_minute() -> datetime:
    """Now, but not in a minute's last seconds (so that a time set now is still this minute)."""
    now = datetime.now(UTC)
    if now.second >= 55:
        time.sleep(60.5 - now.second)  # the bot's process reads the real clock: into the next minute
        now = datetime.now(UTC)
    return now


def cleared(monkeypatch, standin: SlackStandIn):
    """What each test's autouse fixture does: the developer's Slack variables cleared (Bolt reads some of
    them itself), the stand-in's record emptied before and after the test."""
    for name in SLACK_ENVIRONMENT:
        monkeypatch.delenv(name, raising=False)
    standin.reset()
    yield
    standin.reset()


def cli(standin: SlackStandIn, db: Path, *args: str, digest_size: int = 3, env: dict | None = None,
        wait: bool = True):
    """`paperbot digest ARGS` as its own process, as cron would run it."""
    environ = process_environment(db.parent, {**bot_environment(standin, db, digest_size), **(env or {})})
    process = subprocess.Popen([sys.executable, "-m", "bot.cli", "digest", *args], cwd=db.parent, env=environ,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if not wait:
        return process
    out, err = process.communicate(timeout=60)
    return process.returncode, out, err
