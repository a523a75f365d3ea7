"""Reaching a PostgreSQL server, for the tests (tests/storage/conftest.py) and the benchmarks
(benchmarks/pg.py), which both make throwaway databases on one; and the tests' throwaway databases
themselves (:func:`throwaway_database`, used by tests/storage/conftest.py and tests/e2e/harness.py)."""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import secrets
import socket
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


@contextlib.contextmanager
def throwaway_database(server: str, copy_of: str | None = None) -> Iterator[str]:
    """A new empty database on ``server`` (its URL), dropped on the way out; with ``copy_of`` (the URL of
    a database on that server that nobody is connected to) a copy of that one instead, which is cheaper
    than building the same contents again. The first one a process makes on a server first drops this
    checkout's leftovers there. A drop that fails (the server restarting) is left to the next run's sweep
    rather than failing the test."""
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
        try:
            with psycopg.connect(server, autocommit=True, connect_timeout=10) as admin:
                admin.execute(f'drop database if exists "{name}" with (force)')
        except psycopg.OperationalError as exc:
            warnings.warn(f"test database {name} left behind ({exc}); the next run drops it", stacklevel=2)
