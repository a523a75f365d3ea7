"""Bringing papers in from files and feeds."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from bot.errors import SourceError
from bot.sources import Rejected, read_source
from bot.state.context import Context
from storage import Paper

BATCH = 1000

Progress = Callable[[str, int, int | None], None]


@dataclass
class SourceReport:
    """What one source gave: counts, the records skipped and why, or why it couldn't be read at all."""

    source: str
    added: int = 0
    updated: int = 0
    unchanged: int = 0
    rejected: list[Rejected] = field(default_factory=list)
    error: str | None = None

    @property
    def empty(self) -> bool:
        """Read, but it held no record at all (an empty file or feed: often the wrong one)."""
        return self.error is None and not (self.added or self.updated or self.unchanged or self.rejected)


def ingest(ctx: Context, sources: Iterable[str], progress: Progress | None = None,
           fetcher=None, must_save: bool = False) -> list[SourceReport]:
    """Add or update the papers of each source; a bad record or an unreadable source never stops the rest.

    Papers are written in batches, each batch one transaction, so a crash loses at most the batch
    under way. The index is brought up to date (refitted if the corpus grew a lot) at the end; a
    refitted model that can't be saved is logged, or with ``must_save`` raised as the
    :class:`~storage.StorageError` (the papers stay stored either way).
    """
    reports = []
    for source in sources:
        report = SourceReport(source)
        reports.append(report)
        batch: list[Paper] = []
        try:
            callback = (lambda done, total, s=source: progress(s, done, total)) if progress else None
            for item in read_source(source, progress=callback, fetcher=fetcher):
                if isinstance(item, Rejected):
                    report.rejected.append(item)
                    continue
                batch.append(item)
                if len(batch) >= BATCH:
                    _write(ctx, batch, report)
                    batch = []
        except SourceError as exc:
            report.error = str(exc)
        _write(ctx, batch, report)
    take_in_new_papers(ctx, must_save=must_save)
    return reports


def take_in_new_papers(ctx: Context, must_save: bool = False) -> None:
    """After papers were stored: the index brought up to date (refitted if the corpus grew a lot; see
    :func:`ingest` for ``must_save``), so they are searched, recommended and unfurled from now on, and
    with the embedding option their vectors computed, once."""
    ctx.engine.refresh(must_save=must_save)
    if ctx.embeddings is not None:
        ctx.embeddings.compute_missing()


def _write(ctx: Context, batch: list[Paper], report: SourceReport) -> None:
    if not batch:
        return
    counts = ctx.store.upsert_papers(batch)
    report.added += counts.added
    report.updated += counts.updated
    report.unchanged += counts.unchanged
