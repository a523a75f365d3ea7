"""What a source yields besides papers: a record it had to skip, and why; and the error of a source that
can't be read at all."""

from __future__ import annotations

from dataclasses import dataclass

from bot.errors import PaperbotError


@dataclass
class Rejected:
    """A record of a source that was skipped; the rest of the source still goes in."""

    where: str  # e.g. "line 12", "record 5", "entry 3"
    reason: str  # short, human: "no abstract", "bad published date '2020-13-45'"


class BadRecord(ValueError):
    """One record can't become a Paper; ``str(e)`` is the short reason for its Rejected."""


class SourceError(PaperbotError):
    """A paper source can't be read at all (missing file, unreachable feed, unknown format)."""
