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
from dataclasses import dataclass, replace

from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS, strip_accents_unicode

from recommender.profile import Pick
from recommender.text_model import TOKEN_PATTERN, stem

_WORD = re.compile(r"\w+")
_MODEL_TOKEN = re.compile(TOKEN_PATTERN)
#: What may stand between the two words of a shown phrase: spaces, hyphens, slashes, apostrophes, and
#: a preposition or an article or a number ("models of the robot", "layer 2 networks"). Anything else
#: ends the phrase: "a model. Robots …" and "learn this uncertainty" share the stems of a pair of
#: words, not a phrase a reader would recognise.
_GLUE = r"[\s\-‐‑–/'’]"
_JOIN = re.compile(rf"{_GLUE}*(?:(?:of|the|a|an|for|in|on|to|with|by|\d+){_GLUE}+){{0,2}}", re.IGNORECASE)


@dataclass(frozen=True)
class _Token:
    stem: str
    start: int
    end: int


class PaperWords:
    """One paper's text as the model reads it, able to show a stem term as the paper writes it."""

    def __init__(self, text: str, stop_words: Collection[str] = ENGLISH_STOP_WORDS):
        self.text = text
        tokens = list(_tokens(text, frozenset(stop_words)))
        self.stems = frozenset(t.stem for t in tokens)
        # Each term's first place: (start, end) of its words in the text.
        self._first: dict[str, tuple[int, int]] = {}
        for i, token in enumerate(tokens):
            self._first.setdefault(token.stem, (token.start, token.end))
            if i + 1 < len(tokens):
                after = tokens[i + 1]
                pair = f"{token.stem} {after.stem}"
                if pair not in self._first and _JOIN.fullmatch(text, token.end, after.start):
                    self._first[pair] = (token.start, after.end)
        # Words the paper writes in lower case somewhere: capitals elsewhere are a sentence's or a title's.
        self._lower = {w for w in _WORD.findall(text) if w.islower()}

    def has(self, term: str) -> bool:
        """Whether a stem term ("robot", or the pair "robot model") stands in the paper."""
        return term in self._first

    def where(self, term: str) -> int | None:
        """Where a stem term first stands in the text (None: nowhere)."""
        found = self._first.get(term)
        return found[0] if found else None

    def shown(self, term: str) -> str | None:
        """A stem term in the paper's words at its first place ("model robot" -> "models of robots"),
        or None when the paper has no such words together."""
        found = self._first.get(term)
        if found is None:
            return None
        words = " ".join(self.text[found[0]:found[1]].split())
        return _WORD.sub(lambda m: self._cased(m.group()), words)

    def in_order(self, terms: Iterable[str]) -> list[str]:
        """The terms found in the paper, in its words, in the order they first occur (each once)."""
        placed = sorted({(self._first[t][0], -self._first[t][1], t) for t in terms if t in self._first})
        shown = [self.shown(t) for *_, t in placed]
        return list(dict.fromkeys(s for s in shown if s))

    def _cased(self, word: str) -> str:
        # "Robot" opening a sentence or a title word is "robot"; "GANs", "BERT", "ImageNet" stay.
        if word.lower() in self._lower or word[1:].islower() or len(word) == 1:
            return word.lower()
        return word


def _tokens(text: str, stop_words: frozenset[str]) -> Iterable[_Token]:
    """The model's tokens of ``text`` with where each stands. The model lower-cases and strips accents
    before matching TOKEN_PATTERN; doing so word by word keeps each token's place in the original."""
    for match in _WORD.finditer(text):
        word = strip_accents_unicode(match.group().lower())
        for token in _MODEL_TOKEN.findall(word):
            if token not in stop_words:
                yield _Token(stem(token), match.start(), match.end())


def covers(content: Sequence[str], paper: PaperWords) -> bool:
    """Whether a paper covers an interest whose content words have these stems: at least half of them
    stand in it. (An interest's phrase standing in the paper has all of its words there.)"""
    if not content:
        return False
    return 2 * sum(1 for s in set(content) if s in paper.stems) >= len(set(content))


def worded(pick: Pick, text: str, stop_words: Collection[str] = ENGLISH_STOP_WORDS) -> Pick:
    """The pick with what it claims checked against its paper's ``text`` and said in the paper's words.

    ``topics`` keeps the topics the paper covers (:func:`covers`); one it only touches moves to
    ``partial`` with the words it shares; ``terms`` become the paper's own words for the ranker's best
    ``len(pick.terms)`` terms found there, in the paper's order. A pick with no stems recorded (made
    by hand) is returned as it is.
    """
    if not pick.term_stems and not pick.topic_stems:
        return pick
    paper = PaperWords(text, stop_words)
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
