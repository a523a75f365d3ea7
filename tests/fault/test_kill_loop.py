"""The kill-9 loop: `paperbot digest` killed with SIGKILL at random moments during digests, restarted
each time, against the Slack stand-in. Whatever the moment (a post in flight, a claim half made),
nobody gets a paper twice or a header twice, and everyone ends with their digest. On SQLite and on
PostgreSQL (where a killed process's connections, transactions and advisory locks end with it).

Bounded for CI (PAPERBOT_FAULT_KILLS, default 6 times PAPERBOT_PROBE_SCALE); a bigger probe by hand, e.g.
``PAPERBOT_FAULT_KILLS=36 pytest -q -s tests/fault/test_kill_loop.py`` (it prints tried/held).
PAPERBOT_FAULT_SEED picks the kill moments (printed, to replay a failure).
"""

from __future__ import annotations

import contextlib
import os
import random
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from stand_ins.slack import SlackStandIn
from stand_ins.waiting import wait_until
from tests.e2e.harness import (
    add_people,
    bot_environment,
    opened,
    process_environment,
    query,
    standin_of_its_own,
    zone_far_from_midnight,
)
from tests.fault.probe import record, scaled

#: Kills of the run: 3 in `make test` (each one a process start, the suite's costliest part); .ci/run kills 6.
KILLS = int(os.environ.get("PAPERBOT_FAULT_KILLS") or scaled(3))
SEED = int(os.environ.get("PAPERBOT_FAULT_SEED") or random.randrange(1_000_000))
DIGEST_SIZE = 3


# A zone whose local day does not end while the loop runs: a digest at 00:00 is due all day there.
TZ = zone_far_from_midnight(("Asia/Kolkata", "Europe/Berlin", "America/New_York", "Pacific/Kiritimati"))


@pytest.fixture
def standin(monkeypatch):
    with standin_of_its_own(monkeypatch, default_tz=TZ) as s:
        yield s


def _digest(standin: SlackStandIn, db: Path) -> subprocess.Popen:
    environ = process_environment(db.parent, bot_environment(standin, db, DIGEST_SIZE))
    return subprocess.Popen([sys.executable, "-m", "bot.cli", "digest"], cwd=db.parent, env=environ,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _landed(standin: SlackStandIn) -> int:
    return sum(len(messages) for messages in list(standin.history.values()))


def _repeats(standin: SlackStandIn, users: list[str]) -> list[str]:
    """Every message a DM holds twice (a paper or the header), as "user: text"."""
    found = []
    for user in users:
        texts = Counter(m["text"] for m in standin.history.get("D" + user, []))
        found += [f"{user}: {text}" for text, n in texts.items() if n > 1]
    return found


def test_digests_killed_again_and_again_repeat_nothing_and_reach_everyone(standin, fresh_db):
    rng = random.Random(SEED)
    users = [f"UKILL{i:03d}" for i in range(4 + 2 * KILLS)]
    add_people(fresh_db, users, TZ)
    standin.delay("chat.postMessage", 0.05)  # posts take a moment: kills land mid-post too
    tried = held = 0
    while tried < KILLS:
        start = _landed(standin)
        process = _digest(standin, fresh_db)
        more = rng.randint(1, 5)  # kill after this many more messages landed (or at once if it ends)
        with contextlib.suppress(AssertionError):  # a minute at most: then it is killed all the same
            wait_until(lambda p=process, n=start + more: p.poll() is not None or _landed(standin) >= n, 60,
                       "more messages to land", pause=0.005)
        if process.poll() is not None:  # it finished everything before the kill came
            process.communicate()
            break
        process.send_signal(signal.SIGKILL)
        process.communicate(timeout=30)
        tried += 1
        held += not _repeats(standin, users)
    time.sleep(0.2)  # a post in flight at the last kill lands before the final run looks
    final = _digest(standin, fresh_db)
    out, err = final.communicate(timeout=120)
    print(f"\nkill loop (seed {SEED}): {tried} kills tried, {held} held; "
          f"{_landed(standin)} messages for {len(users)} people")
    record("kill -9 during digests, restarted", tried, held)
    assert final.returncode == 0, out + err
    assert tried >= min(KILLS, 3), f"the digests finished before enough kills (seed {SEED})"
    assert _repeats(standin, users) == [], f"seed {SEED}"
    assert held == tried
    with opened(fresh_db) as store:
        for user in users:
            messages = standin.history.get("D" + user, [])
            headers = [m for m in messages if (m.get("metadata") or {}).get("event_type")
                       == "paperbot_digest_header"]
            assert len(headers) == 1, (user, SEED)
            assert len(messages) == 1 + DIGEST_SIZE, (user, SEED)  # the header and every paper, once
            records = query(store, "select status from digests where user_id = ?", [user])
            assert records == [{"status": "sent"}], (user, SEED)
            assert len(store.shown_paper_ids(user)) == DIGEST_SIZE
