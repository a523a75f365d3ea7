"""TF-IDF: the one text representation paperbot ranks with.

Words are stemmed with Snowball's English (Porter2) stemmer, so "networks", "network" and
"networked" meet; stop words are dropped; single words and adjacent pairs both become terms. On
citeulike-a (``benchmarks/quality.py``) stemming lifts recall@50 by ~5% and down-weighting word
pairs by another ~1.5%. Explanations still speak in words: every stem is shown as the word it most
often came from.

The vocabulary grows between fits (:meth:`TextModel.grown`): a word first seen in papers added
after the fit ("Mamba" once was) becomes a new column at once, so it can be searched and matched
the minute its papers arrive rather than at the next refit.

scikit-learn fits the model; what is kept (and saved) is plain data, :class:`Vectorizer`, which makes the
same rows to the bit without it: a process that reads a saved model and ranks (`paperbot digest`, the
bot, a digest helper) does not pay scikit-learn's import, some 0.7 s of CPU.
"""

from __future__ import annotations

import re
import threading
import unicodedata
from collections import Counter
from collections.abc import Sequence
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np
import snowballstemmer
from scipy import sparse

from recommender.stop_words import ENGLISH_STOP_WORDS

if TYPE_CHECKING:
    from sklearn.feature_extraction.text import TfidfVectorizer

# Words of two or more characters that start with a letter, as arxiv-sanity does: drops bare numbers
# and the debris of LaTeX markup.
TOKEN_PATTERN = r"(?u)\b[a-zA-Z_][a-zA-Z0-9_]+\b"  # noqa: S105 (a regex, not a secret)

# How much a two-word term counts against a single word. Pairs are precise but, being rarer, get a
# large idf that lets one shared phrase outweigh several shared words.
BIGRAM_WEIGHT = 0.7
#: Short texts whose rows a model remembers (see TextModel.transform_short).
SHORT_CACHE = 4096


def english_stop_words() -> frozenset[str]:
    """scikit-learn's English stop words (a copy: importing scikit-learn costs a process some 0.7 s of
    CPU, which commands that only read a model or rank need not pay)."""
    return ENGLISH_STOP_WORDS


class Tokenizer:
    """Words (after lowercasing and accent stripping), minus stop words, stemmed.

    While ``words`` is a Counter, it counts the words (:meth:`surface` turns them into (stem, word)
    pairs, so stems can be shown as words); while ``doc_freq`` is one, it counts the texts each stem
    occurs in.
    """

    def __init__(self, stop_words=None):  # None: English's (english_stop_words)
        self._start(english_stop_words() if stop_words is None else stop_words)

    def _start(self, stop_words) -> None:
        self.stop_words = frozenset(stop_words)
        self.pattern = re.compile(TOKEN_PATTERN)
        self.words: Counter | None = None
        self.doc_freq: Counter | None = None

    def __call__(self, doc: str) -> list[str]:
        words = [w for w in self.pattern.findall(doc) if w not in self.stop_words]
        stems = list(map(stem, words))
        if self.words is not None:
            self.words.update(words)  # stemmed once per distinct word by surface(), not per occurrence
        if self.doc_freq is not None:
            self.doc_freq.update(set(stems))
        return stems

    def surface(self) -> Counter:
        """The (stem, word) pairs counted so far, from the words counted."""
        return Counter({(stem(word), word): n for word, n in (self.words or {}).items()})

    def __getstate__(self) -> dict:
        return {"stop_words": self.stop_words}

    def __setstate__(self, state: dict) -> None:
        self._start(state["stop_words"])


def strip_accents_unicode(text: str) -> str:
    """Accented letters as their plain ones: scikit-learn's ``strip_accents_unicode``, which the fit uses
    (``strip_accents="unicode"``), written out so that reading a model needs no scikit-learn."""
    if text.isascii():
        return text
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


def _preprocess(doc: str) -> str:
    return strip_accents_unicode(doc.lower())  # the fit's order: lowercase, then accents


class Vectorizer:
    """A fitted TF-IDF vectorizer as plain data: what scikit-learn's fitted ``TfidfVectorizer`` (made by
    :func:`make_vectorizer`) knows after the fit, and its ``transform`` computed the same way, to the bit.
    Saved models hold this, not scikit-learn's object, so loading one and ranking with it import no
    scikit-learn (some 0.7 s of CPU for each process that reads a model); only a fit does."""

    def __init__(self, vocabulary: dict[str, int], idf: np.ndarray, tokenizer: Tokenizer,
                 ngram_range: tuple[int, int] = (1, 2)):
        self.vocabulary_ = vocabulary
        self.idf_ = np.asarray(idf, dtype=np.float64)
        self.tokenizer = tokenizer
        self.ngram_range: tuple[int, int] = (ngram_range[0], ngram_range[1])

    @classmethod
    def of(cls, fitted: TfidfVectorizer) -> Vectorizer:
        """The plain data of a scikit-learn vectorizer :func:`make_vectorizer` made and a fit filled in."""
        return cls(dict(fitted.vocabulary_), fitted.idf_, fitted.tokenizer, fitted.ngram_range)

    def build_preprocessor(self):
        return _preprocess

    def build_tokenizer(self):
        return self.tokenizer

    def analyze(self, doc: str) -> list[str]:
        """The terms of a text: its stems, then its adjacent pairs of stems (scikit-learn's word n-grams)."""
        if isinstance(doc, bytes):
            doc = doc.decode("utf-8")
        tokens = self.tokenizer(_preprocess(doc))
        low, high = self.ngram_range
        terms = list(tokens) if low == 1 else []
        for n in range(max(low, 2), min(high, len(tokens)) + 1):
            terms.extend(" ".join(tokens[i:i + n]) for i in range(len(tokens) - n + 1))
        return terms

    def transform(self, texts: Sequence[str]) -> sparse.csr_matrix:
        """L2-normalised TF-IDF rows of ``texts``: counts, 1 + log of them, times idf, as scikit-learn's
        ``TfidfVectorizer(sublinear_tf=True, norm="l2", dtype=np.float32).transform``, in the same float32
        and float64 steps, so the rows are bit for bit the ones it would make."""
        if isinstance(texts, str):
            raise ValueError("Iterable over raw text documents expected, string object received.")
        vocabulary = self.vocabulary_
        columns: list[int] = []
        counts: list[int] = []
        indptr = [0]
        for doc in texts:
            counted: dict[int, int] = {}
            for term in self.analyze(doc):
                column = vocabulary.get(term)
                if column is not None:
                    counted[column] = counted.get(column, 0) + 1
            columns.extend(counted)
            counts.extend(counted.values())
            indptr.append(len(columns))
        matrix = sparse.csr_matrix((np.asarray(counts, dtype=np.intc), np.asarray(columns, dtype=np.int32),
                                    np.asarray(indptr, dtype=np.int32)),
                                   shape=(len(indptr) - 1, len(vocabulary)), dtype=np.float32)
        matrix.sort_indices()
        data = matrix.data
        np.log(data, data)
        data += 1.0
        data *= self.idf_[matrix.indices]
        _normalize_rows(matrix)
        return matrix


def _normalize_rows(matrix: sparse.csr_matrix) -> None:
    """Each row of a float32 CSR matrix divided by its L2 norm, in place, as scikit-learn's
    ``inplace_csr_row_normalize_l2`` does: squares in float32 summed in order into a float64 per row (a
    step per position in the rows, not a row at a time), all-zero rows left alone."""
    data, indptr = matrix.data, matrix.indptr
    lengths = np.diff(indptr)
    squares = data * data
    sums = np.zeros(len(lengths), dtype=np.float64)
    for k in range(int(lengths.max(initial=0))):
        rows = np.flatnonzero(lengths > k)
        sums[rows] += squares[indptr[rows] + k]
    norms = np.sqrt(sums)
    norms[sums == 0.0] = 1.0  # nothing to divide
    data /= np.repeat(norms, lengths)


def make_vectorizer(n_docs: int) -> TfidfVectorizer:
    """A TF-IDF vectorizer suited to a corpus of ``n_docs`` abstracts.

    Tiny corpora (the demo's 20 abstracts) keep every word; large ones drop words seen once,
    which are mostly typos and would only bloat the vocabulary.
    """
    from sklearn.feature_extraction.text import TfidfVectorizer

    return TfidfVectorizer(
        strip_accents="unicode",
        lowercase=True,
        tokenizer=Tokenizer(),
        token_pattern=None,
        stop_words=None,  # the tokenizer drops them, before stemming
        ngram_range=(1, 2),
        min_df=1 if n_docs < 200 else 2,
        max_df=0.5 if n_docs >= 20 else 1.0,
        max_features=100_000,
        sublinear_tf=True,
        norm="l2",
        dtype=np.float32,
    )


class TextModel:
    """A fitted vectorizer: texts in, L2-normalised sparse rows out."""

    def __init__(self, vectorizer: Vectorizer, display: dict[str, str] | None = None,
                 phrase_weight: float = 1.0, pruned: frozenset[str] | None = None):
        self.vectorizer = vectorizer
        self.display = display or {}
        # What two-word terms were weighted by, so explanations can undo it when ordering terms.
        self.phrase_weight = phrase_weight
        # Single-word stems the fit saw often enough but left out (too common, or past max_features):
        # they were judged, so growing never brings them back. None: not recorded, so never grow.
        self.pruned = pruned
        self._terms: np.ndarray | None = None
        self._stem_terms: np.ndarray | None = None
        self._short: dict[str, sparse.csr_matrix] = {}  # rows of short texts (topics, queries), reused
        self._short_lock = threading.Lock()
        self._stems: dict[str, set[str]] = {}

    @classmethod
    def fit(cls, texts: Sequence[str]) -> tuple[TextModel, sparse.csr_matrix]:
        """Fit on a corpus; returns the model and the corpus's rows."""
        from sklearn.preprocessing import normalize

        vectorizer = make_vectorizer(len(texts))
        words: Counter = Counter()
        doc_freq: Counter = Counter()
        vectorizer.tokenizer.words, vectorizer.tokenizer.doc_freq = words, doc_freq
        try:
            matrix = vectorizer.fit_transform(texts)
        except ValueError:
            # Every word was a stop word or pruned: fall back to keeping everything.
            words.clear()
            doc_freq.clear()
            vectorizer.set_params(min_df=1, max_df=1.0, tokenizer=Tokenizer(stop_words=()))
            vectorizer.tokenizer.words, vectorizer.tokenizer.doc_freq = words, doc_freq
            matrix = vectorizer.fit_transform(texts)
        surface = vectorizer.tokenizer.surface()
        vectorizer.tokenizer.words = vectorizer.tokenizer.doc_freq = None
        min_df = vectorizer.min_df if isinstance(vectorizer.min_df, int) else 1
        kept = vectorizer.vocabulary_
        pruned = frozenset(st for st, n in doc_freq.items() if n >= min_df and st not in kept)
        display: dict[str, str] = {}
        best: dict[str, int] = {}
        for (st, word), n in surface.items():
            if n > best.get(st, 0) or (n == best[st] and word < display[st]):
                best[st], display[st] = n, word
        weights = _term_weights(vectorizer.get_feature_names_out())
        vectorizer.idf_ = (vectorizer.idf_ * weights).astype(np.float64)
        matrix = normalize(sparse.csr_matrix(matrix, dtype=np.float32) @ sparse.diags(weights), norm="l2")
        model = cls(Vectorizer.of(vectorizer), display, BIGRAM_WEIGHT, pruned)
        return model, sparse.csr_matrix(matrix, dtype=np.float32)

    def new_words(self, texts: Sequence[str]) -> tuple[Counter, Counter]:
        """Single-word stems of ``texts`` this model has no column for and may grow one: the texts each
        occurs in, and the (stem, word) pairs they came from. Empty when nothing is new or the model
        does not record what its fit pruned."""
        if self.pruned is None:
            return Counter(), Counter()
        tokenizer = Tokenizer(self.vectorizer.tokenizer.stop_words)  # its own: counting is per call
        tokenizer.words, tokenizer.doc_freq = Counter(), Counter()
        preprocess = self.vectorizer.build_preprocessor()
        for text in texts:
            tokenizer(preprocess(text))
        known, pruned = self.vectorizer.vocabulary_, self.pruned
        fresh = Counter({st: n for st, n in tokenizer.doc_freq.items()
                         if st not in known and st not in pruned})
        surface = Counter({pair: n for pair, n in tokenizer.surface().items() if pair[0] in fresh})
        return fresh, surface

    def grown(self, texts: Sequence[str], n_docs: int) -> TextModel:
        """This model with a new column for every word of ``texts`` it has never seen (see
        :meth:`new_words`), or itself when there is none. ``n_docs``: the corpus size once the texts
        are in, for the new words' idf, computed as the fit computes it (smoothed, from the texts each
        occurs in). Existing columns keep their numbers and weights, so rows made before stay valid.

        A new model, never this one changed: whoever holds this model (a request in flight, a small
        index built on it) keeps a vocabulary that matches its rows. Only single words grow; word
        pairs with them wait for the next fit.
        """
        fresh, surface = self.new_words(texts)
        if not fresh:
            return self
        new = sorted(fresh)
        old = self.vectorizer
        vocabulary = dict(old.vocabulary_)
        start = len(vocabulary)
        vocabulary.update((st, start + i) for i, st in enumerate(new))
        df = np.array([fresh[st] for st in new], dtype=np.float64)
        idf = np.log((1.0 + n_docs) / (1.0 + df)) + 1.0
        vectorizer = Vectorizer(vocabulary, np.concatenate([old.idf_, idf]), old.tokenizer, old.ngram_range)
        display = dict(self.display)
        best: dict[str, int] = {}
        for (st, word), n in sorted(surface.items()):
            if n > best.get(st, 0):
                best[st], display[st] = n, word
        return TextModel(vectorizer, display, self.phrase_weight, self.pruned)

    def transform(self, texts: Sequence[str]) -> sparse.csr_matrix:
        """Rows for texts, in the fitted vocabulary (unknown words are dropped)."""
        return sparse.csr_matrix(self.vectorizer.transform(texts), dtype=np.float32)

    def transform_short(self, texts: Sequence[str]) -> sparse.csr_matrix:
        """:meth:`transform` for short texts such as topics, remembering each text's row: the same few
        topics come back for every digest, and a call's overhead dwarfs the work."""
        known = self._short
        if len(texts) == 1 and (row := known.get(texts[0])) is not None:
            return row
        unique = list(dict.fromkeys(texts))
        found = {t: row for t in unique if (row := known.get(t)) is not None}
        missing = [t for t in unique if t not in found]
        if missing:
            rows = self.transform(missing)
            new = {t: rows[i] for i, t in enumerate(missing)}
            with self._short_lock:
                if len(self._short) + len(new) > SHORT_CACHE:
                    self._short.clear()
                self._short.update(new)
            found.update(new)
        return sparse.vstack([found[t] for t in texts], format="csr")

    def stems(self, text: str) -> set[str]:
        """The distinct stems of a text, as this model sees words."""
        stems = self._stems.get(text)
        if stems is None:
            analyze = self.vectorizer.build_tokenizer()
            stems = set(analyze(self.vectorizer.build_preprocessor()(text)))
            if len(self._stems) > SHORT_CACHE:
                self._stems.clear()
            self._stems[text] = stems
        return stems

    def knows(self, word: str) -> bool:
        """Whether ``word`` is one the papers' text is searched by (one of its stems is in the
        vocabulary; a word too rare to be kept is not)."""
        vocabulary = self.vectorizer.vocabulary_
        return any(stem in vocabulary for stem in self.stems(word))

    @property
    def stem_terms(self) -> np.ndarray:
        """Column index to term as stems (what :meth:`stems` returns, space-joined for pairs)."""
        if self._stem_terms is None:
            with self._short_lock:  # threads asking at once build it once
                if self._stem_terms is None:
                    # What get_feature_names_out() returns, several times faster (it sorts).
                    vocabulary = self.vectorizer.vocabulary_
                    terms = np.empty(len(vocabulary), dtype=object)
                    terms[np.fromiter(vocabulary.values(), dtype=np.int64, count=len(vocabulary))] = \
                        list(vocabulary)
                    self._stem_terms = terms
        return self._stem_terms

    def term(self, column: int) -> str:
        """One column's term in words (see :attr:`terms`), without building the whole list."""
        return " ".join(self.display.get(s, s) for s in str(self.stem_terms[column]).split(" "))

    @property
    def terms(self) -> np.ndarray:
        """Column index to term, in words a person would write (the commonest form of each stem)."""
        if self._terms is None:
            names = self.stem_terms
            self._terms = np.array(
                [" ".join(self.display.get(s, s) for s in name.split(" ")) for name in names], dtype=object
            )
        return self._terms

    def __getstate__(self) -> dict:
        return {"vectorizer": self.vectorizer, "display": self.display, "phrase_weight": self.phrase_weight,
                "pruned": self.pruned}

    def __setstate__(self, state: dict) -> None:
        vectorizer = state["vectorizer"]
        # A model saved before Vectorizer held scikit-learn's object (unpickling it imported scikit-learn):
        # read on as the same data.
        self.vectorizer = vectorizer if isinstance(vectorizer, Vectorizer) else Vectorizer.of(vectorizer)
        self.display = state.get("display", {})
        self.phrase_weight = state.get("phrase_weight", 1.0)
        self.pruned = state.get("pruned")
        self._terms = None
        self._stem_terms = None
        self._short = {}
        self._short_lock = threading.Lock()
        self._stems = {}


def _term_weights(names: np.ndarray) -> np.ndarray:
    return np.array([BIGRAM_WEIGHT if " " in name else 1.0 for name in names], dtype=np.float32)


_stemmers = threading.local()  # Snowball stemmers keep per-call state: one per thread


@lru_cache(maxsize=262_144)
def stem(word: str) -> str:
    """The English (Porter2) Snowball stem of a lowercase word ("networks" -> "network").

    snowballstemmer hands out PyStemmer's C stemmer when it is installed (a dependency): the same
    stems (all 26,809 words of the shared corpora agree), 15× faster, a tenth of a fit's time.
    """
    stemmer = getattr(_stemmers, "english", None)
    if stemmer is None:
        stemmer = _stemmers.english = snowballstemmer.stemmer("english")
    return stemmer.stemWord(word)
