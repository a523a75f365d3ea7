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

