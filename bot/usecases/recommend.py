"""Recommending and searching: ranked papers with reasons, as plain data.

``/papers recommend`` picks through the one pipeline every path shares (:mod:`bot.usecases.picking`):
what to leave out, followed authors first, fair shares among feeds, each paper once.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from datetime import datetime

from bot.errors import Missing, NoInterests, NoPapers, OutOfRange, TooLong
from bot.presentation.reasons import YOURS, Whose, reason_text
from bot.state.author_directory import authors_of
from bot.state.context import Context
from bot.usecases import rare_terms
from bot.usecases.channel_subjects import is_channel
from bot.usecases.feeds import MAIN, remember_feeds
from bot.usecases.picking import (
    Recommendation,
    author_recommendations,
    by_followed_authors,
    distinct,
    local_today,
    share,
    wants,
)
from bot.usecases.picking import profile_for as profile_for  # where callers have always found it
from bot.usecases.summaries import ask_ahead
from recommender import Community, PaperIndex, Pick, rank
from recommender import search as search_index
from recommender.authors import AuthorMatch
from recommender.surface import as_written, worded
from storage.fulltext import parse as parse_text_query

MAX_RECOMMEND = 20
#: Papers published (or, without a date, added) this many days back count as new: a digest prefers
#: them (a followed author's new papers have their own rule: bot.usecases.authors.is_new).
RECENT_DAYS = 4
#: MMR strength for a list of picks: fewer near-copies of one idea, recall unchanged
#: (docs/measurements/quality.md).
DIVERSITY = 0.15
MAX_QUERY_LENGTH = 500
#: Papers holding a search's quoted phrases that its words then rank, at most.
PHRASE_POOL = 1000


def community(ctx: Context) -> Community:
    """What everyone liked, for "people who liked what you liked also liked" (measured in
    docs/measurements/quality.md); built once and reused until someone's feedback changes."""
    return ctx.colleagues.community()


def recommend(ctx: Context, user_id: str, n: int | None = None, remember: bool = True,
              now: datetime | None = None, candidates: Collection[str] | None = None) -> list[Recommendation]:
    """The ``n`` best papers for a person that they have never been shown, saved, liked, disliked or
    muted: a followed author's new ones (recent by their local day at ``now``, at most the person's
    ``author_picks``) first, then the rest shared fairly among their feeds.

    With ``remember`` they are recorded as shown at once; callers that deliver the papers elsewhere
    (Slack) pass False and call :func:`remember_shown` for each paper once it is delivered.
    ``candidates``: the only papers that may be picked (a venue's, for a conference plan).
    """
    n = ctx.digest_size if n is None else n
    if not 1 <= n <= MAX_RECOMMEND:
        raise OutOfRange("recommend", 1, MAX_RECOMMEND, n)
    who = wants(ctx, user_id, now)
    if who is None:
        raise NoInterests()
    today = local_today(ctx, user_id, now)
    by_authors = by_followed_authors(ctx, who, n, today)
    if candidates is not None:
        by_authors = [a for a in by_authors if a.paper_id in candidates]
    recommendations = author_recommendations(ctx, who, by_authors)
    with ctx.engine.index() as index:
        if index is None:
            raise NoPapers()
        likes, blend = community(ctx), ctx.blend(index)
        # A followed topic's rare words (no words of the model) name their papers: those come first.
        named = rare_terms.mentions_of_many(ctx, index, [f.profile.topics for f in who.feeds])
        if candidates is not None:
            named = [{pid: t for pid, t in found.items() if pid in candidates} for found in named]

        def pick(i: int, k: int, taken: set[str]) -> list[Pick]:
            picks = rank(index, who.feeds[i].profile, k, exclude=taken, candidates=candidates,
                         community=likes, diversity=DIVERSITY, blend=blend)
            return rare_terms.first(named[i], picks, k, taken)

        taken = who.left_out | {r.paper.id for r in recommendations}
        sections = share(n - len(recommendations), len(who.feeds), pick, taken, key=lambda p: p.paper_id)
    for feed, picks in zip(who.feeds, sections, strict=True):
        whose = whose_interests(user_id, feed.feed)
        for rec in with_papers(ctx, picks, whose=whose, saved=feed.profile.saved):
            rec.feed = feed.feed
            recommendations.append(rec)
    recommendations = distinct(recommendations, who.left_out)
    ask_ahead(ctx, [r.paper.id for r in recommendations])
    if who.named:
        remember_feeds(ctx, user_id, {r.paper.id: r.feed for r in recommendations})
    if remember:
        with ctx.store.transaction():
            for rec in recommendations:
                remember_shown(ctx, user_id, rec)
    return recommendations


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
    words ("bajcsy safety") puts only the author's papers that match those words first.

    Otherwise the words rank the papers, and two kinds of words count exactly: a word that only a few
    papers hold and the ranking doesn't know (a method's name: "MeCo", any case) finds those papers
    first, and words in double quotes (``"reward model"``) find only papers holding them as a phrase."""
    query = " ".join(query.split())
    if not query:
        raise Missing("search")
    if len(query) > MAX_QUERY_LENGTH:
        raise TooLong("search", MAX_QUERY_LENGTH)
    with ctx.engine.index() as index:
        if index is None:
            raise NoPapers()
        # A surname inside a longer query names its author only when it is no word of the papers' text.
        named = authors_of(ctx.engine).match(query, is_word=index.model.knows)
        if named is None:
            return with_papers(ctx, _matching(ctx, index, query, n), reason_prefix="Matches: ")
        picks = search_index(index, named.rest, n, candidates=named.paper_ids) if named.rest else []
        others = search_index(index, named.rest, n) if named.rest else []
    return _by_author(ctx, named, picks, others, n)


def _matching(ctx: Context, index: PaperIndex, query: str, n: int) -> list[Pick]:
    """The ``n`` papers best matching ``query``: those holding its rare words first (the most of them
    first), then the ranking's; with quoted phrases, only papers holding every one of them."""
    asked = parse_text_query(query)
    phrases = [" ".join(p) for p in asked.phrases]
    quoted = [f'"{p}"' for p in phrases]
    holding: list[str] | None = None
    if phrases:
        holding = [pid for pid, _ in ctx.store.search_text(phrases, PHRASE_POOL)]
        if not holding:
            return []
    ranked = search_index(index, query, n, candidates=holding)
    for pick in ranked:
        pick.exact = list(quoted)
    if holding is not None:  # phrase holders the words don't rank follow, best phrase match first
        seen = {p.paper_id for p in ranked}
        more = [pid for pid in holding if pid not in seen][: n - len(ranked)]
        ranked += [Pick(pid, 0.0, exact=list(quoted)) for pid in more]
    front = _rare_first(ctx, index, asked.words, None if holding is None else set(holding), quoted, n)
    also = {p.paper_id: p for p in ranked}
    for pick in front:
        if pick.paper_id in also:
            pick.terms = also[pick.paper_id].terms
            pick.term_stems = also[pick.paper_id].term_stems
    chosen = {p.paper_id for p in front}
    return (front + [p for p in ranked if p.paper_id not in chosen])[:n]


def _rare_first(ctx: Context, index: PaperIndex, typed: Sequence[str], holding: set[str] | None,
                quoted: list[str], n: int) -> list[Pick]:
    """Papers holding the query's rare words (:mod:`bot.usecases.rare_terms`), those holding most of
    them first, then in the index's order; among ``holding`` when given."""
    rare = {w: rare_terms.rare_words(index, w) for w in typed}
    names: dict[str, list[str]] = {}
    for word, term in rare.items():
        for pid in rare_terms.papers_holding(ctx, term) if term else ():
            if holding is None or pid in holding:
                names.setdefault(pid, []).append(word)
    best = sorted(names, key=lambda pid: -len(names[pid]))[:n]
    return [Pick(pid, 1.0, exact=[*names[pid], *quoted]) for pid in best]


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


def with_papers(ctx: Context, picks: list[Pick], reason_prefix: str | None = None,
                whose: Whose = YOURS, saved: Collection[str] = frozenset()) -> list[Recommendation]:
    """Ranked picks as recommendations with their papers and reasons (papers deleted since are left out).

    Each reason is checked against its paper's text: it claims only the interests the paper covers,
    in the paper's own words (:func:`recommender.surface.worded`). ``reason_prefix`` (a search's
    "Matches: ") goes before the matching words instead; ``whose``: whose interests the picks were
    ranked for, a channel's or a named feed's (see :func:`whose_interests`); ``saved``: the papers of
    the profile that are saves, not likes."""
    papers = ctx.store.get_papers([p.paper_id for p in picks] + [p.similar_to for p in picks if p.similar_to])
    out = []
    for pick in picks:
        paper = papers.get(pick.paper_id)
        if paper is None:  # deleted since it was indexed
            continue
        pick = worded(pick, paper.text)
        reason = reason_text(pick, papers, whose, saved)
        said = list(dict.fromkeys([*(as_written(w, paper.text) for w in pick.exact), *pick.terms]))
        if reason_prefix and said:
            reason = reason_prefix + ", ".join(said)
        out.append(Recommendation(paper, pick.score, reason))
    return out


def whose_interests(subject_id: str, feed: str | None) -> Whose:
    """Whose interests a subject's picks for ``feed`` answer to: a channel's or a person's, and the
    feed when it is a named one (the main feed is just their interests)."""
    return Whose(channel=is_channel(subject_id), feed=feed if feed not in (None, MAIN) else None)
