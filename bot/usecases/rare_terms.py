"""Rare exact words: what the TF-IDF vocabulary leaves out and the full-text index still finds.

A word only one or a few papers hold (a method's name: "MeCo", "DRAGO") is no column of the TF-IDF model,
which keeps words seen in two papers or more, so a topic naming it matches nothing and a search for it
finds nothing. The TF-IDF ranking keeps its vocabulary; here the papers' full-text index
(:meth:`storage.Store.search_text`) makes such words count: a followed topic naming one brings the
papers that hold it (first, in ``/papers recommend``; among the new papers, in a digest), and a search
for one finds its papers first.

A word counts when the model would read it (not a stop word, not a number) but doesn't know it, and
at most :data:`RARE_MAX` papers hold it: more, and it is no name but an ordinary word the model dropped,
left to the ranking. Lookups are kept per word and per state of the papers (their newest change), so a
run of digests looks each word up once, however many people follow it.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence

import numpy as np

from bot.presentation.reasons import reason_text
from bot.state.context import Context
from bot.usecases.picking import Recommendation
from recommender import PaperIndex, Pick
from storage.fulltext import words

#: A word in more papers than this is not rare: the ranking's business, not an exact name's.
RARE_MAX = 25

_lock = threading.Lock()


def rare_words(index: PaperIndex, text: str) -> tuple[str, ...]:
    """The words of ``text`` the model would read but doesn't know (lowercased, in order, once each);
    whether papers hold them is :func:`papers_holding`'s to say."""
    model = index.model
    return tuple(dict.fromkeys(w for w in words(text) if model.stems(w) and not model.knows(w)))


def topic_term(index: PaperIndex, topic: str) -> tuple[str, ...]:
    """What a paper must hold for a followed ``topic`` to name it: every word of the topic the model
    reads, when the model doesn't know one of them (else nothing: the ranking matches the topic). All
    of them, so that "Matches your interest “MeCo pretraining”" is never said of a paper about MeCo
    alone."""
    model = index.model
    read = tuple(dict.fromkeys(w for w in words(topic) if model.stems(w)))
    return read if any(not model.knows(w) for w in read) else ()


def papers_holding(ctx: Context, term: Sequence[str]) -> tuple[str, ...]:
    """The papers holding every word of ``term`` (best first), or none when more than :data:`RARE_MAX`
    do. Looked up once per term and state of the papers."""
    key = tuple(term)
    if not key:
        return ()
    cache: dict[tuple[str, ...], tuple[str, ...]] = ctx.engine.memo(
        "rare terms", ctx.store.max_paper_seq(), dict)
    with _lock:
        found = cache.get(key)
    if found is None:
        found = ()
        if ctx.store.count_text(list(key), RARE_MAX + 1) <= RARE_MAX:
            found = tuple(pid for pid, _ in ctx.store.search_text(list(key), RARE_MAX))
        with _lock:
            cache[key] = found
    return found


def mentions(ctx: Context, index: PaperIndex, topics: Iterable[str]) -> dict[str, list[str]]:
    """Paper id -> the followed ``topics`` naming it (:func:`topic_term`), papers in the index only,
    best first."""
    return mentions_of_many(ctx, index, [list(topics)])[0]


def mentions_of_many(ctx: Context, index: PaperIndex,
                     topic_lists: Sequence[Sequence[str]]) -> list[dict[str, list[str]]]:
    """:func:`mentions` for many profiles' topics at once: each distinct term is looked up once,
    whoever follows it."""
    terms = {topic: topic_term(index, topic) for topics in topic_lists for topic in topics}
    found = {term: papers_holding(ctx, term) for term in dict.fromkeys(terms.values()) if term}
    out: list[dict[str, list[str]]] = []
    for topics in topic_lists:
        named: dict[str, list[str]] = {}
        for topic in topics:
            for pid in found.get(terms[topic], ()):
                if pid in index.row_of and topic not in named.setdefault(pid, []):
                    named[pid].append(topic)
        out.append(named)
    return out


def first(named: dict[str, list[str]], picks: list[Pick], k: int, taken: Iterable[str]) -> list[Pick]:
    """The ``k`` best of ``picks`` after the papers ``named`` (those not ``taken``), each of those
    explained by the topics that name it."""
    taken = set(taken)
    top = max((p.score for p in picks), default=0.0)
    ranked = {p.paper_id: p for p in picks}
    front = []
    for pid, topics in named.items():
        if pid in taken:
            continue
        pick = ranked.get(pid)
        front.append(Pick(pid, max(top, pick.score if pick else 0.0), terms=list(pick.terms) if pick else [],
                          topics=list(dict.fromkeys([*topics, *(pick.topics if pick else [])])),
                          term_stems=list(pick.term_stems) if pick else [],
                          topic_stems=dict(pick.topic_stems) if pick else {}))
    front = front[:k]
    chosen = {p.paper_id for p in front}
    return front + [p for p in picks if p.paper_id not in chosen][: k - len(front)]


def boost(ctx: Context, index: PaperIndex, scores: np.ndarray | None,
          topic_lists: Sequence[Sequence[str]]) -> list[dict[str, list[str]]]:
    """Raise, in each row of ``scores`` (one per profile, over the index's papers), the papers the
    profile's rare words name above the row's best, in their order; the mentions of each row (see
    :func:`mentions_of_many`), for the reasons."""
    named = mentions_of_many(ctx, index, topic_lists)
    if scores is None:
        return named
    for row, found in enumerate(named):
        if not found:
            continue
        cols = [index.row_of[pid] for pid in found]
        best = float(np.max(scores[row])) if scores.shape[1] else 0.0
        # Above the best, the first named highest; a small step, so the rest of the row keeps its place.
        step = max(abs(best), 1.0) * 1e-3
        lifted = best + step * np.arange(len(cols), 0, -1, dtype=scores.dtype)
        scores[row, cols] = np.maximum(scores[row, cols], lifted)
    return named


def as_new(index: PaperIndex, recent: np.ndarray, named: Sequence[dict[str, list[str]]]) -> np.ndarray:
    """A digest's mask of new papers (over the index's rows), with the papers ``named`` by someone's
    rare followed words among them: a name followed today brings its papers whatever their age, once
    (they are shown then, and never again)."""
    rows = [index.row_of[pid] for found in named for pid in found]
    if not rows:
        return recent
    mask = recent.copy()  # the mask is shared by everyone of that day
    mask[rows] = True
    return mask


def credit(recs: Iterable[Recommendation], named: dict[str, list[str]]) -> None:
    """Give each of ``recs`` whose paper is ``named`` its true reason: the followed topics whose rare
    words it holds (what put it there)."""
    for rec in recs:
        topics = named.get(rec.paper.id)
        if topics:
            rec.reason = reason_text(Pick(rec.paper.id, rec.score, topics=list(topics)), {})
