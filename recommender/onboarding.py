"""A first round of papers to rate, chosen to teach a new profile fast.

Rating the papers a ranking is already sure of teaches it little: the best match of a topic will be
liked, the worst ignored. So the round is spread over the person's topics (each gets a fair share of
the round), and within a topic's best candidates it favours the ones whose score sits in the middle
(uncertainty sampling), while keeping them unlike each other (each pick's highest similarity to the
ones already picked counts against it, as in :mod:`recommender.diversity`). Someone with no topics
gets one representative paper of each of ``k`` clusters of the corpus (k-means on the TF-IDF rows):
the round then spans what the corpus is about.
"""

from __future__ import annotations

from collections.abc import Collection

import numpy as np

from recommender.index import PaperIndex
from recommender.profile import Profile
from recommender.ranker import DEFAULT_WEIGHTS, Weights, paper_prior, score_matrix
from recommender.rows import take_rows

ROUND_SIZE = 8
#: How many of a topic's best candidates its picks are chosen among, per pick it is due.
POOL_PER_PICK = 6
MIN_POOL = 12
#: How much being unlike the papers already picked counts against being uncertain (0..1).
DIVERSITY = 0.4
#: At most this many rows are clustered when there are no topics (a sample of a big corpus).
CLUSTER_SAMPLE = 3000


def choose_round(index: PaperIndex, profile: Profile, k: int = ROUND_SIZE, exclude: Collection[str] = (),
                 weights: Weights = DEFAULT_WEIGHTS, seed: int = 0) -> list[str]:
    """Up to ``k`` paper ids to rate, none of ``exclude`` (nor anything the profile rated), in the order
    to show them: spread over ``profile.topics``, least sure first within each topic's share; over
    the corpus's clusters when there are no topics; topped up from the clusters when the topics can't
    fill the round. Deterministic for a given index, profile and ``seed``."""
    if k <= 0 or len(index) == 0:
        return []
    allowed = index.alive.copy()
    banned = [index.row_of[p] for p in {*exclude, *profile.liked, *profile.disliked} if p in index.row_of]
    if banned:
        allowed[banned] = False
    candidates = np.flatnonzero(allowed)
    if len(candidates) == 0:
        return []
    picked: list[int] = []
    if profile.topics:
        picked = _by_topics(index, profile, candidates, k, weights)
    if len(picked) < k:
        rest = np.setdiff1d(candidates, picked, assume_unique=True)
        picked += _by_clusters(index, rest, k - len(picked), seed)
    return [index.ids[row] for row in picked[:k]]


def fair_shares(n: int, parts: int) -> list[int]:
    """``n`` split into ``parts`` nearly equal whole shares, the first ones larger."""
    return [n // parts + (1 if i < n % parts else 0) for i in range(parts)] if parts > 0 else []


def _by_topics(index: PaperIndex, profile: Profile, candidates: np.ndarray, k: int,
               weights: Weights) -> list[int]:
    """Each topic's share of ``k``: among its best-matching candidates, the least certain, diverse."""
    topics = list(dict.fromkeys(profile.topics))[:k]  # more topics than slots: the first k, one each
    topic_rows = index.model.transform_short(topics)
    prior = paper_prior(index, weights)
    matrix = take_rows(index.matrix, candidates)
    similarity = np.asarray((matrix @ topic_rows.T).todense(), dtype=np.float64) * prior[candidates, None]
    scores = score_matrix(index, [profile], weights)[0][candidates].astype(np.float64)
    picked: list[int] = []  # positions in candidates
    for j, share in enumerate(fair_shares(k, len(topics))):
        column = similarity[:, j].copy()
        column[picked] = 0.0
        matching = np.flatnonzero(column > 0)
        if share == 0 or len(matching) == 0:
            continue
        size = max(MIN_POOL, POOL_PER_PICK * share)
        pool = matching[np.argsort(-column[matching], kind="stable")[:size]]
        picked += _uncertain_and_diverse(matrix, pool, scores[pool], share, picked)
    return [int(candidates[i]) for i in picked]


def uncertainty(scores: np.ndarray) -> np.ndarray:
    """How unsure a ranking is of each of a pool's scores, in [0, 1]: 1 at the pool's median score,
    falling to 0 at the one farthest from it (the pool's clearest best or worst)."""
    scores = np.asarray(scores, dtype=np.float64)
    if len(scores) == 0:
        return scores
    distance = np.abs(scores - np.median(scores))
    far = float(distance.max())
    return 1.0 - distance / far if far > 0 else np.ones(len(scores))


def _uncertain_and_diverse(matrix, pool: np.ndarray, scores: np.ndarray, n: int,
                           already: list[int]) -> list[int]:
    """``n`` of ``pool`` (positions in ``matrix``'s rows, unit length) by ``(1 - DIVERSITY) · uncertainty
    - DIVERSITY · (highest cosine to a paper picked before)``; ties go to the better-matching (earlier)."""
    unsure = uncertainty(scores)
    rows = take_rows(matrix, pool)
    closest = np.zeros(len(pool))
    if already:
        closest = np.asarray((rows @ take_rows(matrix, already).T).max(axis=1).todense()).ravel()
    chosen: list[int] = []
    available = np.ones(len(pool), dtype=bool)
    for _ in range(min(n, len(pool))):
        value = (1.0 - DIVERSITY) * unsure - DIVERSITY * closest
        value[~available] = -np.inf
        best = int(np.argmax(value))
        chosen.append(int(pool[best]))
        available[best] = False
        closest = np.maximum(closest, (rows @ rows[best].T).toarray().ravel())
    return chosen


def _by_clusters(index: PaperIndex, rows: np.ndarray, k: int, seed: int) -> list[int]:
    """One representative row (closest to its centre) of each of ``k`` k-means clusters of ``rows``,
    biggest cluster first."""
    if k <= 0 or len(rows) == 0:
        return []
    if len(rows) <= k:
        return [int(r) for r in rows]
    sample = rows
    if len(rows) > CLUSTER_SAMPLE:
        sample = np.sort(np.random.default_rng(seed).choice(rows, CLUSTER_SAMPLE, replace=False))
    matrix = take_rows(index.matrix, sample)
    from sklearn.cluster import MiniBatchKMeans  # only here: importing scikit-learn costs ~0.6 s of CPU

    clusters = MiniBatchKMeans(n_clusters=k, random_state=seed, n_init=3, batch_size=1024).fit(matrix)
    centres = clusters.cluster_centers_
    sims = np.asarray(matrix @ centres.T)
    labels = clusters.labels_
    order = np.argsort(-np.bincount(labels, minlength=k), kind="stable")
    chosen: list[int] = []
    for c in order:
        members = np.flatnonzero(labels == c)
        if len(members):
            chosen.append(int(sample[members[np.argmax(sims[members, c])]]))
    if len(chosen) < k:  # empty clusters (identical papers): fill with rows not chosen yet
        chosen += [int(r) for r in sample if int(r) not in set(chosen)][: k - len(chosen)]
    return chosen
