"""Reading local files line by line, counting bytes for progress, turning OS errors into SourceError."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from bot.sources.records import SourceError

_BOM = b"\xef\xbb\xbf"


def file_size(path: Path) -> int:
    """Size of ``path`` in bytes; SourceError when it can't be read."""
    try:
        return path.stat().st_size
    except OSError as e:
        raise SourceError(f"can't read {path}: {e.strerror or e}") from e


def read_lines(path: Path) -> Iterator[tuple[int, str, int]]:
    """Yield ``(line number from 1, text, bytes read so far)`` for each line of ``path``.

    Bytes that aren't UTF-8 become U+FFFD rather than stopping the file: one bad byte should
    cost at most one record, never the whole source. Line ends are kept (the csv module needs them).
    """
    try:
        with path.open("rb") as f:
            done = 0
            for number, raw in enumerate(f, start=1):
                done += len(raw)
                if number == 1 and raw.startswith(_BOM):
                    raw = raw[len(_BOM) :]
                yield number, raw.decode("utf-8", errors="replace"), done
    except OSError as e:
        raise SourceError(f"can't read {path}: {e.strerror or e}") from e


def read_text(path: Path) -> str:
    """The whole of ``path`` as text, decoded like :func:`read_lines`."""
    return read_bytes(path).decode("utf-8-sig", errors="replace")


def read_bytes(path: Path) -> bytes:
    """The whole of ``path``; SourceError when it can't be read."""
    try:
        return path.read_bytes()
    except OSError as e:
        raise SourceError(f"can't read {path}: {e.strerror or e}") from e
