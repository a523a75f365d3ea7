"""Reaching a PostgreSQL server, for the tests (tests/storage/conftest.py) and the benchmarks
(benchmarks/pg.py), which both make throwaway databases on one."""

from __future__ import annotations

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
