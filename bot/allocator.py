"""Memory a long run keeps: the C allocator's pools (glibc's "arenas", at most :data:`ARENAS` for the whole
process), and the start-up's objects kept out of the garbage collector's way (:func:`freeze_startup`).

glibc gives each thread that allocates at once a pool of its own, up to eight per core, and keeps what a
pool once held. paperbot's digest workers (8 threads) build and drop sparse matrices and texts all morning,
so each pool grows to its thread's largest moment: at 10,000 people the pools held some 270 MB more than
two shared pools do, for no speed (the work is bound by one core's Python, the GIL). An admin's own
``MALLOC_ARENA_MAX`` wins; elsewhere than glibc this does nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import os

ARENAS = 2
_M_ARENA_MAX = -8  # glibc's mallopt parameter number (malloc.h)


def limit_arenas(arenas: int = ARENAS) -> bool:
    """Cap the allocator's pools, before the process starts its threads; True if it took effect."""
    if os.environ.get("MALLOC_ARENA_MAX"):  # glibc read it at start-up
        return False
    name = ctypes.util.find_library("c")
    if not name:
        return False
    try:
        libc = ctypes.CDLL(name)
        return bool(libc.mallopt(_M_ARENA_MAX, arenas))
    except (OSError, AttributeError):  # not glibc (musl, macOS): no such call
        return False


def freeze_startup() -> None:
    """Move every object made so far (the modules, the app, a loaded index) out of the collector's way.
    They live as long as the process, yet each full collection walks them all: 20-90 ms in the bot, during
    which every request under way waits (the acks' p99), and about 3% of a big run of digests."""
    gc.freeze()
