"""PostgreSQL connections for :class:`storage.postgres.PostgresStore`: the pool's check before lending
a connection, the connections person holds are taken on, and psycopg's errors as storage's own."""

from __future__ import annotations

import contextlib
import re
import threading
import time
from collections.abc import Iterator
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import psycopg
import psycopg.errors
from psycopg.conninfo import conninfo_to_dict
from psycopg_pool import ConnectionPool, PoolTimeout
from psycopg_pool.base import AttemptWithBackoff

from storage.errors import StorageError, StoreBusy, StoreFull, StoreUnavailable

#: How long a statement waits for a row lock another transaction holds before giving up (StoreBusy);
#: as long as the SQLite store waits for its write lock.
BUSY_SECONDS = 90
#: How long opening a connection (or waiting for a free one in the pool) may take.
CONNECT_SECONDS = 10
POOL_SIZE = 10
#: A pooled connection given back less than this long ago is lent again without asking the server
#: whether it still answers (a round trip per call otherwise); one idle longer is checked first.
CHECK_IDLE_SECONDS = 1.0
#: The longest pause between the pool's attempts to connect while the server is away. psycopg_pool doubles
#: its pause after each failure (1, 2, 4, 8 … s, for up to 5 minutes), so after an outage of 15 s the first
#: new connection could come many seconds after the server was back, and every ack meanwhile failed;
#: an attempt every half second costs a refused connection each while it is away.
RECONNECT_MOST_SECONDS = 0.5


class _CappedBackoff(AttemptWithBackoff):
    """psycopg_pool's backoff between attempts to connect, its pause never over
    :data:`RECONNECT_MOST_SECONDS`."""

    def update_delay(self, now: float) -> None:
        super().update_delay(now)
        self.delay = min(self.delay, RECONNECT_MOST_SECONDS)


class QuickPool(ConnectionPool):
    """psycopg's pool, trying to connect again at least every :data:`RECONNECT_MOST_SECONDS` while the
    server is away, so that it lends connections again as soon as the server answers."""

    def _add_connection(self, attempt: AttemptWithBackoff | None, growing: bool = False) -> None:
        # The pool's own method, with a first attempt whose pauses are capped (later ones are its copies).
        super()._add_connection(attempt or _CappedBackoff(timeout=self.reconnect_timeout), growing)


def redacted(url: str) -> str:
    """``url`` without its password (in the authority or as a ``password=`` parameter)."""
    if "://" not in url:  # a key=value connection string
        return re.sub(r"password\s*=\s*('(?:[^'\\]|\\.)*'|\S+)", "password=***", url)
    try:
        parts = urlsplit(url)
    except ValueError:
        return "the PostgreSQL database"
    netloc = parts.netloc
    if "@" in netloc:
        auth, host = netloc.rsplit("@", 1)
        netloc = f"{auth.split(':', 1)[0]}@{host}"
    query = urlencode([(k, v) for k, v in parse_qsl(parts.query) if k != "password"])
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def check_url(url: str) -> None:
    """Raise StoreUnavailable, in one line naming the database without its password, when libpq can't
    read ``url`` (a bracket left open, an unknown parameter): psycopg's own message quotes it whole."""
    try:
        conninfo_to_dict(url)
    except psycopg.ProgrammingError as exc:
        shown = redacted(url)
        why = str(exc).split(" in URI:", 1)[0].replace(url, shown).strip()
        named = f"the database URL {shown}" if "://" in shown else "the database URL"
        raise StoreUnavailable(f"can't read {named} ({why})") from None


def reason(exc: BaseException) -> str:
    """Why a connection failed, in a few words (libpq's message is several lines and names hosts)."""
    text = str(exc)
    lowered = text.lower()
    for needle, reason in (("password authentication failed", "wrong password"),
                           ("no password supplied", "a password is required"),
                           ("does not exist", None),
                           ("connection refused", "connection refused"),
                           ("timeout expired", "no answer from the server"),
                           ("could not translate host name", "unknown host")):
        if needle in lowered:
            if reason is None:  # 'database "x" does not exist', 'role "y" does not exist'
                line = next(ln for ln in text.splitlines() if needle in ln.lower())
                return line.split("FATAL:", 1)[-1].strip()
            return reason
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    return lines[0][-200:] if lines else type(exc).__name__


def translate(exc: BaseException, where: str) -> BaseException:
    """The storage error for a psycopg (or pool) error ``exc``; other errors come back unchanged."""
    if isinstance(exc, PoolTimeout):
        return StoreUnavailable(f"can't reach the database {where}: no connection in time"
                                " (the server is down, or every connection is in use)")
    if isinstance(exc, psycopg.errors.DiskFull):
        return StoreFull(f"{where}: the disk is full, so nothing more could be saved")
    if isinstance(exc, psycopg.errors.QueryCanceled) and "statement timeout" in str(exc):
        return StoreBusy(f"{where}: a statement ran past the server's statement_timeout (raise it for "
                         "paperbot's user, or look for what slows the server)")
    if isinstance(exc, psycopg.errors.LockNotAvailable | psycopg.errors.QueryCanceled
                  | psycopg.errors.DeadlockDetected | psycopg.errors.SerializationFailure):
        return StoreBusy(f"{where} is busy: another transaction has held the rows it needs too long")
    if isinstance(exc, psycopg.errors.InsufficientPrivilege | psycopg.errors.ReadOnlySqlTransaction):
        return StoreUnavailable(f"can't write to the database {where} ({reason(exc)})")
    if isinstance(exc, psycopg.OperationalError):
        return StoreUnavailable(f"can't open the database {where} ({reason(exc)})")
    if isinstance(exc, psycopg.DataError):  # a value PostgreSQL can't hold (a NUL in text, say)
        return StorageError(f"{where} can't store that value ({reason(exc)})")
    return exc


#: The attribute a lent connection keeps the moment it came back in.
_RETURNED = "_paperbot_returned"


@contextlib.contextmanager
def lent(pool: ConnectionPool, wait: float | None = None, where: str = "the database"
         ) -> Iterator[psycopg.Connection]:
    """A connection from ``pool``, noting when it goes back (for :func:`check_if_idle`). With ``wait``, it
    is waited for ``wait`` seconds at most (else the pool's own timeout), and each statement on it may
    take as long only (:func:`answering_within`). Not the pool's ``reset`` callback: with one, the pool
    hands every return to a worker thread."""
    with pool.connection(timeout=wait) as conn:
        try:
            if wait is None:
                yield conn
            else:
                with answering_within(conn, wait, where):
                    yield conn
        finally:
            setattr(conn, _RETURNED, time.monotonic())


@contextlib.contextmanager
def answering_within(conn: psycopg.Connection, seconds: float, where: str) -> Iterator[None]:
    """Inside the block, a statement on ``conn`` (autocommit) that waits on a lock or runs longer than
    ``seconds`` is cancelled by the server and raises StoreBusy: an ack must answer within Slack's 3 s
    whatever holds the table (a DBA's LOCK TABLE, a migration). The connection's own limits come back
    after."""
    ms = max(1, round(seconds * 1000))
    conn.execute(f"set statement_timeout = {ms}; set lock_timeout = {ms}")
    try:
        yield
    except (psycopg.errors.QueryCanceled, psycopg.errors.LockNotAvailable):
        raise StoreBusy(f"{where} did not answer within {seconds:g} s (a lock held, or the server slow); "
                        "asked again later") from None
    finally:
        with contextlib.suppress(psycopg.Error):  # a broken connection is the pool's to discard
            conn.execute("reset statement_timeout; reset lock_timeout")


def check_if_idle(conn: psycopg.Connection) -> None:
    """The pool's check before lending ``conn``: ask the server only when the connection sat idle for
    :data:`CHECK_IDLE_SECONDS` or more, since a server restart or an idle timeout breaks connections
    that wait, while a busy pool's connections came back from a statement that just succeeded (a
    broken one is never given back: the pool discards it). Raises for a connection that doesn't answer,
    so the pool replaces it."""
    returned = getattr(conn, _RETURNED, None)
    if returned is None or time.monotonic() - returned >= CHECK_IDLE_SECONDS:
        ConnectionPool.check_connection(conn)


class HoldConnections:
    """The connections :meth:`PostgresStore.hold_person` takes its session locks on (``options`` as the
    pool's: the holder's statements run there too): opened when none is
    idle (never waited for, so a hold never times out behind other deliveries), and kept for the next
    hold once every lock on them is released, since opening one costs a server process start for each
    delivery. Closing a connection releases its locks; a kept one found broken when used is replaced once."""

    def __init__(self, url: str, keep: int, options: str = ""):
        self.url, self.keep, self.options = url, keep, options
        self._idle: list[psycopg.Connection] = []
        self._lock = threading.Lock()
        self._closed = False

    def take(self) -> psycopg.Connection:
        """An idle kept connection (unchecked: see :meth:`run`), else a new one."""
        with self._lock:
            conn = self._idle.pop() if self._idle else None
        if conn is None:
            conn = self.connect()
        return conn

    def connect(self) -> psycopg.Connection:
        """A new connection for holds."""
        return psycopg.connect(self.url, autocommit=True, connect_timeout=CONNECT_SECONDS,
                               options=self.options)

    def run(self, conn: psycopg.Connection, sql: str, args: list) -> psycopg.Connection:
        """Run ``sql`` on a taken ``conn``; if that connection turns out broken (the server restarted
        since it was kept), once more on a new one, which is returned. Safe only for statements whose
        effect dies with a broken connection (session locks): a kept connection is not checked first,
        which would cost a round trip per hold."""
        try:
            conn.execute(sql, args)
            return conn
        except psycopg.OperationalError:
            if not conn.broken:
                raise
            conn.close()
        conn = self.connect()
        try:
            conn.execute(sql, args)
        except BaseException:
            conn.close()
            raise
        return conn

    def give_back(self, conn: psycopg.Connection) -> None:
        """Release every lock ``conn`` holds, then keep it, or close it (which releases them too)."""
        try:
            if not conn.closed:
                conn.execute("select pg_advisory_unlock_all()")
        except psycopg.Error:
            conn.close()
        with self._lock:
            if not conn.closed and not self._closed and len(self._idle) < self.keep:
                self._idle.append(conn)
                return
        conn.close()

    def close(self) -> None:
        with self._lock:
            self._closed = True
            idle, self._idle = self._idle, []
        for conn in idle:
            conn.close()
