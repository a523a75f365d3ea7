"""What every use case is handed: the store, the live index and the few settings they need."""

from __future__ import annotations

import copy
import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from bot.state.engine import Colleagues, Engine
from recommender import PaperIndex
from storage import open_store

if TYPE_CHECKING:
    from bot.state.embedding_option import Embeddings
    from bot.summaries.client import Summarizer
    from recommender.embeddings import EmbeddingBlend
    from storage import Store


@dataclass
class Context:
    """The application's state for one process: pass it to the use cases in :mod:`bot.usecases`."""

    store: Store
    engine: Engine
    digest_size: int = 5
    #: The embedding option's paper vectors (PAPERBOT_EMBEDDINGS=1); None: TF-IDF alone.
    embeddings: Embeddings | None = None
    #: The lab's model that summarizes papers about to be shown (PAPERBOT_LLM_URL); None: highlights only.
    summarizer: Summarizer | None = None
    colleagues: Colleagues = field(init=False, repr=False)
    #: Digests this process claimed and could not give back while the database was away: (user id, local
    #: date, owner), given back by the next run (bot.usecases.digests.send.give_back_unreturned).
    unreturned_digests: set[tuple[str, str, str]] = field(default_factory=set, init=False, repr=False)
    unreturned_lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)
    _views: dict[str, Context] = field(default_factory=dict, init=False, repr=False)
    _views_lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)

    def __post_init__(self) -> None:
        self.colleagues = Colleagues(self.store)

    @property
    def workspace(self) -> str:
        """The workspace this context's people belong to ("" before any is named)."""
        return self.store.workspace

    def for_workspace(self, ws: str) -> Context:
        """The context of workspace ``ws``: the same papers and index, but its own people, feedback and
        colleagues (one workspace's likes never shape another's ranking). Kept, so each workspace's
        colleagues are built once per process."""
        if ws == self.workspace:
            return self
        with self._views_lock:
            view = self._views.get(ws)
            if view is None:
                view = self._views[ws] = Context(self.store.for_workspace(ws), self.engine, self.digest_size,
                                                 self.embeddings, self.summarizer)
            return view

    def reading(self, user_id: str) -> Context:
        """This context with one person's rows read at once (:meth:`storage.Store.person_view`), for
        choosing their papers, which reads those rows many times and writes none of them."""
        view = copy.copy(self)
        view.store = self.store.person_view(user_id)
        return view

    def blend(self, index: PaperIndex) -> EmbeddingBlend | None:
        """What the ranker blends into TF-IDF over ``index``: the embedding option's, or None."""
        return self.embeddings.blend(index) if self.embeddings is not None else None

    @classmethod
    def open(cls, db_path: str, digest_size: int = 5, background_refit: bool = False,
             embeddings: bool = False, summarizer: Summarizer | None = None) -> Context:
        """Open (creating and migrating as needed) the database at ``db_path``: a SQLite file, or a
        ``postgresql://`` URL (see :func:`storage.open_store`). With ``embeddings`` (PAPERBOT_EMBEDDINGS;
        needs paperbot[embeddings]) paper vectors are blended in, computed in the background with
        ``background_refit``. ``summarizer``: the lab's model, when it is set."""
        store = open_store(db_path)
        vectors = None
        if embeddings:
            from bot.state.embedding_option import Embeddings

            vectors = Embeddings(store, background=background_refit)
        return cls(store, Engine(store, background_refit=background_refit), digest_size, vectors, summarizer)

    def close(self) -> None:
        """Release the store's connections: this thread's SQLite connection, or a PostgreSQL store's
        whole pool (its connections would otherwise stay open on the server until the process ends)."""
        self.store.dispose()
