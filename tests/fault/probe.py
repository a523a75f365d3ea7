"""The probe's tally: each fault test counts what it tried and what held; the run ends with a table
(see ``tests/fault/conftest.py``).

``PAPERBOT_PROBE_SCALE`` (default 1) multiplies the trials of every fault test that takes it (fuzzed
requests, kills, races), for a bigger probe by hand: ``PAPERBOT_PROBE_SCALE=10 .venv/bin/pytest tests/fault``.
"""

from __future__ import annotations

import os
from collections import defaultdict

_TALLY: dict[str, list[int]] = defaultdict(lambda: [0, 0])  # name -> [tried, held]


def scaled(n: int) -> int:
    """``n`` trials, times PAPERBOT_PROBE_SCALE."""
    return max(1, round(n * float(os.environ.get("PAPERBOT_PROBE_SCALE", "1"))))


def record(name: str, tried: int, held: int) -> None:
    """Add one fault's figures to the table printed at the end of the run."""
    _TALLY[name][0] += tried
    _TALLY[name][1] += held


class Tally:
    """What one kind of fault was tried, and how often the bot held (every invariant checked)."""

    def __init__(self, name: str):
        self.name = name

    def tried(self, n: int = 1) -> None:
        _TALLY[self.name][0] += n

    def held(self, n: int = 1) -> None:
        _TALLY[self.name][1] += n
