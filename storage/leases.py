"""One lease primitive for work that must be done by one process at a time, on either backend.

A lease is a row that names its ``owner`` and how long it holds the work (``lease_until``, ISO UTC
text, which orders as the instants do). Each operation is one compare-and-set statement whose
``WHERE`` states everything it relies on, so that the database decides, row by row, and correctness
never depends on the surrounding transaction being exclusive (SQLite's is, PostgreSQL's READ COMMITTED
is not; there a competing writer waits for the row and then re-checks the condition on its newest
version):

- **take**: ``INSERT … ON CONFLICT DO NOTHING`` when the row is absent; otherwise an ``UPDATE`` that
  takes the work over only while it is held (its status is the kind's ``held``) and its lease ran out,
  or its owner is one the caller knows is dead, or (``early``) it was given back without an owner. A
  ``restartable`` kind (a daily job) may also be started again once a finished run's ``lease_until``
  (then "not before") has passed. Two statements, each atomic: the insert wins only on absence, the
  update only on the stated condition, so of two processes racing exactly one succeeds.
- **renew**, **release** (give back with a retry time, optionally without an owner and counting the
  run) and **finish**: an ``UPDATE … WHERE owner = ? AND status = held``; a process that lost the lease
  changes nothing and is told so.

Digests, daily jobs and trending posts are taken with **take**; a paper's summary by a model
(:data:`SUMMARY`) too, many at once (:func:`take_inserts`), by the summaries' own methods; an inbox item
(:data:`INBOX_ITEM`) is claimed by the inbox's own statements (:mod:`storage.inbox`: many at a time, each
subject's in arrival order), then renewed, released and finished here like any other lease. What else
makes sure exactly one process does a thing is not a lease, each for one reason (said again where it is
written):

- a library import's claim (:mod:`storage.library_imports`): a read lasts one request and is never renewed
  or given back, so the row's ``started_at`` names the claim and one upsert takes it;
- a key claimed once (``claim_once``: a forget ticket, a welcome) and an OAuth state consumed once: a key
  used up, not work held, with nothing to renew, give back or finish; an expiry is all its row keeps.

Who is dead is the caller's knowledge (a pid on the same host, see ``bot.state.owner``), passed as a set of
owner ids. That is safe without pinning the lease seen: an owner id names one process's lifetime and is
never reused, so "dead" stays true; any owner that took the work over since is not in the set.

Kinds are a fixed table here (never input): the column names below are interpolated into SQL.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Protocol

from storage.models import LeaseEnd, LeaseKindName, LeaseTaken

#: The lease of a person's digest for a local day: a row of ``digests``.
DIGEST: LeaseKindName = "digest"
#: The lease of a named shared job (the daily feed ingest, a refit): a row of ``jobs``.
JOB: LeaseKindName = "job"
#: The lease of a channel's trending post for one week: a row of ``trending_posts``.
TRENDING: LeaseKindName = "trending"
#: The lease of a channel's weekly recap for one week: a row of ``recap_posts``.
RECAP: LeaseKindName = "recap"


@dataclass(frozen=True)
class LeaseKind:
    """Where leases of one kind live and what a start writes."""

    table: str
    keys: tuple[str, ...]  # every key column, ``ws`` first for a kind kept per workspace
    held: str  # the status while someone holds the work (or it waits for its retry)
    fresh: frozenset[str]  # other columns a start may write
    counters: frozenset[str]  # columns a release may count up
    restartable: bool  # a finished row may be started again once its lease_until has passed
    json: frozenset[str] = frozenset()  # fresh columns stored as JSON text (given as lists and dicts)
    starts_with: Mapping[str, object] = field(default_factory=dict)  # a new row's other columns
    per_workspace: bool = False  # rows of one workspace: the store puts its ``ws`` before the caller's key
    released: str | None = None  # the status a release leaves (None: still ``held``, waiting for its retry)
    ends_with: Mapping[str, object] = field(default_factory=dict)  # what a finish also writes
    results: frozenset[str] = frozenset()  # columns a finish may write, given by its caller

    @property
    def named_keys(self) -> tuple[str, ...]:
        """The key columns a caller names (the store adds ``ws``)."""
        return self.keys[1:] if self.per_workspace else self.keys


KINDS: dict[str, LeaseKind] = {
    DIGEST: LeaseKind("digests", ("ws", "user_id", "local_date"), "sending",
                      frozenset({"started_at", "papers", "reasons", "failures", "attempts"}),
                      frozenset({"attempts", "outages"}), restartable=False,
                      json=frozenset({"papers", "reasons"}), starts_with={"failures": "{}", "attempts": 0},
                      per_workspace=True),
    JOB: LeaseKind("jobs", ("name",), "running", frozenset({"day", "started_at", "finished_at", "error"}),
                   frozenset(), restartable=True),
    TRENDING: LeaseKind("trending_posts", ("ws", "channel_id", "week"), "posting",
                        frozenset({"started_at"}), frozenset({"attempts"}), restartable=False,
                        per_workspace=True),
    RECAP: LeaseKind("recap_posts", ("ws", "channel_id", "week"), "posting",
                     frozenset({"started_at"}), frozenset({"attempts"}), restartable=False,
                     per_workspace=True),
}

#: An acknowledged request once claimed (:mod:`storage.inbox`), keyed (workspace, key) as the caller names
#: them (the inbox is every view's): given back, it waits to be claimed again; finished, it keeps neither
#: what was asked nor whose it was. Not in :data:`KINDS`: no caller takes one with :func:`take_insert`.
INBOX_ITEM = LeaseKind("inbox", ("ws", "key"), "running", frozenset(), frozenset(), restartable=False,
                       released="waiting", ends_with={"payload": "", "subject": ""})

#: A paper's summary by one model (:mod:`storage.summaries`), keyed (paper id, model), shared by every
#: workspace: "claimed" while one process asks the model, or, given back without an owner, until its
#: retry; finished "ok", "rejected" or "failed" with what was found. Not in :data:`KINDS`: the summaries'
#: own methods take many at once (:func:`take_inserts`) and finish them with their text.
SUMMARY = LeaseKind("summaries", ("paper_id", "model"), "claimed", frozenset({"started_at"}),
                    frozenset({"attempts"}), restartable=False, starts_with={"attempts": 0},
                    results=frozenset({"text", "reason", "source"}))

Statement = tuple[str, list]


def kind_of(kind: str, key: Sequence[str]) -> LeaseKind:
    """The :class:`LeaseKind` named ``kind``; raises ValueError for an unknown one or a wrong key (the
    key a caller names, without the workspace)."""
    try:
        found = KINDS[kind]
    except KeyError:
        raise ValueError(f"no lease kind {kind!r}") from None
    if len(key) != len(found.named_keys):
        raise ValueError(f"a {kind} lease is keyed by {', '.join(found.named_keys)}")
    return found


def keyed(kind: str, key: Sequence[str], ws: str) -> tuple[LeaseKind, tuple[str, ...]]:
    """The kind named ``kind`` and the whole key of a lease the caller keys ``key`` in workspace ``ws``
    (a shared kind's key as given): what the statements below take."""
    found = kind_of(kind, key)
    return found, ((ws, *key) if found.per_workspace else tuple(key))


def _columns(kind: LeaseKind, fresh: Mapping[str, object] | None) -> dict[str, object]:
    fresh = dict(fresh or {})
    unknown = set(fresh) - kind.fresh
    if unknown:
        raise ValueError(f"a lease of {kind.table} can't set {', '.join(sorted(unknown))}")
    return {c: json.dumps(v, ensure_ascii=False) if c in kind.json and v is not None else v
            for c, v in fresh.items()}


def _where_key(kind: LeaseKind, key: Sequence[str]) -> tuple[str, list]:
    return " and ".join(f"{k} = ?" for k in kind.keys), list(key)


def take_insert(kind: LeaseKind, key: Sequence[str], owner: str, until: str,
                fresh: Mapping[str, object] | None) -> Statement:
    """Start the work when no row is there yet."""
    return take_inserts(kind, [key], owner, until, fresh, returning=False)


def take_inserts(kind: LeaseKind, keys: Sequence[Sequence[str]], owner: str, until: str,
                 fresh: Mapping[str, object] | None, returning: bool = True) -> Statement:
    """Start each of several works (whole ``keys``, at least one) that has no row yet, in one statement,
    each row a lease of its own as :func:`take_insert` makes it; with ``returning``, the statement returns
    the key columns of each row it inserted (those taken). Rows go in in key order: two processes
    inserting overlapping keys at once (PostgreSQL waits on the other's uncommitted row) then wait in
    the same order, never on each other."""
    columns = {**dict.fromkeys(kind.keys), "status": kind.held, "owner": owner, "lease_until": until,
               **kind.starts_with, **_columns(kind, fresh)}
    common = list(columns.values())[len(kind.keys):]
    rows = [[*whole, *common] for whole in sorted(dict.fromkeys(tuple(k) for k in keys))]
    for whole in rows:
        if len(whole) != len(columns):
            raise ValueError(f"a lease of {kind.table} is keyed by {', '.join(kind.keys)}")
    marks = ", ".join(["(" + ", ".join("?" * len(columns)) + ")"] * len(rows))
    names = ", ".join(kind.keys)
    sql = (f"insert into {kind.table} ({', '.join(columns)}) values {marks}"  # noqa: S608
           f" on conflict ({names}) do nothing")
    if returning:
        sql += f" returning {names}"
    return sql, [value for row in rows for value in row]


def take_update(kind: LeaseKind, key: Sequence[str], owner: str, until: str, now: str, dead: Iterable[str],
                early: bool, fresh: Mapping[str, object] | None) -> Statement:
    """Take the work over from a lapsed or dead owner (or start a restartable kind's next run)."""
    sets: list[str] = ["owner = ?", "lease_until = ?"]
    args: list[object] = [owner, until]
    if kind.restartable:  # a run taken over starts afresh, as a new one would
        columns = {"status": kind.held, **_columns(kind, fresh)}
        sets += [f"{c} = ?" for c in columns]
        args += list(columns.values())
    lapsed = ["lease_until is null", "lease_until <= ?"]
    lapsed_args: list = [now]
    dead = sorted(set(dead))
    if dead:
        lapsed.append(f"owner in ({', '.join('?' * len(dead))})")
        lapsed_args += dead
    if early:
        lapsed.append("owner is null")
    condition = f"(status = ? and ({' or '.join(lapsed)}))"
    condition_args = [kind.held, *lapsed_args]
    if kind.restartable:
        condition += " or (status <> ? and (lease_until is null or lease_until <= ?))"
        condition_args += [kind.held, now]
    where, key_args = _where_key(kind, key)
    sql = f"update {kind.table} set {', '.join(sets)} where {where} and ({condition})"  # noqa: S608
    return sql, [*args, *key_args, *condition_args]


def _owned(kind: LeaseKind, key: Sequence[str], owner: str, sets: list[str], args: list,
           returning: str | None = None) -> Statement:
    where, key_args = _where_key(kind, key)
    sql = (f"update {kind.table} set {', '.join(sets)} where {where}"  # noqa: S608
           " and owner = ? and status = ?")
    if returning:
        sql += f" returning {returning}"
    return sql, [*args, *key_args, owner, kind.held]


def renew(kind: LeaseKind, key: Sequence[str], owner: str, until: str) -> Statement:
    """Extend the owner's lease."""
    return _owned(kind, key, owner, ["lease_until = ?"], [until])


def paper_posted(key: Sequence[str], ws: str, owner: str, until: str, finished_at: str | None) -> Statement:
    """A paper of the digest ``key`` (user, local date) of workspace ``ws`` went out: its owner's lease
    renewed to ``until``, or, for the last paper (``finished_at``), the digest finished "sent" then."""
    kind, whole = keyed(DIGEST, key, ws)
    if finished_at is None:
        return renew(kind, whole, owner, until)
    return finish(kind, whole, owner, "sent", finished_at, None, None)


def release(kind: LeaseKind, key: Sequence[str], owner: str, retry_at: str, disown: bool, count: str | None,
            error: str | None) -> Statement:
    """Give the work back, to be taken again from ``retry_at``; returns the counted column when counting."""
    sets, args = ["lease_until = ?"], [retry_at]
    if kind.released is not None:
        sets.append("status = ?")
        args.append(kind.released)
    if disown:
        sets.append("owner = null")
    if count is not None:
        if count not in kind.counters:
            raise ValueError(f"a lease of {kind.table} can't count {count}")
        sets.append(f"{count} = coalesce({count}, 0) + 1")
    if error is not None:
        sets.append("error = ?")
        args.append(error)
    # Assignments see the old row, so the owner test in WHERE is unaffected by "owner = null".
    return _owned(kind, key, owner, sets, args, returning=count or "1")


def finish(kind: LeaseKind, key: Sequence[str], owner: str, status: str, at: str, error: str | None,
           again_at: str | None, results: Mapping[str, object] | None = None) -> Statement:
    """End the work as ``status``; a restartable kind may start again from ``again_at``; ``results``: what
    the work found, in the kind's :attr:`LeaseKind.results` columns."""
    if status == kind.held:
        raise ValueError(f"finishing a lease needs a status other than {kind.held!r}")
    results = dict(results or {})
    unknown = set(results) - kind.results
    if unknown:
        raise ValueError(f"a finish of {kind.table} can't set {', '.join(sorted(unknown))}")
    written = {**kind.ends_with, **results}
    return _owned(kind, key, owner,
                  ["status = ?", "finished_at = ?", "error = ?", "lease_until = ?",
                   *(f"{column} = ?" for column in written)],
                  [status, at, error, again_at, *written.values()])


class LeasesStore(Protocol):
    """Work one process at a time does, on either backend (see the module); and keys claimed once."""

    def take_lease(self, kind: LeaseKindName, key: Sequence[str], owner: str, until: str, now: str,
                   dead: Iterable[str] = (), early: bool = False,
                   fresh: Mapping[str, object] | None = None) -> LeaseTaken | None:
        """Take the work ``kind`` (``leases.DIGEST``, ``leases.JOB``) keyed ``key`` for ``owner`` until
        ``until`` (ISO UTC), as of ``now``: "new" when no row was there (``fresh`` columns written with
        it), "taken" when taken over (its lease ran out, its owner is in ``dead``, or, with ``early``,
        it was given back without an owner; a job's next run also starts so), None when someone else
        holds it or it is finished."""
        ...

    def renew_lease(self, kind: LeaseKindName, key: Sequence[str], owner: str, until: str) -> bool:
        """Extend ``owner``'s lease to ``until``. False if it is no longer theirs (they must stop)."""
        ...

    def release_lease(self, kind: LeaseKindName, key: Sequence[str], owner: str, retry_at: str,
                      disown: bool = False, count: str | None = None, error: str | None = None) -> int | None:
        """Give ``owner``'s work back, to be taken again from ``retry_at`` (ISO UTC); ``disown``: by
        anyone, ``owner`` included; ``count``: a column counting such runs, one more; ``error``: why.
        Returns the counted column's new value (0 when counting nothing), None if it was not theirs."""
        ...

    def finish_lease(self, kind: LeaseKindName, key: Sequence[str], owner: str, status: LeaseEnd, at: str,
                     error: str | None = None, again_at: str | None = None) -> bool:
        """End ``owner``'s work as ``status`` at ``at``; a job may run again from ``again_at`` (ISO UTC;
        None: whenever asked). False if it was not theirs."""
        ...

    def claim_once(self, key: str, keep: timedelta) -> bool:
        """Claim ``key`` in this workspace: True the first time, False while an earlier claim of it is
        kept (``keep`` from now); of racing claims of the same key exactly one wins. Expired keys (of
        every workspace) are dropped on the way."""
        ...
