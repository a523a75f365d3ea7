"""End-to-end fixtures: a running bot per test file and backend (see tests/e2e/fixtures.py)."""

from tests.e2e.fixtures import (  # noqa: F401
    backend,
    db_path,
    extra_papers,
    fresh_db,
    parametrize_backend,
    running,
    seeded_copy,
    slack,
    standin,
    store,
)
from tests.storage.conftest import mark_postgres_skips


def pytest_generate_tests(metafunc):
    parametrize_backend(metafunc)


def pytest_collection_modifyitems(config, items):
    mark_postgres_skips(items)  # one skip line per file without a server, as in tests/storage
