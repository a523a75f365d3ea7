"""End-to-end fixtures: a running bot per test file and backend (see tests/e2e/fixtures.py)."""

from tests.e2e.fixtures import (  # noqa: F401
    backend,
    db_path,
    extra_papers,
    parametrize_backend,
    running,
    slack,
    standin,
    store,
)


def pytest_generate_tests(metafunc):
    parametrize_backend(metafunc)
