"""A pick's reason in the paper's own words, and only the interests the paper really covers.

The ranker explains in stems ("model robot" is the pair of stems behind "robot models" in one paper
and "models of robots" in another) and names a followed topic when the paper shares any of its
words. Against the paper's text (what the index was built from: title and abstract), :func:`worded`
keeps the claims that hold and says the rest as it is:

- a topic is claimed only when the paper covers it (:func:`covers`: at least half of its content
  words, by stem); a topic the paper only touches becomes a partial match, with the words it shares;
- every matched term is shown as the paper writes it (its first occurrence whose stems match, a
  phrase only where its words stand together in one clause), in the paper's order, never as a stem.

The text is tokenised as the model tokenises it (lower case, accents stripped, TOKEN_PATTERN, stop
words dropped, Snowball stems), so a stem found here is the stem the ranker saw.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Sequence
from dataclasses import replace
from functools import lru_cache

from recommender.profile import Pick
from recommender.text_model import TOKEN_PATTERN, english_stop_words, stem, strip_accents_unicode

#: Papers' readings kept (see :func:`read`): a morning's digests pick some hundreds of distinct papers
#: (698 for 3,000 people over 100,000 papers), each read for every person it is picked for. A reading
#: holds about 23 kB (a typical abstract's words and places), so this is some 18 MB at most.
READ_KEPT = 768
_WORD = re.compile(r"\w+")
_MODEL_TOKEN = re.compile(TOKEN_PATTERN)
#: What may stand between the two words of a shown phrase: spaces, hyphens, slashes, apostrophes, and
#: a preposition or an article or a number ("models of the robot", "layer 2 networks"). Anything else
#: ends the phrase: "a model. Robots …" and "learn this uncertainty" share the stems of a pair of
#: words, not a phrase a reader would recognise.
_GLUE = r"[\s\-‐‑–/'’]"
_JOIN = re.compile(rf"{_GLUE}*(?:(?:of|the|a|an|for|in|on|to|with|by|\d+){_GLUE}+){{0,2}}", re.IGNORECASE)


class PaperWords:
    """One paper's text as the model reads it, able to show a stem term as the paper writes it."""

    def __init__(self, text: str, stop_words: Collection[str] | None = None):  # None: English's
        self.text = text
        self._tokens = _tokens(text, english_stop_words() if stop_words is None else stop_words)
        # Each single word's first place, (start, end) in the text; pairs are found when asked for.
        self._first: dict[str, tuple[int, int] | None] = {}
        for word, start, end in self._tokens:
            self._first.setdefault(word, (start, end))
        self.stems = frozenset(self._first)
        self._lower: set[str] | None = None

    def _place(self, term: str) -> tuple[int, int] | None:
        if term in self._first:
            return self._first[term]
        found = None
        words = term.split(" ")
        if len(words) == 2 and words[0] in self.stems and words[1] in self.stems:
            tokens = self._tokens
            for (word, start, end), (after, start_after, end_after) in zip(tokens, tokens[1:], strict=False):
                if word == words[0] and after == words[1] and _JOIN.fullmatch(self.text, end, start_after):
                    found = (start, end_after)
                    break
        self._first[term] = found
        return found

    def has(self, term: str) -> bool:
        """Whether a stem term ("robot", or the pair "robot model") stands in the paper."""
        return self._place(term) is not None

    def where(self, term: str) -> int | None:
        """Where a stem term first stands in the text (None: nowhere)."""
        found = self._place(term)
        return found[0] if found else None

    def shown(self, term: str) -> str | None:
        """A stem term in the paper's words at its first place ("model robot" -> "models of robots"),
        or None when the paper has no such words together."""
        found = self._place(term)
        if found is None:
            return None
        words = " ".join(self.text[found[0]:found[1]].split())
        return _WORD.sub(lambda m: self._cased(m.group()), words)

    def in_order(self, terms: Iterable[str]) -> list[str]:
        """The terms found in the paper, in its words, in the order they first occur (each once)."""
        places = {t: place for t in terms if (place := self._place(t)) is not None}
        placed = sorted((start, -end, t) for t, (start, end) in places.items())
        return list(dict.fromkeys(s for *_, t in placed if (s := self.shown(t))))

    def _cased(self, word: str) -> str:
        # "Robot" opening a sentence or a title word is "robot"; "GANs", "BERT", "ImageNet" stay,
        # unless the paper also writes them in lower case.
        if self._lower is None:
            self._lower = {w for w in _WORD.findall(self.text) if w.islower()}
        if word.lower() in self._lower or word[1:].islower() or len(word) == 1:
            return word.lower()
        return word


def _tokens(text: str, stop_words: Collection[str]) -> list[tuple[str, int, int]]:
    """The model's tokens of ``text`` as (stem, start, end) of the word each stands in. The model
    lower-cases and strips accents before matching TOKEN_PATTERN; doing so word by word keeps each
    token's place in the original."""
    lower = text.lower()
    if lower.isascii() and len(lower) == len(text):  # most abstracts: one pass, places unchanged
        return [(stem(m.group()), m.start(), m.end()) for m in _MODEL_TOKEN.finditer(lower)
                if m.group() not in stop_words]
    out: list[tuple[str, int, int]] = []
    for match in _WORD.finditer(text):
        word = match.group().lower()
        if not word.isascii():
            word = strip_accents_unicode(word)  # as the model does
        if word in stop_words:
            continue
        tokens = [word] if _MODEL_TOKEN.fullmatch(word) else _MODEL_TOKEN.findall(word)
        out.extend((stem(token), match.start(), match.end()) for token in tokens if token not in stop_words)
    return out


@lru_cache(maxsize=READ_KEPT)
def read(text: str, stop_words: frozenset[str] | None = None) -> PaperWords:
    """:class:`PaperWords` of a text, remembered: a morning's digests pick the same new papers for many
    people, and reading one costs about half a millisecond."""
    return PaperWords(text, stop_words)


def covers(content: Sequence[str], paper: PaperWords) -> bool:
    """Whether a paper covers an interest whose content words have these stems: at least half of them
    stand in it. (An interest's phrase standing in the paper has all of its words there.)"""
    if not content:
        return False
    return 2 * sum(1 for s in set(content) if s in paper.stems) >= len(set(content))


def worded(pick: Pick, text: str, stop_words: Collection[str] | None = None) -> Pick:
    """The pick with what it claims checked against its paper's ``text`` and said in the paper's words.

    ``topics`` keeps the topics the paper covers (:func:`covers`); one it only touches moves to
    ``partial`` with the words it shares; ``terms`` become the paper's own words for the ranker's best
    ``len(pick.terms)`` terms found there, in the paper's order. A pick with no stems recorded (made
    by hand) is returned as it is.
    """
    if not pick.term_stems and not pick.topic_stems:
        return pick
    paper = read(text, frozenset(english_stop_words() if stop_words is None else stop_words))
    topics, partial = [], []
    for topic in pick.topics:
        content = pick.topic_stems.get(topic)
        if content is None:  # nothing recorded to check it by: as the ranker said
            topics.append(topic)
        elif covers(content, paper):
            topics.append(topic)
        elif shared := paper.in_order(s for s in content if paper.has(s)):
            partial.append((topic, shared))
    return replace(pick, topics=topics, partial=partial,
                   terms=paper.in_order(_distinct(pick.term_stems, paper, len(pick.terms))))


def as_written(word: str, text: str) -> str:
    """``word`` (one word a search matched exactly, in any case: "meco") as ``text`` first writes it
    ("MeCo"); as it is when the text doesn't hold it as a whole word, or for anything but one word."""
    if not word or not word.replace("-", "").isalnum():
        return word
    found = re.search(rf"(?<![\w-]){re.escape(word)}(?![\w-])", text, flags=re.IGNORECASE)
    return found.group(0) if found else word


def _distinct(stems: Sequence[str], paper: PaperWords, n: int) -> list[str]:
    """The first ``n`` stem terms the paper has, skipping a word already said in a chosen phrase."""
    chosen: list[str] = []
    said: set[str] = set()
    for term in stems:
        words = set(term.split(" "))
        if words & said or not paper.has(term):
            continue
        chosen.append(term)
        said |= words
        if len(chosen) == n:
            break
    return chosen
