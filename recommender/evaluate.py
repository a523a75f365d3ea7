"""The offline evaluation protocol (``paperbot eval``), run through the bot's own recommender code.

Each user's liked, disliked and topics become a :class:`recommender.Profile`; profiles are scored in
batches with :func:`recommender.score_matrix`, exactly the call behind a digest, and cut with
:func:`recommender.best_of_matrix`, which picks what :func:`recommender.top_k` would, for a whole batch.
Everyone's given likes also form a :class:`recommender.Community`, so a user's
ranking draws on what users with the same liked papers liked too (collaborative filtering; only the
users file is used, never the held-out truth). :func:`metrics` then compares the ranked lists with
held-out likes; :func:`intra_list_similarity` says how alike the top of each list is.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Container, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from recommender import (
    DEFAULT_WEIGHTS,
    Community,
    PaperIndex,
    Profile,
    Weights,
    best_of_matrix,
    diversify,
    score_matrix,
)
from recommender import intra_list_similarity as _ils
from recommender.ranker import Blend, best_columns


class BadEvalInput(ValueError):
    """An evaluation input that can't be used (a file that can't be read, a bad line, a bad k); the message
    names it, for the command line to show as it is."""


#: With diversity, this many places at the head of each list are chosen by MMR.
DIVERSE_HEAD = 50


@dataclass
class EvalUser:
    """One line of a users or truth file."""

    user: str
    liked: list[str] = field(default_factory=list)
    disliked: list[str] = field(default_factory=list)
    topics: list[str] = field(default_factory=list)
    # Optional, not read from files: days since each like / dislike (see recommender.Profile).
    liked_age_days: list[float] | None = None
    disliked_age_days: list[float] | None = None
    # Optional, not read from files: those of ``liked`` that count as saves do (see recommender.Profile).
    saved: frozenset[str] = frozenset()

    @property
    def profile(self) -> Profile:
        return Profile(topics=list(self.topics), liked=list(self.liked), disliked=list(self.disliked),
                       liked_age_days=self.liked_age_days, disliked_age_days=self.disliked_age_days,
                       saved=self.saved)


def _id_list(value, key: str) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise ValueError(f'"{key}" must be a list')
    out = []
    for item in value:
        if isinstance(item, bool) or not isinstance(item, (str, int)):
            raise ValueError(f'"{key}" must hold paper ids (strings)')
        out.append(str(item))
    return out


def _parse_user(line: str) -> EvalUser:
    try:
        record = json.loads(line)
    except json.JSONDecodeError as e:
        raise ValueError(f"not JSON ({e.msg})") from None
    if not isinstance(record, dict):
        raise ValueError("expected a JSON object")
    user = record.get("user")
    if isinstance(user, int) and not isinstance(user, bool):
        user = str(user)
    if not isinstance(user, str) or not user.strip():
        raise ValueError('missing "user"')
    if "liked" not in record:
        raise ValueError('missing "liked"')
    topics = record.get("topics") or []
    if not isinstance(topics, list) or not all(isinstance(t, str) for t in topics):
        raise ValueError('"topics" must be a list of strings')
    return EvalUser(user=user, liked=_id_list(record["liked"], "liked"),
                    disliked=_id_list(record.get("disliked"), "disliked"),
                    topics=[t for t in topics if t.strip()])


def _read_lines(path) -> list[str]:
    try:
        return Path(path).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as e:
        raise BadEvalInput(f"cannot read {path}: {e}") from None


def load_users(path) -> list[EvalUser]:
    """Users (or held-out truth) from a JSON-lines file of ``{"user", "liked", "disliked"?, "topics"?}``.

    Blank lines are skipped; any other bad line raises :class:`BadEvalInput` naming the file and line.
    """
    users = []
    for number, line in enumerate(_read_lines(path), start=1):
        if not line.strip():
            continue
        try:
            users.append(_parse_user(line))
        except ValueError as e:
            raise BadEvalInput(f"{path}, line {number}: {e}") from None
    return users


def unknown_ids(ids: Iterable[str], known: Container[str]) -> list[str]:
    """The distinct ids among ``ids`` that ``known`` lacks, in first-seen order: a users, truth or
    candidates file naming papers the papers file doesn't hold (they are ignored, and should be said)."""
    return [i for i in dict.fromkeys(ids) if i not in known]


def user_ids(users: Iterable[EvalUser]) -> Iterator[str]:
    """Every paper id the users' lines name (liked, then disliked)."""
    for user in users:
        yield from user.liked
        yield from user.disliked


def load_candidates(path) -> list[str]:
    """Paper ids, one per line; blank lines ignored."""
    return [line.strip() for line in _read_lines(path) if line.strip()]


def evaluate(index: PaperIndex, users: Sequence[EvalUser], k: int = 100,
             candidates: Iterable[str] | None = None, batch: int = 256,
             progress: Callable[[int, int], object] | None = None, *,
             weights: Weights = DEFAULT_WEIGHTS, collaborative: bool = True,
             diversity: float = 0.0, diverse_head: int = DIVERSE_HEAD,
             blend: Blend | None = None) -> Iterator[tuple[str, list[str]]]:
    """Rank ``k`` papers for every user, in batches, as the bot does; yields ``(user, ranked ids)``.

    Only ``candidates`` are ranked when given (ids the index doesn't know are ignored). A user's liked
    and disliked papers are never in their list. The list is ``k`` long whenever enough papers are
    allowed: there is no minimum score. ``progress(done, total)`` is called after each batch. Users
    with the same liked, disliked, topics and ages are ranked once and get equal lists.

    With ``collaborative`` (the default), the users' liked papers form a
    :class:`recommender.Community` whose co-likes add to everyone's scores. With ``diversity`` > 0,
    the first ``diverse_head`` places are chosen by MMR (:func:`recommender.diversify`) among the
    best ``3 × diverse_head``, as ``rank(..., diversity=…)`` chooses a digest; the rest follow by score.
    A ``blend`` (the embedding option, :class:`recommender.embeddings.EmbeddingBlend`) re-scores the
    content part as it does in the bot.
    """
    if k <= 0:
        raise BadEvalInput("k must be positive")
    users = list(users)
    batch = max(1, int(batch))
    community = Community([u.liked for u in users]) if collaborative else None
    if community is not None and community.is_empty:
        # No two papers share a liker (one like each, as in P1): every collaborative score is 0, and
        # adding a batch of zeros cost P1 a tenth of its ranking time.
        community = None
    allowed: np.ndarray | None = None
    if candidates is not None:
        allowed = np.zeros(len(index.ids), dtype=bool)
        rows = [index.row_of[c] for c in candidates if c in index.row_of]
        allowed[rows] = True
    ids = np.array(index.ids, dtype=object)
    columns = None if allowed is None or diversity > 0 else np.flatnonzero(allowed & index.alive)
    # Users with the same profile get the same list: each distinct profile is ranked once (P1's 5,551
    # users hold 4,327 distinct ones), and the lists are handed out in the users' order.
    slot_of: dict[tuple, int] = {}
    slots = [slot_of.setdefault(_profile_key(u), len(slot_of)) for u in users]
    distinct: list[EvalUser] = []
    for slot, user in zip(slots, users, strict=True):
        if slot == len(distinct):  # the first user with this profile
            distinct.append(user)
    uses = np.bincount(slots, minlength=len(distinct)).tolist()
    lists: dict[int, list[str]] = {}
    handed = 0
    for start in range(0, len(distinct), batch):
        chunk = distinct[start:start + batch]
        for offset, ranked in enumerate(_rank_batch(index, chunk, k, allowed, columns, ids, weights,
                                                    community, diversity, diverse_head, blend)):
            lists[start + offset] = ranked
        ready = start + len(chunk)
        while handed < len(users) and slots[handed] < ready:
            slot = slots[handed]
            uses[slot] -= 1
            yield users[handed].user, lists[slot] if uses[slot] == 0 else list(lists[slot])
            if uses[slot] == 0:
                del lists[slot]
            handed += 1
        if progress is not None:
            progress(handed, len(users))


def _profile_key(user: EvalUser) -> tuple:
    """What a user's ranking depends on: two users with the same key get the same list."""
    ages = (None if user.liked_age_days is None else tuple(user.liked_age_days),
            None if user.disliked_age_days is None else tuple(user.disliked_age_days))
    return tuple(user.liked), tuple(user.disliked), tuple(user.topics), ages, tuple(sorted(user.saved))


def _rank_batch(index: PaperIndex, chunk: list[EvalUser], k: int, allowed: np.ndarray | None,
                columns: np.ndarray | None, ids: np.ndarray, weights: Weights, community: Community | None,
                diversity: float, diverse_head: int, blend: Blend | None) -> Iterator[list[str]]:
    """The ranked ids of each user of ``chunk``, in order. With ``columns`` (the rankable candidates'
    rows, ascending), the top-k looks at those scores alone: a fifth of each row for cold start, in
    the same order, so ties fall as in the whole row."""
    scores = score_matrix(index, [u.profile for u in chunk], weights, community, blend)
    place = None
    if columns is not None:
        scores = scores[:, columns]
        ids = ids[columns]
        place = np.full(len(index.ids), -1, dtype=np.int64)
        place[columns] = np.arange(len(columns))
    else:
        if allowed is not None:
            # Same effect as top_k(candidates=...), without rebuilding the mask for every user.
            scores[:, ~allowed] = -np.inf
        scores[:, ~index.alive] = -np.inf
    for i, user in enumerate(chunk):
        own = np.array([index.row_of[pid] for pid in (*user.liked, *user.disliked) if pid in index.row_of],
                       dtype=np.int64)
        if place is not None:
            own = place[own]
            own = own[own >= 0]
        scores[i, own] = -np.inf
    if diversity > 0:
        for best in best_of_matrix(index, scores, max(k, 3 * diverse_head)):
            head = diversify(index, best[:3 * diverse_head], diverse_head, diversity)
            chosen = {pid for pid, _ in head}
            yield [pid for pid, _ in (head + [b for b in best if b[0] not in chosen])[:k]]
    else:
        for picked in best_columns(scores, k):
            yield ids[picked].tolist()


def intra_list_similarity(index: PaperIndex, ranked: Mapping[str, Sequence[str]], n: int = 10) -> float:
    """ILS@n: the mean, over users, of the mean pairwise cosine (TF-IDF rows) of their first ``n``
    papers. Lower is more diverse."""
    values = [_ils(index, list(ids)[:n]) for ids in ranked.values() if len(ids) >= 2]
    return float(np.mean(values)) if values else math.nan


def metrics(ranked: Mapping[str, Sequence[str]], truth: Iterable[EvalUser],
            ks: Sequence[int] | None = None) -> dict:
    """recall@k and nDCG@k (binary relevance) for each k, averaged over users with held-out papers.

    recall@k = |top-k ∩ held-out| / |held-out|. A truth user missing from ``ranked`` counts as a miss.
    ``ks`` defaults to the length of the longest ranked list. Returns ``{"users": n, "recall@k": …,
    "ndcg@k": …}``.
    """
    held: dict[str, set[str]] = {}
    for user in truth:
        held.setdefault(user.user, set()).update(user.liked)
    held = {u: s for u, s in held.items() if s}
    if ks is None:
        ks = (max((len(r) for r in ranked.values()), default=0) or 1,)
    ks = sorted({int(k) for k in ks})
    discounts = 1.0 / np.log2(np.arange(2, max(ks) + 2))
    recall = {k: 0.0 for k in ks}
    ndcg = {k: 0.0 for k in ks}
    for name, heldout in held.items():
        hits = np.array([pid in heldout for pid in list(ranked.get(name, ()))[:max(ks)]], dtype=np.bool_)
        for k in ks:
            top = hits[:k]
            recall[k] += top.sum() / len(heldout)
            ideal = discounts[:min(len(heldout), k)].sum()
            ndcg[k] += float(discounts[:len(top)][top].sum() / ideal)
    n = len(held)
    out: dict = {"users": n}
    for k in ks:
        out[f"recall@{k}"] = recall[k] / n if n else math.nan
        out[f"ndcg@{k}"] = ndcg[k] / n if n else math.nan
    return out
