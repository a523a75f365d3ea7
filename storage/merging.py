"""Writing papers so that one paper is one row, on either backend: the upsert of an ingest and the
migration that merges the duplicates already stored (m010).

Each record is matched against the stored papers (:mod:`storage.identity` says when two are one);
a match updates the paper, and a record that matches several stored papers merges them into the oldest,
which keeps its id. Every id a paper was known by stays in ``paper_aliases`` (alias -> paper id), and
what people did with a merged-away id (feedback, shown, digests' lists) moves to the kept one. The
caller serialises paper writers (SQLite's write lock, PostgreSQL's lock on the feed's counter row), so
reading the candidates and writing the result is one step.

Statements use qmark placeholders and no literal ``?`` or ``%`` (PostgreSQL's store turns them into
its own); table and column names are the constants below, never input.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from storage.identity import (
    ABSTRACT_FIELDS,
    MERGED_FIELDS,
    NEWER,
    OLDER,
    PEER,
    combine,
    differs,
    doi_alias,
    keys_of,
    share_a_surname,
)
from storage.models import UpsertCounts
from storage.paper_events import EventDetector, record_events
from storage.records import paper_from_row
from storage.tables import COPIED_TABLES

PAPER_COLUMNS = COPIED_TABLES["papers"]
#: Person-level tables keyed (ws, user_id, paper_id): a merge moves their rows to the kept paper, a
#: person's own row for it winning (who liked both keeps one like). A new table naming papers so
#: belongs here.
PAPER_KEYED_TABLES = ("feedback", "shown", "saved", "feed_papers", "suggestions", "followups_told", "shares")
#: Those tables as migration m010 found them (``saved`` came with m011, ``feed_papers`` with m012).
M010_TABLES = ("feedback", "shown")
#: Tables keyed by paper id alone whose row goes with its paper: a merge gives the kept paper the
#: dropped one's row when it has none of its own (``paper_vectors`` came with m018). A summary keyed (paper,
#: model) moves so too: its ``source`` still names the text it was asked from, so a kept paper whose text
#: differs asks again.
PAPER_OWNED_TABLES = ("paper_vectors", "summaries", "paper_events", "paper_sessions")
CHUNK = 500

INSERT_PAPER = (f"insert into papers ({', '.join(PAPER_COLUMNS)})"  # noqa: S608
                f" values ({', '.join('?' * len(PAPER_COLUMNS))})")
#: What a merge changes of a stored paper (named, not all columns: m010 runs it before later steps add any).
UPDATED_COLUMNS = (*MERGED_FIELDS, "updated_at", "seq")
#: What an ingest's upsert changes: that, and what goes with the abstract (m033 on).
UPSERTED_COLUMNS = (*UPDATED_COLUMNS, *ABSTRACT_FIELDS)


def _update_paper(columns: Sequence[str]) -> str:
    return "update papers set " + ", ".join(f"{c} = ?" for c in columns) + " where id = ?"  # noqa: S608


UPDATE_PAPER = _update_paper(UPDATED_COLUMNS)
DELETE_PAPER = "delete from papers where id = ?"
SAVE_ALIAS = ("insert into paper_aliases (alias, paper_id, url, seq) values (?, ?, ?, ?)"
              " on conflict (alias) do update set paper_id = excluded.paper_id,"
              " url = coalesce(excluded.url, paper_aliases.url), seq = excluded.seq")
REPOINT_ALIASES = "update paper_aliases set paper_id = ?, seq = ? where paper_id = ?"
ALIASES_OF = "select alias, paper_id from paper_aliases where alias in ({marks})"
#: The ids merged away since a change number: what a running index must drop.
MERGED_SINCE = "select alias from paper_aliases where seq > ? order by seq, alias"
FIND_ALIAS_BY_URL = "select paper_id from paper_aliases where url = ? order by seq limit 1"
#: The canonical id of ``?`` (an alias's paper, else itself), as an SQL expression of one parameter.
RESOLVED = "coalesce((select a.paper_id from paper_aliases a where a.alias = ?), ?)"


class Sql(Protocol):
    """What this module needs of a backend: qmark statements on the connection of the transaction."""

    def rows(self, sql: str, args: Sequence = ()) -> list[dict]:
        """The rows of a query, as dicts."""

    def run(self, sql: str, args: Sequence = ()) -> int:
        """Run a statement; how many rows it changed."""


class Connection:
    """:class:`Sql` over a DB-API style ``execute`` (sqlite3, sqlite-utils, psycopg); ``format_marks``
    for a driver that wants ``%s`` placeholders."""

    def __init__(self, execute, format_marks: bool = False):
        self._execute = execute
        self._format = format_marks

    def rows(self, sql: str, args: Sequence = ()) -> list[dict]:
        cursor = self._execute(self._sql(sql), list(args))
        names = [column[0] for column in cursor.description]
        return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]

    def run(self, sql: str, args: Sequence = ()) -> int:
        return self._execute(self._sql(sql), list(args)).rowcount

    def _sql(self, sql: str) -> str:
        return sql.replace("?", "%s") if self._format else sql


@dataclass
class Placement:
    """Where one record goes: a new paper (``kept`` None), or into stored paper ``kept`` (as it was),
    giving ``merged``, with the stored papers ``dropped`` merged into it and ``aliases`` now naming it."""

    merged: dict
    kept: dict | None = None
    dropped: list[str] = field(default_factory=list)
    aliases: list[str] = field(default_factory=list)


class Matcher:
    """The stored papers a batch of records may match, and the aliases of their ids, kept current as
    the batch is written."""

    def __init__(self, rows: Iterable[dict] = (), aliases: Mapping[str, str] | None = None):
        self.rows: dict[str, dict] = {}
        self.aliases: dict[str, str] = dict(aliases or {})
        self._by_arxiv: dict[str, str] = {}
        self._by_doi: dict[str, set[str]] = {}
        self._by_key: dict[str, set[str]] = {}
        for row in rows:
            self.put(row)

    def put(self, row: dict) -> None:
        """Know ``row`` (a stored paper), replacing what was known of its id."""
        self.forget(row["id"])
        self.rows[row["id"]] = row
        if row["arxiv_id"]:
            self._by_arxiv[row["arxiv_id"]] = row["id"]
        if row["doi"]:
            self._by_doi.setdefault(row["doi"], set()).add(row["id"])
        if row["title_key"]:
            self._by_key.setdefault(row["title_key"], set()).add(row["id"])

    def forget(self, paper_id: str) -> None:
        """Know paper ``paper_id`` no more (merged away, or about to be replaced)."""
        row = self.rows.pop(paper_id, None)
        if row is None:
            return
        if row["arxiv_id"] and self._by_arxiv.get(row["arxiv_id"]) == paper_id:
            del self._by_arxiv[row["arxiv_id"]]
        self._by_doi.get(row["doi"], set()).discard(paper_id)
        self._by_key.get(row["title_key"], set()).discard(paper_id)

    def matches(self, row: dict) -> list[str]:
        """The stored papers ``row`` is the same paper as: by id (or alias), arXiv id, DOI, title and a
        shared surname. Papers of two different arXiv ids are never one."""
        found: list[str] = []
        arxiv = row["arxiv_id"]

        def take(paper_id: str | None, check: bool = True) -> None:
            nonlocal arxiv
            other = self.rows.get(paper_id) if paper_id else None
            if other is None or paper_id is None or paper_id in found:
                return
            if check and arxiv and other["arxiv_id"] and other["arxiv_id"] != arxiv:
                return
            found.append(paper_id)
            arxiv = arxiv or other["arxiv_id"]

        take(self.aliases.get(row["id"], row["id"]), check=False)
        if row["doi"]:  # another version's DOI kept as an alias of a paper (a preprint's journal version)
            take(self.aliases.get(doi_alias(row["doi"])))
        if row["arxiv_id"]:
            take(self._by_arxiv.get(row["arxiv_id"]))
        for paper_id in sorted(self._by_doi.get(row["doi"], ())) if row["doi"] else ():
            take(paper_id)
        if row["title_key"]:
            authors = json.loads(row["authors"] or "[]")
            for paper_id in sorted(self._by_key.get(row["title_key"], ())):
                if share_a_surname(authors, json.loads(self.rows[paper_id]["authors"] or "[]")):
                    take(paper_id)
        return found

    def place(self, row: dict) -> Placement:
        """Where record ``row`` goes (nothing is written or remembered)."""
        found = self.matches(row)
        if not found:
            return Placement(merged=row)
        kept_id = min(found, key=lambda pid: (self.rows[pid].get("added_at") or "", pid))
        kept = self.rows[kept_id]
        merged = kept
        for other in found:
            if other != kept_id:
                merged = combine(merged, self.rows[other], PEER)
        merged = combine(merged, row, _how(row, merged, kept_id))
        dropped = [pid for pid in found if pid != kept_id]
        aliases = [pid for pid in dict.fromkeys([row["id"], *dropped])
                   if pid != kept_id and self.aliases.get(pid) != kept_id]
        return Placement(merged=merged, kept=kept, dropped=dropped, aliases=aliases)


def _how(row: dict, merged: dict, kept_id: str) -> str:
    """How record ``row``'s text relates to the paper it joins (see :data:`storage.identity.NEWER`): an
    arXiv version decides when both have one; else the same record again (its own id) is newer."""
    if row["arxiv_id"] and row["arxiv_id"] == merged["arxiv_id"] and row["arxiv_version"] \
            and merged["arxiv_version"]:
        if row["arxiv_version"] == merged["arxiv_version"]:
            return PEER
        return NEWER if row["arxiv_version"] > merged["arxiv_version"] else OLDER
    return NEWER if row["id"] == kept_id else PEER


# -- the upsert ----------------------------------------------------------------------------------------


def upsert(sql: Sql, rows: Iterable[dict], now: str, seq: int,
           events: EventDetector | None = None) -> tuple[UpsertCounts, int]:
    """Add new papers and update known ones (paper rows without ``added_at``/``updated_at``/``seq``),
    change numbers following ``seq``; returns the counts (a record merged into a stored paper counts as
    "updated") and the last change number given out. Run it in the paper writers' queue (see above).
    ``events``: what happened to a stored paper a record changed (before, after), written to
    ``paper_events`` in this transaction, so an ingest killed midway loses none of them."""
    rows = [keys_of(r) for r in rows]
    matcher = Matcher(*known(sql, rows))
    counts = UpsertCounts()
    for row in rows:
        placed = matcher.place(row)
        if placed.kept is None:
            seq += 1
            new = {**row, "added_at": now, "updated_at": now, "seq": seq}
            sql.run(INSERT_PAPER, [new[c] for c in PAPER_COLUMNS])
            matcher.put(new)
            counts.added += 1
            continue
        changed = bool(placed.dropped) or differs(placed.kept, placed.merged)
        if changed:
            seq += 1
            placed.merged.update(updated_at=now, seq=seq)
        write(sql, matcher, placed, {row["id"]: row["url"]}, changed, columns=UPSERTED_COLUMNS)
        if changed and events is not None:
            found = events(paper_from_row(placed.kept), paper_from_row(placed.merged))
            record_events(sql, placed.kept["id"], found, now)
        if changed:
            counts.updated += 1
        else:
            counts.unchanged += 1
    return counts, seq


def known(sql: Sql, rows: list[dict]) -> tuple[list[dict], dict[str, str]]:
    """The stored papers ``rows`` may match (by id or alias, arXiv id, DOI or title key) and the aliases
    among their ids."""
    ids = list(dict.fromkeys(r["id"] for r in rows))
    named = [*ids, *(doi_alias(r["doi"]) for r in rows if r["doi"])]
    aliases = {a["alias"]: a["paper_id"] for a in _where_in(sql, ALIASES_OF, list(dict.fromkeys(named)))}
    found: dict[str, dict] = {}
    for column, values in (("id", [*ids, *aliases.values()]), ("arxiv_id", [r["arxiv_id"] for r in rows]),
                           ("doi", [r["doi"] for r in rows]), ("title_key", [r["title_key"] for r in rows])):
        query = f"select * from papers where {column} in ({{marks}})"  # noqa: S608
        for paper in _where_in(sql, query, [v for v in dict.fromkeys(values) if v]):
            found[paper["id"]] = paper
    return list(found.values()), aliases


def write(sql: Sql, matcher: Matcher, placed: Placement, urls: Mapping[str, str | None],
          changed: bool, tables: Sequence[str] = PAPER_KEYED_TABLES,
          owned: Sequence[str] = PAPER_OWNED_TABLES, columns: Sequence[str] = UPDATED_COLUMNS) -> None:
    """Write a placement into a stored paper: the merged row's ``columns`` (when ``changed``), the papers
    merged away with what people did with them, and the aliases (``urls``: the URL each alias id had)."""
    if placed.kept is None:
        raise ValueError("only a placement into a stored paper is written here")
    kept_id, merged = placed.kept["id"], placed.merged
    if changed:
        statement = UPDATE_PAPER if tuple(columns) == UPDATED_COLUMNS else _update_paper(columns)
        sql.run(statement, [merged.get(c) for c in columns] + [kept_id])
    for dropped in placed.dropped:
        gone = matcher.rows[dropped]
        urls = {**urls, dropped: gone["url"]}
        sql.run(DELETE_PAPER, [dropped])
        sql.run(REPOINT_ALIASES, [kept_id, merged["seq"], dropped])
        for alias, target in list(matcher.aliases.items()):
            if target == dropped:
                matcher.aliases[alias] = kept_id
        move_person_rows(sql, dropped, kept_id, tables)
        move_paper_rows(sql, dropped, kept_id, owned)
        matcher.forget(dropped)
    for alias in placed.aliases:
        sql.run(SAVE_ALIAS, [alias, kept_id, urls.get(alias), merged["seq"]])
        matcher.aliases[alias] = kept_id
    matcher.put(merged)


def move_paper_rows(sql: Sql, dropped: str, kept: str, tables: Sequence[str] = PAPER_OWNED_TABLES) -> None:
    """Give paper ``kept`` paper ``dropped``'s row of each table keyed by paper id alone, unless it has
    its own; the dropped paper's row goes."""
    for table in tables:
        names = COPIED_TABLES[table]
        picked = ", ".join("?" if name == "paper_id" else name for name in names)
        # Table and column names are the constants of storage.tables.
        sql.run(f"insert into {table} ({', '.join(names)}) select {picked} from {table}"  # noqa: S608
                " where paper_id = ? on conflict do nothing", [kept, dropped])
        sql.run(f"delete from {table} where paper_id = ?", [dropped])  # noqa: S608


def move_person_rows(sql: Sql, dropped: str, kept: str, tables: Sequence[str] = PAPER_KEYED_TABLES) -> None:
    """Give paper ``kept`` what every person, in every workspace, did with paper ``dropped``: their
    feedback and what they were shown (their own row for ``kept`` wins), and the digests listing it."""
    for table in tables:
        # An insert that gives way on conflict, not an update: a person's own row for ``kept`` written at
        # this moment by another transaction wins instead of failing the ingest on its unique key.
        names = COPIED_TABLES[table]
        picked = ", ".join("?" if name == "paper_id" else name for name in names)
        # Table and column names are the constants of storage.tables.
        sql.run(f"insert into {table} ({', '.join(names)}) select {picked} from {table}"  # noqa: S608
                " where paper_id = ? on conflict do nothing", [kept, dropped])
        sql.run(f"delete from {table} where paper_id = ?", [dropped])  # noqa: S608
    pattern = "%" + json.dumps(dropped) + "%"  # a wider net than needed ("_" matches anything): checked below
    for digest in sql.rows("select ws, user_id, local_date, papers, reasons, failures from digests"
                           " where papers like ? or reasons like ? or failures like ?", [pattern] * 3):
        papers = json.loads(digest["papers"]) if digest["papers"] is not None else None
        reasons = json.loads(digest["reasons"] or "{}")
        failures = json.loads(digest["failures"] or "{}")
        if not (dropped in (papers or []) or dropped in reasons or dropped in failures):
            continue
        if papers is not None:
            papers = list(dict.fromkeys(kept if p == dropped else p for p in papers))
        for mapping in (reasons, failures):
            if dropped in mapping:
                value = mapping.pop(dropped)
                mapping.setdefault(kept, value)
        sql.run("update digests set papers = ?, reasons = ?, failures = ? where ws = ? and user_id = ?"
                " and local_date = ?",
                [None if papers is None else json.dumps(papers), json.dumps(reasons, ensure_ascii=False),
                 json.dumps(failures), digest["ws"], digest["user_id"], digest["local_date"]])


# -- the migration -------------------------------------------------------------------------------------


def merge_stored_duplicates(sql: Sql, now: str, seq: int, tables: Sequence[str] = M010_TABLES) -> int:
    """Give every stored paper its title key and merge the papers that are one (m010), oldest first,
    the oldest keeping its id; returns the last change number given out (``seq`` when none was)."""
    matcher = Matcher()
    for row in sql.rows("select * from papers order by added_at, id"):
        row = keys_of(row)
        if row["title_key"]:
            sql.run("update papers set title_key = ? where id = ?", [row["title_key"], row["id"]])
        placed = matcher.place(row)
        if placed.kept is None:
            matcher.put(row)
            continue
        # This paper is a later copy of one already seen: it is merged away like the others found.
        seq += 1
        placed.merged.update(updated_at=now, seq=seq)
        matcher.rows[row["id"]] = row  # known for a moment, so that write() drops it as stored
        placed.dropped.append(row["id"])
        placed.aliases = [a for a in dict.fromkeys([*placed.aliases, row["id"]]) if a != placed.kept["id"]]
        write(sql, matcher, placed, {}, changed=True, tables=tables, owned=())
    return seq


def _where_in(sql: Sql, query: str, values: list) -> Iterator[dict]:
    """The rows of ``query`` (with ``{marks}`` for the list) for ``values``, a chunk at a time."""
    for start in range(0, len(values), CHUNK):
        chunk = values[start:start + CHUNK]
        yield from sql.rows(query.format(marks=", ".join("?" * len(chunk))), chunk)
