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
    seeded_copy,
    slack,
    standin,
)
from tests.fakes import Tally
from tests.fault.probe import _TALLY, record


@pytest.fixture
def tally(request) -> Tally:
    """A tally named after the test (without its parameters)."""
    return Tally(request.node.originalname or request.node.name)


#: Whether this process prints the table: yes, unless it is a pytest-xdist worker (the controller prints it).
_PRINTS_TABLE = True
_TALLY_PROPERTY = "fault tally"
_SENT: dict[str, list[int]] = {}  # on a worker: the figures already sent to the controller


def pytest_configure(config) -> None:
    global _PRINTS_TABLE
    _PRINTS_TABLE = not hasattr(config, "workerinput")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """On a pytest-xdist worker, what a test added to the table travels to the controller with the test's
    last report (its teardown's): counted on a worker and kept there, it would never be printed."""
    outcome = yield
    if _PRINTS_TABLE or call.when != "teardown":
        return
    delta = {}
    for name, (tried, held) in _TALLY.items():
        sent = _SENT.get(name, [0, 0])
        if [tried, held] != sent:
            delta[name] = [tried - sent[0], held - sent[1]]
            _SENT[name] = [tried, held]
    if delta:
        outcome.get_result().user_properties.append((_TALLY_PROPERTY, delta))


def pytest_runtest_logreport(report) -> None:
    """Every fault test is a trial too: one row per file counts its cases (each case, one fault shape).
    A worker's figures (see above) join the table here, where it is printed."""
    if not _PRINTS_TABLE:
        return
    if report.when == "call" and "tests/fault/" in report.nodeid:
        record(f"cases in {report.nodeid.split('::')[0].rsplit('/', 1)[-1]}", 1, int(report.passed))
    for name, value in report.user_properties:
        if name == _TALLY_PROPERTY:
            for row, (tried, held) in value.items():
                record(row, tried, held)


def pytest_terminal_summary(terminalreporter) -> None:
    if not _TALLY:
        return
    terminalreporter.section("fault probe: tried / held")
    for name, (tried, held) in sorted(_TALLY.items()):
        terminalreporter.write_line(f"{tried:6d} / {held:6d}  {name}")
