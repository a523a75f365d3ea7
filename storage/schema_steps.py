"""Schema steps written once for both backends: every step after m018 is declared here, and only here.

SQLite's migrator (``storage/migrations.py``) and PostgreSQL's (``storage/pg_migrations.py``) each apply
their released history first (m001…m018, never edited, recorded under the same names as always), then
:data:`STEPS` in order, each step recorded under its ``name`` in the backend's own record
(``_sqlite_migrations``, ``schema_migrations``), so a database runs each step once.

A step is a few backend-neutral changes, turned into each dialect's SQL by :func:`statements`:

- :class:`CreateTable`, :class:`AddColumn` and :class:`CreateIndex`, with columns of the four neutral
  types below (timestamps and JSON stay text on both backends, see ``storage/pg_migrations.py``);
- :class:`Sql`, one statement valid on both (a data fix, a trigger…), with a per-backend text for
  the rare place where the dialects differ.

Recipe (a new per-person setting)::

    STEPS = [
        Step("m019_digest_format", (AddColumn("people", Column("digest_format", "text")),)),
    ]

Append; never edit or reorder a released step: a database remembers steps by name only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

#: The two SQL dialects paperbot's backends speak.
Dialect = Literal["sqlite", "postgres"]
#: A column's type, the same values on both backends: "bigint" for change numbers that grow without end
#: (``seq``), "blob" for bytes.
ColumnType = Literal["text", "integer", "bigint", "blob"]

#: How each dialect spells each type. SQLite stores any integer in INTEGER; the spellings are the ones the
#: released history uses, so a table made by a step reads like its neighbours.
TYPE_NAMES: dict[Dialect, dict[ColumnType, str]] = {
    "sqlite": {"text": "TEXT", "integer": "INTEGER", "bigint": "INTEGER", "blob": "BLOB"},
    "postgres": {"text": "text", "integer": "integer", "bigint": "bigint", "blob": "bytea"},
}

# Names are interpolated into SQL: only plain lower-case identifiers are accepted.
_IDENTIFIER = re.compile(r"[a-z_][a-z0-9_]*")


def _checked(name: str) -> str:
    if not _IDENTIFIER.fullmatch(name):
        raise ValueError(f"{name!r} is not a plain lower-case SQL name")
    return name


@dataclass(frozen=True)
class Column:
    """A column: its name, type, whether it may hold NULL, and the value a row gets without one."""

    name: str
    type: ColumnType = "text"
    not_null: bool = False
    default: str | int | None = None

    def __post_init__(self) -> None:
        _checked(self.name)
        if self.type not in TYPE_NAMES["sqlite"]:
            raise ValueError(f"column {self.name}: unknown type {self.type!r}")
        if isinstance(self.default, bool):  # a bool is an int to Python, a different value to SQL
            raise ValueError(f"column {self.name}: give a default of 0 or 1, not {self.default}")

    def sql(self, dialect: Dialect) -> str:
        """The column's definition in ``dialect``."""
        text = f'"{self.name}" {TYPE_NAMES[dialect][self.type]}'
        if self.not_null:
            text += " NOT NULL"
        if self.default is not None:
            text += f" DEFAULT {_literal(self.default)}"
        return text


def _literal(value: str | int) -> str:
    if isinstance(value, int):
        return str(value)
    return "'" + value.replace("'", "''") + "'"


@dataclass(frozen=True)
class CreateTable:
    """A new table, with its primary key (one or more of its columns)."""

    table: str
    columns: tuple[Column, ...]
    primary_key: tuple[str, ...]

    def __post_init__(self) -> None:
        _checked(self.table)
        names = [c.name for c in self.columns]
        if len(set(names)) != len(names):
            raise ValueError(f"table {self.table}: a column is named twice")
        if not self.primary_key or not set(self.primary_key) <= set(names):
            raise ValueError(f"table {self.table}: the primary key must be some of its columns")

    def statements(self, dialect: Dialect) -> list[str]:
        """The SQL making it in ``dialect``."""
        parts = [c.sql(dialect) for c in self.columns]
        parts.append("PRIMARY KEY (" + ", ".join(f'"{k}"' for k in self.primary_key) + ")")
        return [f'CREATE TABLE "{self.table}" (' + ", ".join(parts) + ")"]


@dataclass(frozen=True)
class AddColumn:
    """A new column of an existing table; existing rows get its default (NULL without one)."""

    table: str
    column: Column

    def __post_init__(self) -> None:
        _checked(self.table)
        # SQLite can't fill a NOT NULL column of existing rows without a default (PostgreSQL can't either).
        if self.column.not_null and self.column.default is None:
            raise ValueError(f"{self.table}.{self.column.name}: a NOT NULL column added later"
                             " needs a default")

    def statements(self, dialect: Dialect) -> list[str]:
        """The SQL adding it in ``dialect``."""
        return [f'ALTER TABLE "{self.table}" ADD COLUMN {self.column.sql(dialect)}']


@dataclass(frozen=True)
class CreateIndex:
    """An index of ``table`` on ``columns``: column names, or expressions such as ``lower(topic)`` (then
    ``name`` is required). Its name defaults to ``idx_<table>_<columns>``, the history's convention."""

    table: str
    columns: tuple[str, ...]
    unique: bool = False
    name: str | None = None

    def __post_init__(self) -> None:
        _checked(self.table)
        if not self.columns:
            raise ValueError(f"an index of {self.table} needs columns")
        if self.name is not None:
            _checked(self.name)
        elif not all(_IDENTIFIER.fullmatch(c) for c in self.columns):
            raise ValueError(f"an index of {self.table} on an expression needs a name")

    @property
    def index_name(self) -> str:
        """The index's name in the database."""
        return self.name or "_".join(("idx", self.table, *self.columns))

    def statements(self, dialect: Dialect) -> list[str]:
        """The SQL making it (the same in both dialects)."""
        unique = "UNIQUE " if self.unique else ""
        return [f'CREATE {unique}INDEX "{self.index_name}" ON "{self.table}" ({", ".join(self.columns)})']


@dataclass(frozen=True)
class Sql:
    """One statement valid on both backends (a data fix, a trigger…), or, where the dialects differ, the
    text for one backend in ``sqlite`` or ``postgres`` (``text`` is then the other's). One statement per
    :class:`Sql`: SQLite runs one per call, and splitting at ``;`` would cut a trigger's body."""

    text: str
    sqlite: str | None = None
    postgres: str | None = None

    def statements(self, dialect: Dialect) -> list[str]:
        """The statement for ``dialect``."""
        chosen = self.sqlite if dialect == "sqlite" else self.postgres
        return [self.text if chosen is None else chosen]


Change = CreateTable | AddColumn | CreateIndex | Sql


@dataclass(frozen=True)
class Step:
    """One released change of the schema: its name (recorded once applied; ``mNNN_what``, after m018)
    and its changes, applied in order in one transaction."""

    name: str
    changes: tuple[Change, ...]

    def __post_init__(self) -> None:
        _checked(self.name)
        if not self.changes:
            raise ValueError(f"step {self.name} changes nothing")


def statements(step: Step, dialect: Dialect) -> list[str]:
    """Every SQL statement of ``step`` in ``dialect``, in order."""
    return [sql for change in step.changes for sql in change.statements(dialect)]


#: The steps after m018, in order, for both backends. Append only.
STEPS: list[Step] = []
