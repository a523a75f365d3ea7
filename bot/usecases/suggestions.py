""""Who should read this?": the colleagues a paper fits best, and sending it to one of them.

Only people who opted in (``/papers suggest on``, :attr:`storage.Person.suggest`) are ever suggested;
never the asker, a channel, or someone who was shown, saved, liked, disliked, muted or already suggested
the paper. They are ranked by how well the paper fits each one's own profile, all of them in one batched
scoring (:func:`recommender.score_matrix` over the few rows their profiles and the paper need), and
each is given with the reason the recommender would give *them* for it (the digests' reasons: checked
against the paper's text, in its words). Someone it doesn't fit at all (no score, no true reason) is
left out.

A suggestion sent is the colleague's paper message in their DM, once per colleague and paper whoever
asks (the database decides, :meth:`storage.Store.record_suggestion`), recorded as shown to them (so no
digest repeats it) and never as their feedback.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from bot.errors import NoPapers, Outage
from bot.presentation import reasons
from bot.state.context import Context
from bot.usecases.feeds import FeedProfile, feed_profiles
from bot.usecases.mutes import muted_filter
from bot.usecases.picking import Recommendation, profile_for
from bot.usecases.recommend import remember_shown, whose_interests, with_papers
from bot.usecases.settings import set_suggest as set_suggest
from bot.usecases.social import as_shown_to
from recommender import explain_picks, score_matrix
from storage import Paper

MOST = 3  # colleagues suggested at most
#: Why a paper reached someone from a colleague (its message's "Why", and the record of it as shown):
#: it names no one, so forgetting the asker leaves nothing of them in the colleague's rows.
SUGGESTED = reasons.SUGGESTED

#: Why nobody is suggested: nobody else here opted in; everyone who did has the paper already (or
#: muted its words); it fits none of them; the paper is not ranked yet (just added).
Nobody = Literal["nobody_opted_in", "all_have_it", "no_fit", "not_indexed"]


@dataclass
class Colleague:
    """One colleague the paper fits: their id, how well (the recommender's score for their best feed)
    and why, in their terms."""

    user_id: str
    score: float
    reason: str
    feed: str | None = None


@dataclass
class WhoShouldRead:
    """The answer to "Who should read this?" about ``paper``: up to :data:`MOST` colleagues, best first;
    none, and ``nobody`` says why."""

    paper: Paper
    colleagues: list[Colleague] = field(default_factory=list)
    nobody: Nobody | None = None


SendStatus = Literal["sent", "already", "closed", "failed", "unconfirmed"]


@dataclass
class SentSuggestion:
    """What a Send did: ``sent`` (now in their DM), ``already`` (suggested before, by anyone, or they met
    the paper meanwhile), ``closed`` (they turned suggestions off since), ``failed`` (Slack didn't take
    it: nothing recorded, so it may be sent again), ``unconfirmed`` (Slack never answered, so it may
    have landed: kept as sent, never sent twice)."""

    status: SendStatus
    paper: Paper
    colleague: str


def who_should_read(ctx: Context, asker: str, paper: Paper, most: int = MOST) -> WhoShouldRead:
    """The colleagues ``paper`` (as stored) fits best for ``asker`` to send it to (see the module).
    Raises NoPapers when there is no index yet."""
    answer = WhoShouldRead(paper)
    feeds: dict[str, list[FeedProfile]] = {}
    for user in ctx.store.open_to_suggestion(paper.id, asker):
        theirs = ctx.reading(user)  # their rows read once (one round trip on PostgreSQL)
        if not muted_filter(theirs, user)(paper):
            feeds[user] = [f for f in feed_profiles(theirs, user, profile_for(theirs, user))
                           if not f.profile.is_empty]
    if not feeds:
        opted_in = any(p.suggest and p.user_id != asker for p in ctx.store.list_people())
        answer.nobody = "all_have_it" if opted_in else "nobody_opted_in"
        return answer
    ranked = _ranked(ctx, paper, feeds)
    if ranked is None:
        answer.nobody = "not_indexed"
        return answer
    for colleague in ranked:
        if len(answer.colleagues) >= most:
            break
        if colleague.reason:
            answer.colleagues.append(colleague)
    if not answer.colleagues:
        answer.nobody = "no_fit"
    return answer


def _ranked(ctx: Context, paper: Paper, feeds: dict[str, list[FeedProfile]]) -> list[Colleague] | None:
    """Everyone in ``feeds`` the paper scores above 0 for (by their best feed), best first, each with the
    reason for them ("" when the recommender has none that is true of the paper). None when the paper
    is not in the index yet."""
    rows = [(user, feed) for user, theirs in feeds.items() for feed in theirs]
    with ctx.engine.index() as index:
        if index is None:
            raise NoPapers()
        if paper.id not in index.row_of:
            return None
        if not rows:
            return []
        # The paper and the papers the profiles name: scoring and explaining cost these rows, not the
        # corpus, however many colleagues there are.
        small = index.subset([paper.id, *(pid for _, f in rows for pid in (*f.profile.liked,
                                                                            *f.profile.disliked))])
        column = small.row_of[paper.id]
        scores = score_matrix(small, [f.profile for _, f in rows])[:, column]  # one batched product
        best: dict[str, int] = {}
        for i, (user, _) in enumerate(rows):
            if user not in best or scores[i] > scores[best[user]]:
                best[user] = i
        order = sorted(best.values(), key=lambda i: (-float(scores[i]), rows[i][0]))
        order = [i for i in order if np.isfinite(scores[i]) and scores[i] > 0]
        picks = {i: explain_picks(small, rows[i][1].profile, [(paper.id, float(scores[i]))])
                 for i in order[:max(3 * MOST, 10)]}  # a reason each for the best few only
    out = []
    for i, found in picks.items():
        user, feed = rows[i]
        recs = with_papers(ctx, found, whose=whose_interests(user, feed.feed), saved=feed.profile.saved)
        out.append(Colleague(user, float(scores[i]), recs[0].reason if recs else "", feed.feed))
    return out


def suggestion_of(paper: Paper, reason: str) -> Recommendation:
    """The colleague's paper message: why it came (a colleague's suggestion, and why it fits them)."""
    return Recommendation(paper, 0.0, reasons.suggested(reason))


def send_suggestion(ctx: Context, asker: str, colleague: str, paper: Paper, reason: str,
                    post: Callable[[Recommendation], tuple[str, str]]) -> SentSuggestion:
    """Send ``paper`` to ``colleague`` for ``asker``: once per colleague and paper (whoever asks, however
    often), only while they still have suggestions on and have not met the paper. ``post(rec) ->
    (channel, ts)`` posts the paper message in their DM (raising when Slack doesn't take it); ``reason``
    is why it fits them. The caller holds the colleague's lock, so no digest of theirs picks the paper
    meanwhile."""
    store = ctx.store
    with store.transaction():
        store.lock_person(colleague)  # a forget (it takes this lock) is wholly before or after
        person = store.get_person(colleague)
        if person is None or not person.suggest:
            return SentSuggestion("closed", paper, colleague)
        if (not store.open_to_suggestion(paper.id, asker, among=[colleague])
                or muted_filter(ctx, colleague)(paper)
                or not store.record_suggestion(colleague, paper.id, asker)):
            return SentSuggestion("already", paper, colleague)
    rec = as_shown_to(ctx, colleague, [suggestion_of(paper, reason)])[0]  # as their digests show papers
    try:
        channel, ts = post(rec)
    except Outage as exc:
        if exc.maybe_delivered:  # it may have landed: as a digest's post would, never risk it twice
            remember_shown(ctx, colleague, rec)
            return SentSuggestion("unconfirmed", paper, colleague)
        store.drop_suggestion(colleague, paper.id, asker)  # never sent: a later Send may try again
        raise
    except Exception:
        store.drop_suggestion(colleague, paper.id, asker)  # never sent: a later Send may try again
        raise
    remember_shown(ctx, colleague, rec, channel, ts)
    return SentSuggestion("sent", paper, colleague)
