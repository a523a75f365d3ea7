"""The inbox journal (issue 24): acknowledged work written down at once beside a SQLite database, whatever
holds its write lock, and moved into the database's inbox when it can be written.

SQLite has one writer at a time, and a long write (an ingest, a backup) may hold the lock for many
seconds: an ack that waited for it would come too late. So an acknowledged entry is appended to
``<database>.inbox-journal``, one JSON line, written and synced to disk before the ack (a few
milliseconds, never waiting on the database), and :meth:`Journal.drain` later puts the journal's entries
into the inbox (:meth:`storage.store.Store.inbox_put`) and deletes what it put.

Appends and drains meet at two files beside the journal:

- ``.lock``: each append holds a shared ``flock`` on it while it opens, writes and syncs the journal;
  a drain holds it exclusively only to rename the journal to ``.draining`` (an instant). An append that
  began before the rename has finished by then, and one after it creates a new journal: no line is
  written into a file already read.
- ``.drain-lock``: one drain at a time, across threads and processes (a second returns at once).

A drain first puts what an earlier one left in ``.draining`` (it crashed, or the database could not be
written), then takes the journal. A crash between the put and the deletion replays lines already put,
which the put ignores (each entry's key is unique in its workspace). Each line is written with one
``os.write`` on an ``O_APPEND`` descriptor and starts with a newline, so a line torn by a crash mid-write
(never acknowledged) is cut off from the next one and skipped on its own.

The journal holds :class:`~storage.models.InboxEntry` values; it knows nothing of Slack or SQL.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import logging
import os
import threading
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from datetime import timedelta
from pathlib import Path
from typing import Protocol, get_args

from storage.models import InboxEntry, InboxKind

log = logging.getLogger(__name__)

#: What a journal file's name adds to its database's.
SUFFIX = ".inbox-journal"
_FIELDS = ("ws", "key", "kind", "subject", "payload", "received_at")
#: How many entries one ``inbox_put`` takes: one transaction each, short enough to let other writers in.
BATCH = 500


class InboxWriter(Protocol):
    """What a drain needs of a store."""

    def inbox_put(self, entries: list[InboxEntry], hold: timedelta | None = None) -> list[InboxEntry]: ...


@dataclass(frozen=True)
class Drained:
    """What one drain did: entries read from the journal, how many of them were new to the inbox, and
    lines it skipped (torn by a crash, or not an entry)."""

    read: int = 0
    new: int = 0
    skipped: int = 0


def journal_path(database: str | Path) -> Path:
    """The journal beside the SQLite file ``database``."""
    return Path(f"{database}{SUFFIX}")


def encode(entry: InboxEntry) -> bytes:
    """One entry as its journal line (with the newline before and after it)."""
    return b"\n" + json.dumps(asdict(entry), ensure_ascii=False, separators=(",", ":")).encode() + b"\n"


def decode(line: bytes) -> InboxEntry | None:
    """The entry of one journal line, or None for a line that is not a whole entry."""
    try:
        data = json.loads(line)
    except ValueError:  # a torn line; UnicodeDecodeError is one
        return None
    if not isinstance(data, dict) or not all(isinstance(data.get(f), str) for f in _FIELDS):
        return None
    if data["kind"] not in get_args(InboxKind):
        return None
    taker = data.get("taker")
    return InboxEntry(**{f: data[f] for f in _FIELDS}, taker=taker if isinstance(taker, str) else "")


class Journal:
    """The append-only journal of one SQLite database (see the module). Safe to share between threads;
    any number of processes may append to the same journal and drain it."""

    def __init__(self, database: str | Path):
        self.path = journal_path(database)
        self.draining = Path(f"{self.path}.draining")
        self._lock_path = Path(f"{self.path}.lock")
        self._drain_lock_path = Path(f"{self.path}.drain-lock")
        self._drain_thread_lock = threading.Lock()

    # -- appending --------------------------------------------------------------------------------

    def append(self, entry: InboxEntry) -> None:
        """Write ``entry`` down, on disk when this returns (the ack may then go). Never waits on the
        database; waits only for a drain's rename, which takes an instant."""
        line = encode(entry)
        with _locked(self._lock_path, fcntl.LOCK_SH):
            fd, created = _open_for_append(self.path)
            try:
                written = os.write(fd, line)
                if written != len(line):  # a full disk: what was written is a torn line, skipped
                    raise OSError(f"{self.path}: wrote {written} of {len(line)} bytes")
                os.fdatasync(fd)
            finally:
                os.close(fd)
            if created:  # the new file's name must survive a crash too
                _sync_directory(self.path.parent)

    # -- draining ---------------------------------------------------------------------------------

    def drain(self, store: InboxWriter, hold: timedelta | None = None, wait: bool = False) -> Drained:
        """Move every complete entry of the journal into ``store``'s inbox (each held back ``hold`` after
        it was received, see :meth:`storage.store.Store.inbox_put`), then delete what was moved. Waits for
        the database's write lock as long as the store does (it raises then, and the journal keeps
        everything). While another drain runs it returns at once, having done nothing; with ``wait`` it
        waits for that one, then drains what is left (so an entry appended before the call is in the
        inbox when it returns)."""
        with self._drain_lock(wait) as mine:
            if not mine:
                return Drained()
            total = Drained()
            for _ in range(2):  # what an earlier drain left, then the journal
                if not self.draining.exists() and not self._take_journal():
                    break
                total = _sum(total, self._put_draining(store, hold))
            return total

    def pending(self) -> bool:
        """Whether the journal holds anything not yet moved into the database."""
        return any(p.exists() and p.stat().st_size > 0 for p in (self.path, self.draining))

    def unsettled(self) -> bytes:
        """The journal's lines not yet in the database, as they are on disk (for a backup: read before
        the database is copied, every entry acknowledged until then is in one or the other). The
        journal before what a drain is moving: a drain renames the one into the other, never back."""
        found = b""
        for path in (self.path, self.draining):
            with contextlib.suppress(FileNotFoundError):
                found += path.read_bytes()
        return found

    def _take_journal(self) -> bool:
        with _locked(self._lock_path, fcntl.LOCK_EX):
            try:
                if self.path.stat().st_size == 0:
                    return False
            except FileNotFoundError:
                return False
            os.rename(self.path, self.draining)
        _sync_directory(self.path.parent)
        return True

    def _put_draining(self, store: InboxWriter, hold: timedelta | None) -> Drained:
        entries: list[InboxEntry] = []
        skipped = 0
        for line in self.draining.read_bytes().split(b"\n"):
            if not line.strip():
                continue
            found = decode(line)
            if found is None:
                skipped += 1
            else:
                entries.append(found)
        if skipped:
            log.warning("inbox journal %s: skipped %d torn or unreadable line(s)", self.draining, skipped)
        new = 0
        for start in range(0, len(entries), BATCH):
            new += len(store.inbox_put(entries[start:start + BATCH], hold))
        self.draining.unlink()
        _sync_directory(self.path.parent)
        return Drained(len(entries), new, skipped)

    @contextlib.contextmanager
    def _drain_lock(self, wait: bool) -> Iterator[bool]:
        # flock excludes other processes; threads of this one share it per open file, hence the lock.
        if not self._drain_thread_lock.acquire(blocking=wait):
            yield False
            return
        try:
            fd = os.open(self._drain_lock_path, os.O_RDWR | os.O_CREAT, 0o600)
            try:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
                except BlockingIOError:
                    yield False
                    return
                yield True
            finally:
                os.close(fd)  # releases the flock
        finally:
            self._drain_thread_lock.release()


def _sum(a: Drained, b: Drained) -> Drained:
    return Drained(a.read + b.read, a.new + b.new, a.skipped + b.skipped)


@contextlib.contextmanager
def _locked(path: Path, how: int) -> Iterator[None]:
    # A descriptor of its own each time: flock belongs to the open file, so threads sharing one would
    # release each other's lock.
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, how)
        yield
    finally:
        os.close(fd)


def _open_for_append(path: Path) -> tuple[int, bool]:
    """A descriptor appending to ``path``, and whether this call created the file."""
    flags = os.O_WRONLY | os.O_APPEND
    try:
        return os.open(path, flags), False
    except FileNotFoundError:
        pass
    try:
        return os.open(path, flags | os.O_CREAT | os.O_EXCL, 0o600), True
    except FileExistsError:  # another append made it just now
        return os.open(path, flags), False


def _sync_directory(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
