"""Muted words: a paper whose title or abstract holds one (case-insensitive, whole words, plurals
included) is never sent to the person, whichever path picks it.

Every path that picks papers asks :func:`muted_filter` (one paper at a time) or :func:`muted_ids` (the
whole corpus at once, for ranking).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from bot.errors import BadArgument
from bot.state.context import Context
from storage import Paper

MAX_MUTES = 50
MAX_MUTE_LENGTH = 60

_SIBILANT = ("s", "x", "z", "ch", "sh")


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
    candidates = ctx.store.papers_containing(found.fragments())
    return {pid for pid, text in candidates.items() if found.holds(text)}


def mute(ctx: Context, user_id: str, text: str) -> MuteResult:
    """Mute comma-separated words or phrases. Raises BadArgument (writing nothing) for none, one too
    long, or too many."""
    words = split_words(text)
    if not words:
        raise BadArgument("Say what to mute, e.g. `/papers mute blockchain, large language model`")
    for word in words:
        if len(word) > MAX_MUTE_LENGTH:
            raise BadArgument(f"A muted word or phrase can be at most {MAX_MUTE_LENGTH} characters long")
        if not re.search(r"\w", word):
            raise BadArgument(f"“{word[:40]}” has no letters or digits to mute; "
                              "try `/papers mute blockchain`")
    store = ctx.store
    with store.transaction():
        store.lock_person(user_id)  # the count and the adds: one step per person
        existing = store.get_mutes(user_id)
        new = [w for w in words if w not in existing]
        if len(existing) + len(new) > MAX_MUTES:
            raise BadArgument(f"You can mute at most {MAX_MUTES} words; `/papers unmute` some first")
        store.ensure_person(user_id)
        added = store.add_mutes(user_id, new)
    return MuteResult(added, [w for w in words if w not in added])


def unmute(ctx: Context, user_id: str, text: str) -> list[str]:
    """Unmute one word or phrase (and any muted spelling of it: "unmute kittens" unmutes "kitten"), or
    everything with ``all``; returns what was unmuted (maybe none)."""
    word = normal(text)
    if not word:
        raise BadArgument("Say which word to unmute, or `/papers unmute all`")
    with ctx.store.transaction():
        ctx.store.lock_person(user_id)
        if word == "all":
            return ctx.store.remove_all_mutes(user_id)
        same = [w for w in ctx.store.get_mutes(user_id)
                if w == word or (Muter([w]).holds(word) and Muter([word]).holds(w))]
        return [w for w in same if ctx.store.remove_mute(user_id, w)]
