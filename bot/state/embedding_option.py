"""The embedding option in the bot (``PAPERBOT_EMBEDDINGS=1`` with ``paperbot[embeddings]`` installed):
paper vectors computed once and stored, then read into memory and blended into every ranking.

- **Computed once**: papers without a vector of the current model (new, or changed since theirs was
  made) are encoded in batches by whoever holds the job lease ``embed-papers`` (``storage.leases``, kind
  JOB): the database decides which process does it, never process memory. ``paperbot ingest`` runs it at
  the end; the running bot starts it in a background thread when it sees papers without vectors.
- **Never per request**: a request reads the vectors it lacks from the store (at most every
  ``refresh_every`` seconds) into :class:`recommender.embeddings.PaperVectors`; only the person's topics
  are encoded when ranking (a few words; cached).
"""

from __future__ import annotations

import functools
import logging
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

import numpy as np

from bot.state.jobs import claim_job
from bot.state.owner import owner_id
from recommender import PaperIndex
from recommender.embeddings import EmbeddingBlend, EmbeddingWeights, PaperVectors
from storage import StorageError
from storage.leases import JOB
from storage.moments import iso_utc

if TYPE_CHECKING:
    from storage import Store

log = logging.getLogger(__name__)

EMBED_JOB = "embed-papers"  # the lease of the embedding job, shared by every process
EMBED_LEASE = timedelta(minutes=10)  # renewed after every batch: a worker that hangs is taken over
BATCH = 256
TOPIC_CACHE = 4096
DEFAULT_WEIGHTS = EmbeddingWeights()


class Embeddings:
    """Paper vectors for one process, and the blend the ranker is given. Thread-safe.

    ``encode`` turns texts into unit float32 rows (:class:`bot.state.embedding_model.Encoder` by default,
    loaded on first use); ``model`` names it in the store, so vectors of another model are made again.
    """

    def __init__(self, store: Store, encode: Callable[[list[str]], np.ndarray] | None = None,
                 model: str | None = None, dimensions: int | None = None,
                 weights: EmbeddingWeights = DEFAULT_WEIGHTS, refresh_every: float = 15.0,
                 background: bool = False):
        from bot.state import embedding_model

        self.store = store
        self.encode = encode if encode is not None else embedding_model.encoder()
        self.model = model or embedding_model.MODEL_NAME
        self.vectors = PaperVectors(dimensions or embedding_model.DIMENSIONS)
        self.weights = weights
        self.refresh_every = refresh_every
        self.background = background
        self._lock = threading.Lock()
        self._checked = float("-inf")
        self._working = False
        self._topic = functools.lru_cache(maxsize=TOPIC_CACHE)(self._encode_one)

    def _encode_one(self, text: str) -> bytes:
        return np.asarray(self.encode([text]), dtype=np.float32)[0].tobytes()

    def _encode_topics(self, texts: list[str]) -> np.ndarray:
        return np.stack([np.frombuffer(self._topic(t), dtype=np.float32) for t in texts])

    def blend(self, index: PaperIndex) -> EmbeddingBlend:
        """The blend for rankings over ``index``, with every stored vector of its papers loaded."""
        self.refresh(index)
        return EmbeddingBlend(self.vectors, self._encode_topics, self.weights)

    def refresh(self, index: PaperIndex, force: bool = False) -> None:
        """Read the stored vectors of the index's papers not yet in memory (at most every
        ``refresh_every`` seconds); in the bot, start the job for papers that have none."""
        with self._lock:
            if not force and time.monotonic() - self._checked < self.refresh_every:
                return
            self._checked = time.monotonic()
            missing = self.vectors.missing(index.ids)
            if missing:
                self._load(missing)
            left = len(self.vectors.missing(index.ids))
        if left and self.background:
            self._compute_in_background()

    def _load(self, ids: list[str]) -> None:
        found = self.store.paper_vectors(self.model, ids)
        if found:
            ids = list(found)
            self.vectors.put(ids, np.stack([np.frombuffer(found[i], dtype=np.float32) for i in ids]))

    def compute_missing(self, owner: str | None = None, max_papers: int | None = None) -> int:
        """Encode and store the vectors of every paper lacking one, holding the job lease; returns how
        many were stored (0 when another process holds the lease: it is doing them)."""
        owner = owner or owner_id()
        if not claim_job(self.store, EMBED_JOB, owner, EMBED_LEASE):
            log.debug("another process is computing paper vectors")
            return 0
        done, error = 0, None
        try:
            while max_papers is None or done < max_papers:
                limit = BATCH if max_papers is None else min(BATCH, max_papers - done)
                todo = self.store.papers_without_vectors(self.model, limit)
                if not todo:
                    break
                vectors = np.asarray(self.encode([text for _, _, text in todo]), dtype=np.float32)
                saved = self.store.save_paper_vectors(self.model, [
                    (pid, seq, v.tobytes()) for (pid, seq, _), v in zip(todo, vectors, strict=True)])
                done += len(todo)
                until = iso_utc(datetime.now(UTC) + EMBED_LEASE)
                if not self.store.renew_lease(JOB, (EMBED_JOB,), owner, until):
                    log.warning("lost the lease of %s; another process goes on with it", EMBED_JOB)
                    return done
                if saved < len(todo):  # some changed or merged meanwhile: asked for again next batch
                    log.debug("%d of %d paper vectors were stale when saved", len(todo) - saved, len(todo))
            log.info("stored %d paper vectors", done)
        except Exception as exc:
            error = type(exc).__name__
            raise
        finally:
            now = iso_utc(datetime.now(UTC))
            try:
                self.store.finish_lease(JOB, (EMBED_JOB,), owner, "failed" if error else "done", now,
                                        error=error, again_at=now)
            except StorageError as exc:
                log.warning("could not finish the %s lease (%s); it runs out by itself", EMBED_JOB, exc)
        return done

    def _compute_in_background(self) -> None:
        with self._lock:
            if self._working:
                return
            self._working = True

        def work() -> None:
            try:
                self.compute_missing()
                self._checked = float("-inf")  # read what was stored at the next request
            except StorageError as exc:
                log.warning("computing paper vectors failed (%s); the next request tries again", exc)
            except Exception:
                log.exception("computing paper vectors failed; the next request tries again")
            finally:
                self.store.close()  # this thread's connection (SQLite)
                self._working = False

        threading.Thread(target=work, name="paperbot-embed", daemon=True).start()
