"""Fault-suite fixtures: a :class:`~tests.fault.probe.Tally` per test, and the tried/held table at the end;
the running bot's fixtures come from tests/e2e/fixtures.py (its ``store`` does not: here ``store`` stays
tests/conftest.py's fresh database). As there, a test that takes ``backend`` (itself or through
``db_path``) runs on SQLite and on PostgreSQL."""

from __future__ import annotations

import pytest

from tests.e2e.conftest import pytest_collection_modifyitems, pytest_generate_tests  # noqa: F401 (the same hooks)
from tests.e2e.fixtures import (  # noqa: F401
    backend,
    db_path,
    extra_papers,
    fresh_db,
    running,
    slack,
    standin,
)
from tests.fakes import Tally
from tests.fault.probe import _TALLY, record


@pytest.fixture
def tally(request) -> Tally:
    """A tally named after the test (without its parameters)."""
    return Tally(request.node.originalname or request.node.name)


def pytest_runtest_logreport(report) -> None:
    """Every fault test is a trial too: one row per file counts its cases (each case, one fault shape)."""
    if report.when == "call" and "tests/fault/" in report.nodeid:
        record(f"cases in {report.nodeid.split('::')[0].rsplit('/', 1)[-1]}", 1, int(report.passed))


def pytest_terminal_summary(terminalreporter) -> None:
    if not _TALLY:
        return
    terminalreporter.section("fault probe: tried / held")
    for name, (tried, held) in sorted(_TALLY.items()):
        terminalreporter.write_line(f"{tried:6d} / {held:6d}  {name}")
