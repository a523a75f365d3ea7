"""A per-person linear model: which words separate a person's likes from their dislikes and from
papers at random.

It is a weighted ridge (least-squares) classifier on the TF-IDF rows: liked papers are positive
(label 1), disliked papers and a fixed random sample of the corpus (the "cache" negatives, as
Scholar Inbox uses) are negative (label 0), each weighted by how much it counts (old feedback
fades; the cache as a whole weighs as much as the likes). It is solved in its dual form, where the
part that involves only the cache is the same for everyone: its eigendecomposition is computed once
per index state, so one person's model costs a few small matrix products (well under a millisecond
for a dozen papers of feedback).

The result is a vector over the words of the person's own liked and disliked papers (a word no
feedback paper contains gets no weight), scaled to unit length, so the ranker can blend it into the
same query as the profile's similarity. A dislike is fitted towards 0 with a like's weight, so its
words count against the person as far as they would otherwise lift papers like the liked ones (a
dislike sharing no word with any like changes nothing here: the query's own dislike part handles it).
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import sparse
from threadpoolctl import ThreadpoolController

from recommender.index import PaperIndex

#: Random papers used as negatives, at most (fewer in a smaller corpus). 250 ranks as 500 did (paired
#: recall@50 within ±0.0006 on P10, feedback, foreign, drift, and with 30 likes each) in about 70% of
#: the model's time; see docs/measurements/quality.md.
CACHE_SIZE = 250
#: Ridge penalty: larger keeps the model closer to the plain centroid of the likes.
RIDGE = 1.0
#: How much one dislike counts as a negative example, against one like as a positive one.
DISLIKE_WEIGHT = 1.0
#: The cache papers together weigh this many times the likes together.
CACHE_WEIGHT = 1.0


@dataclass
class _Cache:
    key: tuple
    rows: np.ndarray           # index rows of the cache papers, sorted
    matrix: sparse.csr_matrix  # their TF-IDF rows
    columns: sparse.csc_matrix  # the same, for slicing by term
    eigenvalues: np.ndarray    # of their Gram matrix (float64)
    eigenvectors: np.ndarray
    words: np.ndarray          # the terms the cache papers use, sorted
    projector: np.ndarray      # C' V on those terms (words × cache papers, float32): V' C F' = (F C' V)'


_caches: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def negative_cache(index: PaperIndex, size: int = CACHE_SIZE) -> _Cache:
    """The fixed random sample of live papers used as negatives, with what the solver needs of it.

    Computed once per index state (seeded, so the same corpus gives the same sample) and reused.
    """
    matrix = index.matrix
    key = (id(matrix), matrix.shape, matrix.nnz, int(index.alive.sum()), size)
    cached = _caches.get(index)
    if cached is not None and cached.key == key:
        return cached
    alive = np.flatnonzero(index.alive)
    rng = np.random.default_rng(len(alive))
    rows = np.sort(rng.choice(alive, min(size, len(alive)), replace=False))
    sample = sparse.csr_matrix(matrix[rows], dtype=np.float32)
    gram = (sample @ sample.T).toarray().astype(np.float64)
    eigenvalues, eigenvectors = np.linalg.eigh(gram)
    # With the eigenvectors folded into the cache's rows once, a feedback paper's projection is a
    # sparse row times a dense block: ~20 non-zeros × 250, not a 250 × 250 product per paper.
    words = np.unique(sample.indices)
    # float32, like the rows: the product with it is the model's largest, and twice as fast so.
    projector = np.asarray(sample[:, words].T.astype(np.float64) @ eigenvectors, dtype=np.float32)
    cache = _Cache(key, rows, sample, sample.tocsc(), np.maximum(eigenvalues, 0.0),
                   eigenvectors, words, projector)
    _caches[index] = cache
    return cache


@dataclass
class Feedback:
    """One person's feedback as index rows, each with its (fading) weight."""

    liked_rows: Sequence[int]
    liked_weights: Sequence[float]
    disliked_rows: Sequence[int] = ()
    disliked_weights: Sequence[float] = ()


def person_vector(index: PaperIndex, liked_rows: Sequence[int], liked_weights: Sequence[float],
                  disliked_rows: Sequence[int] = (), disliked_weights: Sequence[float] = (),
                  ridge: float = RIDGE) -> sparse.csr_matrix | None:
    """One person's model as a unit-length query row (1 × terms), or None with no usable likes.

    Only the words of the liked and disliked papers get a weight: positive for words that mark the
    likes out, negative for words of the dislikes or of papers in general.
    """
    rows, ok = person_vectors(index, [Feedback(liked_rows, liked_weights, disliked_rows, disliked_weights)],
                              ridge)
    return rows if ok[0] else None


#: Feedback papers solved together: bounds the size of the per-batch Gram matrix.
CHUNK_ROWS = 512
#: At most this many liked and this many disliked papers per person, the weightiest (newest): a
#: sliding window that keeps one person's solve small however much feedback they give.
MAX_EXAMPLES = 300


def person_vectors(index: PaperIndex, people: Sequence[Feedback],
                   ridge: float = RIDGE) -> tuple[sparse.csr_matrix, np.ndarray]:
    """:func:`person_vector` for many people at once: (rows, which rows are usable).

    Everyone's products with the cache are done together, a few hundred feedback papers at a
    time, so a batch costs little more than its matrix products.
    """
    n_terms = index.matrix.shape[1]
    people = [_window(p) for p in people]
    out: list[sparse.csr_matrix] = []
    ok = np.zeros(len(people), dtype=bool)
    with _blas().limit(limits=1, user_api="blas"):
        _solve_all(index, people, ridge, out, ok)
    if not out:
        return sparse.csr_matrix((0, n_terms), dtype=np.float32), ok
    return sparse.vstack(out, format="csr"), ok


_controller: list[ThreadpoolController] = []


def _blas() -> ThreadpoolController:
    """One controller per process: finding the loaded BLAS libraries scans them (~4 ms), which a
    ``threadpool_limits`` call would redo for every batch."""
    if not _controller:
        _controller.append(ThreadpoolController())
    return _controller[0]


def _solve_all(index: PaperIndex, people: list[Feedback], ridge: float, out: list, ok: np.ndarray) -> None:
    """Solve ``people`` a chunk at a time, appending each chunk's rows to ``out`` and marking ``ok``.

    Run on one BLAS thread: the products here are a few hundred rows square, too small for threads
    to pay off, and on a busy machine OpenBLAS's threads waiting for each other made the whole
    solve 2.3× slower (P10's 5,551 people: 14.7 s against 6.2 s on one thread, 2 shared cores).
    """
    start = 0
    while start < len(people):
        end, rows = start, 0
        while end < len(people) and (end == start or rows + _size(people[end]) <= CHUNK_ROWS):
            rows += _size(people[end])
            end += 1
        chunk, good = _chunk(index, people[start:end], ridge)
        out.append(chunk)
        ok[start:end] = good
        start = end


def _size(person: Feedback) -> int:
    return len(person.liked_rows) + len(person.disliked_rows)


def _window(person: Feedback) -> Feedback:
    """The person's feedback, at most MAX_EXAMPLES of each kind, keeping the weightiest."""
    def keep(rows, weights):
        rows, weights = list(rows), list(weights)
        if len(rows) != len(weights):
            raise ValueError("one weight per feedback paper is needed")
        if len(rows) <= MAX_EXAMPLES:
            return rows, weights
        best = np.sort(np.argsort(-np.asarray(weights), kind="stable")[:MAX_EXAMPLES])
        return [rows[i] for i in best], [weights[i] for i in best]
    return Feedback(*keep(person.liked_rows, person.liked_weights),
                    *keep(person.disliked_rows, person.disliked_weights))


def _chunk(index: PaperIndex, people: Sequence[Feedback],
           ridge: float) -> tuple[sparse.csr_matrix, np.ndarray]:
    """The dual ridge solution for a few people, the cache block inverted through its cached
    eigendecomposition. Per person the system is [[F F' + r/w, F C'], [C F', C C' + r/c]] [a; b] = [y; 0];
    with A = C C' + r/c = V (L + r/c) V', a = (F F' + r/w - F C' A⁻¹ C F')⁻¹ y and b = -A⁻¹ C F' a.
    The model is F' a + C' b, kept only on the words of the person's own feedback papers.
    """
    n_terms = index.matrix.shape[1]
    cache = negative_cache(index)
    n_people = len(people)
    good = np.array([len(p.liked_rows) > 0 for p in people], dtype=bool)
    own = [list(p.liked_rows) + list(p.disliked_rows) if g else [] for p, g in zip(people, good, strict=True)]
    bounds = np.cumsum([0] + [len(o) for o in own])
    if bounds[-1] == 0:
        return sparse.csr_matrix((n_people, n_terms), dtype=np.float32), good
    feedback = sparse.csr_matrix(index.matrix[np.concatenate([np.asarray(o, np.int64) for o in own])],
                                 dtype=np.float32)
    gram = (feedback @ feedback.T).toarray().astype(np.float64)
    vectors = cache.eigenvectors
    projected = np.asarray(feedback[:, cache.words] @ cache.projector, dtype=np.float64).T  # V' C F'
    n_cache = len(cache.rows)
    coefficients = np.zeros(bounds[-1])  # a, for every feedback paper
    cache_terms = np.zeros((n_cache, n_people))  # diag(scale) V' C F' a, per person
    for i, person in enumerate(people):
        if not good[i]:
            continue
        span = slice(bounds[i], bounds[i + 1])
        n_liked = len(person.liked_rows)
        weights = np.concatenate([np.asarray(person.liked_weights, dtype=np.float64),
                                  DISLIKE_WEIGHT * np.asarray(person.disliked_weights, dtype=np.float64)])
        # Relative to the newest feedback: fading changes how examples weigh against each other,
        # not how much the model trusts the data against the penalty.
        weights = np.maximum(weights / max(float(weights.max()), 1e-12), 1e-9)
        labels = np.zeros(len(weights))
        labels[:n_liked] = 1.0
        # The cache as a whole weighs CACHE_WEIGHT times the likes together. A feedback paper that happens to
        # be in the cache (1.5% of the time per paper with 250 of 17,000) also counts as a random paper,
        # with a weight far below its own: that changes the model negligibly and keeps the shared solve.
        cache_weight = CACHE_WEIGHT * float(weights[:n_liked].sum()) / n_cache
        scale = 1.0 / (cache.eigenvalues + ridge / cache_weight)
        block = projected[:, span]
        schur = gram[span, span] + np.diag(ridge / weights) - block.T @ (scale[:, None] * block)
        try:
            a = np.linalg.solve(schur, labels)
        except np.linalg.LinAlgError:
            good[i] = False
            continue
        coefficients[span] = a
        cache_terms[:, i] = scale * (block @ a)
    cache_coefficients = -(vectors @ cache_terms)  # b, per cache paper and person
    owner = np.repeat(np.arange(n_people), np.diff(bounds))
    pick = sparse.csr_matrix((coefficients, (owner, np.arange(bounds[-1]))), shape=(n_people, bounds[-1]))
    # F' a on the words of the person's papers (the product's own sparsity pattern) ...
    model = sparse.csr_matrix(pick @ feedback, dtype=np.float64)
    model.sum_duplicates()
    rows_of = np.repeat(np.arange(n_people), np.diff(model.indptr))
    # ... plus C' b on those same words only.
    words, where = np.unique(model.indices, return_inverse=True)
    cache_part = np.asarray(cache.columns[:, words].T @ cache_coefficients)  # words × people
    model.data += cache_part[where, rows_of]
    model = sparse.csr_matrix(model, dtype=np.float32)
    norms = np.sqrt(np.asarray(model.multiply(model).sum(axis=1)).ravel())
    good &= np.isfinite(norms) & (norms > 0)
    scale_rows = np.where(good, 1.0 / np.where(norms > 0, norms, 1.0), 0.0).astype(np.float32)
    return sparse.csr_matrix(sparse.diags(scale_rows) @ model, dtype=np.float32), good
