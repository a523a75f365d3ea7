"""The papers' full-text index, on either backend: every word of every paper's title, abstract and
authors, however rare, found whatever its case, alone or as part of a phrase.

The index itself (``paper_text``) is the database's own work, kept by triggers on ``papers`` (see the
step ``m019_fulltext`` in :mod:`storage.schema_steps`): an ingest, a merge, a deletion or a copy keeps
it current without a word here. What differs between SQLite's FTS5 and PostgreSQL's ``tsvector`` is
the one hook :meth:`storage.dialect.Dialect.text_matches`; the statements around it are written once.

Queries never reach the index as its own syntax: text is cut into words here (letters and digits,
lowercased), and each phrase goes to the backend as quoted data, so ``NEAR(``, ``"``, ``*``,
``AND OR``, ``:*`` or ``!`` are punctuation and words like any other.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from storage.dialect import Shared

#: What a word is to the index: a run of letters and digits (FTS5's unicode61 and PostgreSQL's parser
#: both cut at everything else).
_WORD = re.compile(r"[^\W_]+")
#: A quoted phrase in a query: straight or typographic double quotes (Slack turns " into “ ”).
_QUOTED = re.compile(r"[\"“”„]([^\"“”„]*)[\"“”„]")
#: Phrases in one query, at most: a longer query is cut (a search box never needs more).
MAX_PHRASES = 32

RANKED = "select paper_id, score from {matches} order by score desc, paper_id limit ?"
COUNTED = "select count(*) from (select paper_id from {matches} limit ?) c"
#: Papers in one page of :meth:`FullText.paper_texts`.
PAGE = 5000


def words(text: str) -> tuple[str, ...]:
    """The index's words of ``text``, lowercased, in order (``"MeCo-2!"`` → ``("meco", "2")``)."""
    return tuple(w.casefold() for w in _WORD.findall(text))


def paper_text(title: str | None, abstract: str | None) -> str:
    """What muted words are matched against: ``"title. abstract"`` (the abstract alone without a title)."""
    return f"{title}. {abstract}" if title else (abstract or "")


@dataclass(frozen=True)
class TextQuery:
    """A search as the index reads it: ``phrases`` (each a run of words, in double quotes in the query)
    and the loose ``words`` around them, as typed (case kept, for a reason to name them)."""

    phrases: tuple[tuple[str, ...], ...]
    words: tuple[str, ...]


def parse(query: str) -> TextQuery:
    """A query's quoted phrases and loose words. A quote left open is punctuation; a "phrase" of one
    word is that word, quoted or not."""
    phrases: list[tuple[str, ...]] = []
    for quoted in _QUOTED.findall(query):
        phrase = words(quoted)
        if len(phrase) > 1 and phrase not in phrases:
            phrases.append(phrase)
    loose = _QUOTED.sub(lambda m: " " + (m.group(1) if len(words(m.group(1))) == 1 else "") + " ", query)
    typed = list(dict.fromkeys(_WORD.findall(loose)))
    return TextQuery(tuple(phrases[:MAX_PHRASES]), tuple(typed[:MAX_PHRASES]))


class FullTextStore(Protocol):
    """Every word of every paper (shared by every workspace), kept current by the database itself."""

    def search_text(self, phrases: Sequence[str], limit: int, every: bool = True) -> list[tuple[str, float]]:
        """Up to ``limit`` papers whose title, abstract or authors hold each of ``phrases`` (with
        ``every``; else any of them), best first, as (paper id, score) pairs, higher scores better (BM25
        on SQLite, ``ts_rank`` on PostgreSQL: comparable within one answer only). A phrase is its words
        in order, case and punctuation ignored (``"MeCo"`` and ``"meco"`` alike; ``"reward model"`` as a
        phrase); any text is safe, none is the index's syntax. Every word counts, however rare: the
        index is kept current on every paper written, merged or deleted."""
        ...

    def count_text(self, phrases: Sequence[str], at_most: int, every: bool = True) -> int:
        """How many papers :meth:`search_text` would find for ``phrases``, counted up to ``at_most``
        (cheap whatever the real number: enough to tell a rare word from a common one)."""
        ...

    def text_holders(self, phrases: Sequence[str]) -> dict[str, str]:
        """Title and abstract (``"title. abstract"``) of every paper whose title, abstract or authors
        hold any of ``phrases`` (as :meth:`search_text` reads them), by id, with no limit: the
        candidates for a muted word."""
        ...

    def paper_texts(self, after: str = "", limit: int = 5000) -> list[tuple[str, str]]:
        """Up to ``limit`` papers with an id after ``after``, in id order, as (id, ``"title. abstract"``):
        every paper's text, a page at a time."""
        ...


class FullText(Shared):
    """Reads of the papers' full-text index (see the module)."""

    def _phrases(self, phrases: Sequence[str]) -> list[tuple[str, ...]]:
        cut = [words(p) for p in phrases]
        return list(dict.fromkeys(p for p in cut if p))[:MAX_PHRASES]

    def search_text(self, phrases: Sequence[str], limit: int, every: bool = True) -> list[tuple[str, float]]:
        found = self._phrases(phrases)
        if not found or limit <= 0:
            return []
        matches, args = self._sql.text_matches(found, every)
        # ``matches`` is the dialect's own relation; the phrases are its arguments.
        return [(pid, float(score)) for pid, score in
                self._sql.all(RANKED.format(matches=matches), [*args, int(limit)])]

    def count_text(self, phrases: Sequence[str], at_most: int, every: bool = True) -> int:
        found = self._phrases(phrases)
        if not found or at_most <= 0:
            return 0
        matches, args = self._sql.text_matches(found, every)
        return int(self._sql.all(COUNTED.format(matches=matches), [*args, int(at_most)])[0][0])

    def text_holders(self, phrases: Sequence[str]) -> dict[str, str]:
        found = self._phrases(phrases)
        if not found:
            return {}
        matches, args = self._sql.text_matches(found, False)
        # ``matches`` is the dialect's own relation; the phrases are its arguments.
        rows = self._sql.all("select id, coalesce(title, ''), abstract from papers"  # noqa: S608
                             f" where id in (select paper_id from {matches})", args)
        return {pid: paper_text(title, abstract) for pid, title, abstract in rows}

    def paper_texts(self, after: str = "", limit: int = PAGE) -> list[tuple[str, str]]:
        if limit <= 0:
            return []
        rows = self._sql.all("select id, coalesce(title, ''), abstract from papers where id > ?"
                             " order by id limit ?", [after, int(limit)])
        return [(pid, paper_text(title, abstract)) for pid, title, abstract in rows]
