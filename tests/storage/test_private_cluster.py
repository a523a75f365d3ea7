"""The PostgreSQL tests' fallback server: with PAPERBOT_TEST_POSTGRES unset and the default server not
answering, a test session starts a private cluster of its own where PostgreSQL is installed, and the
cluster is gone when the session's process ends; without PostgreSQL, the reason to skip is one line
naming PAPERBOT_TEST_POSTGRES.

Each case runs a fresh process (the server is chosen once per process), its default pointed at a port
where nothing listens (PAPERBOT_TEST_POSTGRES_DEFAULT)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests.storage import private_cluster
from tests.storage.conftest import DEFAULT_VARIABLE

ROOT = Path(__file__).resolve().parents[2]

SESSION = """
import json, secrets, sys
from tests.storage import conftest, private_cluster
from storage import open_store

if sys.argv[1] == "no binaries":
    private_cluster.binaries = lambda: None
problem = conftest._server_problem()
if problem:
    print(json.dumps({"skip": conftest._skip_reason(problem)}))
    sys.exit(0)
import psycopg

server = conftest._server()
name = "paperbot_test_" + secrets.token_hex(6)
with psycopg.connect(server, autocommit=True) as admin:
    admin.execute(f'create database "{name}"')
    data = admin.execute("show data_directory").fetchone()[0]
store = open_store(conftest.with_database(server, name))
try:
    store.add_topics("UPRIVATE", ["feline cats"])
    topics = store.get_topics("UPRIVATE")
finally:
    store.dispose()
print(json.dumps({"url": server, "data": data, "topics": topics, "kind": type(store).__name__}))
"""


def session(case: str) -> dict:
    """What a test process with no reachable default server chose (see SESSION), once it has exited."""
    environ = {name: value for name, value in os.environ.items() if name != "PAPERBOT_TEST_POSTGRES"}
    dead = private_cluster._free_port()  # bound and closed again: nothing listens there
    environ |= {DEFAULT_VARIABLE: f"postgresql://postgres@127.0.0.1:{dead}/postgres", "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", SESSION, case], cwd=ROOT, env=environ, capture_output=True,
                          text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1]) | {"dead": dead}


@pytest.mark.postgres
def test_without_a_server_a_private_cluster_serves_the_tests_and_is_gone_afterwards():
    if private_cluster.binaries() is None:
        pytest.skip("PostgreSQL's initdb and pg_ctl are not installed: no private cluster to start")
    try:
        private_cluster._owner()
    except private_cluster.Unavailable as exc:
        pytest.skip(str(exc))
    chose = session("private cluster")
    assert "skip" not in chose, chose["skip"]
    assert urlsplit(chose["url"]).port != chose["dead"]
    assert chose["kind"] == "PostgresStore" and chose["topics"] == ["feline cats"]
    folder = Path(chose["data"]).parent
    assert folder.name.startswith("paperbot-pg-")
    assert not folder.exists(), "the private cluster's folder outlived the test process"
    import psycopg

    with pytest.raises(psycopg.OperationalError):  # stopped with it
        psycopg.connect(chose["url"], connect_timeout=3).close()


def test_without_a_server_or_postgresql_installed_the_reason_to_skip_is_one_line_naming_the_setting():
    chose = session("no binaries")
    assert "skip" in chose, chose
    line = chose["skip"]
    assert "\n" not in line and "PAPERBOT_TEST_POSTGRES" in line and "not installed" in line, line
