"""Paper links shared in channels, as interest: a person who posts a link to a paper paperbot holds (an arXiv
page, a DOI, an OpenReview forum, a bioRxiv, medRxiv, PubMed or ACL Anthology page) in a channel the bot is in
shows interest in it, counted as a save is (:data:`recommender.profile.SAVE_WEIGHT`) and never offered to them
again; ``/papers signals shares off`` stops it. The links come from the ``link_shared`` events Slack sends
for the domains the app unfurls: no message is read."""

from __future__ import annotations

from collections.abc import Iterable

from bot.state.context import Context
from bot.usecases.lookup import held_by_link
from bot.usecases.settings import _set_flag
from storage import Paper

#: The most links of one message counted (Slack sends at most a handful a message).
MAX_LINKS = 10


def record_shared_links(ctx: Context, user_id: str, urls: Iterable[str],
                        channel_id: str | None) -> list[Paper]:
    """Count the held papers that ``urls`` point to as ``user_id``'s interest, each once (the database
    decides: a redelivered event or a second replica counts nothing more); the papers newly counted.
    Nothing is counted for someone who turned shares off, or for a link to anything that is not a held
    paper."""
    person = ctx.store.get_person(user_id)
    if person is not None and person.shares_off:
        return []
    papers = {}
    for url in list(dict.fromkeys(urls))[:MAX_LINKS]:
        paper = held_by_link(ctx, url)
        if paper is not None:
            papers.setdefault(paper.id, paper)
    counted = []
    for paper in papers.values():
        with ctx.store.transaction():
            if ctx.store.add_share(user_id, paper.id, channel_id):
                counted.append(paper)
    return counted


def set_share_signals(ctx: Context, user_id: str, on: bool) -> bool:
    """Whether the paper links a person posts in channels count as interest (the default). Returns
    whether it changed."""
    return _set_flag(ctx, user_id, "shares_off", not on)
