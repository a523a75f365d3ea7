"""End-to-end fixtures: a running bot per test file (see tests/e2e/fixtures.py)."""

from tests.e2e.fixtures import db_path, extra_papers, running, slack, standin, store  # noqa: F401
