"""Holding a person across the processes that share one SQLite file.

A delivery (a digest, a recommendation) spans many transactions and Slack calls; two at once for one
person would pick the same papers. PostgreSQL holds a person with an advisory lock; a SQLite file has
nothing alike, so each person is a byte of a lock file beside the database (``<file>.holds``), locked
with ``fcntl.lockf``: the kernel releases it when its process dies, however it dies.

POSIX record locks belong to a process, not a thread: two threads of one process would both "hold" a
byte, and the first to let go would free it for the other. So a process's threads queue on a lock of
their own for each byte first, and only one of them at a time takes it from the kernel.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import threading
import time
import zlib
from collections.abc import Iterator

try:
    import fcntl
except ImportError:  # not a POSIX system: the process's own threads are still held off one another
    fcntl = None  # type: ignore[assignment]

log = logging.getLogger(__name__)

#: Bytes of the lock file: people share one only by a hash collision (a wait, never a wrong result).
SLOTS = 1 << 20


class PersonHolds:
    """The holds on the people of one SQLite file (:meth:`hold`), shared by every store of this
    process on that file (:func:`holds_of`)."""

    def __init__(self, db_path: str):
        self.path = f"{db_path}.holds"
        self._guard = threading.Lock()
        self._slots: dict[int, _Slot] = {}
        self._fd: int | None = None
        self._unavailable = fcntl is None

    @contextlib.contextmanager
    def hold(self, key: str) -> Iterator[None]:
        """Hold off every other :meth:`hold` of ``key`` in any process until the block ends; waits as
        long as the holder takes."""
        number = zlib.crc32(key.encode("utf-8")) % SLOTS
        with self._guard:
            slot = self._slots.setdefault(number, _Slot())
            slot.users += 1
        try:
            with slot.lock:  # re-entrant: a thread holding two people whose bytes collide holds it twice
                fd = self._file() if slot.depth == 0 else None
                if fd is not None:
                    _lock(fd, number)
                slot.depth += 1
                try:
                    yield
                finally:
                    slot.depth -= 1
                    if fd is not None:
                        fcntl.lockf(fd, fcntl.LOCK_UN, 1, number)
        finally:
            with self._guard:  # kept only while someone holds or waits for it: memory for the busy bytes only
                slot.users -= 1
                if slot.users == 0:
                    del self._slots[number]

    def _file(self) -> int | None:
        """The lock file, opened once for the process (closing any descriptor of it would drop every
        lock the process holds there); None where it can't be had: threads are then held off alone."""
        with self._guard:
            if self._fd is None and not self._unavailable:
                try:
                    self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
                except OSError as exc:
                    self._unavailable = True
                    log.warning("can't open %s (%s): other processes on this database are not held off "
                                "one person's deliveries", self.path, exc.strerror or exc)
            return self._fd


def _lock(fd: int, number: int) -> None:
    """Take byte ``number`` of the lock file, waiting as long as its holder takes. The kernel's deadlock
    check counts a process's threads as one owner: a thread waiting for another process, which waits for a
    byte some other thread here holds, is told EDEADLK though that thread lets go on its own. So wait on."""
    while True:
        try:
            fcntl.lockf(fd, fcntl.LOCK_EX, 1, number)
            return
        except OSError as exc:
            if exc.errno != errno.EDEADLK:
                raise
            time.sleep(0.05)


class _Slot:
    def __init__(self) -> None:
        self.lock = threading.RLock()
        self.depth = 0  # holds of this byte by the thread that has the lock
        self.users = 0  # threads holding or waiting for it


_guard = threading.Lock()
_by_path: dict[str, PersonHolds] = {}


def holds_of(db_path: str) -> PersonHolds:
    """The process's :class:`PersonHolds` for the SQLite file at ``db_path``."""
    key = os.path.realpath(db_path)
    with _guard:
        holds = _by_path.get(key)
        if holds is None:
            holds = _by_path[key] = PersonHolds(key)
        return holds
