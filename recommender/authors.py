"""Finding papers by who wrote them: a query that names an author ("Bajcsy", "Andrea Bajcsy",
"andrea bajcsy", "A. Bajcsy") finds their papers, accents and case ignored.

A name is named by its surname, with or without given names before it (each the same word or an
initial of it). A surname alone counts only when it is the whole query, so a topic query whose words
happen to include someone's surname ("long context", "field theory") is left to the topic search.
"""

from __future__ import annotations

import re
import unicodedata
from collections import defaultdict
from collections.abc import Iterable, Sequence
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

    def match(self, query: str) -> AuthorMatch | None:
        """The authors ``query`` names and their papers, or None when it names none."""
        words = query.split()
        folded = [fold(word) for word in words]
        for start in range(len(words)):
            for end in range(len(words), start, -1):
                keys = self._named(folded[start:end], whole=start == 0 and end == len(words))
                if keys:
                    return self._result(keys, " ".join(words[:start] + words[end:]))
        return None

    def _named(self, parts: Sequence[list[str]], whole: bool) -> list[tuple[str, ...]]:
        tokens = [token for part in parts for token in part]
        if not tokens or (len(tokens) == 1 and not whole):
            return []
        given, surname = tokens[:-1], tokens[-1]
        return sorted(key for key in self._by_surname.get(surname, ()) if _given_names_fit(given, key[:-1]))

    def _result(self, keys: list[tuple[str, ...]], rest: str) -> AuthorMatch:
        by_name: dict[str, list[str]] = defaultdict(list)
        for key in keys:
            for paper_id in self._papers[key]:
                by_name[paper_id].append(self._shown[key])
        newest_first = sorted(by_name, key=lambda pid: (self._published.get(pid, ""), pid), reverse=True)
        return AuthorMatch([self._shown[key] for key in keys], newest_first, rest, dict(by_name))


def _given_names_fit(asked: list[str], known: tuple[str, ...]) -> bool:
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
