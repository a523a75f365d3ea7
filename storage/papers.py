"""The papers' part of the store, on either backend: reading papers by id, alias, arXiv id, URL or DOI,
the change feed, and the searches the bot runs over titles and abstracts.

Writing papers is each store's own (:meth:`upsert_papers`: how paper writers queue differs); the
matching and merging they share is :mod:`storage.merging`. Papers are shared by every workspace.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from typing import Protocol

from storage import identity, merging
from storage.dialect import Shared
from storage.fulltext import paper_text
from storage.models import Paper, UpsertCounts
from storage.paper_events import EventDetector
from storage.records import paper_from_row, paper_row

#: Highlights computed apart from an ingest (a back-fill) land only where none were and the abstract is still
#: the one they were computed from: an ingest that replaced either meanwhile wins.
SET_HIGHLIGHTS = ("update papers set highlight = ?, result = ? where id = ? and highlight is null"
                  " and abstract = ?")
#: When a paper counts as new: its publication date, else the day it was added.
_DAY = "coalesce(published, substr(added_at, 1, 10))"


class PapersStore(Protocol):
    """Papers, shared by every workspace: stored once however many sources name them (merging), read by id,
    alias, arXiv id, URL or DOI, and followed by a change counter."""

    def upsert_papers(self, papers: Iterable[Paper], events: EventDetector | None = None) -> UpsertCounts:
        """Add new papers and update known ones, in one transaction.

        A paper is known by its id or any id it was known by, its arXiv id across versions, its DOI, or
        its normalised title with an author surname in common (:mod:`storage.merging`); a known paper
        keeps its id, the others it had become aliases. An older arXiv version never overwrites a newer
        one. A record that matches several stored papers merges them, what people did with them moving
        to the one kept. ``events``: what happened to a known paper a record changed (its row before and
        after), recorded in ``paper_events`` in the same transaction, once per paper, kind and detail, for
        a paper someone saved or liked (no one else could be told of it)."""
        ...

    def papers_lacking_highlights(self, after: str = "", limit: int = 500) -> list[tuple[str, str, str]]:
        """Up to ``limit`` papers whose highlights were never computed (stored before they were, or written
        without them) and that have an abstract, by id from just after ``after``: (id, title, abstract)."""
        ...

    def set_highlights(self, values: Iterable[tuple[str, str, str | None, str | None]]) -> int:
        """Store the highlights computed for papers lacking them: (id, the abstract they were computed
        from, highlight, result) each, a None highlight kept as "" (computed, nothing to show). A paper
        whose abstract changed since, or that got its highlights meanwhile (an ingest), is left as it is.
        No change number is given out: the recommender reads nothing of them. Returns how many were set."""
        ...

    def match_papers(self, papers: Sequence[Paper]) -> list[str | None]:
        """For each of ``papers``, the id of the stored paper it is the same paper as (the one
        :meth:`upsert_papers` would merge it into: by id or alias, arXiv id, DOI, or normalised title
        with an author surname in common), or None; nothing is written."""
        ...

    def max_paper_seq(self) -> int:
        """The change counter of the newest paper change; 0 for an empty store."""
        ...

    def count_papers(self) -> int:
        """How many papers are stored."""
        ...

    def newest_paper_added(self) -> str | None:
        """When the newest paper was first stored (ISO UTC; an update of a known paper is no new paper),
        of every workspace's; None with no papers. An index's one row: cheap enough for every scrape."""
        ...

    def get_papers(self, ids: Iterable[str]) -> dict[str, Paper]:
        """The papers with these ids, by the id asked for; an id a paper was once known by (merged into
        another) gives that paper, with its own id; unknown ids are left out."""
        ...

    def get_paper(self, paper_id: str) -> Paper | None:
        """One paper by id, or None."""
        ...

    def find_paper_by_arxiv_id(self, arxiv_id: str) -> Paper | None:
        """The paper with this arXiv id (no version), or None."""
        ...

    def find_paper_by_url(self, url: str) -> Paper | None:
        """The paper with exactly this URL (or that a paper merged into it had), or None."""
        ...

    def find_paper_by_doi(self, doi: str) -> Paper | None:
        """The paper with this DOI, however it is written (``doi:``, ``https://doi.org/``, any case),
        or None."""
        ...

    def paper_held(self, paper_id: str) -> tuple[str, str, list[str]] | None:
        """Since when a paper is held: (when it was first stored, when last updated (ISO UTC), every id
        it was known by besides its own, oldest first), by its id; None for an id no paper has now."""
        ...

    def papers_merged_since(self, seq: int) -> list[str]:
        """The ids merged into other papers (or recorded as another paper's) after change counter
        ``seq``: a running index drops them (the paper they name is among :meth:`papers_changed_since`)."""
        ...

    def papers_changed_since(self, seq: int) -> Iterator[tuple[int, Paper]]:
        """Papers added or updated after change counter ``seq``, oldest change first."""
        ...

    def paper_dates(self) -> dict[str, str | None]:
        """Each paper's published date (or, failing that, when it was added), by id."""
        ...

    def recent_paper_ids(self, since: str) -> set[str]:
        """Papers published (or, without a date, added) on or after ``since`` (YYYY-MM-DD)."""
        ...

    def recent_paper_authors(self, since: str) -> dict[str, tuple[str | None, str]]:
        """(authors as stored (JSON text), date) of the papers published (or, without a date, added) on
        or after ``since`` (YYYY-MM-DD), by paper id."""
        ...

    def papers_containing(self, fragments: Iterable[str]) -> dict[str, str]:
        """Title and abstract (``"title. abstract"``) of every paper whose lowercased title or abstract
        holds one of ``fragments`` (lowercase), by id: a coarse first pass for muted words."""
        ...


class Papers(Shared):
    """Reads of the shared papers (see the module)."""


    def count_papers(self) -> int:
        return int(self._sql.all("select count(*) from papers")[0][0])

    def newest_paper_added(self) -> str | None:
        return self._sql.all("select max(added_at) from papers")[0][0]

    def get_papers(self, ids: Iterable[str]) -> dict[str, Paper]:
        ids = list(dict.fromkeys(ids))
        if not ids:
            return {}
        listed, args = self._sql.listed(ids)
        # Two lookups by key, in one statement: an "or" across the alias join would scan every paper. Each
        # paper comes with the pages of the records merged into it (``Paper.other_urls``).
        urls = self._sql.alias_urls("p.id")
        rows = self._sql.rows(f"select c.id asked, p.*, {urls} other_urls from {listed}"  # noqa: S608
                              " join papers p on p.id = c.id"
                              f" union all select c.id asked, p.*, {urls} other_urls from {listed}"
                              " join paper_aliases a on a.alias = c.id join papers p on p.id = a.paper_id",
                              [*args, *args])
        found = {r["id"]: _with_other_urls(r) for r in rows if r["id"] == r["asked"]}
        for r in rows:
            found.setdefault(r["asked"], _with_other_urls(r))
        return found

    def get_paper(self, paper_id: str) -> Paper | None:
        return self.get_papers([paper_id]).get(paper_id)

    def _first_paper(self, where: str, args: list) -> Paper | None:
        # ``where`` is a constant condition of this module.
        rows = self._sql.rows(f"select * from papers where {where} limit 1", args)  # noqa: S608
        return paper_from_row(rows[0]) if rows else None

    def find_paper_by_arxiv_id(self, arxiv_id: str) -> Paper | None:
        return self._first_paper("arxiv_id = ?", [arxiv_id]) or self.get_paper(f"arxiv:{arxiv_id}")

    def find_paper_by_url(self, url: str) -> Paper | None:
        found = self._first_paper("url = ?", [url])
        if found is None and (alias := self._sql.one(merging.FIND_ALIAS_BY_URL, [url])):
            return self.get_paper(alias[0])
        return found

    def paper_held(self, paper_id: str) -> tuple[str, str, list[str]] | None:
        row = self._sql.one("select added_at, updated_at from papers where id = ?", [paper_id])
        if row is None:
            return None
        aliases = [r[0] for r in self._sql.all("select alias from paper_aliases where paper_id = ?"
                                               " and alias <> ? order by seq, alias", [paper_id, paper_id])]
        return row[0], row[1], aliases

    def find_paper_by_doi(self, doi: str) -> Paper | None:
        return self._first_paper("doi = ? order by added_at, id", [identity.normal_doi(doi)])

    def papers_lacking_highlights(self, after: str = "", limit: int = 500) -> list[tuple[str, str, str]]:
        # The partial index of m033 holds exactly these rows, in id order.
        rows = self._sql.all("select id, coalesce(title, ''), abstract from papers where highlight is null"
                             " and id > ? and abstract <> '' order by id limit ?", [after, limit])
        return [(pid, title, abstract) for pid, title, abstract in rows]

    def set_highlights(self, values: Iterable[tuple[str, str, str | None, str | None]]) -> int:
        done = 0
        with self.transaction():
            for paper_id, abstract, highlight, result in values:
                done += self._sql.run(SET_HIGHLIGHTS, [highlight or "", result, paper_id, abstract])
        return done

    def match_papers(self, papers: Sequence[Paper]) -> list[str | None]:
        rows = [identity.keys_of(paper_row(p)) for p in papers]
        matcher = merging.Matcher(*merging.known(self._sql, rows))
        return [None if (kept := matcher.place(row).kept) is None else kept["id"] for row in rows]

    def papers_merged_since(self, seq: int) -> list[str]:
        return [r[0] for r in self._sql.all(merging.MERGED_SINCE, [seq])]

    def papers_changed_since(self, seq: int) -> Iterator[tuple[int, Paper]]:
        for row in self._sql.rows("select * from papers where seq > ? order by seq", [seq]):
            yield row["seq"], paper_from_row(row)

    def paper_dates(self) -> dict[str, str | None]:
        return dict(self._sql.all(f"select id, {_DAY} d from papers"))  # noqa: S608

    def recent_paper_ids(self, since: str) -> set[str]:
        return {r[0] for r in self._sql.all(f"select id from papers where {_DAY} >= ?", [since])}  # noqa: S608

    def recent_paper_authors(self, since: str) -> dict[str, tuple[str | None, str]]:
        return {pid: (authors, day) for pid, authors, day in self._sql.all(
            f"select id, authors, {_DAY} d from papers where {_DAY} >= ?", [since])}  # noqa: S608

    def papers_containing(self, fragments: Iterable[str]) -> dict[str, str]:
        fragments = list(dict.fromkeys(f for f in fragments if f))
        if not fragments:
            return {}
        # Backslash escapes LIKE's wildcards in the fragments.
        like = " or ".join(["lower(coalesce(title, '') || ' ' || abstract) like ? escape '\\'"]
                           * len(fragments))
        args = ["%" + f.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
                for f in fragments]
        # Only the fixed condition above is repeated into the statement.
        rows = self._sql.all(f"select id, coalesce(title, ''), abstract from papers where {like}", args)  # noqa: S608
        return {pid: paper_text(title, abstract) for pid, title, abstract in rows}


def _with_other_urls(row: dict) -> Paper:
    """The paper of a row that also holds ``other_urls`` (:meth:`~storage.dialect.Dialect.alias_urls`)."""
    paper = paper_from_row(row)
    urls = json.loads(row["other_urls"] or "[]")
    paper.other_urls = [url for url in dict.fromkeys(urls) if url != paper.url]
    return paper
