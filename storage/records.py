"""How rows become records and records rows, on either backend: one place per record, driven by the
record's own fields where it can be (a new field of :class:`~storage.models.Person` is read with no
code here)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import fields
from typing import Any

from storage import identity
from storage.models import DigestRecord, JobRecord, Paper, Person
from storage.moments import utcnow as utcnow  # where the storage modules take it from
from storage.tables import PERSON_SETTINGS

_FLAGS = frozenset(f.name for f in fields(Person) if f.type in ("bool", bool))


def person_from_row(row: dict) -> Person:
    """The :class:`Person` of a ``people`` row (as a dict by column name)."""
    values: dict[str, Any] = {n: bool(row.get(n)) if n in _FLAGS else row.get(n) for n in PERSON_SETTINGS}
    return Person(row["user_id"], **values)


def person_values(settings: Mapping[str, Any]) -> dict[str, Any]:
    """``settings`` (Person field -> value) as ``people`` column values; ValueError for a name that is
    no setting (the names are interpolated into SQL)."""
    unknown = set(settings) - set(PERSON_SETTINGS)
    if unknown:
        raise ValueError(f"a person has no setting {', '.join(sorted(unknown))}")
    return {n: int(v) if n in _FLAGS and v is not None else v for n, v in settings.items()}


def digest_from_row(row: dict) -> DigestRecord:
    """The :class:`DigestRecord` of a ``digests`` row."""
    return DigestRecord(
        user_id=row["user_id"],
        local_date=row["local_date"],
        status=row["status"],
        owner=row["owner"],
        lease_until=row["lease_until"],
        papers=json.loads(row["papers"]) if row["papers"] is not None else None,
        reasons=json.loads(row["reasons"] or "{}"),
        header_ts=row["header_ts"],
        failures=json.loads(row["failures"] or "{}"),
        attempts=row["attempts"] or 0,
        outages=row.get("outages") or 0,
        error=row["error"],
        started_at=row["started_at"],
        finished_at=row["finished_at"],
    )


def job_from_row(row: dict) -> JobRecord:
    """The :class:`JobRecord` of a ``jobs`` row."""
    return JobRecord(**{f.name: row[f.name] for f in fields(JobRecord)})


def paper_row(paper: Paper) -> dict:
    """The ``papers`` columns a :class:`Paper` writes (the store adds the bookkeeping ones)."""
    return {
        "id": paper.id,
        "arxiv_id": paper.arxiv_id,
        "arxiv_version": paper.arxiv_version,
        "title": paper.title,
        "abstract": paper.abstract,
        "authors": json.dumps(paper.authors, ensure_ascii=False),
        "url": paper.url,
        "venue": paper.venue,
        "published": paper.published,
        "categories": json.dumps(paper.categories, ensure_ascii=False),
        "doi": identity.normal_doi(paper.doi),
        "highlight": paper.highlight,
        "result": paper.result,
    }


def paper_from_row(row: dict) -> Paper:
    """The :class:`Paper` of a ``papers`` row."""
    return Paper(
        id=row["id"],
        abstract=row["abstract"],
        title=row["title"] or "",
        authors=json.loads(row["authors"] or "[]"),
        url=row["url"],
        venue=row["venue"],
        published=row["published"],
        categories=json.loads(row["categories"] or "[]"),
        arxiv_id=row["arxiv_id"],
        arxiv_version=row["arxiv_version"],
        doi=row.get("doi"),
        # "" is "computed, nothing to show" (see m033): to a reader, no line either way.
        highlight=row.get("highlight") or None,
        result=row.get("result") or None,
    )
