"""A reading list: saving papers (a Save button, the ``bookmark`` reaction), listing them, and what a
paper message shows of a person's feedback on it.

A save is a signal of its own, apart from 👍 and 👎: it never records, overwrites or counts as a like
or a dislike, and unsaving takes only the save away. A 👎'd paper may be saved and stays disliked.
The profile learns from a save as from a weaker like (:func:`bot.usecases.picking.profile_for`), and
a saved paper, like a rated one, never comes back. Slack-free: the caller passes the channel and
timestamp of the paper message.

On a paper of a channel's digest, Save (and the ``bookmark`` reaction) saves it for the person who
clicked, on their own reading list; the channel's profile is not touched (its feedback is 👍/👎), and
the shared message never shows one person's marks.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.errors import UnknownPaper
from bot.state.context import Context
from bot.usecases.feedback import DISLIKE, LIKE
from bot.usecases.feeds import label
from bot.usecases.reactions import PostedAs, channel_paper, paper_on_message
from bot.usecases.recommend import Recommendation
from bot.usecases.social import as_shown_to
from bot.usecases.suggestions import SUGGESTED
from storage import Paper

SAVE_REACTIONS = frozenset({"bookmark"})


@dataclass(frozen=True)
class Marks:
    """A person's feedback on one paper, as its message shows it."""

    liked: bool = False
    disliked: bool = False
    saved: bool = False


@dataclass(frozen=True)
class SavedItem:
    """A paper on the reading list, and when it was saved (ISO UTC)."""

    paper: Paper
    saved_at: str


@dataclass(frozen=True)
class SavedPage:
    """The newest papers of a reading list, and how many papers the whole list holds."""

    items: list[SavedItem]
    total: int


@dataclass(frozen=True)
class Toggled:
    """What a click on Save did: the paper, and whether it is saved now (False: unsaved)."""

    paper: Paper
    saved: bool


def is_save_reaction(name: str) -> bool:
    """True for the reaction that saves a paper (``bookmark``)."""
    return name.strip().strip(":").split("::", 1)[0].lower() in SAVE_REACTIONS


def save(ctx: Context, user_id: str, paper_id: str) -> bool:
    """Put a paper on a person's reading list (their 👍 or 👎 of it, if any, unchanged). True if it was
    not saved yet. Raises NotFound for an unknown paper."""
    if ctx.store.get_paper(paper_id) is None:
        raise UnknownPaper(paper_id)
    with ctx.store.transaction():
        ctx.store.lock_person(user_id)  # one save or unsave of this person at a time, in any process
        return _save(ctx, user_id, paper_id)


def unsave(ctx: Context, user_id: str, paper_id: str) -> bool:
    """Take a paper off the reading list (only the save). True if it was saved."""
    with ctx.store.transaction():
        ctx.store.lock_person(user_id)
        return _unsave(ctx, user_id, paper_id)


def _save(ctx: Context, user_id: str, paper_id: str) -> bool:
    ctx.store.ensure_person(user_id)
    return ctx.store.save_paper(user_id, paper_id)


def _unsave(ctx: Context, user_id: str, paper_id: str) -> bool:
    return ctx.store.unsave_paper(user_id, paper_id)


def toggle_saved_on_message(ctx: Context, user_id: str, channel: str, message_ts: str,
                            posted_as: PostedAs | None = None) -> Toggled | None:
    """A click on Save: save the paper posted to this person (or to the channel) as this message, or
    unsave it when it is saved. None when the message is no paper shown to this person or channel."""
    with ctx.store.transaction():  # the lookup and the toggle in one: two clicks at once toggle twice
        ctx.store.lock_person(user_id)
        paper = _paper_to_save(ctx, user_id, channel, message_ts, posted_as)
        if paper is None:
            return None
        if _unsave(ctx, user_id, paper.id):
            return Toggled(paper, saved=False)
        _save(ctx, user_id, paper.id)
        return Toggled(paper, saved=True)


def saved_on_message(ctx: Context, user_id: str, channel: str, message_ts: str,
                     saving: bool = True, posted_as: PostedAs | None = None) -> str | None:
    """The ``bookmark`` reaction added (``saving``) or removed: save or unsave the paper of this
    message for the reactor. Returns its id, or None when the message is no paper shown to this
    person or channel."""
    with ctx.store.transaction():
        ctx.store.lock_person(user_id)
        paper = _paper_to_save(ctx, user_id, channel, message_ts, posted_as)
        if paper is None:
            return None
        if saving:
            _save(ctx, user_id, paper.id)
        else:
            _unsave(ctx, user_id, paper.id)
        return paper.id


def saved_papers(ctx: Context, user_id: str) -> list[SavedItem]:
    """A person's reading list, newest first (papers deleted since are left out)."""
    entries = ctx.store.saved_papers(user_id)
    papers = ctx.store.get_papers([e.paper_id for e in entries])
    return [SavedItem(papers[e.paper_id], e.saved_at) for e in entries if e.paper_id in papers]


def saved_page(ctx: Context, user_id: str, limit: int) -> SavedPage:
    """The ``limit`` newest papers of a person's reading list and the length of the whole list (papers
    deleted since are left out of both). Only those papers are read, so a list of thousands answers as
    fast as a short one."""
    entries = ctx.store.saved_page(user_id, limit)
    papers = ctx.store.get_papers([e.paper_id for e in entries])
    items = [SavedItem(papers[e.paper_id], e.saved_at) for e in entries if e.paper_id in papers]
    # Read apart from the page: a save in between must not make the count smaller than what is shown.
    return SavedPage(items, max(ctx.store.count_saved(user_id), len(items)))


def marks(ctx: Context, user_id: str, paper_id: str) -> Marks:
    """What the person's paper message should show of their feedback on it."""
    value = _feedback_on(ctx, user_id, paper_id)
    return Marks(liked=value == LIKE, disliked=value == DISLIKE,
                 saved=paper_id in ctx.store.saved_paper_ids(user_id))


@dataclass(frozen=True)
class PaperMessage:
    """A paper message as it should read now: the paper with why it was picked, and the person's
    feedback on it."""

    rec: Recommendation
    marks: Marks
    suggested_by: str | None = None  # the colleague who sent it to them (Who should read this?)


def paper_message(ctx: Context, user_id: str, channel: str, message_ts: str,
                  posted_as: PostedAs | None = None) -> PaperMessage | None:
    """What the paper message ``message_ts`` of this person should show after their feedback (the
    feed it was sent for too, as it said when posted); None when it is no paper shown to them (or
    the paper is gone)."""
    paper = _paper_on(ctx, user_id, channel, message_ts, posted_as)
    if paper is None:
        return None
    reason = ctx.store.shown_reason(user_id, paper.id) or ""
    rec = as_shown_to(ctx, user_id, label(ctx, user_id, [Recommendation(paper, 0.0, reason)]))[0]
    by = ctx.store.suggested_by(user_id, paper.id) if reason.startswith(SUGGESTED) else None
    return PaperMessage(rec, marks(ctx, user_id, paper.id), by)


def _feedback_on(ctx: Context, user_id: str, paper_id: str) -> int | None:
    return next((f.value for f in ctx.store.get_feedback(user_id) if f.paper_id == paper_id), None)


def _paper_on(ctx: Context, user_id: str, channel: str, message_ts: str,
              posted_as: PostedAs | None = None) -> Paper | None:
    paper_id = paper_on_message(ctx, user_id, channel, message_ts, posted_as)
    return ctx.store.get_paper(paper_id) if paper_id else None


def _paper_to_save(ctx: Context, user_id: str, channel: str, message_ts: str,
                   posted_as: PostedAs | None = None) -> Paper | None:
    """The paper a person may save from this message: one shown to them, or one of the channel's."""
    return _paper_on(ctx, user_id, channel, message_ts, posted_as) or channel_paper(ctx, channel, message_ts)
