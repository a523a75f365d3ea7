"""Recommending, searching and building digests: ranked papers with reasons, as plain data."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from bot.authors import authors_of
from bot.context import Context
from bot.errors import BadArgument, NoInterests, NoPapers
from bot.reasons import reason_text
from recommender import Community, Pick, Profile, rank
from recommender import search as search_index
from recommender.authors import AuthorMatch
from storage import Paper

MAX_RECOMMEND = 20
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
    profile = profile_for(ctx, user_id)
    if profile.is_empty:
        raise NoInterests(NO_INTERESTS)
    shown = never_again(ctx, user_id)
    with ctx.engine.index() as index:
        if index is None:
            raise NoPapers(NO_PAPERS)
        picks = rank(index, profile, n, exclude=shown, community=community(ctx), diversity=DIVERSITY)
    recommendations = with_papers(ctx, picks)
    if remember:
        with ctx.store.transaction():
            for rec in recommendations:
                remember_shown(ctx, user_id, rec)
    return recommendations


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
    it has some (then other papers matching those words), else newest first."""
    query = " ".join(query.split())
    if not query:
        raise BadArgument("Say what to search for, e.g. `/papers search contrastive learning`")
    if len(query) > MAX_QUERY_LENGTH:
        raise BadArgument(f"A search can be at most {MAX_QUERY_LENGTH} characters long")
    named = authors_of(ctx.engine).match(query)
    with ctx.engine.index() as index:
        if index is None:
            raise NoPapers(NO_PAPERS)
        if named is None:
            return with_papers(ctx, search_index(index, query, n), reason_prefix="Matches: ")
        picks = search_index(index, named.rest, n, candidates=named.paper_ids) if named.rest else []
        others = search_index(index, named.rest, n) if named.rest else []
    return _by_author(ctx, named, picks, others, n)


def _by_author(ctx: Context, named: AuthorMatch, picks: list[Pick], others: list[Pick],
               n: int) -> list[Recommendation]:
    """An author's papers (the ``picks`` among them first, then the newest), then ``others``, ``n`` in all."""
    ranked = [p.paper_id for p in picks if p.score > 0]  # a paper of no matching word: by date
    ids = list(dict.fromkeys(ranked + named.paper_ids))[:n]
    papers = ctx.store.get_papers(ids)
    out = [Recommendation(papers[pid], 1.0, "By " + ", ".join(named.by_name[pid]))
           for pid in ids if pid in papers]
    taken = {rec.paper.id for rec in out}
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
