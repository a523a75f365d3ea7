"""More like this: papers close to one paper a person was shown, which they have never seen."""

from __future__ import annotations

from dataclasses import dataclass

from bot.context import Context
from bot.errors import NoPapers
from bot.paper_view import shown_title
from bot.reasons import shorten
from bot.usecases.delivery import Delivery, Post, deliver
from bot.usecases.mutes import muted_ids
from bot.usecases.reactions import PostedAs, paper_on_message
from bot.usecases.recommend import NO_PAPERS, Recommendation, never_again, with_papers
from recommender import Profile, rank
from storage import Paper

MORE_LIKE_THIS = 3  # papers at most, per click
TITLE_IN_REASON = 80


@dataclass
class MoreLikeThis:
    """The paper asked about, and the similar papers that reached the person (none: nothing new)."""

    paper: Paper
    delivery: Delivery


def similar_papers(ctx: Context, user_id: str, paper_id: str,
                   n: int = MORE_LIKE_THIS) -> list[Recommendation]:
    """Up to ``n`` papers most like ``paper_id`` that the person was never shown, never saved, never
    rated and has not muted; [] when there are none (or the paper is not indexed yet)."""
    seen = (never_again(ctx, user_id) | {f.paper_id for f in ctx.store.get_feedback(user_id)} | {paper_id}
            | muted_ids(ctx, user_id))
    with ctx.engine.index() as index:
        if index is None:
            raise NoPapers(NO_PAPERS)
        if paper_id not in index.row_of:
            return []
        picks = rank(index, Profile(liked=[paper_id]), n, exclude=seen)
    recs = with_papers(ctx, picks)
    paper = ctx.store.get_paper(paper_id)
    title = shorten(shown_title(paper), TITLE_IN_REASON) if paper else paper_id  # as its message shows it
    for rec in recs:
        rec.reason = f"Like “{title}”, which you asked for more of"
    return recs


def more_like_this(ctx: Context, user_id: str, channel: str, message_ts: str,
                   post: Post, posted_as: PostedAs | None = None) -> MoreLikeThis | None:
    """A click on More like this on the paper message ``message_ts``: post (``post(rec) -> (channel,
    ts)``, e.g. into the message's thread) up to three similar papers new to the person, each recorded
    as shown once it arrived. None when the message is no paper shown to this person."""
    paper_id = paper_on_message(ctx, user_id, channel, message_ts, posted_as)
    paper = ctx.store.get_paper(paper_id) if paper_id else None
    if paper is None:
        return None
    return MoreLikeThis(paper, deliver(ctx, user_id, similar_papers(ctx, user_id, paper.id), post))
