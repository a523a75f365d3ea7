"""Feedback given on a paper message: an emoji reaction, or a button on the message.

Slack-free: the caller passes the channel and timestamp of the message and the reaction's name.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from bot.state.context import Context
from bot.usecases.channel_subjects import is_channel
from bot.usecases.feedback import DISLIKE, LIKE, record_feedback, withdraw_feedback
from storage import Paper

LIKE_REACTIONS = frozenset({"+1", "thumbsup", "heart", "star", "fire"})
DISLIKE_REACTIONS = frozenset({"-1", "thumbsdown"})

#: ``posted_as() -> paper id or None``: the paper id a message itself carries (its metadata), asked
#: only when the store has no record of the message (see :func:`paper_on_message`).
PostedAs = Callable[[], str | None]


class Named:
    """``posted_as`` of a click that names its paper: a button of one paper of a message holding several
    (a compact digest). That paper, when it is one this message showed this person, is the message's
    paper for the click; a message of several papers names none by itself (a reaction on it)."""

    def __init__(self, paper_id: str):
        self.paper_id = paper_id

    def __call__(self) -> str | None:
        return self.paper_id


def reaction_value(name: str) -> int | None:
    """+1 for a liking reaction, -1 for a disliking one (skin tones included), None for any other."""
    base = name.strip().strip(":").split("::", 1)[0].lower()
    if base in LIKE_REACTIONS:
        return LIKE
    if base in DISLIKE_REACTIONS:
        return DISLIKE
    return None


def paper_on_message(ctx: Context, user_id: str, channel: str, message_ts: str,
                     posted_as: PostedAs | None = None) -> str | None:
    """The paper shown to this person as this message, or None (not a paper message, or not theirs).

    A person shown two copies of one paper before they were merged keeps one record of it, that of
    one message; the other message still carries its copy's id (``posted_as``), an alias of the merged
    paper now: that message names the merged paper too."""
    paper = _shown_paper(ctx, user_id, channel, message_ts, posted_as)
    return paper.id if paper else None


def _shown_paper(ctx: Context, user_id: str, channel: str, message_ts: str,
                 posted_as: PostedAs | None = None) -> Paper | None:
    on_message = ctx.store.papers_on_message(channel, message_ts)
    if isinstance(posted_as, Named):
        named = ctx.store.get_paper(posted_as.paper_id)  # an alias gives the merged paper
        mine = {paper_id for user, paper_id in on_message if user == user_id}
        return named if named is not None and named.id in mine else None
    if len(on_message) > 1:
        return None  # a compact digest: which of its papers a reaction means, nobody can say
    if on_message:
        found = on_message[0]
        return ctx.store.get_paper(found[1]) if found[0] == user_id else None
    paper_id = posted_as() if posted_as is not None else None
    paper = ctx.store.get_paper(paper_id) if paper_id else None  # an alias gives the merged paper
    if paper is None or not ctx.store.shown_among(user_id, [paper.id]):
        return None
    return paper


def channel_paper(ctx: Context, channel: str, message_ts: str) -> Paper | None:
    """The paper of a channel's own digest (or of a More like this thread under one) posted as this
    message in that channel, or None."""
    found = ctx.store.paper_for_message(channel, message_ts)
    if found is None or found[0] != channel or not is_channel(channel):
        return None
    return ctx.store.get_paper(found[1])


def _rated(ctx: Context, user_id: str, channel: str, message_ts: str,
           posted_as: PostedAs | None = None) -> tuple[Paper | None, list[str]]:
    """The paper on this message and whose feedback it is: the person's own paper (theirs alone), or a
    paper of the channel's digest (the person's and the channel's: both learn from it)."""
    paper = _shown_paper(ctx, user_id, channel, message_ts, posted_as)
    if paper is not None:
        return paper, [user_id]
    paper = channel_paper(ctx, channel, message_ts)
    return paper, ([user_id, channel] if paper is not None else [])


def rate_message(ctx: Context, user_id: str, channel: str, message_ts: str, value: int,
                 posted_as: PostedAs | None = None) -> Paper | None:
    """Record a like (+1) or dislike (-1) of the paper posted as this message; returns that paper (for
    the answer to name it), or None when the message is no paper shown to this person. On a paper of a
    channel's digest it counts for the channel and for the person."""
    with ctx.store.transaction():  # one with the lookup: a forget in between leaves nothing behind
        ctx.store.lock_person(user_id)  # (in every process: forget takes this lock too)
        if is_channel(channel):
            ctx.store.lock_person(channel)  # always after the person's: no two ever wait on each other
        paper, subjects = _rated(ctx, user_id, channel, message_ts, posted_as)
        for subject in subjects:
            record_feedback(ctx, subject, paper.id, value)
    return paper


def feedback_on_message(ctx: Context, user_id: str, channel: str, message_ts: str, value: int,
                        posted_as: PostedAs | None = None) -> str | None:
    """:func:`rate_message`, returning the paper's id, or None."""
    paper = rate_message(ctx, user_id, channel, message_ts, value, posted_as)
    return paper.id if paper else None


def reaction_added(ctx: Context, user_id: str, channel: str, message_ts: str, reaction: str,
                   posted_as: PostedAs | None = None) -> str | None:
    """A reaction on a paper message: like or dislike it. Returns the paper id, or None when ignored."""
    value = reaction_value(reaction)
    if value is None:
        return None
    return feedback_on_message(ctx, user_id, channel, message_ts, value, posted_as)


def reaction_removed(ctx: Context, user_id: str, channel: str, message_ts: str, reaction: str,
                     remaining: Iterable[str] = (), everyone: Iterable[str] | None = None,
                     posted_as: PostedAs | None = None) -> str | None:
    """A reaction taken off a paper message: take back that like or dislike (only that value).

    ``remaining`` are the person's reactions still on the message, when known: a like stays while
    another liking reaction is there, and a dislike left alone becomes the feedback again.
    ``everyone``: the reactions still on the message by anyone (one name per person and reaction),
    for a channel's paper: the channel's like holds while anyone's liking reaction is still there,
    and a dislike left alone becomes the channel's feedback. None (Slack couldn't say): the
    channel's feedback is left as it was, since others may still hold it.
    Returns the paper id, or None when ignored.
    """
    value = reaction_value(reaction)
    if value is None:
        return None
    with ctx.store.transaction():  # as rate_message: the lookup and the changes in one
        ctx.store.lock_person(user_id)
        if is_channel(channel):
            ctx.store.lock_person(channel)
        paper, subjects = _rated(ctx, user_id, channel, message_ts, posted_as)
        if paper is None:
            return None
        _take_back(ctx, user_id, paper.id, subjects, value, remaining, everyone)
    return paper.id


def _take_back(ctx: Context, user_id: str, paper_id: str, subjects: list[str], value: int,
               remaining: Iterable[str], everyone: Iterable[str] | None) -> None:
    for subject in subjects:
        still = remaining if subject == user_id else everyone
        if still is None:
            continue
        left = {v for v in map(reaction_value, still) if v is not None}
        if value in left:
            continue
        withdraw_feedback(ctx, subject, paper_id, value)
        if len(left) == 1:
            record_feedback(ctx, subject, paper_id, next(iter(left)))
