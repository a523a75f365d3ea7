"""Saving the papers a text names (the Save paper message shortcut): its arXiv links and ids, fetched
from the arXiv API when not held yet, and its DOIs, when a paper held has them."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from bot.sources.arxiv_ids import MAX_IDS, find_arxiv_ids, find_dois
from bot.state.context import Context
from bot.usecases.lookup import LookupFailed, held_by_arxiv_id, papers_by_arxiv_id, papers_by_doi
from bot.usecases.saved import save
from storage import Paper

log = logging.getLogger(__name__)


@dataclass
class NamedSave:
    """What saving the papers of a text did: ``named`` is every arXiv id and DOI found (none: the text
    names no paper); ``missing`` the ones no paper was found for; ``unreachable`` whether the arXiv
    API could not be asked about the arXiv ones not held."""

    named: list[str] = field(default_factory=list)
    saved: list[Paper] = field(default_factory=list)
    already: list[Paper] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    unreachable: bool = False
    found: list[Paper] = field(default_factory=list)  # the papers of the names found, in order


def find_named_papers(ctx: Context, text: str) -> NamedSave:
    """The papers ``text`` names (at most :data:`MAX_IDS` names), found or fetched, not saved yet:
    ``named`` and ``missing`` are filled, and :func:`save_named_papers` saves the rest. Network first,
    so the caller can take the person's lock only for the saving."""
    arxiv_ids = find_arxiv_ids(text)
    dois = find_dois(text)
    result = NamedSave(named=(arxiv_ids + dois)[:MAX_IDS])
    arxiv_ids = [i for i in arxiv_ids if i in result.named]
    dois = [d for d in dois if d in result.named]
    try:
        found = papers_by_arxiv_id(ctx, arxiv_ids)
    except LookupFailed as exc:
        log.warning("%s", exc)
        result.unreachable = True
        found = held_by_arxiv_id(ctx, arxiv_ids)
    found.update(papers_by_doi(ctx, dois))
    result.missing = [name for name in result.named if name not in found]
    result.found = [found[name] for name in result.named if name in found]
    return result


def save_named_papers(ctx: Context, user_id: str, named: NamedSave) -> NamedSave:
    """Save for ``user_id`` the papers :func:`find_named_papers` found, each once even when named twice
    (an arXiv link and the same paper's DOI); ``saved`` and ``already`` say which were new."""
    seen: set[str] = set()
    for paper in named.found:
        if paper.id in seen:
            continue
        seen.add(paper.id)
        (named.saved if save(ctx, user_id, paper.id) else named.already).append(paper)
    return named
