"""What colleagues saved: a paper message says how many people of the workspace saved the paper, when at
least :data:`FEWEST_SHOWN` did, and never who. A workspace's admin may turn this off
(`paperbot workspaces set TID social off`)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from bot.state.context import Context
from bot.usecases.picking import Recommendation
from bot.usecases.summaries import summaries_for
from storage.moments import utcnow

#: One save is one person's choice, and "saved by 1 person here" would all but name them.
FEWEST_SHOWN = 2


def saved_counts(ctx: Context, paper_ids: Iterable[str]) -> dict[str, int]:
    """How many people of the workspace saved each of these papers, for those a message may say it of
    (at least :data:`FEWEST_SHOWN`; none in a workspace that turned the counts off); one read however
    many papers."""
    ids = list(dict.fromkeys(paper_ids))
    found = ctx.store.shown_saved_counts(ids) if ids else {}
    return {paper_id: n for paper_id, n in found.items() if n >= FEWEST_SHOWN}


def counted(recs: list[Recommendation], counts: dict[str, int]) -> list[Recommendation]:
    """``recs`` with ``saved_by`` as ``counts`` (from :func:`saved_counts`) says, 0 for the rest."""
    return [rec if rec.saved_by == counts.get(rec.paper.id, 0)
            else replace(rec, saved_by=counts.get(rec.paper.id, 0)) for rec in recs]


def with_saved_counts(ctx: Context, recs: list[Recommendation]) -> list[Recommendation]:
    """``recs`` with ``saved_by`` read now (:func:`saved_counts`)."""
    return counted(recs, saved_counts(ctx, [rec.paper.id for rec in recs])) if recs else recs


def as_shown_to(ctx: Context, subject: str, recs: list[Recommendation]) -> list[Recommendation]:
    """``recs`` as messages to ``subject`` (a person, or a channel) show them: with ``saved_by`` read
    now, their summaries by the lab's model when ready and checked, and without highlights (or summary)
    for a person who hid them (``/papers digest highlights off``)."""
    recs = with_saved_counts(ctx, recs)
    person = ctx.store.get_person(subject) if recs else None
    if person is not None and person.highlights_off:
        return [replace(rec, highlights=False) for rec in recs]
    if ctx.summarizer is not None and recs:
        ready = summaries_for(ctx, [rec.paper.id for rec in recs], ctx.summarizer.model,
                              {rec.paper.id: rec.paper for rec in recs})
        recs = [replace(rec, summary=ready.get(rec.paper.id)) for rec in recs]
    return recs


def social_counts_on(ctx: Context) -> bool:
    """Whether the workspace's paper messages say how many people there saved the paper."""
    return ctx.store.social_counts_on()


def set_social_counts(ctx: Context, on: bool) -> None:
    """Show (``on``) or hide "saved by N people here" on the workspace's paper messages from now on."""
    ctx.store.set_social_counts(on, utcnow())
