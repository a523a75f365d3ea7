"""What a person can take with them: their saved and liked papers as BibTeX, or everything paperbot
stores about them as JSON. Plain data (a file name and its text); the caller uploads or writes it."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime

from bot.errors import NothingStored, PersonInSeveral, UnknownPerson
from bot.presentation.bibtex import bibtex
from bot.state.context import Context
from bot.usecases.feedback import LIKE
from storage import Paper
from storage.moments import iso_utc

BIBTEX, JSON = "bibtex", "json"
FORMATS = (BIBTEX, JSON)


@dataclass(frozen=True)
class ExportFile:
    """One file to hand to the person: its name, its format (BIBTEX or JSON: an adapter titles it), text,
    and how many papers or rows it holds."""

    filename: str
    format: str
    content: str
    count: int


def export_papers(ctx: Context, user_id: str) -> list[Paper]:
    """The person's saved papers (newest first), then the papers they liked and did not save (newest
    like first); papers deleted since are left out."""
    saved = [e.paper_id for e in ctx.store.saved_papers(user_id)]
    liked = [f.paper_id for f in reversed(ctx.store.get_feedback(user_id)) if f.value == LIKE]
    ids = list(dict.fromkeys(saved + liked))
    papers = ctx.store.get_papers(ids)
    return [papers[i] for i in ids if i in papers]


def bibtex_export(ctx: Context, user_id: str) -> ExportFile:
    """The person's saved and liked papers as a BibTeX file. Raises NotFound when there are none."""
    papers = export_papers(ctx, user_id)
    if not papers:
        raise NothingStored("papers")
    return ExportFile("paperbot-papers.bib", BIBTEX, bibtex(papers), len(papers))


def data_export(ctx: Context, user_id: str, now: datetime | None = None) -> ExportFile:
    """Every row paperbot stores about the person, per table, with the papers those rows name, as one
    JSON file. Raises NotFound when nothing is stored about them."""
    tables = ctx.store.person_rows(user_id)
    rows = sum(len(r) for r in tables.values())
    if not rows:
        raise NothingStored("data")
    named = {r["paper_id"] for table in tables.values() for r in table if r.get("paper_id")}
    papers = ctx.store.get_papers(sorted(named))
    document = {
        "user_id": user_id,
        "workspace": ctx.workspace,
        "exported_at": iso_utc(now or datetime.now(UTC)),
        "tables": tables,
        "papers": {pid: _paper_json(p) for pid, p in sorted(papers.items())},
    }
    text = json.dumps(document, ensure_ascii=False, indent=2, sort_keys=False) + "\n"
    return ExportFile("paperbot-data.json", JSON, text, rows)


def export(ctx: Context, user_id: str, fmt: str = BIBTEX) -> ExportFile:
    """:func:`bibtex_export` or :func:`data_export` by ``fmt`` ("bibtex" or "json")."""
    if fmt not in FORMATS:
        raise ValueError(f"an export is {' or '.join(FORMATS)}, not {fmt!r}")
    return bibtex_export(ctx, user_id) if fmt == BIBTEX else data_export(ctx, user_id)


def person_context(ctx: Context, user_id: str, team: str | None = None) -> Context:
    """The context of the workspace where ``user_id`` is a person: ``team`` when given, else the one
    workspace that knows them. Raises NotFound (nowhere) or BadArgument (several: say which)."""
    if team is not None:
        found = ctx.for_workspace(team)
        if found.store.get_person(user_id) is None:
            raise UnknownPerson(user_id, team)
        return found
    keys = list(dict.fromkeys([*(w.ws for w in ctx.store.workspaces()), ctx.workspace]))
    known = [ws for ws in keys if ctx.for_workspace(ws).store.get_person(user_id) is not None]
    if not known:
        raise UnknownPerson(user_id)
    if len(known) > 1:
        raise PersonInSeveral(user_id, tuple(known))
    return ctx.for_workspace(known[0])


def _paper_json(paper: Paper) -> dict:
    return {"title": paper.title, "authors": paper.authors, "url": paper.url, "venue": paper.venue,
            "published": paper.published, "arxiv_id": paper.arxiv_id}
