"""Bring your library: a person's reference-manager export (read by
:mod:`bot.sources.library_exports`) becomes their seed. Each entry is matched to a stored paper (by id,
arXiv id, DOI, or title with an author in common: the ingest's own rules, :mod:`storage.identity`),
entries paperbot lacks are stored as new papers, and every one of them is liked by the person, as a 👍
would, except a paper they had disliked.

The file is read once per person (a claim in the database: Slack sends two events for one share, and
several processes may hear them); a read that failed may be tried again a minute later.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from bot.sources.library_exports import DUPLICATE, NO_TITLE_OR_ID, UNREADABLE, LibraryEntry
from bot.sources.records import Rejected
from bot.state.context import Context
from bot.usecases.feedback import DISLIKE, LIKE
from bot.usecases.ingest import take_in_new_papers
from storage.identity import share_a_surname, title_key
from storage.models import LibraryImportStatus
from storage.moments import iso_utc_micro

log = logging.getLogger(__name__)

#: Entries matched and written in one go: one transaction of papers and one of likes, each short enough
#: to leave room for the bot's other writers (SQLite has one write lock).
BATCH = 500
#: Files paperbot reads at most (Slack's size, and a hard cap while downloading).
MAX_BYTES = 5 * 1024 * 1024
#: A read that failed may be tried again after this (not at once: the second event of the same share
#: must not read the file a second time and answer twice).
RETRY_AFTER = timedelta(minutes=1)
#: A read still "running" after this was left by a process that died: another may take it over.
ABANDONED_AFTER = timedelta(minutes=15)

#: The reasons an entry is skipped, besides the reader's (:mod:`bot.sources.library_exports`); the
#: replies say them (:mod:`bot.slack.views.library`).
DISLIKED = "disliked"
NOT_STORED = "not stored"
#: Every reason a reply counts, in the order it lists them.
REASONS = (NO_TITLE_OR_ID, NOT_STORED, DUPLICATE, DISLIKED, UNREADABLE)


@dataclass
class LibraryReport:
    """What one import did: entries ``read``, ``matched`` (already stored), ``added`` (stored now),
    ``liked`` (likes given now: an entry already liked is matched but not liked again), and the entries
    ``skipped``, counted by reason (:data:`REASONS`)."""

    read: int = 0
    matched: int = 0
    added: int = 0
    liked: int = 0
    skipped: Counter[str] = field(default_factory=Counter)

    def counts(self) -> dict[str, int]:
        """The numbers as stored with the import (and shown)."""
        return {"read": self.read, "matched": self.matched, "added": self.added, "liked": self.liked,
                **{f"skipped: {reason}": n for reason, n in self.skipped.items()}}


def reason_kind(reason: str) -> str:
    """Which of :data:`REASONS` a reader's reason is (an unreadable record says why after a colon)."""
    return reason if reason in REASONS else UNREADABLE


def import_library(ctx: Context, user_id: str, items: Iterable[LibraryEntry | Rejected]) -> LibraryReport:
    """Make ``items`` (a library export's entries, in file order) the person's seed; returns the counts.

    Written a batch at a time (:data:`BATCH`); the paper index takes the new papers in at the end.
    """
    report = LibraryReport()
    seen = _Seen()
    batch: list[LibraryEntry] = []
    for item in items:
        report.read += 1
        if isinstance(item, Rejected):
            report.skipped[reason_kind(item.reason)] += 1
        elif seen.again(item):
            report.skipped[DUPLICATE] += 1
        else:
            batch.append(item)
            if len(batch) >= BATCH:
                _import_batch(ctx, user_id, batch, report, seen)
                batch = []
    _import_batch(ctx, user_id, batch, report, seen)
    if report.added:
        take_in_new_papers(ctx)
    return report


class _Seen:
    """The entries of the file so far, by every key that makes two records one paper (the reader's id,
    arXiv id, DOI, and the title with an author's surname in common), and the stored papers they named."""

    def __init__(self) -> None:
        self.keys: set[str] = set()
        self.titles: dict[str, list[list[str]]] = {}
        self.stored: set[str] = set()

    def again(self, entry: LibraryEntry) -> bool:
        paper = entry.paper
        keys = {f"id:{paper.id}"} | ({f"arxiv:{paper.arxiv_id}"} if paper.arxiv_id else set()) \
            | ({f"doi:{paper.doi}"} if paper.doi else set())
        key = title_key(paper.title)
        before = self.titles.get(key, []) if key else []
        if keys & self.keys or any(share_a_surname(paper.authors, authors) for authors in before):
            return True
        self.keys |= keys
        if key:
            self.titles.setdefault(key, []).append(paper.authors)
        return False


def _import_batch(ctx: Context, user_id: str, batch: Sequence[LibraryEntry], report: LibraryReport,
                  seen: _Seen) -> None:
    if not batch:
        return
    store = ctx.store
    found = store.match_papers([entry.paper for entry in batch])
    new = [entry.paper for entry, stored in zip(batch, found, strict=True) if stored is None and entry.titled]
    if new:
        store.upsert_papers(new)
        added = iter(store.match_papers(new))  # their ids as stored (a paper stored meanwhile kept its own)
    outcome: list[tuple[str, bool]] = []  # (stored id, whether it was stored before), in file order
    for entry, stored in zip(batch, found, strict=True):
        if stored is not None:
            outcome.append((stored, True))
        elif not entry.titled:
            report.skipped[NOT_STORED] += 1
        else:
            paper_id = next(added)
            if paper_id is None:  # not readable back: never seen, but nothing to like either
                log.warning("a library entry stored as %s could not be found again", entry.paper.id)
                report.skipped[UNREADABLE] += 1
            else:
                outcome.append((paper_id, False))
    with store.transaction():
        store.ensure_person(user_id)
        given = {f.paper_id: f.value for f in store.get_feedback(user_id)}
        for paper_id, before in outcome:
            if paper_id in seen.stored:  # two entries of the file named one stored paper
                report.skipped[DUPLICATE] += 1
                continue
            seen.stored.add(paper_id)
            if given.get(paper_id) == DISLIKE:
                report.skipped[DISLIKED] += 1  # the person's own word stays
                continue
            if before:
                report.matched += 1
            else:
                report.added += 1
            if given.get(paper_id) != LIKE:
                store.set_feedback(user_id, paper_id, LIKE)
                report.liked += 1


# -- reading a file once ---------------------------------------------------------------------------


def claim_import(ctx: Context, user_id: str, file_id: str, now: datetime | None = None) -> str | None:
    """Claim the reading of a person's shared file: the claim's start time (ISO UTC, what
    :func:`finish_import` names it by), or None when another request has it or it was read before."""
    now = now or datetime.now(UTC)
    at = _iso(now)
    won = ctx.store.claim_library_import(user_id, file_id, at, _iso(now - RETRY_AFTER),
                                         _iso(now - ABANDONED_AFTER))
    return at if won else None


def finish_import(ctx: Context, user_id: str, file_id: str, claimed_at: str, status: LibraryImportStatus,
                  report: LibraryReport | None = None, error: str | None = None) -> None:
    """Say how the read claimed at ``claimed_at`` ended: "done" with its report, "refused" (nothing to
    read: the answer said why), or "failed" (it may be tried again after :data:`RETRY_AFTER`)."""
    ctx.store.finish_library_import(user_id, file_id, claimed_at, status, _iso(datetime.now(UTC)),
                                    report.counts() if report else None, error)


def _iso(moment: datetime) -> str:
    # One width for every stamp, so that they compare as text.
    return iso_utc_micro(moment)
