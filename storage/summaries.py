"""Papers' summaries by a model the lab runs (issue 41, the ``summaries`` and ``summary_calls`` tables), on
either backend, shared by every workspace (papers are).

Each paper is asked for once per model, whichever process or replica gets there first: its row is a lease
(:data:`storage.leases.SUMMARY`, taken with the one lease mechanism's statements), inserted by the first
claim (``insert … on conflict do nothing``: of racing claims exactly one inserts), taken over only when its
holder's lease ran out or it died, or when it was given back for a retry and that time has come. A finished
row is asked again only when the paper's title or abstract changed since (its ``source`` fingerprint
differs: one compare-and-set on it). The day's calls are counted by one upsert that adds a call only
while the count is under the limit, so the limit holds across processes. A "failed" summary (no usable
answer after its attempts) may be claimed again once the time its finish named has passed.

Statements use qmark placeholders (run through the store's :class:`~storage.dialect.Dialect`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Protocol

from storage import leases
from storage.dialect import Shared
from storage.leases import SUMMARY
from storage.models import SummaryRecord, SummaryStatus

_COLUMNS = "paper_id, model, status, text, reason, source, error, attempts, finished_at"
#: The rows of the listed papers (a relation ``c(id)`` in place of ``{listed}``) for one model.
ROWS = (f"select {_COLUMNS}, owner, lease_until from summaries"  # noqa: S608 - constants only
        " where model = ? and paper_id in (select id from {listed})")
#: A finished summary asked again because its paper's text changed (its source differs): a compare-and-set
#: on the source, so of racing processes one reopens it.
REOPEN = ("update summaries set status = ?, owner = ?, lease_until = ?, started_at = ?, attempts = 0,"
          " text = null, reason = null, error = null, finished_at = null"
          " where paper_id = ? and model = ? and status <> ? and source is not null and source <> ?")
#: A failed summary asked again once its ``lease_until`` (the finish's "not before") has passed.
RETRY_FAILED = ("update summaries set status = ?, owner = ?, lease_until = ?, started_at = ?, attempts = 0,"
                " error = null, finished_at = null where paper_id = ? and model = ? and status = 'failed'"
                " and lease_until is not null and lease_until <= ?")
#: One more call today, while fewer than the limit were made: returns the new count, or no row.
COUNT_CALL = ("insert into summary_calls (day, calls) values (?, 1) on conflict (day) do update"
              " set calls = summary_calls.calls + 1 where summary_calls.calls < ? returning calls")
CALLS = "select calls from summary_calls where day = ?"
#: How the summaries finished between two instants ended, by status and reason.
OUTCOMES = ("select status, reason, count(*) from summaries where finished_at >= ? and finished_at < ?"
            " and status <> ? group by status, reason")
LATEST_ERROR = ("select error from summaries where status = 'failed' and finished_at >= ? and finished_at < ?"
                " order by finished_at desc limit 1")
FINAL: tuple[SummaryStatus, ...] = ("ok", "rejected", "failed")


class SummariesStore(Protocol):
    """Papers' summaries by a model: each asked for once per paper and model (the database decides), and
    the day's calls counted under a limit. Shared by every workspace."""

    def claim_summaries(self, paper_ids: Sequence[str], model: str, sources: Mapping[str, str], owner: str,
                        until: str, now: str, dead: Iterable[str] = ()) -> list[str]:
        """Claim, for ``owner`` until ``until`` (ISO UTC, as of ``now``), the summary by ``model`` of each of
        ``paper_ids`` nobody asked for yet, or whose claim lapsed (``until`` passed, its owner is in
        ``dead``, or it was given back and its retry time came), or whose finished summary was asked from
        another text than ``sources[paper_id]`` (the fingerprint of the paper's title and abstract now).
        Returns those claimed, in the order given; of processes claiming at once, each paper goes to one."""
        ...

    def finish_summary(self, paper_id: str, model: str, owner: str, status: SummaryStatus, at: str,
                       text: str | None = None, reason: str | None = None, source: str | None = None,
                       error: str | None = None, again_at: str | None = None) -> bool:
        """End ``owner``'s claim as "ok", "rejected" or "failed" at ``at``, with the summary's ``text``, the
        check's ``reason``, the ``source`` fingerprint it was asked from and an ``error``; a "failed" one
        may be claimed again from ``again_at`` (ISO UTC; None: never, unless its paper's text changes).
        False (nothing written) if the claim is no longer ``owner``'s."""
        ...

    def release_summary(self, paper_id: str, model: str, owner: str, retry_at: str, error: str | None = None,
                        count: bool = True) -> int | None:
        """Give ``owner``'s claim back, for anyone to take from ``retry_at`` (ISO UTC); ``count``: one more
        failed attempt. Returns the attempts counted so far, None if the claim was not ``owner``'s."""
        ...

    def summaries_of(self, paper_ids: Sequence[str], model: str) -> dict[str, SummaryRecord]:
        """The stored summaries by ``model`` of those of ``paper_ids`` that have one, whatever their
        status, by paper id."""
        ...

    def count_summary_call(self, day: str, limit: int) -> bool:
        """Count one call to the model on UTC ``day`` (YYYY-MM-DD) if fewer than ``limit`` were counted that
        day: True when counted (the call may be made), False at the limit. Across processes, at most
        ``limit`` calls are counted a day."""
        ...

    def summary_calls(self, day: str) -> int:
        """The calls counted on UTC ``day``."""
        ...

    def summary_outcomes(self, since: str, until: str) -> dict[tuple[str, str | None], int]:
        """How many summaries finished in [``since``, ``until``) (ISO UTC), by (status, reason): the reason
        is the check's code for a "rejected" one, None otherwise."""
        ...

    def latest_summary_error(self, since: str, until: str) -> str | None:
        """The error of the newest summary that failed in [``since``, ``until``), or None."""
        ...


class Summaries(Shared):
    """Papers' summaries (see the module)."""

    def claim_summaries(self, paper_ids: Sequence[str], model: str, sources: Mapping[str, str], owner: str,
                        until: str, now: str, dead: Iterable[str] = ()) -> list[str]:
        ids = list(dict.fromkeys(paper_ids))
        if not ids:
            return []
        dead = list(dead)
        claimed: set[str] = set()
        with self._sql.serialised():
            listed, listed_args = self._sql.listed(ids)
            rows = {r[0]: r for r in self._sql.all(ROWS.format(listed=listed), [model, *listed_args])}
            absent = [(paper_id, model) for paper_id in ids if paper_id not in rows]
            if absent:
                statement = leases.take_inserts(SUMMARY, absent, owner, until, {"started_at": now})
                claimed.update(r[0] for r in self._sql.returning(*statement))
            for paper_id, row in rows.items():
                if self._take_over(paper_id, model, row, sources.get(paper_id), owner, until, now, dead):
                    claimed.add(paper_id)
        return [paper_id for paper_id in ids if paper_id in claimed]

    def _take_over(self, paper_id: str, model: str, row: tuple, source: str | None, owner: str, until: str,
                   now: str, dead: list[str]) -> bool:
        """Claim a stored summary (``row``, as :data:`ROWS` reads it) when it may be asked again: each
        statement's WHERE decides; ``row`` only spares the statements that can't succeed."""
        status, stored_source, holder, lease_until = row[2], row[5], row[9], row[10]
        lapsed = lease_until is None or lease_until <= now
        if status == SUMMARY.held:
            if not (lapsed or holder in dead):
                return False
            statement = leases.take_update(SUMMARY, (paper_id, model), owner, until, now, dead, early=False,
                                           fresh={"started_at": now})
            return self._sql.run(*statement) > 0
        if source and stored_source and stored_source != source:
            return self._sql.run(REOPEN, [SUMMARY.held, owner, until, now, paper_id, model, SUMMARY.held,
                                          source]) > 0
        if status == "failed" and lease_until is not None and lapsed:
            return self._sql.run(RETRY_FAILED, [SUMMARY.held, owner, until, now, paper_id, model, now]) > 0
        return False

    def finish_summary(self, paper_id: str, model: str, owner: str, status: SummaryStatus, at: str,
                       text: str | None = None, reason: str | None = None, source: str | None = None,
                       error: str | None = None, again_at: str | None = None) -> bool:
        if status not in FINAL:
            raise ValueError(f"a summary finishes as one of {', '.join(FINAL)}, not {status!r}")
        statement = leases.finish(SUMMARY, (paper_id, model), owner, status, at, error, again_at,
                                  {"text": text, "reason": reason, "source": source})
        return self._sql.write(*statement) > 0

    def release_summary(self, paper_id: str, model: str, owner: str, retry_at: str, error: str | None = None,
                        count: bool = True) -> int | None:
        statement = leases.release(SUMMARY, (paper_id, model), owner, retry_at, disown=True,
                                   count="attempts" if count else None, error=error)
        rows = self._sql.returning(*statement)
        return None if not rows else int(rows[0][0] if count else 0)

    def summaries_of(self, paper_ids: Sequence[str], model: str) -> dict[str, SummaryRecord]:
        ids = list(dict.fromkeys(paper_ids))
        if not ids:
            return {}
        listed, listed_args = self._sql.listed(ids)
        return {r[0]: SummaryRecord(r[0], r[1], r[2], r[3], r[4], r[5], r[6], int(r[7] or 0), r[8])
                for r in self._sql.all(ROWS.format(listed=listed), [model, *listed_args])}

    def count_summary_call(self, day: str, limit: int) -> bool:
        if limit <= 0:
            return False
        return bool(self._sql.returning(COUNT_CALL, [day, limit]))

    def summary_calls(self, day: str) -> int:
        row = self._sql.one(CALLS, [day])
        return int(row[0]) if row else 0

    def summary_outcomes(self, since: str, until: str) -> dict[tuple[str, str | None], int]:
        found: dict[tuple[str, str | None], int] = {}
        for status, reason, count in self._sql.all(OUTCOMES, [since, until, SUMMARY.held]):
            key = (status, reason if status == "rejected" else None)
            found[key] = found.get(key, 0) + int(count)
        return found

    def latest_summary_error(self, since: str, until: str) -> str | None:
        row = self._sql.one(LATEST_ERROR, [since, until])
        return row[0] if row else None
