"""What paperbot holds for papers named by an id, an arXiv id or URL, or a DOI (``paperbot show``): each
paper as its messages show it, with its highlights and, when the lab's model wrote one that passed the
check, its summary."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from bot.sources.normalize import parse_arxiv_id
from bot.state.context import Context
from bot.usecases.summaries import Summary, summaries_for
from storage import Paper

#: Names looked up in one read of the store (a thousand ids in a few reads).
BATCH = 500


@dataclass(frozen=True)
class Held:
    """A paper found for the name ``asked``, with its summary by the lab's model when there is one."""

    asked: str
    paper: Paper
    summary: Summary | None = None


@dataclass(frozen=True)
class NotHeld:
    """A name no paper held answers to."""

    asked: str


def looks_like_doi(name: str) -> bool:
    """Whether ``name`` is written as a DOI (``10.…/…``, ``doi:10.…``, a doi.org link)."""
    bare = name.strip().lower().removeprefix("doi:").strip()
    for prefix in ("https://doi.org/", "http://doi.org/", "https://dx.doi.org/", "http://dx.doi.org/"):
        bare = bare.removeprefix(prefix)
    return bare.startswith("10.") and "/" in bare


def show_papers(ctx: Context, names: Iterable[str]) -> list[Held | NotHeld]:
    """Each of ``names`` (blank ones left out), in order: the paper it names, tried as a paper id (or an
    id the paper was once known by: read in batches), then as an arXiv id or link, then as a DOI."""
    asked = [name.strip() for name in names if name.strip()]
    found: dict[str, Paper] = {}
    for start in range(0, len(asked), BATCH):
        found.update(ctx.store.get_papers(asked[start:start + BATCH]))
    papers = {name: found.get(name) or _other_ways(ctx, name) for name in dict.fromkeys(asked)}
    held = {paper.id: paper for paper in papers.values() if paper is not None}
    summaries: dict[str, Summary] = {}
    if ctx.summarizer is not None:
        ids = sorted(held)
        for start in range(0, len(ids), BATCH):
            summaries.update(summaries_for(ctx, ids[start:start + BATCH], ctx.summarizer.model, held))
    return [Held(name, paper, summaries.get(paper.id)) if (paper := papers[name]) is not None
            else NotHeld(name) for name in asked]


def _other_ways(ctx: Context, name: str) -> Paper | None:
    if (parsed := parse_arxiv_id(name)) is not None:
        return ctx.store.find_paper_by_arxiv_id(parsed[0])
    return ctx.store.find_paper_by_doi(name) if looks_like_doi(name) else None
