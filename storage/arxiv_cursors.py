"""How far each arXiv category's announcements have been read (the ``arxiv_cursors`` table), on either
backend: one row per category, shared by every workspace (papers are). ``announced`` is the arXiv
announcement date (YYYY-MM-DD, as arXiv dates its daily listing) up to which every announcement of the
category is stored; it only moves forward, so two processes reading at once, or a back-fill of older
days, never set it back.

The other sources read by date (``biorxiv:CAT``, ``medrxiv:CAT``, ``pubmed:QUERY``) keep theirs in the
same table, the source's name (``biorxiv:neuroscience``, ``pubmed:crispr screen``; an arXiv category has no
colon) as ``category`` and the last date read through as ``announced``: one table of "read through this
date" for every dated source. An ``openreview:VENUE_ID`` venue keeps there the last day it was read whole
(it is read at most once a day), and so does an ACL Anthology volume (``acl:2025.acl-long``), published
once: the ingest lets it rest a week from then."""

from __future__ import annotations

from typing import Protocol

from storage.dialect import Shared

GET = "select announced from arxiv_cursors where category = ?"
# Dates as YYYY-MM-DD compare as text in date order.
SET = ("insert into arxiv_cursors (category, announced, read_at) values (?, ?, ?)"
       " on conflict (category) do update set announced = excluded.announced, read_at = excluded.read_at"
       " where arxiv_cursors.announced <= excluded.announced")


class ArxivCursorsStore(Protocol):
    """How far each arXiv category's announcements were read (shared by every workspace)."""

    def arxiv_cursor(self, category: str) -> str | None:
        """The arXiv announcement date (YYYY-MM-DD) through which every announcement of ``category`` (as
        arXiv names it: "cs.LG") is stored, or None when it was never read. Shared by every workspace."""
        ...

    def set_arxiv_cursor(self, category: str, announced: str, at: str) -> bool:
        """Note that ``category``'s announcements through ``announced`` (YYYY-MM-DD) are stored, as of
        ``at`` (ISO UTC). It only moves forward: False (nothing written) when the category was read
        through a later date already."""
        ...


    def source_cursor(self, source: str) -> str | None:
        """The date (YYYY-MM-DD) through which the dated source ``source`` (``biorxiv:neuroscience``) was
        read, or None when it never was. Shared by every workspace."""
        ...

    def set_source_cursor(self, source: str, through: str, at: str) -> bool:
        """Note that ``source`` was read through ``through`` (YYYY-MM-DD) as of ``at`` (ISO UTC); forward
        only, as :meth:`set_arxiv_cursor`."""
        ...


class ArxivCursors(Shared):
    """The categories' read announcements (see the module)."""

    def arxiv_cursor(self, category: str) -> str | None:
        row = self._sql.one(GET, [category])
        return str(row[0]) if row else None

    def set_arxiv_cursor(self, category: str, announced: str, at: str) -> bool:
        return self._sql.run(SET, [category, announced, at]) > 0

    def source_cursor(self, source: str) -> str | None:
        if ":" not in source:
            raise ValueError(f"a dated source's name has a colon (biorxiv:neuroscience), not {source!r}")
        return self.arxiv_cursor(source)

    def set_source_cursor(self, source: str, through: str, at: str) -> bool:
        if ":" not in source:
            raise ValueError(f"a dated source's name has a colon (biorxiv:neuroscience), not {source!r}")
        return self.set_arxiv_cursor(source, through, at)
