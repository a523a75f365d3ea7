""""Rate papers to get started": a short round of papers for someone new to rate, chosen to teach their
profile fast (:func:`recommender.onboarding.choose_round`). The papers count as shown (never
recommended again), and each rating is feedback like any other (:mod:`bot.usecases.feedback`)."""

from __future__ import annotations

from bot.errors import NoPapers
from bot.presentation import reasons
from bot.state.context import Context
from bot.usecases.feedback import DISLIKE, LIKE, record_feedback, withdraw_feedback
from bot.usecases.picking import left_out, profile_for
from recommender.onboarding import ROUND_SIZE, choose_round
from storage import Paper

#: Why a round's paper was shown (the ``shown`` table's reason).
REASON = reasons.ONBOARDING


def is_new(ctx: Context, user_id: str) -> bool:
    """Whether a person has given no feedback yet, neither a rating nor a save (then Home offers them a
    round)."""
    return not ctx.store.get_feedback(user_id) and not ctx.store.saved_paper_ids(user_id)


def start_round(ctx: Context, user_id: str, k: int = ROUND_SIZE) -> list[Paper]:
    """Up to ``k`` papers to rate, recorded as shown to the person: spread over all their topics (the
    main feed's and every named feed's), or over the corpus without any; never one shown, saved,
    rated or muted before. Raises NoPapers when there are none at all."""
    store = ctx.store
    profile = profile_for(ctx, user_id)
    for topics in store.get_feeds(user_id).values():
        profile.topics += [t for t in topics if t not in profile.topics]
    exclude = left_out(ctx, user_id)
    with ctx.engine.index() as index:
        if index is None:
            raise NoPapers()
        ids = choose_round(index, profile, k, exclude=exclude)
    papers = store.get_papers(ids)
    # As the papers they are now: an id merged into another paper since the index read it is that paper.
    chosen = list({p.id: p for p in (papers[pid] for pid in ids if pid in papers)
                   if p.id not in exclude}.values())
    with store.transaction():
        store.lock_person(user_id)  # a forget under way is wholly before or after
        store.ensure_person(user_id)
        for paper in chosen:
            store.mark_shown(user_id, paper.id, REASON)
    return chosen


def round_papers(ctx: Context, ids: list[str]) -> list[Paper]:
    """A round's papers again, in its order (papers deleted since are left out)."""
    papers = ctx.store.get_papers(ids)
    return [papers[pid] for pid in ids if pid in papers]


def ratings(ctx: Context, user_id: str, ids: list[str]) -> dict[str, int]:
    """The person's feedback (+1 / -1) on those of ``ids`` they rated."""
    wanted = set(ids)
    return {f.paper_id: f.value for f in ctx.store.get_feedback(user_id) if f.paper_id in wanted}


def rate(ctx: Context, user_id: str, paper_id: str, value: int) -> int | None:
    """Rate a round's paper 👍 (+1) or 👎 (-1); the same rating again takes it back. Returns the
    rating now (None: none). Raises NotFound for a paper paperbot does not hold."""
    if value not in (LIKE, DISLIKE):
        raise ValueError("a rating is +1 or -1")
    if ratings(ctx, user_id, [paper_id]).get(paper_id) == value:
        withdraw_feedback(ctx, user_id, paper_id, value)
        return None
    record_feedback(ctx, user_id, paper_id, value)
    return value
