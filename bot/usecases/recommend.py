"""Recommending, searching and building digests: ranked papers with reasons, as plain data."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from bot.errors import BadArgument, NoInterests, NoPapers
from bot.presentation.reasons import reason_text
from bot.state.author_directory import authors_of
from bot.state.context import Context
from bot.usecases.authors import new_papers_by
from bot.usecases.authors import reason as author_reason
from bot.usecases.feeds import MAIN, feed_profiles, remember_feeds, shares
from bot.usecases.mutes import muted_ids
from recommender import Community, Pick, Profile, rank
from recommender import search as search_index
from recommender.authors import AuthorMatch
from storage import Paper

MAX_RECOMMEND = 20
#: Papers published (or, without a date, added) this many days back count as new: a digest prefers
#: them, and a followed author's are picked whatever they are about.
RECENT_DAYS = 4
#: MMR strength for a list of picks: fewer near-copies of one idea, recall unchanged (docs/quality.md).
DIVERSITY = 0.15
MAX_QUERY_LENGTH = 500
NO_INTERESTS = "You don't follow anything yet: try `/papers follow diffusion models, robotics`"
NO_PAPERS = "There are no papers yet: an admin needs to run `paperbot ingest`"


@dataclass
class Recommendation:
    """A paper to show someone, and why."""

    paper: Paper
    score: float
    reason: str
    feed: str | None = None  # the feed it was picked for; None for someone without named feeds


def profile_for(ctx: Context, user_id: str, now: datetime | None = None) -> Profile:
    """A person's profile as the recommender wants it: topics, and liked and disliked ids with their
    ages in days, so that older feedback fades."""
    now = now or datetime.now(UTC)
    feedback = ctx.store.get_feedback(user_id)
    likes = [f for f in feedback if f.value > 0]
    dislikes = [f for f in feedback if f.value < 0]
    return Profile(
        topics=ctx.store.get_topics(user_id),
        liked=[f.paper_id for f in likes],
        disliked=[f.paper_id for f in dislikes],
        liked_age_days=[_age_days(f.created_at, now) for f in likes],
        disliked_age_days=[_age_days(f.created_at, now) for f in dislikes],
    )


def community(ctx: Context) -> Community:
    """What everyone liked, for "people who liked what you liked also liked" (measured in docs/quality.md);
    built once and reused until someone's feedback changes."""
    return ctx.colleagues.community()


def _age_days(created_at: str, now: datetime) -> float:
    try:
        when = datetime.fromisoformat(created_at)
    except (TypeError, ValueError):
        return 0.0
    when = when if when.tzinfo else when.replace(tzinfo=UTC)
    return max((now - when).total_seconds() / 86400.0, 0.0)


def recommend(ctx: Context, user_id: str, n: int | None = None,
              remember: bool = True) -> list[Recommendation]:
    """The ``n`` best papers for a person that they have never been shown, liked or disliked.

    With ``remember`` they are recorded as shown at once; callers that deliver the papers elsewhere
    (Slack) pass False and call :func:`remember_shown` for each paper once it is delivered.
    """
    n = ctx.digest_size if n is None else n
    if not 1 <= n <= MAX_RECOMMEND:
        raise BadArgument(f"I can recommend between 1 and {MAX_RECOMMEND} papers at a time")
    feeds = [f for f in feed_profiles(ctx, user_id, profile_for(ctx, user_id)) if not f.profile.is_empty]
    follows_authors = bool(ctx.store.get_followed_authors(user_id))
    if not feeds and not follows_authors:
        raise NoInterests(NO_INTERESTS)
    exclude = never_again(ctx, user_id) | muted_ids(ctx, user_id)
    named = bool(feeds) and feeds[0].feed is not None
    if named:  # a feed's profile holds only its own likes: the others' must not come back either
        exclude |= {f.paper_id for f in ctx.store.get_feedback(user_id)}
    recommendations = []
    if follows_authors:
        recommendations = author_recommendations(ctx, user_id, n, exclude, feeds)
        exclude |= {r.paper.id for r in recommendations}
    with ctx.engine.index() as index:
        if index is None:
            raise NoPapers(NO_PAPERS)
        likes = community(ctx)
        sections = [(f.feed, f.profile, []) for f in feeds]
        # Fair shares first, then what a feed could not fill goes to the others.
        for wanted in (shares(n - len(recommendations), len(sections)), None)[:1 + (len(sections) > 1)]:
            for i, (_, profile, picks) in enumerate(sections):
                k = wanted[i] if wanted is not None else n - len(recommendations) - sum(
                    len(s[2]) for s in sections)
                if k > 0:
                    more = rank(index, profile, k, exclude=exclude, community=likes, diversity=DIVERSITY,
                                blend=ctx.blend(index))
                    picks.extend(more)
                    exclude |= {p.paper_id for p in more}
    for feed, _, picks in sections:
        recommendations += [_for_feed(rec, feed) for rec in with_papers(ctx, picks)]
    if named:
        remember_feeds(ctx, user_id, {r.paper.id: r.feed for r in recommendations})
    if remember:
        with ctx.store.transaction():
            for rec in recommendations:
                remember_shown(ctx, user_id, rec)
    return recommendations


def author_recommendations(ctx: Context, user_id: str, n: int, exclude: set[str],
                           feeds: list | None = None, since: str | None = None) -> list[Recommendation]:
    """Up to ``n`` new papers (since ``since``, default :data:`RECENT_DAYS` ago) by authors the person
    follows, none of ``exclude`` nor anything they liked or disliked, newest first, each with a reason
    naming the author. With named ``feeds`` they count for the main feed."""
    since = since or (datetime.now(UTC).date() - timedelta(days=RECENT_DAYS)).isoformat()
    rated = {f.paper_id for f in ctx.store.get_feedback(user_id)}
    picks = new_papers_by(ctx, user_id, since, exclude | rated)[:n]
    papers = ctx.store.get_papers([p.paper_id for p in picks])
    named = bool(feeds) and feeds[0].feed is not None
    return [Recommendation(papers[p.paper_id], 1.0, author_reason(p.author), MAIN if named else None)
            for p in picks if p.paper_id in papers]


def _for_feed(rec: Recommendation, feed: str | None) -> Recommendation:
    rec.feed = feed
    return rec


def never_again(ctx: Context, user_id: str) -> set[str]:
    """The papers never to be recommended to a person again: every one shown to them, or saved (a
    paper saved from elsewhere than its message, or whose like was taken back, still stays out)."""
    return ctx.store.shown_paper_ids(user_id) | ctx.store.saved_paper_ids(user_id)


def remember_shown(ctx: Context, user_id: str, rec: Recommendation, channel: str | None = None,
                   message_ts: str | None = None) -> None:
    """Record that a recommendation reached a person, so it is never recommended to them again.

    Nothing is recorded for someone paperbot no longer knows: a post that was in flight when they asked
    to be forgotten leaves no trace. (The person's lock makes this check and the write one step, and
    the store's ``forget_person`` takes it too.)
    """
    with ctx.store.transaction():
        ctx.store.lock_person(user_id)  # a forget (it takes this lock) is wholly before or after
        if ctx.store.get_person(user_id) is not None:
            ctx.store.mark_shown(user_id, rec.paper.id, rec.reason, channel, message_ts)


def search(ctx: Context, query: str, n: int = 5) -> list[Recommendation]:
    """The papers that best match a free-text query. A query that names an author ("Bajcsy", "Andrea
    Bajcsy", accents and case ignored) gives their papers first: ranked by the query's other words when
    it has some (then other papers matching those words), else newest first. A bare surname among topic
    words ("bajcsy safety") puts only the author's papers that match those words first."""
    query = " ".join(query.split())
    if not query:
        raise BadArgument("Say what to search for, e.g. `/papers search contrastive learning`")
    if len(query) > MAX_QUERY_LENGTH:
        raise BadArgument(f"A search can be at most {MAX_QUERY_LENGTH} characters long")
    with ctx.engine.index() as index:
        if index is None:
            raise NoPapers(NO_PAPERS)
        # A surname inside a longer query names its author only when it is no word of the papers' text.
        named = authors_of(ctx.engine).match(query, is_word=index.model.knows)
        if named is None:
            return with_papers(ctx, search_index(index, query, n), reason_prefix="Matches: ")
        picks = search_index(index, named.rest, n, candidates=named.paper_ids) if named.rest else []
        others = search_index(index, named.rest, n) if named.rest else []
    return _by_author(ctx, named, picks, others, n)


def _by_author(ctx: Context, named: AuthorMatch, picks: list[Pick], others: list[Pick],
               n: int) -> list[Recommendation]:
    """An author's papers (the ``picks`` among them first, then the newest: for a bare surname, the
    picks only), then ``others``, ``n`` in all."""
    ranked = [p.paper_id for p in picks if p.score > 0]  # a paper of no matching word: by date
    ids = list(dict.fromkeys(ranked if named.bare else ranked + named.paper_ids))[:n]
    papers = ctx.store.get_papers(ids)
    out: list[Recommendation] = []
    taken: set[str] = set()
    for pid in ids:
        paper = papers.get(pid)
        if paper is not None and paper.id not in taken:  # ids merged into one paper: it comes once
            taken.add(paper.id)
            out.append(Recommendation(paper, 1.0, "By " + ", ".join(named.by_name[pid])))
    more = [p for p in others if p.paper_id not in taken][: max(n - len(out), 0)]
    return out + with_papers(ctx, more, reason_prefix="Matches: ")


def with_papers(ctx: Context, picks: list[Pick], reason_prefix: str | None = None) -> list[Recommendation]:
    """Ranked picks as recommendations with their papers and reasons (papers deleted since are left out)."""
    papers = ctx.store.get_papers([p.paper_id for p in picks] + [p.similar_to for p in picks if p.similar_to])
    out = []
    for pick in picks:
        paper = papers.get(pick.paper_id)
        if paper is None:  # deleted since it was indexed
            continue
        reason = reason_text(pick, papers)
        if reason_prefix and pick.terms:
            reason = reason_prefix + ", ".join(pick.terms)
        out.append(Recommendation(paper, pick.score, reason))
    return out
