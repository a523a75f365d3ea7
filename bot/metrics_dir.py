"""Where the metrics of ``paperbot run`` and its digest helper processes meet: prometheus-client's
multiprocess mode, whose directory (PROMETHEUS_MULTIPROC_DIR) each process writes its counts into and
``GET /metrics`` sums.

Kept apart from :mod:`bot.metrics` because the directory must be chosen before prometheus-client is
imported (it picks its kind of counter then), and importing that module imports it.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager

VARIABLE = "PROMETHEUS_MULTIPROC_DIR"


@contextmanager
def metrics_directory(chosen: str | None) -> Iterator[str]:
    """Run the block with PROMETHEUS_MULTIPROC_DIR set (helper processes inherit it): ``chosen`` (the
    admin's, left as it is), else a private temporary directory removed on the way out."""
    if chosen:
        os.makedirs(chosen, exist_ok=True)
        os.environ[VARIABLE] = chosen
        yield chosen
        return
    folder = tempfile.mkdtemp(prefix="paperbot-metrics-")
    os.environ[VARIABLE] = folder
    try:
        yield folder
    finally:
        os.environ.pop(VARIABLE, None)
        shutil.rmtree(folder, ignore_errors=True)
