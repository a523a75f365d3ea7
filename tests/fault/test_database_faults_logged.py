"""Every database fault is one line, never a traceback and never the password (issue 25): `paperbot digest`
(as cron runs it) and the scheduler inside `paperbot run` meet PostgreSQL restarting, a DBA terminating
their sessions, a table locked past the server's ``statement_timeout``, and malformed URLs. The test counts
traceback lines in what they print (0), looks for the password (absent), and checks that once the database
answers again every due digest went out exactly once.

The faults reach paperbot through a proxy the test cuts (tests/fault/pg_proxy.py) and through the test's own
session on a throwaway database: the shared server is never restarted.
"""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from urllib.parse import urlsplit, urlunsplit

import psycopg
import pytest

from stand_ins.slack import SlackStandIn
from stand_ins.waiting import wait_until
from tests.e2e.harness import (
    add_people,
    bot_environment,
    new_database,
    opened,
    process_environment,
    query,
    seed_papers,
    zone_far_from_midnight,
)
from tests.e2e.replicas import Replica
from tests.fault.pg_proxy import proxy_to

PASSWORD = "S3cretPw"  # in every URL paperbot gets; the server trusts the user, so it is never checked
PEOPLE = 24
ZONES = ("Asia/Kolkata", "America/New_York", "UTC")
#: Lines a traceback prints: its head, and the frames under it.
TRACEBACK_MARKS = ("Traceback (most recent call last)", 'File "')


def traceback_lines(text: str) -> int:
    return sum(1 for line in text.splitlines() if any(mark in line for mark in TRACEBACK_MARKS))


def with_password(url: str) -> str:
    parts = urlsplit(url)
    host = parts.netloc.rsplit("@", 1)[-1]
    user = (parts.username or "postgres") if "@" in parts.netloc else "postgres"
    return urlunsplit((parts.scheme, f"{user}:{PASSWORD}@{host}", parts.path, parts.query, ""))


def terminate_sessions(url: str) -> int:
    with psycopg.connect(url, autocommit=True) as conn:
        return len(conn.execute("select pg_terminate_backend(pid) from pg_stat_activity where datname ="
                                " current_database() and pid <> pg_backend_pid()").fetchall())


def lock_digests(url: str, seconds: float, locked: threading.Event) -> None:
    """Hold ``digests`` ACCESS EXCLUSIVE for ``seconds``, as a DBA's migration or a stuck job would."""
    with psycopg.connect(url) as conn:
        conn.execute("lock table digests in access exclusive mode")
        locked.set()
        time.sleep(seconds)  # the lock's length: what paperbot must outwait
        conn.rollback()


def digest_cli(folder, standin: SlackStandIn, url: str) -> subprocess.Popen:
    environ = process_environment(folder, bot_environment(standin, url))
    return subprocess.Popen([sys.executable, "-m", "bot.cli", "digest", "--force"], cwd=folder, env=environ,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def sent_to(standin: SlackStandIn, users: list[str]) -> dict[str, int]:
    channels = [str(c.params.get("channel")) for c in standin.calls("chat.postMessage")]
    return {user: channels.count("D" + user) for user in users}


def fault(kind: str, target: str, proxy) -> None:
    """Bring fault ``kind`` on, and off again, while paperbot works."""
    if kind == "restart":
        proxy.cut()
        time.sleep(3.0)  # the restart's length: the server is away meanwhile
        proxy.restore()
    elif kind == "terminate":
        assert terminate_sessions(str(target)) > 0
    elif kind == "lock":  # new sessions get a 1-s statement_timeout; the lock outlasts it
        name = urlsplit(str(target)).path.lstrip("/")
        with psycopg.connect(str(target), autocommit=True) as conn:
            conn.execute(f"alter database {name} set statement_timeout = '1s'")
        terminate_sessions(str(target))  # so the pool's next sessions take the setting
        locked = threading.Event()
        holder = threading.Thread(target=lock_digests, args=(str(target), 4.0, locked))
        holder.start()
        holder.join()
        with psycopg.connect(str(target), autocommit=True) as conn:
            conn.execute(f"alter database {name} reset statement_timeout")
    else:
        raise ValueError(kind)


@pytest.mark.parametrize("kind", ["restart", "terminate", "lock"])
def test_paperbot_digest_through_a_database_fault_prints_one_line_and_the_next_run_finishes_the_rest(
        tmp_path, kind):
    users = [f"UCLI{kind[:3].upper()}{i:03d}" for i in range(PEOPLE)]
    with SlackStandIn() as standin, new_database(tmp_path, "postgres") as target:
        seed_papers(target)
        add_people(target, users, tz=zone_far_from_midnight(ZONES))
        standin.delay("chat.postMessage", 0.1)  # the run is under way when the fault comes
        with proxy_to(str(target)) as proxy:
            url = with_password(proxy.url(str(target)))
            run = digest_cli(tmp_path, standin, url)
            wait_until(lambda: sum(sent_to(standin, users).values()) >= 12 or run.poll() is not None,
                       timeout=120, what="the digests under way")
            fault(kind, target, proxy)
            out, said = run.communicate(timeout=180)
            then = out + said
            again = digest_cli(tmp_path, standin, url)  # cron's next run, after the fault
            out, err = again.communicate(timeout=180)
        printed = then + out + err
        print(f"{kind}: the run during the fault exited {run.returncode} and warned:\n{said.strip()}")
        assert traceback_lines(printed) == 0, printed
        assert PASSWORD not in printed, printed
        assert len(said.splitlines()) <= 6, said  # the fault said once, not once for each person
        assert again.returncode == 0, printed
        with opened(target) as store:
            wait_until(lambda: len(query(store, "select 1 from digests where status = 'sent'")) == PEOPLE,
                       timeout=60, what="every digest sent")
        assert set(sent_to(standin, users).values()) == {1 + 3}, sent_to(standin, users)  # each once


def test_the_scheduler_in_paperbot_run_logs_a_restart_and_a_lock_past_the_statement_timeout_in_one_line_each(
        tmp_path):
    users = [f"URUNLOCK{i:03d}" for i in range(PEOPLE)]
    with SlackStandIn() as standin, new_database(tmp_path, "postgres") as target:
        seed_papers(target)
        add_people(target, users, tz=zone_far_from_midnight(ZONES))
        standin.delay("chat.postMessage", 0.1)
        with proxy_to(str(target)) as proxy:
            replica = Replica("faults", standin, with_password(proxy.url(str(target))), tmp_path / "bot")
            try:
                replica.wait_until_listening()
                wait_until(lambda: sum(sent_to(standin, users).values()) >= 8, timeout=120,
                           what="the digests under way")
                fault("lock", target, proxy)
                fault("restart", target, proxy)
                with opened(target) as store:
                    wait_until(lambda: len(query(store, "select 1 from digests where status = 'sent'"))
                               == PEOPLE, timeout=180, what="every digest sent")
            finally:
                replica.stop()
        log = replica.log
        faults = [line for line in log.splitlines() if "WARNING" in line or "ERROR" in line]
        print("the scheduler's warnings and errors:\n" + "\n".join(faults))
        assert traceback_lines(log) == 0, log
        assert PASSWORD not in log
        assert len(faults) <= 12, faults  # each fault said once a run, not once for each person
        assert set(sent_to(standin, users).values()) == {1 + 3}, sent_to(standin, users)


BRACKET = f"postgresql://user:{PASSWORD}@[host:5432/db"  # a bracket left open
MISSPELT = f"postgresql://user:{PASSWORD}@127.0.0.1:5432/db?sslmod=require"  # a misspelt parameter
NOBODY = f"postgresql://user:{PASSWORD}@127.0.0.1:9/paperbot"  # nothing listens there


@pytest.mark.parametrize(("command", "url"), [  # each URL, and each kind of command, once
    (["digest"], BRACKET), (["run", "--port", "0"], NOBODY), (["search", "graph networks"], MISSPELT),
    (["workspaces"], NOBODY),
])
def test_a_database_that_cant_be_opened_at_start_is_one_line_without_the_password(tmp_path, command, url):
    with SlackStandIn() as standin:
        environ = process_environment(tmp_path, bot_environment(standin, url))
        done = subprocess.run([sys.executable, "-m", "bot.cli", *command], cwd=tmp_path, env=environ,
                              stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120)
    printed = done.stdout + done.stderr
    assert done.returncode == 1, printed
    assert traceback_lines(printed) == 0 and PASSWORD not in printed, printed
    said = [line for line in printed.splitlines() if line.strip()]
    assert len(said) == 1 and "database" in said[0], said
