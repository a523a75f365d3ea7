"""More like this: papers close to one paper a person was shown, which they have never seen.

On a paper of a channel's digest the papers are the channel's: chosen against what the channel was
shown (never one it had) and recorded as shown to it, since they are posted in the thread under that
paper, in the channel, for everyone there (the clicker's own DM would make one person's click a
second copy of the channel's papers, and the channel would be sent them again later).
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.errors import NoPapers
from bot.presentation import reasons
from bot.presentation.paper_view import shown_title
from bot.presentation.reasons import shorten
from bot.state.context import Context
from bot.usecases.delivery import Delivery, Post, deliver
from bot.usecases.picking import Recommendation, distinct, left_out
from bot.usecases.reactions import PostedAs, channel_paper, paper_on_message
from bot.usecases.recommend import with_papers
from recommender import Profile, rank
from storage import Paper

MORE_LIKE_THIS = 3  # papers at most, per click
TITLE_IN_REASON = 80


@dataclass
class MoreLikeThis:
    """The paper asked about, and the similar papers that reached the person (none: nothing new).
    ``for_channel``: the paper was a channel's, and so are the similar papers."""

    paper: Paper
    delivery: Delivery
    for_channel: bool = False


def similar_papers(ctx: Context, user_id: str, paper_id: str,
                   n: int = MORE_LIKE_THIS, asked_in_channel: bool = False) -> list[Recommendation]:
    """Up to ``n`` papers most like ``paper_id`` that the person (or channel) was never shown, never
    saved, never rated and has not muted; [] when there are none (or the paper is not indexed yet).
    ``asked_in_channel``: the reason says someone in the channel asked."""
    paper = ctx.store.get_paper(paper_id)
    # The paper itself, under whichever id it is known by now, is no paper "like" it.
    seen = left_out(ctx, user_id) | {paper_id} | ({paper.id} if paper else set())
    with ctx.engine.index() as index:
        if index is None:
            raise NoPapers()
        if paper_id not in index.row_of:
            return []
        picks = rank(index, Profile(liked=[paper_id]), n, exclude=seen)
    recs = distinct(with_papers(ctx, picks), seen)
    title = shorten(shown_title(paper), TITLE_IN_REASON) if paper else paper_id  # as its message shows it
    for rec in recs:
        rec.reason = reasons.more_like(title, asked_in_channel)
    return recs


def more_like_this(ctx: Context, user_id: str, channel: str, message_ts: str,
                   post: Post, posted_as: PostedAs | None = None) -> MoreLikeThis | None:
    """A click on More like this on the paper message ``message_ts``: post (``post(rec) -> (channel,
    ts)``, e.g. into the message's thread) up to three similar papers new to the person, each recorded
    as shown once it arrived. None when the message is no paper shown to this person.

    On a paper of a channel's digest they are chosen for the channel and shown to it (see the module's
    note); the caller holds the channel's lock then, not the person's."""
    paper_id = paper_on_message(ctx, user_id, channel, message_ts, posted_as)
    paper = ctx.store.get_paper(paper_id) if paper_id else None
    if paper is not None:
        return MoreLikeThis(paper, deliver(ctx, user_id, similar_papers(ctx, user_id, paper.id), post))
    paper = channel_paper(ctx, channel, message_ts)
    if paper is None:
        return None
    recs = similar_papers(ctx, channel, paper.id, asked_in_channel=True)
    return MoreLikeThis(paper, deliver(ctx, channel, recs, post), for_channel=True)
