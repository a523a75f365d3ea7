"""The running bot's fixtures, shared by the end-to-end and fault files: per test file one Slack stand-in,
one seeded database and one bot serving them (a bot per test would make the suite slow).

tests/e2e/conftest.py and tests/fault/conftest.py expose them. A file overrides only what differs:
``extra_papers`` to seed more papers, ``running`` to start its bot another way, ``slack`` for a scope of
its own; a module constant ``BACKEND`` runs it on one backend whatever PAPERBOT_TEST_BACKEND says.
"""

from __future__ import annotations

import pytest

from tests.e2e.harness import FakeSlack, new_database, opened, seed_papers, serving, test_backend
from tests.e2e.slack_standin import SlackStandIn


@pytest.fixture(scope="module")
def standin():
    with SlackStandIn(default_tz="Europe/Berlin") as s:
        yield s


@pytest.fixture(scope="module")
def extra_papers() -> list[dict]:
    """Paper records seeded on top of the five-topic corpus."""
    return []


@pytest.fixture(scope="module")
def db_path(tmp_path_factory, request, extra_papers):
    """The file's database (a file in a folder named after the test file, or a throwaway PostgreSQL
    database), seeded through the ingest use case. A test file's ``BACKEND`` ("sqlite" or "postgres")
    wins over PAPERBOT_TEST_BACKEND."""
    backend = getattr(request.module, "BACKEND", None) or test_backend()
    with new_database(tmp_path_factory.mktemp(request.module.__name__.rsplit(".", 1)[-1]), backend) as path:
        seed_papers(path, extra=extra_papers)
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
