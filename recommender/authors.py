"""Finding papers by who wrote them: a query that names an author ("Bajcsy", "Andrea Bajcsy",
"andrea bajcsy", "A. Bajcsy") finds their papers, accents and case ignored.

A name is named by its surname, with or without given names before it (each the same word or an
initial of it). A surname alone inside a longer query ("bajcsy safety") counts only when it is no word
the papers' text uses (the caller says which are: ``is_word``), so a topic query whose words happen to
include someone's surname ("long context", "field theory") is left to the topic search; such a match
is ``bare``, and only those of the author's papers that fit the query's other words rank first.
"""

from __future__ import annotations

import re
import unicodedata
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

_TOKEN = re.compile(r"\w+")


def fold(text: str) -> list[str]:
    """The words of ``text`` without accents or case: "Ándrea  Bajcsy-Smith" → andrea, bajcsy, smith."""
    decomposed = unicodedata.normalize("NFKD", text)
    bare = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return _TOKEN.findall(bare.casefold())


@dataclass
class AuthorMatch:
    """What a query named: the authors (as first written), their papers newest first, and the query's
    other words (what to rank those papers by), "" when the query was only the name."""

    names: list[str]
    paper_ids: list[str]
    rest: str
    by_name: dict[str, list[str]] = field(default_factory=dict)  # paper id -> the matched names it has
    bare: bool = False  # a surname alone, among other words of the query


class AuthorIndex:
    """Papers by their authors' folded names, kept in memory; :meth:`add` again replaces a paper's."""

    def __init__(self) -> None:
        self._papers: dict[tuple[str, ...], set[str]] = defaultdict(set)
        self._by_surname: dict[str, set[tuple[str, ...]]] = defaultdict(set)
        self._shown: dict[tuple[str, ...], str] = {}
        self._of_paper: dict[str, list[tuple[str, ...]]] = {}
        self._published: dict[str, str] = {}

    def __len__(self) -> int:
        return len(self._of_paper)

    def add(self, paper_id: str, authors: Iterable[str], published: str | None = None) -> None:
        """Index (or re-index) one paper's authors."""
        self.remove(paper_id)
        keys = []
        for name in authors:
            key = tuple(fold(name))
            if not key:
                continue
            keys.append(key)
            self._papers[key].add(paper_id)
            self._by_surname[key[-1]].add(key)
            self._shown.setdefault(key, " ".join(name.split()))
        self._of_paper[paper_id] = keys
        self._published[paper_id] = published or ""

    def remove(self, paper_id: str) -> None:
        """Forget one paper's authors (nothing happens for an unknown paper)."""
        for key in self._of_paper.pop(paper_id, []):
            papers = self._papers[key]
            papers.discard(paper_id)
            if not papers:
                del self._papers[key]
                self._by_surname[key[-1]].discard(key)
                self._shown.pop(key, None)
        self._published.pop(paper_id, None)

    def match(self, query: str, is_word: Callable[[str], bool] | None = None) -> AuthorMatch | None:
        """The authors ``query`` names and their papers, or None when it names none. ``is_word``: whether
        a (folded) word is one the papers' text uses; without it a surname alone must be the whole query."""
        words = query.split()
        folded = [fold(word) for word in words]
        bare_match = None
        for start in range(len(words)):
            for end in range(len(words), start, -1):
                tokens = [token for part in folded[start:end] for token in part]
                whole = start == 0 and end == len(words)
                bare = len(tokens) == 1 and not whole
                if bare and (bare_match is not None or is_word is None or is_word(tokens[0])):
                    continue
                keys = self._named(tokens)
                if not keys:
                    continue
                found = self._result(keys, " ".join(words[:start] + words[end:]), bare)
                if not bare:
                    return found  # a name of several words, or the whole query, wins over a bare surname
                bare_match = found
        return bare_match

    def _named(self, tokens: Sequence[str]) -> list[tuple[str, ...]]:
        if not tokens:
            return []
        given, surname = tokens[:-1], tokens[-1]
        return sorted(key for key in self._by_surname.get(surname, ()) if _given_names_fit(given, key[:-1]))

    def _result(self, keys: list[tuple[str, ...]], rest: str, bare: bool = False) -> AuthorMatch:
        by_name: dict[str, list[str]] = defaultdict(list)
        for key in keys:
            for paper_id in self._papers[key]:
                by_name[paper_id].append(self._shown[key])
        newest_first = sorted(by_name, key=lambda pid: (self._published.get(pid, ""), pid), reverse=True)
        return AuthorMatch([self._shown[key] for key in keys], newest_first, rest, dict(by_name), bare)


def _given_names_fit(asked: Sequence[str], known: tuple[str, ...]) -> bool:
    """Whether the given names of a query ("andrea", "a") fit those of a name, in order: each the same
    word, or an initial of it either way ("A. Bajcsy" written, "Andrea Bajcsy" asked)."""
    position = 0
    for word in asked:
        while position < len(known) and not _same_given(word, known[position]):
            position += 1
        if position == len(known):
            return False
        position += 1
    return True


def _same_given(a: str, b: str) -> bool:
    return a == b or ((len(a) == 1 or len(b) == 1) and a[0] == b[0])
