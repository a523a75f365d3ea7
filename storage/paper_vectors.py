"""Each paper's sentence embedding (the optional extra ``paperbot[embeddings]``), on either backend.

A vector is stored once per paper (``paper_vectors``, keyed by paper id) as float32 bytes, with the
model that made it and the paper's change number (``seq``) when it was made: a paper changed since
(merged with another, a newer version) or a vector of another model is "missing" again, and computed
again by whoever holds the embedding job's lease (``bot/state/embedding_option.py``). A paper merged
away gives its vector to the paper kept when that one has none (:func:`storage.merging.write`).

:class:`PaperVectorStore` is mixed into both stores like :class:`storage.preferences.Preferences`: its
statements (qmark placeholders, no literal ``?`` or ``%``) run through the store's dialect.
Nothing here knows what a vector means: bytes in, bytes out.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

from storage.dialect import Shared
from storage.moments import utcnow

#: Papers with no vector of ``model`` made from their current text, oldest change first.
MISSING = (
    "select p.id, p.seq, p.title, p.abstract from papers p"
    " left join paper_vectors v on v.paper_id = p.id"
    " where v.paper_id is null or v.model <> ? or v.seq < p.seq order by p.seq, p.id limit ?"
)
#: A vector is kept only for a paper that still is, with the text it was made from: one merged away
#: or changed meanwhile is left to the next run. A stored vector is replaced only by one no older.
SAVE = (
    "insert into paper_vectors (paper_id, model, seq, vector, computed_at)"
    " select ?, ?, ?, ?, ? where exists (select 1 from papers where id = ? and seq = ?)"
    " on conflict (paper_id) do update set model = excluded.model, seq = excluded.seq,"
    " vector = excluded.vector, computed_at = excluded.computed_at"
    " where excluded.seq >= paper_vectors.seq or excluded.model <> paper_vectors.model"
)
CHUNK = 500


class PaperVectorsStore(Protocol):
    """Papers' embedding vectors, one per model and paper text (shared by every workspace)."""

    def papers_without_vectors(self, model: str, limit: int = 256) -> list[tuple[str, int, str]]:
        """Up to ``limit`` papers lacking a vector of ``model`` for their current text, as (paper id,
        change number, text as ``Paper.text`` builds it), oldest change first."""
        ...

    def save_paper_vectors(self, model: str, rows: Iterable[tuple[str, int, bytes]]) -> int:
        """Store (paper id, the change number it was made at, vector bytes) rows of ``model``, in one
        transaction; a row for a paper merged away or changed since is dropped. How many were stored."""
        ...

    def paper_vectors(self, model: str, ids: Iterable[str]) -> dict[str, bytes]:
        """The stored vectors of ``model`` of these papers, by id (papers without one are left out)."""
        ...

    def count_paper_vectors(self, model: str) -> int:
        """How many papers have a vector of ``model`` (current or not)."""
        ...


class PaperVectorStore(Shared):
    """The paper vectors' part of the store interface (mixed into both stores)."""

    def papers_without_vectors(self, model: str, limit: int = 256) -> list[tuple[str, int, str]]:
        out = []
        for paper_id, seq, title, abstract in self._sql.all(MISSING, [model, int(limit)]):
            title, abstract = title or "", abstract or ""
            out.append((paper_id, int(seq), f"{title}. {abstract}" if title else abstract))
        return out

    def save_paper_vectors(self, model: str, rows: Iterable[tuple[str, int, bytes]]) -> int:
        at = utcnow()
        saved = 0
        with self.transaction():
            for paper_id, seq, vector in rows:
                saved += max(self._sql.run(SAVE, [paper_id, model, int(seq), bytes(vector), at,
                                                   paper_id, int(seq)]), 0)
        return saved

    def paper_vectors(self, model: str, ids: Iterable[str]) -> dict[str, bytes]:
        ids = list(dict.fromkeys(ids))
        found: dict[str, bytes] = {}
        for start in range(0, len(ids), CHUNK):
            chunk = ids[start:start + CHUNK]
            # Only placeholders are interpolated.
            sql = (f"select paper_id, vector from paper_vectors where model = ?"  # noqa: S608
                   f" and paper_id in ({', '.join('?' * len(chunk))})")
            for paper_id, vector in self._sql.all(sql, [model, *chunk]):
                found[paper_id] = bytes(vector)
        return found

    def count_paper_vectors(self, model: str) -> int:
        return int(self._sql.all("select count(*) from paper_vectors where model = ?", [model])[0][0])
