"""What became of the papers people saved or liked (issue 42) on either backend: the events an ingest found
(``paper_events``, written by :mod:`storage.merging` in the transaction of the merge that found them) and
which of them each person (or channel) was told (``followups_told``, one row per person and event: the key
decides "once" across processes and replicas).

What an event is belongs to the caller (``bot/text/paper_events.py``): the store is handed a detector, a
function of the paper before and after a merge. Statements use qmark placeholders; table and column names
are constants, never input.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Protocol

from storage.dialect import Shared
from storage.identity import doi_alias, normal_doi
from storage.models import Paper, PaperEvent
from storage.moments import utcnow

#: What an ingest's store asks of its caller: the (kind, detail) events between a stored paper (before a
#: record was merged into it) and what it became.
EventDetector = Callable[[Paper, Paper], Iterable[tuple[str, str]]]

#: An event found once per paper, kind and detail: the same event found again (another source's record
#: of the same change) changes nothing. Kept only for a paper someone (or some channel), in any workspace,
#: saved or liked by then: nobody else could be told of it, as an event older than an interest is not
#: told (an ingest of arXiv's replacements finds thousands a day, of papers nobody holds).
RECORD_EVENT = ("insert into paper_events (paper_id, kind, detail, found_at) select ?, ?, ?, ?"
                " where exists (select 1 from saved s where s.paper_id = ?)"
                " or exists (select 1 from feedback f where f.paper_id = ? and f.value > 0)"
                " on conflict (paper_id, kind, detail) do nothing")
EVENTS_OF = ("select paper_id, kind, detail, found_at from paper_events where paper_id in ({marks})"
             " order by found_at, paper_id, kind, detail")
#: Claim, for one message (``via``), every event a person has not been told of yet, found since ``?``
#: about a paper they had saved or liked before it was found (an event older than their interest is not
#: news to them; timestamps are compared to the second, as some are written to the microsecond and some
#: not, a save in the same second counting as before). One statement: two processes claiming at once
#: each insert only what the other did not.
CLAIM = (
    "insert into followups_told (ws, user_id, paper_id, kind, detail, via, told_at)"
    " select ?, ?, e.paper_id, e.kind, e.detail, ?, ? from paper_events e"
    " where e.found_at >= ?"
    " and (exists (select 1 from saved s where s.ws = ? and s.user_id = ? and s.paper_id = e.paper_id"
    "              and substr(s.saved_at, 1, 19) <= substr(e.found_at, 1, 19))"
    "      or exists (select 1 from feedback f where f.ws = ? and f.user_id = ? and f.paper_id = e.paper_id"
    "              and f.value > 0 and substr(f.created_at, 1, 19) <= substr(e.found_at, 1, 19)))"
    " and not exists (select 1 from followups_told t where t.ws = ? and t.user_id = ?"
    "                 and t.paper_id = e.paper_id and t.kind = e.kind and t.detail = e.detail)"
    " order by e.found_at, e.paper_id limit ?"
    " on conflict (ws, user_id, paper_id, kind, detail) do nothing"
)
TOLD_VIA = ("select t.paper_id, t.kind, t.detail, e.found_at from followups_told t"
            " left join paper_events e on e.paper_id = t.paper_id and e.kind = t.kind and e.detail = t.detail"
            " where t.ws = ? and t.user_id = ? and t.via = ?"
            " order by e.found_at, t.paper_id, t.kind, t.detail")
#: Who has an event not told yet (as :data:`CLAIM` would claim it), and has not turned follow-ups off:
#: driven by the events found since ``?`` (the index on ``found_at``), then the papers' savers and likers.
PEOPLE_WITH_NEWS = (
    "select distinct x.user_id from paper_events e join ("
    " select s.user_id, s.paper_id, s.saved_at as at from saved s where s.ws = ?"
    " union all"
    " select f.user_id, f.paper_id, f.created_at as at from feedback f where f.ws = ? and f.value > 0"
    ") x on x.paper_id = e.paper_id and substr(x.at, 1, 19) <= substr(e.found_at, 1, 19)"
    " where e.found_at >= ?"
    " and not exists (select 1 from followups_told t where t.ws = ? and t.user_id = x.user_id"
    "                 and t.paper_id = e.paper_id and t.kind = e.kind and t.detail = e.detail)"
    " and not exists (select 1 from people p where p.ws = ? and p.user_id = x.user_id"
    "                 and p.followups_off = 1)"
    " order by x.user_id"
)
#: Keep the DOI of another version of a paper (a bioRxiv preprint's journal version) as an alias of it, so
#: that version's record (PubMed's, or one named by its DOI) merges into it. No change number: it was never
#: a paper of its own, so no index has it to drop. An alias naming a paper already, or that is a paper's
#: own id (the journal version stored on its own), is left as it is.
KEEP_DOI_ALIAS = ("insert into paper_aliases (alias, paper_id, url, seq) select ?, ?, ?, 0"
                  " where not exists (select 1 from papers q where q.id = ?)"
                  " on conflict (alias) do nothing")
#: A paper's current id, from its id or any alias (none for an unknown one).
CURRENT_ID = ("select p.id from papers p"
              " where p.id = coalesce((select a.paper_id from paper_aliases a where a.alias = ?), ?)")
RELEASE = "delete from followups_told where ws = ? and user_id = ? and via = ?"


def record_events(sql, paper_id: str, found: Iterable[tuple[str, str]], now: str) -> None:
    """Write the events found for paper ``paper_id`` (in the caller's transaction); ``sql``: a
    :class:`storage.merging.Sql`."""
    for kind, detail in found:
        sql.run(RECORD_EVENT, [paper_id, kind, detail, now, paper_id, paper_id])


class FollowupsStore(Protocol):
    """The events found of papers, and which of them each person of this workspace was told."""

    def paper_events(self, paper_ids: Iterable[str]) -> list[PaperEvent]:
        """The events found of these papers (by their current ids), oldest first."""
        ...

    def claim_followups(self, user_id: str, via: str, told_at: str, since: str,
                        limit: int) -> list[PaperEvent]:
        """Claim for one message (``via``: a digest's local day, or "dm:" and a local day) at most
        ``limit`` events not told to ``user_id`` yet, found since ``since`` (ISO UTC) about papers they
        saved or liked before each was found, and return every event claimed for ``via`` (those claimed
        by an earlier attempt at the same message included), oldest first. Once per person and event
        however many processes claim at once."""
        ...

    def followups_told_via(self, user_id: str, via: str) -> list[PaperEvent]:
        """The events claimed for one message of ``user_id``'s, oldest first."""
        ...

    def record_paper_events(self, events: Iterable[tuple[str, str, str]]) -> None:
        """Record events found apart from an ingest's merge (paper id, kind, detail), each once, now, of
        papers someone saved or liked (as :meth:`upsert_papers` records its events)."""
        ...

    def keep_journal_dois(self, dois: Mapping[str, str]) -> list[tuple[str, str]]:
        """For papers (by id or alias) whose source names the DOI of their journal version (bioRxiv's
        ``published``): keep that DOI as an alias of the paper, so the journal version's record merges
        into it. Returns (current paper id, bare DOI) of those kept now for the first time; unknown papers
        and DOIs that are not DOIs are left out."""
        ...

    def people_with_followups(self, since: str) -> list[str]:
        """Who in this workspace has an event found since ``since`` (ISO UTC) not told yet, about a paper
        they saved or liked before it was found, and has not turned follow-ups off (channels included)."""
        ...

    def release_followups(self, user_id: str, via: str) -> int:
        """Give back the events claimed for a message that never went out (to be told another time);
        how many."""
        ...


class Followups(Shared):
    """Follow-ups of one workspace's people, over the papers' events every workspace shares."""

    def paper_events(self, paper_ids: Iterable[str]) -> list[PaperEvent]:
        ids = list(dict.fromkeys(paper_ids))
        if not ids:
            return []
        rows = self._sql.all(EVENTS_OF.format(marks=", ".join("?" * len(ids))), ids)
        return [PaperEvent(*r) for r in rows]

    def claim_followups(self, user_id: str, via: str, told_at: str, since: str,
                        limit: int) -> list[PaperEvent]:
        ws = self._ws
        if limit > 0:
            self._sql.run(CLAIM, [ws, user_id, via, told_at, since, ws, user_id, ws, user_id, ws, user_id,
                                  limit])
        return self.followups_told_via(user_id, via)

    def followups_told_via(self, user_id: str, via: str) -> list[PaperEvent]:
        return [PaperEvent(*r) for r in self._sql.all(TOLD_VIA, [self._ws, user_id, via])]

    def record_paper_events(self, events: Iterable[tuple[str, str, str]]) -> None:
        now = utcnow()
        for paper_id, kind, detail in events:
            self._sql.run(RECORD_EVENT, [paper_id, kind, detail, now, paper_id, paper_id])

    def keep_journal_dois(self, dois: Mapping[str, str]) -> list[tuple[str, str]]:
        kept = []
        for asked, doi in dois.items():
            bare = normal_doi(doi)
            row = self._sql.one(CURRENT_ID, [asked, asked]) if bare else None
            if row is None or bare is None:
                continue
            alias = doi_alias(bare)
            if self._sql.run(KEEP_DOI_ALIAS, [alias, row[0], None, alias]) > 0:
                kept.append((row[0], bare))
        return kept

    def people_with_followups(self, since: str) -> list[str]:
        ws = self._ws
        return [r[0] for r in self._sql.all(PEOPLE_WITH_NEWS, [ws, ws, since, ws, ws])]

    def release_followups(self, user_id: str, via: str) -> int:
        return self._sql.run(RELEASE, [self._ws, user_id, via])
