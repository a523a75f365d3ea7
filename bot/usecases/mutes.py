"""Muted words: a paper whose title or abstract holds one (case-insensitive, whole words, plurals
included) is never sent to the person, whichever path picks it.

Every path that picks papers asks :func:`muted_filter` (one paper at a time) or :func:`muted_ids` (the
whole corpus at once, for ranking). :func:`muted_ids` finds each muted word's papers through the papers'
full-text index (:meth:`storage.Store.text_holders`), once per word and state of the papers however many
people mute it, and keeps those the muter holds: the index reads text more loosely than the muter (any
punctuation between a phrase's words, accents ignored on SQLite), so it finds all of them and more,
except where a text holds a character the two may read otherwise (:func:`plain`): those few papers are
read once per state and tried with every word, and a word of such characters is found by the old scan.
"""

from __future__ import annotations

import re
import threading
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field

from bot.errors import Missing, NoWords, TooLong, TooMany
from bot.state.context import Context
from storage import Paper
from storage.fulltext import words as index_words

MAX_MUTES = 50
MAX_MUTE_LENGTH = 60

_SIBILANT = ("s", "x", "z", "ch", "sh")
#: Letters and digits without case: folding can't change them, and both indexes read them as letters.
_CASELESS = frozenset({"Ll", "Lo", "Lm", "Nd", "Nl", "No"})
#: ASCII control characters other than tab and line breaks (rare; the indexes may read them otherwise).
_ASCII_UNPLAIN = re.compile(r"[\x00-\x08\x0b-\x0c\x0e-\x1f\x7f]")
#: Papers read at a time while looking for those the index can't serve alone.
_PAGE = 5000

_lock = threading.Lock()


@dataclass
class MuteResult:
    """What a ``mute`` changed: the words newly muted and those muted already (both as stored)."""

    added: list[str] = field(default_factory=list)
    already: list[str] = field(default_factory=list)


def normal(text: str) -> str:
    """A word or phrase as stored and matched: case folded, inner whitespace single spaces."""
    return " ".join(text.casefold().split())


def split_words(text: str) -> list[str]:
    """Comma-separated words or phrases, normalised, empty ones dropped, each once."""
    return list(dict.fromkeys(w for w in (normal(part) for part in text.split(",")) if w))


def _singular(word: str) -> str:
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("es") and word[:-2].endswith(_SIBILANT):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def forms(word: str) -> set[str]:
    """The spellings of one word a mute covers: itself, its singular and its plural(s)."""
    base = _singular(word)
    found = {word, base, base + "s"}
    if base.endswith(_SIBILANT):
        found.add(base + "es")
    if len(base) > 1 and base.endswith("y") and base[-2] not in "aeiou":
        found.add(base[:-1] + "ies")
    return found


def _pattern(term: str) -> str:
    """A regular expression matching ``term`` as whole words, its last word in any of its forms."""
    words = term.split()
    head = [re.escape(w) for w in words[:-1]]
    last = "(?:" + "|".join(re.escape(f) for f in sorted(forms(words[-1]), key=len, reverse=True)) + ")"
    return r"(?<!\w)" + r"[\s\-]+".join([*head, last]) + r"(?!\w)"


def _fragment(term: str) -> str:
    """A piece of text every match of ``term`` contains, for the store's coarse first pass: the longest
    ASCII run of what all its forms share (the store lowercases ASCII only)."""
    words = term.split()
    stems = forms(words[-1])
    shared = min(stems, key=len)
    while not all(s.startswith(shared) for s in stems):
        shared = shared[:-1]
    text = " ".join([*words[:-1], shared]) if shared else " ".join(words[:-1]) or words[-1]
    runs = re.findall(r"[\x00-\x7f]+", text)
    best = max(runs, key=len).strip() if runs else ""
    return best if len(best) >= 2 else text


class Muter:
    """Whether a text holds one of a person's muted words or phrases."""

    def __init__(self, words: list[str]):
        self.words = list(words)
        self._regex = re.compile("|".join(_pattern(w) for w in self.words)) if self.words else None

    def __bool__(self) -> bool:
        return self._regex is not None

    def holds(self, text: str) -> bool:
        """True if ``text`` holds a muted word or phrase."""
        return bool(self._regex and self._regex.search(text.casefold()))

    def fragments(self) -> list[str]:
        """What the store's first pass looks for (see :meth:`storage.Store.papers_containing`)."""
        return [_fragment(w) for w in self.words]


def muter(ctx: Context, user_id: str) -> Muter:
    """The person's muted words, ready to match."""
    return Muter(ctx.store.get_mutes(user_id))


def muted_filter(ctx: Context, user_id: str) -> Callable[[Paper], bool]:
    """A test of one paper: True when its title or abstract holds a word the person muted. For any path
    that picks papers from a list (More like this): drop those it is True for."""
    found = muter(ctx, user_id)
    return lambda paper: found.holds(paper.text)  # the text muted_ids matches, "title. abstract"


def muted_ids(ctx: Context, user_id: str) -> set[str]:
    """Every paper the person's mutes hide (empty, and no query of the papers, without mutes)."""
    found = muter(ctx, user_id)
    if not found:
        return set()
    seq = ctx.store.max_paper_seq()
    hidden: set[str] = set()
    for word in found.words:
        hidden |= hidden_by(ctx, word, seq)
    return hidden


def muted_by(ctx: Context, user_id: str, paper_id: str) -> str | None:
    """The first of the person's muted words (as stored) that hides ``paper_id`` (as :func:`muted_ids`
    finds it), or None."""
    found = muter(ctx, user_id)
    seq = ctx.store.max_paper_seq()
    return next((word for word in found.words if paper_id in hidden_by(ctx, word, seq)), None)


def hidden_by(ctx: Context, word: str, seq: int | None = None) -> frozenset[str]:
    """The papers one muted word or phrase (as stored) hides, with the papers in state ``seq`` (their
    newest change, :meth:`storage.Store.max_paper_seq`; by default now). Looked up once per word and
    state, so a run of digests asks the papers once per word, however many people mute it."""
    if seq is None:
        seq = ctx.store.max_paper_seq()
    cache: dict[str, frozenset[str]] = ctx.engine.memo("muted words", seq, dict)
    with _lock:
        hidden = cache.get(word)
    if hidden is None:
        one = Muter([word])
        if indexable(word):
            candidates = {**ctx.store.text_holders(index_phrases(word)), **_unplain_papers(ctx, seq)}
        else:
            candidates = ctx.store.papers_containing(one.fragments())
        hidden = frozenset(pid for pid, text in candidates.items() if one.holds(text))
        with _lock:
            cache[word] = hidden
    return hidden


def index_phrases(word: str) -> list[str]:
    """What the full-text index is asked for ``word``: each form its muter accepts (the last word's
    singular and plurals), as a phrase. The index cuts at every non-letter and ignores case (and on
    SQLite accents), so the papers holding any of them are all those :meth:`Muter.holds` accepts
    (and more), wherever :func:`plain` holds of the text."""
    words = word.split()
    return [" ".join([*words[:-1], form]) for form in sorted(forms(words[-1]))]


def plain(char: str) -> bool:
    """Whether the full-text index reads ``char`` as the muter does, on both backends: printable ASCII
    or a layout space; else a lowercase or caseless letter or digit that case folding keeps as it is.
    Anything else (a capital, a symbol or space beyond ASCII, a combining mark, "ß" or a ligature that
    folding expands) may be a word's edge to one and inside a word to the other, or fold otherwise."""
    if " " <= char <= "~" or char in "\t\n\r":
        return True
    return (not char.isascii() and unicodedata.category(char) in _CASELESS
            and char.casefold() == char)


def indexable(word: str) -> bool:
    """Whether the index can find every paper holding the muted ``word``: it holds only plain
    characters (see :func:`plain`) and a letter or digit the index reads."""
    return all(plain(c) for c in word) and bool(index_words(word))


def _unplain_papers(ctx: Context, seq: int) -> dict[str, str]:
    """The papers whose text holds a character that isn't :func:`plain`, by id, with their text: for
    these the index may miss a muted word, so each muted word is tried on them all. Read once per state
    of the papers, a page at a time (most papers are plain)."""
    def read() -> dict[str, str]:
        found: dict[str, str] = {}
        after = ""
        while page := ctx.store.paper_texts(after, _PAGE):
            found.update((pid, text) for pid, text in page if not _is_plain(text))
            after = page[-1][0]
        return found

    return ctx.engine.memo("unplain papers", seq, read)


def _is_plain(text: str) -> bool:
    return (text.isascii() and not _ASCII_UNPLAIN.search(text)) or all(plain(c) for c in set(text))


def mute(ctx: Context, user_id: str, text: str) -> MuteResult:
    """Mute comma-separated words or phrases. Raises BadArgument (writing nothing) for none, one too
    long, or too many."""
    words = split_words(text)
    if not words:
        raise Missing("mute")
    for word in words:
        if len(word) > MAX_MUTE_LENGTH:
            raise TooLong("mute", MAX_MUTE_LENGTH)
        if not re.search(r"\w", word):
            raise NoWords("mute", word[:40])
    store = ctx.store
    with store.transaction():
        store.lock_person(user_id)  # the count and the adds: one step per person
        existing = store.get_mutes(user_id)
        new = [w for w in words if w not in existing]
        if len(existing) + len(new) > MAX_MUTES:
            raise TooMany("mutes", MAX_MUTES)
        store.ensure_person(user_id)
        added = store.add_mutes(user_id, new)
    return MuteResult(added, [w for w in words if w not in added])


def unmute(ctx: Context, user_id: str, text: str) -> list[str]:
    """Unmute one word or phrase (and any muted spelling of it: "unmute kittens" unmutes "kitten"), or
    everything with ``all``; returns what was unmuted (maybe none)."""
    word = normal(text)
    if not word:
        raise Missing("unmute")
    with ctx.store.transaction():
        ctx.store.lock_person(user_id)
        if word == "all":
            return ctx.store.remove_all_mutes(user_id)
        same = [w for w in ctx.store.get_mutes(user_id)
                if w == word or (Muter([w]).holds(word) and Muter([word]).holds(w))]
        return [w for w in same if ctx.store.remove_mute(user_id, w)]
