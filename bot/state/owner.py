"""Who is doing a piece of shared work: ``host:pid:start``, and whether that process still lives.

Claims in the database (a day's digest, the daily feed ingest) name their owner this way. On the same
host a dead owner is recognised at once (no such pid, or a pid reused by a process that started at
another time); on another host only its lease running out tells.
"""

from __future__ import annotations

import os
import socket
import time

_STARTED = f"{time.time():.0f}"


def _host() -> str:
    return socket.gethostname().replace(":", "_") or "localhost"


def _stat(pid: int) -> list[str] | None:
    """Fields 3… of /proc/PID/stat (Linux), or None where /proc can't tell."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as f:
            stat = f.read()
    except OSError:
        return None
    # The command name (field 2) is in parentheses and may hold spaces.
    fields = stat.rsplit(")", 1)[-1].split()
    return fields if len(fields) > 19 else None


def _start_ticks(pid: int) -> str | None:
    """The process's start time in clock ticks since boot (field 22), or None."""
    fields = _stat(pid)
    return fields[19] if fields else None


def owner_id() -> str:
    """This process: ``host:pid:start``."""
    pid = os.getpid()
    return f"{_host()}:{pid}:{_start_ticks(pid) or 't' + _STARTED}"


def owner_alive(owner: str | None) -> bool | None:
    """True if ``owner`` is a live process on this host, False if it is certainly gone, None when it
    is on another host (or malformed) and only its lease can tell."""
    if not owner:
        return None
    try:
        host, pid_text, start = owner.rsplit(":", 2)
        pid = int(pid_text)
    except ValueError:
        return None
    if host != _host():
        return None
    if pid == os.getpid():
        return owner == owner_id()
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # someone else's process: it exists
    if start.startswith("t"):
        return True  # no /proc where it ran: the pid exists, assume it is the same process
    fields = _stat(pid)
    if fields is None:
        return True
    return fields[0] not in ("Z", "X") and fields[19] == start  # a zombie has finished too
