"""Choosing a person's digest: recent papers first, then good older ones, never filler.

For a run of many digests, :class:`Chooser` scores people in batches (one matrix product for a batch
of profiles costs about what one profile costs alone), then explains each person's picks when their
digest is sent, against a small index of just those papers and the person's liked and disliked ones:
the same reasons as against the whole corpus (a test holds them to it) without scoring it again.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta

import numpy as np

from bot.errors import NoInterests, NoPapers
from bot.state.context import Context
from bot.usecases import rare_terms
from bot.usecases.alerts import AlertPick
from bot.usecases.authors import AuthorPick
from bot.usecases.feeds import remember_feeds
from bot.usecases.followups import people_with_news
from bot.usecases.mutes import muted_by
from bot.usecases.picking import (
    Fate,
    FateKind,
    Recommendation,
    Wants,
    alert_recommendations,
    author_recommendations,
    by_alerts,
    by_followed_authors,
    distinct,
    share,
    wants,
)
from bot.usecases.recommend import (
    DIVERSITY,
    RECENT_DAYS,
    community,
    remember_shown,
    whose_interests,
    with_papers,
)
from bot.usecases.social import counted, saved_counts
from bot.usecases.summaries import ask_ahead
from recommender import Community, PaperIndex, Profile, best_of_rows, diversify, explain_picks, score_matrix
from storage import Person

#: A weekly digest: the best of this many days' new papers (those only), up to this many times the
#: daily size.
WEEK_DAYS = 7
WEEKLY_SIZE = 2
#: A paper must score at least this share of the person's best match in the corpus: on a day
#: without new papers a digest sends the good ones left, or nothing, never weak filler.
FLOOR = 0.2
#: People scored in one matrix product.
BATCH = 32



@dataclass
class Section:
    """What scoring chose for one feed: its name (None for someone without named feeds), the
    (paper id, score) pairs and the profile they were chosen for."""

    feed: str | None
    picks: list[tuple[str, float]]
    profile: Profile
    #: Picks that hold a followed topic's rare words (:mod:`bot.usecases.rare_terms`): id -> topics.
    mentions: dict[str, list[str]] = field(default_factory=dict)
    #: Where the paper asked about stands in this feed (:meth:`Chooser.fate`), when one was.
    standing: Fate | None = None


@dataclass
class _Person:
    """One person as a batch scores them: what picking needs of them (:class:`~bot.usecases.picking.Wants`),
    how many papers from how many days back, their followed authors' new papers, and their alerts' new
    papers (first of all)."""

    who: Wants
    today: date
    n: int
    days: int
    weekly: bool
    authors: list[AuthorPick]
    alerts: list[AlertPick] = field(default_factory=list)

    @property
    def first(self) -> set[str]:
        """The papers placed before ranking: the alerts' and the followed authors'."""
        return {a.paper_id for a in self.alerts} | {a.paper_id for a in self.authors}


#: What scoring found for one person: the person, then a section per feed; or why there is nothing
#: to choose.
Choice = tuple[_Person, list[Section]] | Exception


@dataclass
class Digest:
    """The papers chosen for one person's digest."""

    user_id: str
    recommendations: list[Recommendation]


def choose_papers(ctx: Context, user_id: str, n: int | None = None,
                  today: date | None = None) -> list[Recommendation]:
    """The best ``n`` (default: digest size) papers for a person that they have not seen: those of the
    last :data:`RECENT_DAYS` days first, then older ones; each scoring at least :data:`FLOOR` of their
    best match. Raises NoInterests / NoPapers."""
    today = today or datetime.now(UTC).date()
    return Chooser(ctx, [(user_id, today)], n).choose(user_id, today)


class Chooser:
    """Chooses the digests of the people in ``plan`` ((user, local day) pairs, in the order they will
    be asked for), scoring them :data:`BATCH` at a time. Thread-safe; anyone not in the plan is scored
    alone when asked for. With ``record_feeds``, the feed each paper was chosen for is recorded (for
    people with named feeds), so that feedback on it trains that feed."""

    def __init__(self, ctx: Context, plan: Sequence[tuple[str, date]] = (), n: int | None = None,
                 record_feeds: bool = True):
        self.ctx = ctx
        self.record_feeds = record_feeds  # off for a preview, which records nothing
        self.n = ctx.digest_size if n is None else n
        self._plan = list(plan)
        self._position = {user: i for i, (user, _) in enumerate(self._plan)}
        self._chosen: dict[tuple[str, date], Choice] = {}
        self._taken: set[tuple[str, date]] = set()  # chosen and handed out: never scored again in a batch
        self._lock = threading.Lock()
        self._likes: Community | None = None
        self._people: dict[str, Person | None] = {}  # as scoring read them
        # Saved counts of the papers scored (those a message may show), and every paper they were read
        # for: each paper's count is read once a run, in one statement a batch that brings new papers.
        self._saved: dict[str, int] = {}
        self._saves_read: set[str] = set()
        self._news: set[str] | None = None  # who has follow-ups untold, read once a run (issue 42)

    def _community(self) -> Community:
        """Everyone's likes, read once for the whole run."""
        if self._likes is None:
            self._likes = community(self.ctx)
        return self._likes

    def choose(self, user_id: str, today: date) -> list[Recommendation]:
        """The person's digest for local day ``today``, explained. Raises NoInterests / NoPapers."""
        with self._lock:
            chosen = self._chosen.pop((user_id, today), None)
            if chosen is None:
                start = self._position.get(user_id)
                batch = [(user_id, today)]
                if start is not None and self._plan[start][1] == today:
                    batch = [item for item in self._plan[start:start + BATCH]
                             if item not in self._chosen and (item not in self._taken or item[0] == user_id)]
                self._chosen.update(self._score(batch))
                chosen = self._chosen.pop((user_id, today))
            self._taken.add((user_id, today))
        if isinstance(chosen, Exception):
            raise chosen
        person, sections = chosen
        shown = self.ctx.store.shown_among(user_id, _picked(person, sections))  # since scored: not again
        alerts = [a for a in person.alerts if a.paper_id not in shown]
        authors = [a for a in person.authors if a.paper_id not in shown]
        for section in sections:
            section.picks = [(pid, score) for pid, score in section.picks if pid not in shown]
        if not alerts and not authors and not any(s.picks for s in sections):
            return []
        recs = alert_recommendations(self.ctx, person.who, alerts)
        recs += author_recommendations(self.ctx, person.who, authors)
        with self.ctx.engine.index() as index:
            if index is None:
                raise NoPapers()
            smalls = [_small_index(index, [pid for pid, _ in s.picks], s.profile) if s.picks else None
                      for s in sections]
        for section, small in zip(sections, smalls, strict=True):
            if small is None:
                continue
            known = [(pid, score) for pid, score in section.picks if pid in small.row_of]
            whose = whose_interests(user_id, section.feed)
            picks = explain_picks(small, section.profile, known)
            for rec in with_papers(self.ctx, picks, whose=whose, saved=section.profile.saved):
                rec.feed = section.feed
                recs.append(rec)
        rare_terms.credit(recs, {pid: topics for s in sections for pid, topics in s.mentions.items()})
        recs = counted(distinct(recs, person.who.left_out), self._saved)
        if person.who.named and self.record_feeds:
            remember_feeds(self.ctx, user_id, {r.paper.id: r.feed for r in recs})
        return recs

    def fate(self, user_id: str, today: date, paper_id: str) -> Fate:
        """What choosing the person's digest for local day ``today`` makes of ``paper_id`` (an id the
        store holds): the same steps as :meth:`choose`, told for that one paper: left out by which rule,
        placed first by an alert or a followed author, or its rank among a feed's candidates and the cut.
        Raises NoPapers. Choosing the digest itself stays untouched (nothing is recorded)."""
        with self._lock:
            chosen = self._score([(user_id, today)], watch=paper_id)[(user_id, today)]
        if isinstance(chosen, NoInterests):
            return Fate("no_interests")
        if isinstance(chosen, Exception):
            raise chosen
        person, sections = chosen
        rule = person.who.rules.rule(paper_id)
        if rule is not None:
            return Fate(rule, word=muted_by(self.ctx, user_id, paper_id) if rule == "muted" else None)
        for alert in person.alerts:
            if alert.paper_id == paper_id:
                return Fate("alert", person.who.authors_feed, word=alert.phrase)
        for author in person.authors:
            if author.paper_id == paper_id:
                return Fate("author", person.who.authors_feed, word=author.author)
        standings = [s.standing for s in sections if s.standing is not None]
        if not standings:  # no feed to rank by: only alerts and followed authors bring papers
            return Fate("outside")
        order: list[FateKind] = ["picked", "too_similar", "below_cut", "not_new", "outside", "not_indexed"]
        return min(standings, key=lambda f: (order.index(f.kind), f.rank or 0))

    def weekly(self, user_id: str) -> bool:
        """Whether the person's digest is a weekly one: as scoring found it, else read now."""
        person = self.person(user_id)
        return person is not None and person.digest_weekday is not None

    def has_followups(self, user_id: str, now: datetime) -> bool:
        """Whether ``user_id`` had follow-ups not told yet when the run first asked (one statement a run,
        not one a person: most have none)."""
        with self._lock:
            if self._news is None:
                self._news = people_with_news(self.ctx, now)
        return user_id in self._news

    def person(self, user_id: str) -> Person | None:
        """The person's settings as scoring read them moments ago (else read now): what sending asks
        of them costs no second read."""
        if user_id in self._people:
            return self._people[user_id]
        return self.ctx.store.get_person(user_id)

    def _score(self, batch: list[tuple[str, date]],
               watch: str | None = None) -> dict[tuple[str, date], Choice]:
        out: dict[tuple[str, date], Choice] = {}
        people = []
        for user_id, today in batch:
            person = self._person(user_id, today)
            if person is None:
                out[(user_id, today)] = NoInterests()
            else:
                people.append(person)
        if not people:
            return out
        with self.ctx.engine.index() as index:
            if index is None:
                return {**out, **{(p.who.user_id, p.today): NoPapers() for p in people}}
            recent = {when: _recent_rows(self.ctx, index, (when[0] - timedelta(days=when[1])).isoformat())
                      for when in {(p.today, p.days) for p in people}}  # once a day, not once a person
            profiles = [f.profile for p in people for f in p.who.feeds]
            scores = (score_matrix(index, profiles, community=self._community(), blend=self.ctx.blend(index))
                      if profiles else None)
            # A followed topic's rare words (no words of the model) name their papers: above the rest, and
            # as welcome as new ones.
            named = rare_terms.boost(self.ctx, index, scores, [profile.topics for profile in profiles])
            row = 0
            for p in people:
                mine = named[row:row + len(p.who.feeds)]
                mask = rare_terms.as_new(index, recent[(p.today, p.days)], mine)
                sections = _sections(index, scores, list(range(row, row + len(p.who.feeds))), p, mask, watch)
                for section, found in zip(sections, mine, strict=True):
                    chosen = {pid for pid, _ in section.picks}
                    section.mentions = {pid: t for pid, t in found.items() if pid in chosen}
                row += len(p.who.feeds)
                out[(p.who.user_id, p.today)] = (p, sections)
        # What the batch's messages may say of their papers' saves, in one read for all of them.
        unread = {paper_id for choice in out.values() if not isinstance(choice, Exception)
                  for paper_id in _picked(*choice)} - self._saves_read
        if unread:
            self._saved.update(saved_counts(self.ctx, sorted(unread)))
            self._saves_read |= unread
        if self.record_feeds:  # the lab's model summarizes them meanwhile (a preview asks for nothing)
            picked = {paper_id for choice in out.values() if not isinstance(choice, Exception)
                      for paper_id in _picked(*choice)}
            ask_ahead(self.ctx, sorted(picked))
        return out

    def _person(self, user_id: str, today: date) -> _Person | None:
        """What scoring needs of one person (see :class:`_Person`), or None when they follow nothing."""
        ctx = self.ctx.reading(user_id)  # their rows read once (one round trip on PostgreSQL)
        self._people[user_id] = ctx.store.get_person(user_id)  # under self._lock: choose's hold of it
        weekly = self.weekly(user_id)
        n, days = (WEEKLY_SIZE * self.n, WEEK_DAYS) if weekly else (self.n, RECENT_DAYS)
        who = wants(ctx, user_id, alerts=True)
        if who is None:
            return None
        # An alert's new papers take places first, whatever their rank; the authors' come next.
        alerts = by_alerts(ctx, who, n, today, weekly)
        taken = {a.paper_id for a in alerts}
        authors = [a for a in by_followed_authors(ctx, who, n - len(alerts), today)
                   if a.paper_id not in taken]
        return _Person(who, today, n, days, weekly, authors, alerts)


def _picked(person: _Person, sections: list[Section]) -> list[str]:
    """Every paper scoring chose for a person: their alerts', their followed authors' and each section's."""
    return [*person.first, *(pid for s in sections for pid, _ in s.picks)]


def _sections(index: PaperIndex, scores: np.ndarray | None, rows: list[int], p: _Person,
              mask: np.ndarray, watch: str | None = None) -> list[Section]:
    """One person's picks from a batch's ``scores`` (their feeds' ``rows`` of it), shared among their
    feeds (:func:`~bot.usecases.picking.share`), after their alerts' and followed authors' papers; with
    ``watch``, each section says where that paper stands in it (:func:`standing`)."""
    def pick(i: int, k: int, taken: set[str]) -> list[tuple[str, float]]:
        assert scores is not None  # a person with feeds was scored
        row_scores = scores[rows[i]]
        picked = select(index, row_scores, p.who.feeds[i].profile, k, taken, mask, fresh_only=p.weekly)
        return [(pid, float(row_scores[index.row_of[pid]])) for pid in picked]

    taken = p.who.left_out | p.first
    taken_before = set(taken)  # share adds each feed's picks to taken
    shared = share(p.n - len(p.first), len(p.who.feeds), pick, taken, key=lambda item: item[0])
    sections = [Section(f.feed, picks, f.profile) for f, picks in zip(p.who.feeds, shared, strict=True)]
    if watch is not None and scores is not None:
        for i, section in enumerate(sections):
            section.standing = standing(index, scores[rows[i]], section.profile, taken_before, mask, watch,
                                        [pid for pid, _ in section.picks], section.feed, p.weekly)
    return sections


def _small_index(index: PaperIndex, chosen: list[str], profile: Profile) -> PaperIndex:
    """The chosen papers plus those the profile likes and dislikes (the reasons refer to them), on the
    index's own model: explaining picks here costs a few rows, not the corpus."""
    return index.subset([*chosen, *profile.liked, *profile.disliked])


def select(index: PaperIndex, scores: np.ndarray, profile: Profile, n: int, shown: set[str],
           recent: np.ndarray, fresh_only: bool = False) -> list[str]:
    """From one person's scores: recent unseen papers (``recent``: a mask over the index's rows) first,
    then (unless ``fresh_only``) older unseen ones, all scoring at least :data:`FLOOR` of the person's
    best match (:func:`_candidates`)."""
    allowed = _candidates(index, scores, profile, shown)
    if allowed is None:
        return []
    pool = max(3 * n, 20)  # MMR chooses n among the best few, so a digest isn't n copies of one idea
    fresh = []
    if recent.any():
        fresh = diversify(index, best_of_rows(index, scores, np.flatnonzero(allowed & recent), pool), n,
                          DIVERSITY)
    rest = []
    if len(fresh) < n and not fresh_only:
        allowed[_rows(index, [pid for pid, _ in fresh])] = False
        rest = diversify(index, best_of_rows(index, scores, np.flatnonzero(allowed), pool), n - len(fresh),
                         DIVERSITY)
    return [pid for pid, _ in fresh + rest]


def _candidates(index: PaperIndex, scores: np.ndarray, profile: Profile,
                shown: set[str]) -> np.ndarray | None:
    """The rows :func:`select` may pick from (a mask): alive, neither liked nor disliked by the profile
    nor ``shown``, scoring above :data:`FLOOR` of the person's best match; None when nothing scores."""
    allowed = index.alive.copy()
    allowed[_rows(index, [*profile.liked, *profile.disliked])] = False
    candidates = np.where(allowed, scores, -np.inf)
    best = float(candidates.max()) if len(candidates) else 0.0
    if not best > 0:
        return None
    allowed[_rows(index, shown)] = False
    allowed &= candidates > FLOOR * best
    return allowed


def standing(index: PaperIndex, scores: np.ndarray, profile: Profile, shown: set[str], recent: np.ndarray,
             paper_id: str, picked: list[str], feed: str | None, fresh_only: bool = False) -> Fate:
    """Where one paper stands in a feed :func:`select` chose ``picked`` for, from the same candidates:
    its rank among them (the recent ones first, then, unless ``fresh_only``, the older ones; each by
    score) and the cut (how many were picked), or why it is none of them."""
    row = index.row_of.get(paper_id)
    if row is None or not index.alive[row]:
        return Fate("not_indexed", feed)
    allowed = _candidates(index, scores, profile, shown)
    if allowed is None or not allowed[row]:
        return Fate("outside", feed)
    if fresh_only and not recent[row]:
        return Fate("not_new", feed)
    fresh = np.flatnonzero(allowed & recent)
    order = [fresh[np.argsort(-scores[fresh], kind="stable")]]
    if not fresh_only:
        older = np.flatnonzero(allowed & ~recent)
        order.append(older[np.argsort(-scores[older], kind="stable")])
    ranked = np.concatenate(order)
    rank = int(np.flatnonzero(ranked == row)[0]) + 1
    kind: FateKind = ("picked" if paper_id in picked else "too_similar" if rank <= len(picked)
                      else "below_cut")
    return Fate(kind, feed, rank, len(ranked), len(picked))


def _rows(index: PaperIndex, ids) -> list[int]:
    return [row for pid in ids if (row := index.row_of.get(pid)) is not None]


# Which papers are recent changes only with the day and with new papers: worked out once for a run of
# digests, not per person, and kept as a mask over the index's rows (a set of 100,000 ids would be 15 MB).
_lock = threading.Lock()
_recent_masks: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _recent_rows(ctx: Context, index: PaperIndex, since: str) -> np.ndarray:
    """A boolean mask over the index's rows: the papers published (or, undated, added) since ``since``."""
    key = (since, ctx.store.max_paper_seq(), len(index.ids))
    with _lock:
        cached = _recent_masks.get(index, {}).get(key)
    if cached is not None:
        return cached
    ids = ctx.store.recent_paper_ids(since)
    mask = np.fromiter((pid in ids for pid in index.ids), dtype=bool, count=len(index.ids))
    with _lock:
        masks = _recent_masks.setdefault(index, {})
        if len(masks) > 4:
            masks.clear()
        masks[key] = mask
    return mask


def build_digest(ctx: Context, user_id: str, remember: bool = True, today: date | None = None) -> Digest:
    """Choose the day's papers for a person (see :func:`choose_papers`); with ``remember`` they are
    recorded as shown at once (callers that deliver them elsewhere pass False)."""
    recommendations = choose_papers(ctx, user_id, today=today)
    if remember:
        with ctx.store.transaction():
            for rec in recommendations:
                remember_shown(ctx, user_id, rec)
    return Digest(user_id, recommendations)
