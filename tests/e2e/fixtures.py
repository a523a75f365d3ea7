"""The running bot's fixtures, shared by the end-to-end and fault files: per test file one Slack stand-in,
one seeded database and one bot serving them (a bot per test would make the suite slow).

tests/e2e/conftest.py and tests/fault/conftest.py expose them. A file overrides only what differs:
``extra_papers`` to seed more papers, ``running`` to start its bot another way, ``slack`` for a scope of
its own.

Every test that takes ``backend`` (itself, or through ``db_path``) runs once per backend, SQLite and
PostgreSQL (:func:`parametrize_backend`; PAPERBOT_TEST_BACKEND picks one); the parameter is per module, so
a file's tests share one bot per backend. A module constant ``BACKEND`` ("sqlite" or "postgres") runs that
file on one backend only: a test that is about one backend by nature says why in its docstring.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest

from stand_ins.slack import SlackStandIn
from tests.e2e.harness import (
    FakeSlack,
    PostgresTarget,
    new_database,
    opened,
    seed_papers,
    serving,
    test_backend,
    test_backends,
)


def parametrize_backend(metafunc) -> None:
    """pytest_generate_tests of the suites that use these fixtures: ``backend`` takes each backend in turn,
    at module scope (pytest then runs a file's tests on SQLite, then on PostgreSQL)."""
    if "backend" in metafunc.fixturenames:
        pinned = getattr(metafunc.module, "BACKEND", None)
        metafunc.parametrize("backend", [pinned] if pinned else list(test_backends()), scope="module")


@pytest.fixture(scope="module")
def backend() -> str:
    """The backend of the file's database (parametrised by :func:`parametrize_backend`)."""
    return test_backend()


@pytest.fixture(scope="module")
def standin(backend):
    """The file's Slack stand-in, one per backend: its record of calls (kept across tests) must not show
    one backend's run what the other's did under the same keys."""
    with SlackStandIn(default_tz="Europe/Berlin") as s:
        yield s


@pytest.fixture(scope="module")
def extra_papers() -> list[dict]:
    """Paper records seeded on top of the five-topic corpus."""
    return []


@pytest.fixture(scope="module")
def db_path(tmp_path_factory, request, extra_papers, backend, seeded_copy):
    """The file's database on ``backend`` (a file in a folder named after the test file, or a throwaway
    PostgreSQL database), seeded through the ingest use case: a copy of the worker's seeded database
    (:func:`seeded_copy`) unless the file seeds papers of its own."""
    folder = tmp_path_factory.mktemp(request.module.__name__.rsplit(".", 1)[-1] + "-" + backend)
    if not extra_papers:
        with seeded_copy(folder, backend) as path:
            yield path
        return
    with new_database(folder, backend) as path:
        seed_papers(path, extra=extra_papers)
        yield path


@pytest.fixture(scope="session")
def seeded_copy(tmp_path_factory):
    """``seeded_copy(folder, backend)``: a context giving a database of its own in ``folder`` on ``backend``,
    seeded with the five-topic corpus as :func:`seed_papers` seeds it. The seeding (schema, ingest, fit) is
    done once per backend and worker; each database is a copy of that one (:func:`new_database`)."""
    with contextlib.ExitStack() as originals:
        seeded: dict[str, Path | PostgresTarget] = {}

        def copy(folder: Path, backend: str):
            if backend not in seeded:
                made = originals.enter_context(new_database(tmp_path_factory.mktemp(f"seeded-{backend}"),
                                                            backend))
                seed_papers(made)
                seeded[backend] = made
            return new_database(folder, backend, copy_of=seeded[backend])

        yield copy


@pytest.fixture
def fresh_db(tmp_path, backend, seeded_copy):
    """A database of the test's own on the file's backend, seeded with the five-topic corpus: for a test
    that runs paperbot's own processes on it and counts what they did."""
    with seeded_copy(tmp_path, backend) as path:
        yield path


@pytest.fixture(scope="module")
def running(standin, db_path):
    with serving(standin, db_path) as bot:
        yield bot


@pytest.fixture
def slack(running, standin):
    """Slack's side of the conversation, with the stand-in emptied before and after the test."""
    standin.reset()
    yield FakeSlack(running.url, standin)
    standin.reset()


@pytest.fixture
def store(db_path):
    """The running bot's own database (in tests/e2e, where it replaces tests/conftest.py's fresh one)."""
    with opened(db_path) as s:
        yield s
