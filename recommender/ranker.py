"""Ranking: a profile against every indexed paper, best first, with a reason for each pick.

One code path serves the bot (one person) and ``paperbot eval`` (thousands): :func:`score_matrix`
scores a batch of profiles; the single-person calls are a batch of one.

A profile becomes one query row over the TF-IDF terms (:func:`profile_vectors`)::

    topics' · unit(topics) + (1 - m) · (liked · unit(liked centroid) - disliked · unit(disliked centroid))
                           + m · liked · (the person's own model, see recommender/model.py)

where every liked or disliked paper counts ``0.5 ** (age / half_life_days)`` (``Profile.*_age_days``),
``topics' = topics · sqrt(topics_fade / (topics_fade + likes))`` (topics count less once many
likes exist; likes counted with their fading weights), and ``m`` is the model's share: 0 until the
person has enough feedback (10 likes, or 5 likes and a dislike), then growing with the amount of
feedback up to ``Weights.model``. Each paper's score is its dot product with the query times a
positive per-paper factor (:func:`paper_prior`), plus, when a :class:`~recommender.Community` is
given, ``collaborative`` times what people who liked the same papers also liked.

Each part of the query (topics, the liked and disliked centroids, the model) leans on its rarer
words: its weights times ``idf ** query_idf``, at the same length. A profile of one to three likes
and no topics also gets its best papers' centroid folded back in (pseudo-relevance feedback,
:func:`expanded_queries`). A phrase written in a topic counts TOPIC_PHRASE_WEIGHT times its place in
a paper's row, so the phrase outranks one of its words used in another sense.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, replace

import numpy as np
from scipy import sparse

from recommender.collaborative import Community
from recommender.diversity import diversify
from recommender.index import PaperIndex
from recommender.model import Feedback, person_vectors
from recommender.profile import Pick, Profile
from recommender.rows import dense_row, offsets_dtype, scale_rows, take_rows, unit_rows


@dataclass(frozen=True)
class Weights:
    """How much each part of a profile counts. Dislikes count against.

    Each paper's similarity to the profile is then scaled by a positive factor that never flips its
    sign (see :func:`paper_prior`): ``length`` favours papers with more distinct terms, against cosine's
    bias towards very short texts (pivoted length normalisation); ``generic`` damps papers close to
    the corpus's average, which otherwise surface for everyone (hubness). 0 and 0 is plain cosine.

    ``topics_fade``: topics count ``sqrt(topics_fade / (topics_fade + likes))`` of ``topics`` (0: always
    fully). ``half_life_days``: feedback that old counts half (0: no fading). ``model``: the per-person
    model's largest share of the feedback part, reached at ``model_full`` likes + dislikes (0: never).
    ``collaborative``: weight of other people's likes, used only when a Community is passed.

    ``query_idf``: the query's term weights are multiplied by ``idf ** query_idf`` (keeping its
    length), so a profile leans on its rarer, more specific words (0: off). ``expansion``: for a
    profile of at most EXPANSION_MAX_LIKES likes and no topics, the unit centroid of its
    ``expansion_depth`` best papers is folded back into its query (pseudo-relevance feedback),
    weighing ``expansion / likes²`` of the query's length (0: off; see :func:`expanded_queries`).
    """

    topics: float = 1.0
    liked: float = 1.0
    disliked: float = 0.25
    length: float = 0.15
    generic: float = 4.0
    topics_fade: float = 10.0
    half_life_days: float = 90.0
    model: float = 0.5
    model_full: float = 20.0
    collaborative: float = 1.0
    query_idf: float = 0.5
    expansion: float = 0.3
    expansion_depth: int = 10


DEFAULT_WEIGHTS = Weights()
MAX_TOPICS_NAMED = 3  # in one pick's reason
#: The per-person model starts with this many likes, or with MODEL_MIN_LIKES_WITH_DISLIKES likes and
#: at least one dislike.
MODEL_MIN_LIKES = 10
MODEL_MIN_LIKES_WITH_DISLIKES = 5
#: Re-scores the content part (profiles × rows) before other people's likes are added: the embedding
#: option (recommender/embeddings.py) is one.
Blend = Callable[[PaperIndex, Sequence[Profile], np.ndarray], np.ndarray]
#: Pseudo-relevance feedback is for small profiles only: past this many likes the likes themselves
#: say enough (and a second scoring pass would cost every large profile its time).
EXPANSION_MAX_LIKES = 3
#: A word pair written in a topic counts this many times its weight in a paper's row (see _text_rows).
TOPIC_PHRASE_WEIGHT = 3.0
#: A word in more than this share of the papers (and in more than GENERIC_MIN_PAPERS) says nothing
#: about why one was picked ("learning", "network" in machine learning; "model" is usually past the
#: fit's max_df already): never named as an extra reason, nor a topic shared only through it.
GENERIC_SHARE = 0.25
GENERIC_MIN_PAPERS = 10
#: Candidate terms a pick keeps, at least, beyond those it names (see Pick.term_stems).
TERM_CANDIDATES = 12


@dataclass
class _Parts:
    """One profile's query, and the pieces it is made of (for explaining picks)."""

    liked: list[str]
    liked_weights: list[float]
    disliked: list[str]
    disliked_weights: list[float]
    topics: float     # the topic vector's coefficient in the query
    feedback: float   # the liked centroid's coefficient (the model's share is taken out of it)
    model: float      # the model's share m


def model_share(n_liked: int, n_disliked: int, weights: Weights = DEFAULT_WEIGHTS) -> float:
    """The per-person model's share of the feedback part, for this much feedback (0 when too little)."""
    if weights.model <= 0:
        return 0.0
    enough = n_liked >= MODEL_MIN_LIKES or (n_liked >= MODEL_MIN_LIKES_WITH_DISLIKES and n_disliked >= 1)
    if not enough:
        return 0.0
    full = max(weights.model_full, 1.0)
    return float(weights.model * min(1.0, (n_liked + n_disliked) / full))


def _parts(index: PaperIndex, profile: Profile, weights: Weights) -> _Parts:
    """Known feedback with its fading weights, and the coefficients of the query's parts."""
    liked_w = dict(zip(profile.liked, profile.liked_weights(weights.half_life_days), strict=True))
    disliked_w = dict(zip(profile.disliked, profile.disliked_weights(weights.half_life_days), strict=True))
    # A paper both liked and disliked (should not happen) counts as liked.
    liked = [pid for pid in dict.fromkeys(profile.liked) if pid in index.row_of]
    disliked = [pid for pid in dict.fromkeys(profile.disliked) if pid in index.row_of and pid not in liked_w]
    lw = [liked_w[p] for p in liked]
    dw = [disliked_w[p] for p in disliked]
    topics = weights.topics
    if weights.topics_fade > 0 and lw:
        topics *= float(np.sqrt(weights.topics_fade / (weights.topics_fade + sum(lw))))
    return _Parts(liked, lw, disliked, dw, topics, weights.liked,
                  model_share(len(liked), len(disliked), weights))


def profile_vectors(index: PaperIndex, profiles: Sequence[Profile],
                    weights: Weights = DEFAULT_WEIGHTS) -> sparse.csr_matrix:
    """One query row per profile (see the module's docstring)."""
    return _queries(index, [_parts(index, p, weights) for p in profiles], profiles, weights)


def _queries(index: PaperIndex, parts: list[_Parts], profiles: Sequence[Profile],
             weights: Weights) -> sparse.csr_matrix:
    n_terms = index.matrix.shape[1]
    # Each part leans on its rarer words; its length, so its weight in the sum, stays as it was.
    def sharpen(rows: sparse.csr_matrix) -> sparse.csr_matrix:
        return _sharpened(index, rows, weights.query_idf) if weights.query_idf else rows

    topic_rows = _topic_rows(index, [" ; ".join(p.topics) for p in profiles], weights.query_idf)
    keep = np.array([1.0 - p.model for p in parts], dtype=np.float32)
    feedback_c = np.array([p.feedback for p in parts], dtype=np.float32)
    query = scale_rows(topic_rows, [p.topics for p in parts])
    liked_rows = disliked_rows = None
    if any(p.liked for p in parts):
        liked_rows = sharpen(_centroids(index, [p.liked for p in parts], [p.liked_weights for p in parts]))
        query = query + scale_rows(liked_rows, keep * feedback_c)
    if any(p.disliked for p in parts):
        disliked_rows = sharpen(_centroids(index, [p.disliked for p in parts],
                                           [p.disliked_weights for p in parts]))
        query = query - scale_rows(disliked_rows, keep * weights.disliked)
    wanted = [i for i, p in enumerate(parts) if p.model > 0]
    if wanted and liked_rows is not None:
        people = [Feedback([index.row_of[x] for x in parts[i].liked], parts[i].liked_weights,
                           [index.row_of[x] for x in parts[i].disliked], parts[i].disliked_weights)
                  for i in wanted]
        models, ok = person_vectors(index, people)
        models = sharpen(models)
        share = np.where(ok, [parts[i].model * parts[i].feedback for i in wanted], 0.0)
        # Where no model could be made, the similarity part keeps its full weight.
        restore = np.where(ok, 0.0, [parts[i].model for i in wanted])
        place = sparse.csr_matrix((share.astype(np.float32), (wanted, np.arange(len(wanted)))),
                                  shape=(len(parts), len(wanted)))
        query = query + place @ models
        if restore.any():
            back = np.zeros(len(parts), dtype=np.float32)
            back[wanted] = restore
            query = query + scale_rows(liked_rows, back * feedback_c)
            if disliked_rows is not None:
                query = query - scale_rows(disliked_rows, back * weights.disliked)
    return sparse.csr_matrix(query, dtype=np.float32, shape=(len(parts), n_terms))


def _memoised(table: weakref.WeakKeyDictionary, owner, key, compute: Callable[[], object]):
    """``compute()``, remembered for ``owner`` (an index or a model) while its state ``key`` holds."""
    cached = table.get(owner)
    if cached is None or cached[0] != key:
        cached = (key, compute())
        table[owner] = cached
    return cached[1]


_idf_powers: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _idf_power(index: PaperIndex, power: float) -> np.ndarray:
    """``idf ** power`` per column, cached per index state (the vocabulary only ever grows)."""
    width = index.matrix.shape[1]

    def compute() -> np.ndarray:
        idf = np.asarray(index.model.vectorizer.idf_, dtype=np.float32)
        values = np.ones(width, dtype=np.float32)
        n = min(width, len(idf))
        values[:n] = np.maximum(idf[:n], 1.0) ** power
        return values
    # Kept per model, not per index: explaining picks builds a small index of a few rows per person
    # on the same model.
    return _memoised(_idf_powers, index.model, (width, power), compute)


def _sharpened(index: PaperIndex, query: sparse.csr_matrix, power: float) -> sparse.csr_matrix:
    """Each query row's weights times ``idf ** power``, rescaled to the row's old length.

    A one-paper profile's query is that paper's row, where a common word in the paper counts as
    much as a rare one would in a paper of common words; leaning on the rarer words finds papers on
    the same specific subject (on citeulike-a and on the NeurIPS + ICML abstracts, every split
    gains; see docs/measurements/quality.md).
    """
    if query.nnz == 0:
        return query
    out = sparse.csr_matrix(query, dtype=np.float32, copy=True)
    before = np.sqrt(np.bincount(np.repeat(np.arange(out.shape[0]), np.diff(out.indptr)),
                                 weights=np.square(out.data, dtype=np.float64), minlength=out.shape[0]))
    out.data *= _idf_power(index, power)[out.indices]
    return scale_rows(unit_rows(out), before)


def _text_rows(index: PaperIndex, texts: list[str]) -> sparse.csr_matrix:
    """Unit rows for free texts such as topics (an empty text gives an empty row), the phrases
    written in them weighing TOPIC_PHRASE_WEIGHT times their place in a paper's row.

    What a person writes is the phrase they mean: "diffusion models" is about diffusion models,
    and a paper on Langevin diffusion that shares only the word "diffusion" should rank below one
    using the phrase. In a paper's row a word pair is down-weighted (a pair's rarity would otherwise
    let one shared phrase outweigh several shared words); in a topic the pair is the point.

    Each text's row is worked out once per model and kept (:data:`TEXT_ROWS` of them): a run of
    digests asks for the same few topics for every person, twice (ranking, then explaining).
    """
    return _kept_rows(index, texts, None, lambda missing: _text_rows_now(index, missing))


def _topic_rows(index: PaperIndex, texts: list[str], power: float) -> sparse.csr_matrix:
    """:func:`_text_rows` sharpened (:func:`_sharpened`) with ``power``, kept per text in the same way."""
    if not power:
        return _text_rows(index, texts)
    def compute(missing: list[str]) -> sparse.csr_matrix:
        return _sharpened(index, _text_rows(index, missing), power)
    return _kept_rows(index, texts, power, compute)


def _kept_rows(index: PaperIndex, texts: list[str], kind: float | None,
               compute: Callable[[list[str]], sparse.csr_matrix]) -> sparse.csr_matrix:
    """One row per text, each worked out (row by row: ``compute`` of some texts) once per model and
    ``kind``, then kept (:data:`TEXT_ROWS` of them)."""
    width = index.matrix.shape[1]
    if not texts:
        return sparse.csr_matrix((0, width), dtype=np.float32)
    model = index.model
    with _text_lock:
        cached = _text_cache.get(model)
        if cached is None or cached[0] != width:
            cached = (width, {})
            _text_cache[model] = cached
        known: dict[tuple[float | None, str], sparse.csr_matrix] = cached[1]
        found = {t: row for t in texts if (row := known.get((kind, t))) is not None}
    missing = list(dict.fromkeys(t for t in texts if t not in found))
    if missing:
        rows = compute(missing)
        new = {t: take_rows(rows, [i]) for i, t in enumerate(missing)}
        with _text_lock:
            if len(known) + len(new) > TEXT_ROWS:
                known.clear()
            known.update(((kind, t), row) for t, row in new.items())
        found.update(new)
    if len(texts) == 1:
        return found[texts[0]]
    parts = [found[t] for t in texts]
    indices = np.concatenate([p.indices for p in parts])
    indptr = np.zeros(len(parts) + 1, dtype=offsets_dtype(indices.dtype, len(indices)))
    np.cumsum([p.nnz for p in parts], out=indptr[1:])
    return sparse.csr_matrix((np.concatenate([p.data for p in parts]).astype(np.float32, copy=False),
                              indices, indptr), shape=(len(parts), width))


#: Free texts whose rows are kept per model (see _text_rows): a person's topics together are mostly
#: theirs alone, wanted again only when their picks are explained, soon after.
TEXT_ROWS = 1024
_text_cache: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_text_lock = threading.Lock()


def _text_rows_now(index: PaperIndex, texts: list[str]) -> sparse.csr_matrix:
    rows = index.model.transform_short(texts)
    if rows.nnz == 0 or TOPIC_PHRASE_WEIGHT == 1.0:
        return rows
    pairs = pair_columns(index.model)[rows.indices]
    if not pairs.any():
        return rows
    out = sparse.csr_matrix(rows, dtype=np.float32, copy=True)
    out.data[pairs] *= TOPIC_PHRASE_WEIGHT
    return unit_rows(out)


def _centroids(index: PaperIndex, ids: list[list[str]], weights: list[list[float]]) -> sparse.csr_matrix:
    """Unit-length weighted sums of known papers' rows, one per list (empty list: empty row)."""
    if not any(ids):
        return sparse.csr_matrix((len(ids), index.matrix.shape[1]), dtype=np.float32)
    select = sparse.csr_matrix(
        (np.array([w for ws in weights for w in ws], dtype=np.float32),
         np.array([index.row_of[p] for x in ids for p in x], dtype=np.int64),
         np.cumsum([0] + [len(x) for x in ids])),
        shape=(len(ids), index.matrix.shape[0]),
    )
    return unit_rows(select @ index.matrix)


def score_matrix(index: PaperIndex, profiles: Sequence[Profile], weights: Weights = DEFAULT_WEIGHTS,
                 community: Community | None = None, blend: Blend | None = None) -> np.ndarray:
    """Scores of every indexed row for each profile: shape (profiles, rows).

    With a ``community``, what people who liked the same papers also liked adds to the score; a
    ``blend`` re-scores the content part first.
    """
    parts = [_parts(index, p, weights) for p in profiles]
    queries = expanded_queries(index, parts, _queries(index, parts, profiles, weights), weights,
                               [bool(p.topics) for p in profiles])
    scores = _scores(index, queries, weights)
    if blend is not None:
        scores = blend(index, profiles, scores)
    if community is not None and weights.collaborative:
        community.add_scores(scores, index, [p.liked for p in parts], [p.liked_weights for p in parts],
                             weights.collaborative)
    return scores


def _best_positive(scores: np.ndarray, depth: int) -> tuple[np.ndarray, np.ndarray]:
    """Each row's ``depth`` highest positive scores: (columns, which are real), both (rows, depth).
    A row with fewer positive scores fills its other places with columns marked not real.

    Cheaper than partitioning every whole row (P1's 5,551 seeds: 0.43 → 0.36 s): every
    SAMPLE_STEP-th score gives a bar that at least ``depth`` scores of the row clear (the sampled
    ones) and seldom many more, and only the positive scores clearing it are partitioned. A tie at
    the last place is broken arbitrarily, as a partition breaks it.
    """
    n_rows, n = scores.shape
    depth = min(depth, n)
    sample = scores[:, ::SAMPLE_STEP]
    if sample.shape[1] >= depth:
        bar = np.partition(sample, sample.shape[1] - depth, axis=1)[:, -depth][:, None]
        clear = (scores >= bar) & (scores > 0)
    else:
        clear = scores > 0
    rows, cols = np.nonzero(clear)  # NaN never clears a bar
    counts = np.bincount(rows, minlength=n_rows)
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    place = np.arange(len(rows)) - starts[rows]
    values = np.full((n_rows, max(int(counts.max(initial=0)), depth)), -np.inf, dtype=scores.dtype)
    where = np.zeros(values.shape, dtype=np.int64)
    values[rows, place] = scores[rows, cols]
    where[rows, place] = cols
    best = np.argpartition(values, values.shape[1] - depth, axis=1)[:, -depth:]
    return np.take_along_axis(where, best, axis=1), np.take_along_axis(values, best, axis=1) > 0


def expanded_queries(index: PaperIndex, parts: list[_Parts], queries: sparse.csr_matrix,
                     weights: Weights, has_topics: Sequence[bool]) -> sparse.csr_matrix:
    """Queries with pseudo-relevance feedback folded in, for profiles of 1..EXPANSION_MAX_LIKES likes
    and no topics.

    One liked paper is a thin description of a person's interest: its ``expansion_depth`` nearest
    papers (never the person's own liked or disliked ones, never a replaced row) share the subject
    and add the words the seed paper happened not to use. Their unit centroid is added with weight
    ``expansion / likes²`` times the query's length, so the seed still dominates and the expansion
    fades fast as likes accumulate (with 1/likes, profiles of 2-3 likes lost on the abstracts).
    Neighbours come from the whole index, not only the candidates being ranked, so brand-new papers
    gain from older ones. Costs one extra scoring pass for those profiles.

    A profile with topics is left as it is: what the person wrote already says what the seed paper
    leaves out, and folding in the seed's neighbours drowned the topics (one like and three
    written words: every pick became "Like …").
    """
    if weights.expansion <= 0 or weights.expansion_depth <= 0:
        return queries
    small = [i for i, p in enumerate(parts)
             if 0 < len(p.liked) <= EXPANSION_MAX_LIKES and not has_topics[i]]
    if not small:
        return queries
    depth = int(weights.expansion_depth)
    seeds = take_rows(queries, small)
    scores = _scores(index, seeds, weights)
    scores[:, ~index.alive] = -np.inf
    for j, i in enumerate(small):
        scores[j, [index.row_of[x] for x in parts[i].liked + parts[i].disliked]] = -np.inf
    depth = min(depth, scores.shape[1])
    if depth <= 0:
        return queries
    top, usable = _best_positive(scores, depth)
    select = sparse.csr_matrix((usable.ravel().astype(np.float32), top.ravel(),
                                np.arange(0, top.size + 1, depth)),
                               shape=(len(small), index.matrix.shape[0]))
    neighbours = unit_rows(select @ index.matrix)
    length = np.sqrt(np.asarray(seeds.multiply(seeds).sum(axis=1)).ravel())
    likes = np.array([max(sum(parts[i].liked_weights), 1.0) for i in small], dtype=np.float32)
    place = sparse.csr_matrix(((weights.expansion * length / likes ** 2).astype(np.float32),
                               (small, np.arange(len(small)))), shape=(len(parts), len(small)))
    return sparse.csr_matrix(queries + place @ neighbours, dtype=np.float32)


#: Scoring a batch through a dense block of its queries, on the terms they use, pays once the sparse
#: product would do more than this share of the dense one's multiply-adds: the dense loop is that
#: much cheaper per multiply-add. Measured on citeulike-a, batches of 256 (see docs/measurements/quality.md):
#: at a share of 0.07-0.2 (expanded one-paper profiles, P10, reaction profiles) the dense block
#: scores in 0.45-0.6 of the sparse product's time; at 0.02 (bare one-paper rows) in 1.3 times it.
DENSE_SHARE = 0.03
#: The dense block of queries (terms × queries, float32) holds at most this many values (8 MB: a
#: block that stays in cache scored ~10% faster than one of 64 MB).
DENSE_BLOCK = 2_000_000


def _scores(index: PaperIndex, queries: sparse.csr_matrix, weights: Weights) -> np.ndarray:
    matrix = index.matrix
    if queries.shape[0] <= 16:
        # A few queries: the corpus times a dense block is fastest (and never transposes the corpus).
        scores = _dense_scores(matrix, queries)
    else:
        terms = np.unique(queries.indices)
        if _dense_pays(index, queries, terms):
            columns, corpus = _columns(index, terms)
            scores = _dense_scores(corpus, queries[:, columns])
        else:
            scores = np.asarray((queries @ _transposed(index)).todense(), dtype=np.float32)
    if weights.length or weights.generic:
        scores *= paper_prior(index, weights)[None, :]
    return scores


#: A kept slice of the corpus's columns serves a batch while it holds at most this many times the
#: stored values the batch's own terms reach (see _columns).
COLUMNS_SLACK = 1.5
_column_slices: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_column_lock = threading.Lock()


def _columns(index: PaperIndex, terms: np.ndarray) -> tuple[np.ndarray, sparse.csr_matrix]:
    """Columns holding ``terms`` (sorted) and the corpus's slice to them, kept between batches.

    Slicing 100,000 papers to a batch's terms cost more than scoring the batch on them, and a morning's
    batches ask for much the same terms. Extra columns change no score: a query is zero there, and a
    row's sum over its terms, in the row's own order, only gains exact zeros. A slice is kept while it
    reaches at most COLUMNS_SLACK times the values the batch's own terms do (else it costs more
    multiply-adds than it saves); then the batch's terms, with the kept ones when that still holds,
    are sliced afresh.
    """
    matrix = index.matrix
    doc_freq = _memoised(_doc_freqs, index, (id(matrix), matrix.shape, matrix.nnz),
                         lambda: np.bincount(matrix.indices, minlength=matrix.shape[1]))
    need = float(doc_freq[terms].sum())
    with _column_lock:
        kept = _column_slices.get(index)
        if kept is not None and kept[0] is matrix:
            columns, corpus = kept[1], kept[2]
            if (np.isin(terms, columns, assume_unique=True).all()
                    and float(doc_freq[columns].sum()) <= COLUMNS_SLACK * need):
                return columns, corpus
            both = np.union1d(columns, terms)
            columns = both if float(doc_freq[both].sum()) <= COLUMNS_SLACK * need else terms
        else:
            columns = terms
        corpus = matrix[:, columns]
        _column_slices[index] = (matrix, columns, corpus)
        return columns, corpus


def _dense_scores(matrix: sparse.csr_matrix, queries: sparse.csr_matrix) -> np.ndarray:
    """``queries @ matrix.T`` as a dense array, through dense blocks of the queries, a few queries at
    a time so that a block stays within DENSE_BLOCK values."""
    step = max(1, DENSE_BLOCK // max(1, matrix.shape[1]))
    scores = np.empty((queries.shape[0], matrix.shape[0]), dtype=np.float32)
    for start in range(0, queries.shape[0], step):
        # Terms × queries in C order: scipy would copy an F-order block (the plain .T) first.
        block = queries[start:start + step].T.tocsr().toarray()
        _transposed_into(scores[start:start + step], matrix @ block)
    return scores


#: Papers' rows transposed at a time (see _transposed_into).
TRANSPOSE_ROWS = 256


def _transposed_into(out: np.ndarray, papers_by_queries: np.ndarray) -> None:
    """``out[:] = papers_by_queries.T`` a slab of papers at a time: numpy's whole-array transposed copy
    strides through memory and took five times as long (13 ms of a 32-person batch's 29 over 100,000
    papers)."""
    for start in range(0, papers_by_queries.shape[0], TRANSPOSE_ROWS):
        out[:, start:start + TRANSPOSE_ROWS] = papers_by_queries[start:start + TRANSPOSE_ROWS].T


_doc_freqs: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_transposes: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _transposed(index: PaperIndex) -> sparse.csr_matrix:
    """The corpus transposed, in CSR: what ``queries @ matrix.T`` converts it to on every call (a
    twentieth of P1's ranking time on the larger eval set), once per index state."""
    matrix = index.matrix
    return _memoised(_transposes, index, (id(matrix), matrix.shape, matrix.nnz), lambda: matrix.T.tocsr())


def _dense_pays(index: PaperIndex, queries: sparse.csr_matrix, terms: np.ndarray) -> bool:
    """Whether the sparse product's work (the papers each query term reaches) exceeds DENSE_SHARE of
    the dense one's (every stored value of the corpus in the queries' ``terms``, once per query)."""
    matrix = index.matrix
    doc_freq = _memoised(_doc_freqs, index, (id(matrix), matrix.shape, matrix.nnz),
                         lambda: np.bincount(matrix.indices, minlength=matrix.shape[1]))
    sparse_work = float(doc_freq[queries.indices].sum())
    return sparse_work > DENSE_SHARE * float(doc_freq[terms].sum()) * queries.shape[0]


_priors: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def paper_prior(index: PaperIndex, weights: Weights = DEFAULT_WEIGHTS) -> np.ndarray:
    """A positive factor per row: ``(terms / mean terms) ** length / (1 + generic * cos(row, mean row))``.

    Profile-independent, so it is computed once per index state and reused.
    """
    matrix = index.matrix

    def compute() -> np.ndarray:
        n_terms = np.diff(matrix.indptr).astype(np.float32)
        mean_terms = float(n_terms.mean()) if len(n_terms) else 1.0
        prior = (np.maximum(n_terms, 1.0) / max(mean_terms, 1.0)) ** weights.length
        centroid = np.asarray(matrix.mean(axis=0), dtype=np.float32).ravel()
        norm = float(np.linalg.norm(centroid))
        if weights.generic and norm > 0:
            prior = prior / (1.0 + weights.generic * np.maximum(matrix @ (centroid / norm), 0.0))
        return prior.astype(np.float32)
    return _memoised(_priors, index, (id(matrix), matrix.shape, matrix.nnz, weights.length, weights.generic),
                     compute)


_id_arrays: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _ids_array(index: PaperIndex) -> np.ndarray:
    """index.ids as an array (ids are only ever appended, so the length identifies the state)."""
    return _memoised(_id_arrays, index, len(index.ids), lambda: np.array(index.ids, dtype=object))


def top_k(index: PaperIndex, scores: np.ndarray, k: int, exclude: Collection[str] = (),
          candidates: Collection[str] | None = None,
          min_score: float | None = 0.0) -> list[tuple[str, float]]:
    """The ``k`` best (paper id, score) of one score row.

    Never returns an excluded id, a replaced row, or (with ``candidates``) anything outside them.
    With ``min_score`` set, only papers scoring above it: no filler.
    """
    allowed = index.alive.copy()
    if candidates is not None:
        mask = np.zeros_like(allowed)
        mask[[index.row_of[c] for c in candidates if c in index.row_of]] = True
        allowed &= mask
    excluded = [index.row_of[pid] for pid in exclude if pid in index.row_of]
    if excluded:
        allowed[excluded] = False
    allowed &= (scores > min_score) if min_score is not None else np.isfinite(scores)
    return best_of_rows(index, scores, np.flatnonzero(allowed), k)


def best_of_rows(index: PaperIndex, scores: np.ndarray, rows: np.ndarray, k: int) -> list[tuple[str, float]]:
    """The ``k`` best (paper id, score) among ``rows`` (row numbers) of one score row, best first;
    equal scores go to the earlier row (the paper indexed first), so the choice never depends on
    how a partial sort happened to break a tie. Non-finite scores are never chosen."""
    rows = np.asarray(rows, dtype=np.int64)
    best = _best_of(scores[rows], rows, k)
    return list(zip(_ids_array(index)[best].tolist(), scores[best].tolist(), strict=True))


def best_of_matrix(index: PaperIndex, scores: np.ndarray, k: int) -> list[list[tuple[str, float]]]:
    """:func:`best_of_rows` for every row of ``scores`` at once, each row's allowed papers being its
    finite entries (mark the rest ``-inf`` first: replaced rows, the person's own papers, non-candidates).

    The same lists, ties to the earlier row included, in a fraction of the time over many rows.
    """
    ids = _ids_array(index)
    return [list(zip(ids[cols].tolist(), row[cols].tolist(), strict=True))
            for row, cols in zip(scores, best_columns(scores, k), strict=True)]


#: best_columns reads every SAMPLE_STEP-th score to find a bar that about 2k scores clear.
SAMPLE_STEP = 8


def best_columns(scores: np.ndarray, k: int) -> list[np.ndarray]:
    """For each row of ``scores``, the columns of its ``k`` best finite scores, best first, equal scores
    in column order (as :func:`best_of_rows` orders them).

    A full partial sort of every row is most of an eval's ranking time. A bar per row, taken from a
    sample of the row, leaves a few hundred columns to sort; a row where fewer than ``k`` clear the bar
    (rare: the bar aims at twice that) is sorted whole. Every score equal to the k-th best clears the
    bar, so ties are broken by column exactly as in a full sort.
    """
    n_rows, n = scores.shape
    k = min(k, n)
    if k <= 0:
        return [np.zeros(0, dtype=np.int64) for _ in range(n_rows)]
    picked = min(n // SAMPLE_STEP, 2 * k // SAMPLE_STEP)
    if picked >= 1:
        sample = scores[:, ::SAMPLE_STEP]
        bar = -np.partition(-sample, picked - 1, axis=1)[:, picked - 1:picked]
        clear = scores >= bar
        short = clear.sum(axis=1) < k
        clear[short] = True
    else:
        clear = np.ones_like(scores, dtype=bool)
    rows, cols = np.nonzero(clear)
    bounds = np.searchsorted(rows, np.arange(n_rows + 1))
    return [_best_of(scores[r, cols[bounds[r]:bounds[r + 1]]], cols[bounds[r]:bounds[r + 1]], k)
            for r in range(n_rows)]


def _best_of(values: np.ndarray, cols: np.ndarray, k: int) -> np.ndarray:
    """The columns of the k best finite ``values`` (one per ``cols`` entry), best first, ties by column."""
    finite = np.isfinite(values)
    if not finite.all():
        values, cols = values[finite], cols[finite]
    if k <= 0:
        return cols[:0]
    if len(values) > k:
        kth = values[np.argpartition(-values, k - 1)[k - 1]]
        above = np.flatnonzero(values > kth)
        tied = np.flatnonzero(values == kth)  # often thousands (short texts): sort only these by column
        tied = tied[np.argsort(cols[tied], kind="stable")][: k - len(above)]
        keep = np.concatenate([above, tied])
        values, cols = values[keep], cols[keep]
    return cols[np.lexsort((cols, -values))]


def rank(index: PaperIndex, profile: Profile, k: int, exclude: Collection[str] = (),
         candidates: Collection[str] | None = None, weights: Weights = DEFAULT_WEIGHTS,
         name_topics: bool = True, community: Community | None = None,
         diversity: float = 0.0, blend: Blend | None = None) -> list[Pick]:
    """The ``k`` best papers for one person, each with its reason. Liked and disliked papers never return.

    With ``name_topics`` a pick's reason names the person's topics it matches; without, it lists the
    matching words (as a search result should). With ``community``, other people's likes count too
    (see :class:`~recommender.Community`). With ``diversity`` > 0 (0.3 is a good value for a digest),
    the ``k`` are chosen by MMR among the best ``max(3k, 20)``, so near-duplicates don't fill the list;
    picks then come in MMR order, not strictly by score.
    """
    if profile.is_empty or len(index) == 0:
        return []
    context = _ExplainContext(index, profile, weights, name_topics, community, blend)
    scores = context.scores()
    excluded = set(exclude) | set(profile.liked) | set(profile.disliked)
    if diversity > 0:
        pool = top_k(index, scores, max(3 * k, 20), excluded, candidates)
        best = diversify(index, pool, k, diversity)
    else:
        best = top_k(index, scores, k, excluded, candidates)
    return context.explain_many(best)


def explain_picks(index: PaperIndex, profile: Profile, picks: Sequence[tuple[str, float]],
                  weights: Weights = DEFAULT_WEIGHTS, community: Community | None = None) -> list[Pick]:
    """:func:`explain` for several (paper id, score) pairs at once, keeping their order."""
    return _ExplainContext(index, profile, weights, community=community).explain_many(picks)


def explain(index: PaperIndex, profile: Profile, paper_id: str, score: float,
            weights: Weights = DEFAULT_WEIGHTS, n_terms: int = 3, community: Community | None = None) -> Pick:
    """Why a paper ranks for a profile: the liked paper it most resembles, if that drives the score,
    otherwise the topics it matches or the words that contributed most."""
    return _ExplainContext(index, profile, weights, community=community).explain(paper_id, score, n_terms)


class _ExplainContext:
    """What explaining any paper to one profile needs, computed once for all of its picks."""

    def __init__(self, index: PaperIndex, profile: Profile, weights: Weights, name_topics: bool = True,
                 community: Community | None = None, blend: Blend | None = None):
        self.index = index
        self.profile, self.blend = profile, blend
        self.weights = weights
        self.parts = _parts(index, profile, weights)
        self.community = community if (community is not None and weights.collaborative) else None
        self.topic_vec = _text_rows(index, [" ; ".join(profile.topics)]) if profile.topics else None
        self.topics = list(profile.topics)
        self.each_topic = _text_rows(index, self.topics) if self.topics and name_topics else None
        self.stray = _stray_pairs(index, self.topics, self.topic_vec, self.each_topic)
        self.liked = self.parts.liked
        self.liked_rows = index.rows(self.liked) if self.liked else None
        # Words are explained against the similarity part alone: the person's model only re-weighs
        # the same words, and this way a reason depends on nothing but the profile's own papers. The whole
        # query (with the model) is needed only to score, which explaining a digest's picks never does.
        self.similarity_query = _queries(index, [replace(self.parts, model=0.0)], [profile], weights)
        self._query = self.similarity_query if self.parts.model == 0 else None
        self._collaborative: np.ndarray | None = None

    @property
    def query(self) -> sparse.csr_matrix:
        """The profile's whole query (its model included), made when first asked for."""
        if self._query is None:
            self._query = _queries(self.index, [self.parts], [self.profile], self.weights)
        return self._query

    def scores(self) -> np.ndarray:
        # Expansion changes what ranks, not how a pick is explained (that stays with the profile's
        # own words): the query kept for explaining is the unexpanded one.
        query = expanded_queries(self.index, [self.parts], self.query, self.weights, [bool(self.topics)])
        scores = _scores(self.index, query, self.weights)
        scores = (self.blend(self.index, [self.profile], scores) if self.blend is not None else scores)[0]
        if self.community is not None:
            self._collaborative = self.weights.collaborative * self.community.scores(
                self.index, [self.parts.liked], [self.parts.liked_weights])[0]
            scores = scores + self._collaborative
        return scores

    def explain(self, paper_id: str, score: float, n_terms: int = 3) -> Pick:
        return self.explain_many([(paper_id, score)], n_terms)[0]

    def explain_many(self, picks: Sequence[tuple[str, float]], n_terms: int = 3) -> list[Pick]:
        """Explain several picks with one sparse product per part of the profile, not one per pick."""
        if not picks:
            return []
        index = self.index
        rows = index.rows([pid for pid, _ in picks])
        # Dense copies of the profile's few rows: products with the picks' rows are then plain
        # indexing, where sparse-by-sparse products would transpose and check at every call.
        topic_dense = dense_row(self.topic_vec) if self.topic_vec is not None else None
        query_dense = dense_row(self.similarity_query)
        topic_parts = (self.parts.topics * (rows @ topic_dense) if topic_dense is not None
                       else np.zeros(len(picks)))
        liked_sims = (rows @ self.liked_rows.T).toarray() if self.liked_rows is not None else None
        topic_sims = (np.column_stack([rows @ topic for topic in self.each_topic.toarray()])
                      if self.each_topic is not None else None)
        generic = generic_terms(index.model, index.fitted_on)
        # Per topic, its words that can be a reason: a topic the paper shares only generic words
        # with ("learning" for "deep learning") is not named.
        each = self.each_topic
        topic_words = ([set(cols[~generic[cols]].tolist()) for cols in
                        (each.indices[each.indptr[j]:each.indptr[j + 1]] for j in range(each.shape[0]))]
                       if each is not None else [])
        content = {t: _topic_content(index.model, generic, t) for t in self.topics} if topic_words else {}
        out = []
        for i, (paper_id, score) in enumerate(picks):
            topic_part = float(topic_parts[i])
            similar_to, by_others = None, False
            if self.community is not None and self.liked:
                collaborative = self._collaborative_score(paper_id)
                # Mostly other people's likes: say which of the person's likes they share.
                if collaborative > 0 and collaborative >= score - collaborative:
                    similar_to, _ = self.community.because_of(self.liked, self.parts.liked_weights, paper_id)
                    by_others = similar_to is not None
            if similar_to is None and liked_sims is not None:
                sims = liked_sims[i]
                best = int(np.argmax(sims * np.asarray(self.parts.liked_weights)))
                if sims[best] > 0 and self.parts.feedback * sims[best] >= topic_part:
                    similar_to = self.liked[best]
            topics: list[str] = []
            row_columns = set(rows.indices[rows.indptr[i]:rows.indptr[i + 1]].tolist())
            if similar_to is None and topic_sims is not None and topic_part > 0:
                row_sims = topic_sims[i]
                # A topic sharing only a common word ("model") with the paper is no reason to name it.
                floor = max(float(row_sims.max()) * 0.5, 1e-9)
                topics = [self.topics[j] for j in np.argsort(-row_sims, kind="stable")[:MAX_TOPICS_NAMED]
                          if row_sims[j] >= floor and topic_words[j] & row_columns]
            # Say why in the terms of the reason given: the topics' words for a topic match.
            span = slice(rows.indptr[i], rows.indptr[i + 1])
            columns = rows.indices[span]
            weights = topic_dense if topics and topic_dense is not None else query_dense
            data = rows.data[span] * weights[columns]
            shared = data != 0
            columns, data = columns[shared], data[shared]
            if len(self.stray):
                kept = np.ones(len(columns), dtype=bool)
                for col in self.stray:  # a few pairs at most: np.isin costs more in checks than this
                    kept &= columns != col
                columns, data = columns[kept], data[kept]
            if topics:
                # The named topics' own words go without saying, and generic words add nothing to
                # them ("…; also model" convinces nobody).
                said = set().union(*(index.model.stems(t) for t in topics))
                keep = [j for j, col in enumerate(columns)
                        if not generic[col] and not set(index.model.stem_terms[col].split(" ")) <= said]
                columns, data = columns[keep], data[keep]
            elif not generic[columns].all():
                columns, data = columns[~generic[columns]], data[~generic[columns]]
            ranked = self._best_columns(columns, data)
            model = index.model
            out.append(Pick(paper_id, score, _distinct_terms([model.term(c) for c in ranked], n_terms),
                            similar_to, topics, by_others,
                            term_stems=[str(model.stem_terms[c]) for c in ranked[:_candidates(n_terms)]],
                            topic_stems={t: content[t] for t in topics}))
        return out

    def _best_columns(self, columns: np.ndarray, data: np.ndarray) -> np.ndarray:
        """The columns that contribute, best reason first."""
        pairs = pair_columns(self.index.model)[columns]
        # Two-word terms are down-weighted for ranking; for saying why, a shared phrase is the better
        # reason, so undo that (once for the paper's row, once for the query's).
        undo = 1.0 / getattr(self.index.model, "phrase_weight", 1.0) ** 2
        values = data * np.where(pairs, undo, 1.0).astype(np.float32)
        order = np.argsort(-values, kind="stable")
        return columns[order[values[order] > 0]]

    def _collaborative_score(self, paper_id: str) -> float:
        if self._collaborative is None:
            self.scores()
        assert self._collaborative is not None  # scores() sets it whenever there is a community
        return float(self._collaborative[self.index.row_of[paper_id]])


_generic_lock = threading.Lock()  # worked out once per model: a digest run's threads all ask at once
_pairs: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def pair_columns(model) -> np.ndarray:
    """Per column of ``model``: True for a two-word term. Worked out once per vocabulary, not per row
    (ranking and explaining ask for every topic's and every pick's columns)."""
    terms = model.stem_terms
    with _generic_lock:
        cached = _pairs.get(model)
        if cached is None or len(cached) != len(terms):
            cached = np.fromiter((" " in t for t in terms), dtype=bool, count=len(terms))
            _pairs[model] = cached
        return cached


_generic: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def generic_terms(model, n_docs: int) -> np.ndarray:
    """Per column of ``model``: True for a term too common to be a reason (see GENERIC_SHARE).

    Judged from the model's own idf, never from the rows of an index, so a reason is the same
    whichever papers are indexed beside the pick. A word the fit left out as too common counts as
    generic; a pair is generic when both its words are.
    """
    with _generic_lock:
        return _generic_terms(model, n_docs)


def _generic_terms(model, n_docs: int) -> np.ndarray:
    terms = model.stem_terms
    cached = _generic.get(model)
    if cached is not None and cached[0] == (len(terms), n_docs):
        return cached[1]
    vocabulary = model.vectorizer.vocabulary_
    idf = np.asarray(model.vectorizer.idf_, dtype=np.float64)
    # The smoothed idf is ln((1 + n) / (1 + df)) + 1, so df = (1 + n) e^(1 - idf) - 1. In a small
    # corpus every word is in a large share of it: there a word must be in GENERIC_MIN_PAPERS too.
    n = max(int(n_docs), 1)
    limit = max(GENERIC_SHARE * n, GENERIC_MIN_PAPERS)
    common = set()
    for term, col in vocabulary.items():
        if " " not in term and (1 + n) * np.exp(1.0 - idf[col]) - 1 > limit:
            common.add(term)
    common |= set(model.pruned or ())
    out = np.fromiter((all(w in common for w in str(t).split(" ")) for t in terms), dtype=bool,
                      count=len(terms))
    _generic[model] = ((len(terms), n_docs), out)
    return out


def _stray_pairs(index: PaperIndex, topics: list[str], joined: sparse.csr_matrix | None,
                 each: sparse.csr_matrix | None) -> np.ndarray:
    """The word pairs of the topics' joined row that no one topic has: the last word of one topic and
    the first of the next ("robot models ; gaussian processes" gives "model gaussian"). They count in
    ranking, but are nobody's phrase, so never a reason."""
    if joined is None or len(topics) < 2:
        return np.zeros(0, dtype=np.int64)
    each = each if each is not None else _text_rows(index, topics)
    pairs = pair_columns(index.model)
    stray = set(joined.indices.tolist()) - set(each.indices.tolist())
    return np.array(sorted(c for c in stray if pairs[c]), dtype=np.int64)


def content_stems(model, generic: np.ndarray, topic: str) -> list[str]:
    """A topic's content words as the model's stems, in its order: without stop words or words too
    common to be a reason (see :func:`generic_terms`); all of its words when every one is common."""
    vectorizer = model.vectorizer
    stems = list(dict.fromkeys(vectorizer.build_tokenizer()(vectorizer.build_preprocessor()(topic))))
    vocabulary, pruned = vectorizer.vocabulary_, model.pruned or frozenset()

    def common(s: str) -> bool:
        col = vocabulary.get(s)
        return s in pruned or (col is not None and col < len(generic) and bool(generic[col]))
    return [s for s in stems if not common(s)] or stems


_content: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_content_lock = threading.Lock()


def _topic_content(model, generic: np.ndarray, topic: str) -> list[str]:
    """:func:`content_stems`, kept per model and topic: a run of digests explains the same topics for many
    people, and the tokenizer is built anew at each call."""
    with _content_lock:
        kept: tuple[np.ndarray, dict[str, list[str]]] | None = _content.get(model)
        if kept is None or kept[0] is not generic:
            kept = _content[model] = (generic, {})
        stems = kept[1].get(topic)
    if stems is None:
        stems = content_stems(model, generic, topic)
        with _content_lock:
            if len(kept[1]) >= TEXT_ROWS:
                kept[1].clear()
            kept[1][topic] = stems
    return list(stems)


def _candidates(n_terms: int) -> int:
    """How many candidate terms a pick keeps for :func:`recommender.surface.worded`, which drops those
    the paper's text does not hold together (a stem pair across a full stop)."""
    return max(4 * n_terms, TERM_CANDIDATES)


def _distinct_terms(terms: list[str], n: int) -> list[str]:
    """Top terms, skipping a word already said inside a chosen phrase (no 'diffusion, diffusion model')."""
    chosen: list[str] = []
    for term in terms:
        words = set(term.split())
        if any(words & set(c.split()) for c in chosen):
            continue
        chosen.append(term)
        if len(chosen) == n:
            break
    return chosen


def search(index: PaperIndex, query: str, k: int, candidates: Collection[str] | None = None) -> list[Pick]:
    """Papers best matching a free-text query (only among ``candidates`` when given)."""
    return rank(index, Profile(topics=[query]), k, candidates=candidates, name_topics=False)
