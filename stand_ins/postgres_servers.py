"""Reaching a PostgreSQL server, for the tests (tests/storage/conftest.py) and the benchmarks
(benchmarks/pg.py), which both make throwaway databases on one; and the tests' throwaway databases
themselves (:func:`throwaway_database`, used by tests/storage/conftest.py and tests/e2e/harness.py)."""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import os
import queue
import re
import secrets
import socket
import threading
import time
import warnings
from collections.abc import Iterable, Iterator
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

DEFAULT_SERVER = "postgresql://postgres@127.0.0.1:5432/postgres"
#: What :func:`problem` says when the driver itself is missing (no server can help then).
NO_DRIVER = "psycopg is not installed (pip install -e '.[postgres]')"


def with_database(url: str, name: str) -> str:
    """``url`` pointing at database ``name`` on the same server."""
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, "/" + name, parts.query, parts.fragment))


def problem(url: str) -> str | None:
    """Why the server at ``url`` can't be used, in one line; None when it answers."""
    try:
        import psycopg
    except ImportError:
        return NO_DRIVER
    try:
        psycopg.connect(url, autocommit=True, connect_timeout=3).close()
    except psycopg.Error as exc:
        return str(exc).strip().splitlines()[0][:160]
    return None


# -- throwaway databases ---------------------------------------------------------------------------------
#
# Several checkouts (and several people) run the suite against one server at once, each with parallel
# workers. A database's name says whose it is, so a run can drop the leftovers of its own earlier runs (a
# server restart, a killed run) without touching anyone else's: ``paperbot_test_<owner>_<pid>_<random>``,
# where <owner> stands for this host and checkout and <pid> is the process that made it. A name is a
# leftover when its owner is ours and that process is gone.

PREFIX = "paperbot_test_"
_NAME = re.compile(rf"{PREFIX}([0-9a-f]{{8}})_(\d+)_[0-9a-f]{{8}}")
#: The checkout these tests run from: two checkouts on one host are two owners.
CHECKOUT = Path(__file__).resolve().parents[1]


def owner_tag(host: str | None = None, checkout: Path | str = CHECKOUT) -> str:
    """Eight hex digits standing for (host, checkout): the part of a database's name that says whose it is."""
    seed = f"{host or socket.gethostname()}\0{checkout}"
    return hashlib.blake2s(seed.encode(), digest_size=4).hexdigest()


def database_name(pid: int | None = None, tag: str | None = None) -> str:
    """A fresh name for a throwaway database of this process (by default), on this host and checkout."""
    return f"{PREFIX}{tag or owner_tag()}_{os.getpid() if pid is None else pid}_{secrets.token_hex(4)}"


def process_alive(pid: int) -> bool:
    """Whether process ``pid`` runs on this host (a process of another user counts)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def leftovers(names: Iterable[str], tag: str | None = None) -> list[str]:
    """Those of ``names`` that this host and checkout made in a process that is gone; every other name
    (another checkout's or host's, a live process's, a name of another shape) is someone else's."""
    tag = tag or owner_tag()
    found = []
    for name in names:
        match = _NAME.fullmatch(name)
        if match and match[1] == tag and not process_alive(int(match[2])):
            found.append(name)
    return sorted(found)


def drop_leftovers(server: str, tag: str | None = None) -> list[str]:
    """Drop this checkout's leftover test databases on ``server`` (see :func:`leftovers`); their names."""
    import psycopg

    with psycopg.connect(server, autocommit=True, connect_timeout=3) as admin:
        rows = admin.execute("select datname from pg_database where datname like %s",
                             [PREFIX.replace("_", r"\_") + "%"]).fetchall()
        gone = leftovers((row[0] for row in rows), tag)
        for name in gone:
            admin.execute(f'drop database if exists "{name}" with (force)')
    return gone


_swept: set[str] = set()  # servers this process has already cleared of leftovers


def _drop(server: str, name: str) -> None:
    """Drop database ``name`` on ``server``; one that can't be (the server restarting) is left to the next
    run's sweep rather than failing the test."""
    import psycopg

    try:
        with psycopg.connect(server, autocommit=True, connect_timeout=10) as admin:
            admin.execute(f'drop database if exists "{name}" with (force)')
    except psycopg.OperationalError as exc:
        warnings.warn(f"test database {name} left behind ({exc}); the next run drops it", stacklevel=3)


class _LaterDrops:
    """Drops done by one background thread, so that no test waits for them: PostgreSQL 15 makes every DROP
    DATABASE wait for a checkpoint, which flushes what every other test on the server has written (0.1 s on
    a quiet server, up to 5 s under the parallel suite, 2026-12-07). :func:`finish_drops` waits for them."""

    def __init__(self) -> None:
        self._queue: queue.Queue[tuple[str, str] | None] = queue.Queue()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def put(self, server: str, name: str) -> None:
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="drop-test-databases", daemon=True)
                self._thread.start()
                atexit.register(self.finish)
        self._queue.put((server, name))

    def _run(self) -> None:
        while (item := self._queue.get()) is not None:
            with contextlib.suppress(Exception):  # a drop left undone is the next run's sweep's
                _drop(*item)

    def finish(self) -> None:
        with self._lock:
            thread, self._thread = self._thread, None
        if thread is not None:
            self._queue.put(None)
            thread.join()


_later = _LaterDrops()


def finish_drops() -> None:
    """Wait for the drops :func:`throwaway_database` left to the background (``later=True``)."""
    _later.finish()


@contextlib.contextmanager
def throwaway_database(server: str, copy_of: str | None = None, *, later: bool = False) -> Iterator[str]:
    """A new empty database on ``server`` (its URL), dropped on the way out; with ``copy_of`` (the URL of
    a database on that server that nobody is connected to) a copy of that one instead, which is cheaper
    than building the same contents again. The first one a process makes on a server first drops this
    checkout's leftovers there. A drop that fails (the server restarting) is left to the next run's sweep
    rather than failing the test. ``later``: the drop is queued to a background thread instead of waited
    for (:func:`finish_drops` waits; a process that dies first leaves it to the next run's sweep)."""
    import psycopg

    if server not in _swept:
        _swept.add(server)
        drop_leftovers(server)
    name = database_name()
    with psycopg.connect(server, autocommit=True, connect_timeout=3) as admin:
        template = f' template "{urlsplit(copy_of).path.lstrip("/")}"' if copy_of else ""
        for attempt in range(50):
            try:
                admin.execute(f'create database "{name}"{template}')
                break
            except psycopg.errors.ObjectInUse:  # a session on the original is still closing
                if attempt == 49:
                    raise
                time.sleep(0.1)
    try:
        yield with_database(server, name)
    finally:
        if later:
            _later.put(server, name)
        else:
            _drop(server, name)
