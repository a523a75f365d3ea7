"""Plain-text abstracts: one paragraph each, blank lines between, an optional collection name first."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from bot.sources.files import file_size, read_lines
from bot.sources.normalize import build_paper
from bot.sources.progress import Progress, Ticker
from bot.sources.records import Rejected
from bot.text.whitespace import collapse_ws
from storage.models import Paper

#: Shorter paragraphs can't be abstracts (stray headings, page numbers, "Thanks!").
MIN_ABSTRACT = 20
#: A one-line first paragraph at most this long names the collection rather than being an abstract.
MAX_HEADER = 100


def read_text_file(path: Path, progress: Progress | None = None) -> Iterator[Paper | Rejected]:
    """Yield a Paper per paragraph of ``path`` (or a Rejected "line N" for one too short).

    Papers get the collection name of the first line as venue, a title derived from the first
    sentence and a sha1 id. ``progress`` gets bytes read and the file size.
    """
    ticker = Ticker(progress, file_size(path))
    done = 0
    venue: str | None = None
    first = True
    for start, lines, done in _paragraphs(path):
        if first and len(lines) == 1 and len(lines[0]) <= MAX_HEADER:
            venue = lines[0]
            first = False
            continue
        first = False
        abstract = collapse_ws(" ".join(lines))
        if len(abstract) < MIN_ABSTRACT:
            yield Rejected(f"line {start}", f"too short for an abstract ({len(abstract)} characters)")
        else:
            yield build_paper(abstract=abstract, venue=venue)
        ticker.tick(done)
    ticker.finish(done)


def _paragraphs(path: Path) -> Iterator[tuple[int, list[str], int]]:
    """Yield ``(first line number, stripped lines, bytes read)`` for each blank-line-separated block."""
    start, lines, done = 0, [], 0
    for number, text, done in read_lines(path):
        text = text.strip()
        if text:
            if not lines:
                start = number
            lines.append(text)
        elif lines:
            yield start, lines, done
            lines = []
    if lines:
        yield start, lines, done
