"""Each process's :class:`~recommender.authors.AuthorIndex` of the stored papers, kept current the way
the paper index is: the papers changed since it last looked are folded in when a search asks.

Papers are shared by every workspace, so one index per engine (per process) serves all of them.
"""

from __future__ import annotations

import threading
import weakref
from typing import TYPE_CHECKING

from bot.state.engine import Engine
from bot.text.tex import tex_to_text
from recommender.authors import AuthorIndex

if TYPE_CHECKING:
    from storage import Store


class AuthorDirectory:
    """The authors of one store's papers. Thread-safe."""

    def __init__(self, store: Store):
        self.store = store
        self._lock = threading.Lock()
        self._index = AuthorIndex()
        self._seq = 0  # newest paper change folded in

    def current(self) -> AuthorIndex:
        """The index, with every paper stored until now in it (one read when nothing changed)."""
        with self._lock:
            changed = list(self.store.papers_changed_since(self._seq))
            # Read after the changes, as the paper index does: a copy merged into another paper is
            # no paper of its own any more (its id would find the merged paper a second time).
            for paper_id in self.store.papers_merged_since(self._seq):
                self._index.remove(paper_id)
            for seq, paper in changed:
                # Names as shown (TeX accents rendered), so "Gödel" finds "G\"odel".
                self._index.add(paper.id, [tex_to_text(name) for name in paper.authors], paper.published)
                self._seq = seq
            return self._index


_directories: weakref.WeakKeyDictionary[Engine, AuthorDirectory] = weakref.WeakKeyDictionary()
_directories_lock = threading.Lock()


def authors_of(engine: Engine) -> AuthorIndex:
    """The current author index of the papers ``engine`` indexes (built once per engine, then kept)."""
    with _directories_lock:
        directory = _directories.get(engine)
        if directory is None:
            directory = _directories[engine] = AuthorDirectory(engine.store)
    return directory.current()
