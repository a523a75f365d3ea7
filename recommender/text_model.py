"""TF-IDF: the one text representation paperbot ranks with.

Words are Porter-stemmed (so "networks", "network" and "networked" meet), stop words dropped, and
single words and adjacent pairs both become terms. On citeulike-a (``benchmarks/quality.py``) stemming
lifts recall@50 by ~5% and down-weighting word pairs by another ~1.5%. Explanations still speak in
words: every stem is shown as the word it most often came from.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from functools import lru_cache

import numpy as np
from scipy import sparse
from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS, TfidfVectorizer
from sklearn.preprocessing import normalize

# Words of two or more characters that start with a letter, as arxiv-sanity does: drops bare numbers
# and the debris of LaTeX markup.
TOKEN_PATTERN = r"(?u)\b[a-zA-Z_][a-zA-Z0-9_]+\b"  # noqa: S105 (a regex, not a secret)

# How much a two-word term counts against a single word. Pairs are precise but, being rarer, get a
# large idf that lets one shared phrase outweigh several shared words.
BIGRAM_WEIGHT = 0.7


class Tokenizer:
    """Words (after lowercasing and accent stripping), minus stop words, stemmed.

    While ``surface`` is a Counter, it counts (stem, word) pairs, so stems can be shown as words.
    """

    def __init__(self, stop_words=ENGLISH_STOP_WORDS):
        self.stop_words = frozenset(stop_words)
        self.pattern = re.compile(TOKEN_PATTERN)
        self.surface: Counter | None = None

    def __call__(self, doc: str) -> list[str]:
        words = [w for w in self.pattern.findall(doc) if w not in self.stop_words]
        stems = [stem(w) for w in words]
        if self.surface is not None:
            self.surface.update(zip(stems, words, strict=True))
        return stems

    def __getstate__(self) -> dict:
        return {"stop_words": self.stop_words}

    def __setstate__(self, state: dict) -> None:
        self.__init__(state["stop_words"])


def make_vectorizer(n_docs: int) -> TfidfVectorizer:
    """A TF-IDF vectorizer suited to a corpus of ``n_docs`` abstracts.

    Tiny corpora (the demo's 20 abstracts) keep every word; large ones drop words seen once,
    which are mostly typos and would only bloat the vocabulary.
    """
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

    def __init__(self, vectorizer: TfidfVectorizer, display: dict[str, str] | None = None,
                 phrase_weight: float = 1.0):
        self.vectorizer = vectorizer
        self.display = display or {}
        # What two-word terms were weighted by, so explanations can undo it when ordering terms.
        self.phrase_weight = phrase_weight
        self._terms: np.ndarray | None = None

    @classmethod
    def fit(cls, texts: Sequence[str]) -> tuple[TextModel, sparse.csr_matrix]:
        """Fit on a corpus; returns the model and the corpus's rows."""
        vectorizer = make_vectorizer(len(texts))
        surface: Counter = Counter()
        vectorizer.tokenizer.surface = surface
        try:
            matrix = vectorizer.fit_transform(texts)
        except ValueError:
            # Every word was a stop word or pruned: fall back to keeping everything.
            surface.clear()
            vectorizer.set_params(min_df=1, max_df=1.0, tokenizer=Tokenizer(stop_words=()))
            vectorizer.tokenizer.surface = surface
            matrix = vectorizer.fit_transform(texts)
        vectorizer.tokenizer.surface = None
        display: dict[str, str] = {}
        best: dict[str, int] = {}
        for (st, word), n in surface.items():
            if n > best.get(st, 0) or (n == best[st] and word < display[st]):
                best[st], display[st] = n, word
        weights = _term_weights(vectorizer.get_feature_names_out())
        vectorizer.idf_ = (vectorizer.idf_ * weights).astype(np.float64)
        matrix = normalize(sparse.csr_matrix(matrix, dtype=np.float32) @ sparse.diags(weights), norm="l2")
        return cls(vectorizer, display, BIGRAM_WEIGHT), sparse.csr_matrix(matrix, dtype=np.float32)

    def transform(self, texts: Sequence[str]) -> sparse.csr_matrix:
        """Rows for texts, in the fitted vocabulary (unknown words are dropped)."""
        return sparse.csr_matrix(self.vectorizer.transform(texts), dtype=np.float32)

    @property
    def terms(self) -> np.ndarray:
        """Column index to term, in words a person would write (the commonest form of each stem)."""
        if self._terms is None:
            names = self.vectorizer.get_feature_names_out()
            self._terms = np.array(
                [" ".join(self.display.get(s, s) for s in name.split(" ")) for name in names], dtype=object
            )
        return self._terms

    def __getstate__(self) -> dict:
        return {"vectorizer": self.vectorizer, "display": self.display, "phrase_weight": self.phrase_weight}

    def __setstate__(self, state: dict) -> None:
        self.vectorizer = state["vectorizer"]
        self.display = state.get("display", {})
        self.phrase_weight = state.get("phrase_weight", 1.0)
        self._terms = None


def _term_weights(names: np.ndarray) -> np.ndarray:
    return np.array([BIGRAM_WEIGHT if " " in name else 1.0 for name in names], dtype=np.float32)


# -- Porter (1980) stemmer ------------------------------------------------------------------------
# The original algorithm, as in https://tartarus.org/martin/PorterStemmer/ ; words arrive lowercased.

_VOWELS = frozenset("aeiou")


def _is_consonant(word: str, i: int) -> bool:
    ch = word[i]
    if ch in _VOWELS:
        return False
    if ch == "y":
        return i == 0 or not _is_consonant(word, i - 1)
    return True


def _measure(stem_: str) -> int:
    """m in [C](VC)^m[V]: how many vowel-consonant runs."""
    m, i, n = 0, 0, len(stem_)
    while i < n and _is_consonant(stem_, i):
        i += 1
    while i < n:
        while i < n and not _is_consonant(stem_, i):
            i += 1
        if i >= n:
            break
        m += 1
        while i < n and _is_consonant(stem_, i):
            i += 1
    return m


def _has_vowel(stem_: str) -> bool:
    return any(not _is_consonant(stem_, i) for i in range(len(stem_)))


def _double_consonant(stem_: str) -> bool:
    return len(stem_) >= 2 and stem_[-1] == stem_[-2] and _is_consonant(stem_, len(stem_) - 1)


def _cvc(stem_: str) -> bool:
    n = len(stem_)
    return (n >= 3 and _is_consonant(stem_, n - 1) and not _is_consonant(stem_, n - 2)
            and _is_consonant(stem_, n - 3) and stem_[-1] not in "wxy")


_STEP2 = (("ational", "ate"), ("tional", "tion"), ("enci", "ence"), ("anci", "ance"), ("izer", "ize"),
          ("abli", "able"), ("alli", "al"), ("entli", "ent"), ("eli", "e"), ("ousli", "ous"),
          ("ization", "ize"), ("ation", "ate"), ("ator", "ate"), ("alism", "al"), ("iveness", "ive"),
          ("fulness", "ful"), ("ousness", "ous"), ("aliti", "al"), ("iviti", "ive"), ("biliti", "ble"))
_STEP3 = (("icate", "ic"), ("ative", ""), ("alize", "al"), ("iciti", "ic"), ("ical", "ic"), ("ful", ""),
          ("ness", ""))
_STEP4 = ("al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment", "ent", "ion", "ou",
          "ism", "ate", "iti", "ous", "ive", "ize")


def _replace(word: str, table) -> str:
    for suffix, replacement in table:
        if word.endswith(suffix):
            if _measure(word[:-len(suffix)]) > 0:
                return word[:-len(suffix)] + replacement
            return word
    return word


@lru_cache(maxsize=262_144)
def stem(word: str) -> str:
    """The Porter stem of a lowercase word ("networks" -> "network", "learning" -> "learn")."""
    if len(word) <= 2:
        return word
    w = word
    # Step 1a: plurals.
    if w.endswith("sses") or w.endswith("ies"):
        w = w[:-2]
    elif w.endswith("s") and not w.endswith("ss"):
        w = w[:-1]
    # Step 1b: -ed, -ing.
    trimmed = False
    if w.endswith("eed"):
        if _measure(w[:-3]) > 0:
            w = w[:-1]
    elif w.endswith("ed") and _has_vowel(w[:-2]):
        w, trimmed = w[:-2], True
    elif w.endswith("ing") and _has_vowel(w[:-3]):
        w, trimmed = w[:-3], True
    if trimmed:
        if w.endswith(("at", "bl", "iz")):
            w += "e"
        elif _double_consonant(w) and w[-1] not in "lsz":
            w = w[:-1]
        elif _measure(w) == 1 and _cvc(w):
            w += "e"
    # Step 1c: y -> i.
    if w.endswith("y") and _has_vowel(w[:-1]):
        w = w[:-1] + "i"
    # Steps 2 and 3: suffixes to simpler suffixes.
    w = _replace(w, _STEP2)
    w = _replace(w, _STEP3)
    # Step 4: drop suffixes of long stems.
    for suffix in _STEP4:
        if w.endswith(suffix):
            base = w[:-len(suffix)]
            if _measure(base) > 1 and (suffix != "ion" or base.endswith(("s", "t"))):
                w = base
            break
    # Step 5: final -e, -ll.
    if w.endswith("e"):
        base = w[:-1]
        m = _measure(base)
        if m > 1 or (m == 1 and not _cvc(base)):
            w = base
    if _measure(w) > 1 and _double_consonant(w) and w.endswith("l"):
        w = w[:-1]
    return w
