"""Throwaway PostgreSQL databases for the benchmarks: made, cloned, measured and dropped on one server.

The server is ``PAPERBOT_BENCH_POSTGRES`` (a ``postgresql://`` URL) when set, else the local default.
Every database a benchmark makes is named ``paperbot_bench_<random>_…`` and dropped when it ends, also
when it fails. Cloning uses ``CREATE DATABASE … TEMPLATE …``: a file-level copy on the server, so each
timed run starts from the same state in a fraction of a second (no re-ingest, no ``db copy``).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import secrets
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

from stand_ins.postgres_servers import DEFAULT_SERVER, with_database
from stand_ins.postgres_servers import problem as problem  # the benchmarks ask pg.problem(url)

ENV = "PAPERBOT_BENCH_POSTGRES"


def server_url(given: str | None = None) -> str:
    """The server to use: ``given``, else $PAPERBOT_BENCH_POSTGRES, else the local default."""
    return given or os.environ.get(ENV) or DEFAULT_SERVER


def answering_server(given: str | None, otherwise: str) -> str:
    """:func:`server_url` once it answers; else the benchmark stops in one line naming the settings and
    ``otherwise`` (how to run it without PostgreSQL, e.g. "pass --backend sqlite")."""
    url = server_url(given)
    if why := problem(url):
        raise SystemExit(f"no PostgreSQL server at {url} ({why}): set {ENV} or --postgres to a "
                         f"postgresql:// URL, or {otherwise}")
    return url


def add_backend_options(parser: argparse.ArgumentParser, default: str = "both") -> None:
    """``--backend`` (sqlite, postgres, and both unless ``default`` names one) and ``--postgres URL``."""
    choices = ["sqlite", "postgres"] + (["both"] if default == "both" else [])
    parser.add_argument("--backend", choices=choices, default=default)
    parser.add_argument("--postgres", metavar="URL",
                        help=f"the PostgreSQL server for the throwaway database (default: ${ENV}, else "
                             f"{DEFAULT_SERVER})")


def chosen_server(args: argparse.Namespace) -> str | None:
    """The answering server when ``--backend`` asks for PostgreSQL (:func:`answering_server`), else None."""
    return answering_server(args.postgres, "pass --backend sqlite") if args.backend != "sqlite" else None


def _admin(url: str, sql: str) -> list[tuple]:
    import psycopg

    # Identifiers below are made here (``Server``), never taken from input.
    with psycopg.connect(url, autocommit=True, connect_timeout=10) as conn:
        cur = conn.execute(sql)
        return cur.fetchall() if cur.description else []


def version(url: str) -> str:
    """The server's version, e.g. "PostgreSQL 15.20"."""
    return " ".join(_admin(url, "select version()")[0][0].split()[:2])


class Server:
    """The databases one benchmark run makes on one server; :meth:`drop_all` drops every one."""

    def __init__(self, url: str):
        self.url = url
        self.prefix = f"paperbot_bench_{secrets.token_hex(4)}"
        self.made: list[str] = []

    def url_of(self, name: str) -> str:
        return with_database(self.url, name)

    def create(self, suffix: str, template: str | None = None) -> str:
        """A new database ``<prefix>_<suffix>`` (a copy of database ``template`` when given, which
        nobody may be connected to); returns its name. An older one of that name is dropped first."""
        name = f"{self.prefix}_{suffix}"
        self.drop(name)
        _admin(self.url, f'create database "{name}"' + (f' template "{template}"' if template else ""))
        self.made.append(name)
        return name

    def filled_from(self, suffix: str, sqlite_file: str | Path, env: dict, cwd: Path) -> str:
        """A new database ``<prefix>_<suffix>`` holding what the SQLite file holds (:func:`db_copy`), its
        planner statistics made (:meth:`vacuum_analyze`); returns its name."""
        name = self.create(suffix)
        db_copy(sqlite_file, self.url_of(name), env, cwd)
        self.vacuum_analyze(name)
        return name

    def drop(self, name: str) -> None:
        """Drop database ``name`` if it exists, closing any connection left to it."""
        _admin(self.url, f'drop database if exists "{name}" with (force)')

    def size(self, name: str) -> int:
        """Bytes on disk of database ``name`` (``pg_database_size``)."""
        return int(_admin(self.url, f"select pg_database_size('{name}')")[0][0])

    def vacuum_analyze(self, name: str) -> None:
        """VACUUM ANALYZE database ``name``: a copied database has no planner statistics yet, and a
        real one would have them from autovacuum long before a morning's digests."""
        _admin(self.url_of(name), "vacuum analyze")

    def drop_all(self) -> None:
        for name in dict.fromkeys(reversed(self.made)):
            with contextlib.suppress(Exception):  # already gone, or the server went away: nothing to keep
                self.drop(name)
        self.made.clear()


@contextlib.contextmanager
def server(url: str) -> Iterator[Server]:
    """A :class:`Server` whose databases are dropped at the end, however the block ends."""
    s = Server(url)
    try:
        yield s
    finally:
        s.drop_all()


def db_copy(source: str | Path, target_url: str, env: dict, cwd: Path) -> None:
    """``paperbot db copy --to target_url`` from the database ``source`` (a SQLite file), as a user
    moving an install would; raises SystemExit with its output when it fails."""
    done = subprocess.run([sys.executable, "-m", "bot.cli", "db", "copy", "--to", target_url],
                          env={**env, "PAPERBOT_DB": str(source)}, cwd=cwd, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"paperbot db copy failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")


def server_cpu(url: str) -> float | None:
    """CPU seconds the server at ``url`` has used so far, all its processes together, read from /proc:
    the postmaster's own, its live children's, and its reaped children's (each connection's backend
    exits when the connection closes). None where the server is not a process on this machine."""
    import time

    import psycopg

    try:
        time.sleep(0.3)  # let the backends of connections just closed exit and be reaped
        with psycopg.connect(url, autocommit=True, connect_timeout=10) as conn:
            backend = int(conn.execute("select pg_backend_pid()").fetchone()[0])
            postmaster = int(_status(backend)["PPid"])
        total = _cpu(postmaster, children=True)
        for pid in _children(postmaster):
            if pid != backend:
                total += _cpu(pid)
        return total
    except (OSError, KeyError, ValueError):
        return None


def _status(pid: int) -> dict[str, str]:
    text = Path(f"/proc/{pid}/status").read_text()
    return dict(line.split(":\t", 1) for line in text.splitlines() if ":\t" in line)


def _cpu(pid: int, children: bool = False) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = sum(int(f) for f in fields[11:15 if children else 13])  # utime stime [cutime cstime]
    return ticks / os.sysconf("SC_CLK_TCK")


def _children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if int(_status(int(entry.name))["PPid"]) == pid:
                    found.append(int(entry.name))
            except (OSError, KeyError, ValueError):
                continue
    return found
