"""The live paper index: loaded from the store, saved back, and kept current as papers arrive.

A fitted model is saved in the store and reused; it is never refitted per request. A request that
finds the index more than ``refresh_every`` seconds old pulls in papers added since (transformed with
the current vocabulary, grown by the words it has never seen), so a running bot sees new papers, and
can search and match their new words, within a minute. Once enough of the corpus is new, the
vocabulary is refitted: at once when asked, or in a background thread in the bot. A background refit
is claimed work (a lease, ``storage.leases``): one process refits and saves, the others load the saved
model at their next refresh.
"""

from __future__ import annotations

import contextlib
import logging
import pickle
import threading
import time
from collections.abc import Callable, Hashable, Iterator
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, TypeVar

from bot.state.jobs import claim_job
from bot.state.owner import owner_id
from recommender import Community, PaperIndex
from recommender.text_model import TextModel
from storage import StorageError
from storage.leases import JOB
from storage.moments import iso_utc

if TYPE_CHECKING:
    from storage import Store

log = logging.getLogger(__name__)

ARTIFACT = "paper-index"
REFIT_JOB = "refit-paper-index"  # the lease of the background refit, shared by every process
REFIT_LEASE = timedelta(minutes=30)  # longer than any fit takes: a refitter that hangs is taken over


T = TypeVar("T")
MEMOS_KEPT = 8  # per kind: a few days' runs, or a test's few databases


class Engine:
    """Owns the in-memory :class:`PaperIndex` for one process. Thread-safe."""

    def __init__(self, store: Store, refresh_every: float = 15.0, background_refit: bool = False,
                 clock: Callable[[], float] = time.monotonic):
        self.store = store
        self.refresh_every = refresh_every
        self.clock = clock  # seconds, for ``refresh_every`` only: a test moves it instead of sleeping
        self.background_refit = background_refit
        self._lock = threading.RLock()
        self._index: PaperIndex | None = None
        self._seq = 0  # newest paper change folded into the index
        self._version = 0  # artifact version the index came from or was saved as
        self._checked = float("-inf")
        self._refitting = False
        self._memos: dict[str, dict[Hashable, object]] = {}
        self._memo_lock = threading.Lock()

    def memo(self, kind: str, key: Hashable, make: Callable[[], T]) -> T:
        """``make()``, kept for ``key`` among the last few of ``kind``: for what a run of digests reads
        once rather than once a person (the recent papers' authors, muted words). Per engine, that is
        per process and database: a path and a newest change could also be another database's, emptied
        and filled again at the same address. Two threads may both make it once; either result is kept."""
        with self._memo_lock:
            kept = self._memos.setdefault(kind, {})
            if key in kept:
                return kept[key]  # type: ignore[return-value]
        value = make()
        with self._memo_lock:
            if len(kept) >= MEMOS_KEPT:
                kept.clear()
            kept[key] = value
        return value

    @property
    def loaded(self) -> bool:
        """Whether an index is in memory (none while there are no papers, or before the first use)."""
        return self._index is not None

    @contextlib.contextmanager
    def index(self) -> Iterator[PaperIndex | None]:
        """The current index, fresh to within ``refresh_every``; None while there are no papers."""
        with self._lock:
            if self.clock() - self._checked >= self.refresh_every:
                self.refresh()
            yield self._index

    def refresh(self, must_save: bool = False) -> None:
        """Load a newer saved index if another process made one, then fold in changed papers.

        A refit that can't be saved (a full disk, say) is still served from memory; it is logged, or
        with ``must_save`` raised as the :class:`~storage.StorageError` after the index is in place.
        """
        with self._lock:
            checked, self._checked = self._checked, self.clock()
            try:
                self._refresh(must_save)
            except BaseException:
                # Not fresh after all: the next use tries again, rather than serving no index for
                # ``refresh_every`` (which users would be told is "no papers yet").
                self._checked = checked
                raise

    def _refresh(self, must_save: bool) -> None:
        """:meth:`refresh`, under its lock."""
        saved_version = self.store.artifact_version(ARTIFACT)
        if saved_version > self._version:
            self._load()
        if self._index is None:
            if self.store.count_papers():
                self.rebuild(must_save)
            return
        changed = list(self.store.papers_changed_since(self._seq))
        # Read after the changes: a paper merged away is named with a change number no lower than
        # the paper it went into, so none is missed.
        merged_away = self.store.papers_merged_since(self._seq)
        if merged_away:
            self._index.remove(merged_away)
        if changed:
            # New words in them get columns here (the vocabulary grows): searchable now, not at the refit.
            width = self._index.matrix.shape[1]
            self._index.add([p.id for _, p in changed], [p.text for _, p in changed])
            self._seq = changed[-1][0]
            log.info("indexed %d new or changed papers (%d new words)", len(changed),
                     self._index.matrix.shape[1] - width)
        if self._index.needs_refit():
            if self.background_refit:
                self._refit_in_background()
            else:
                self.rebuild(must_save)

    def rebuild(self, must_save: bool = False) -> None:
        """Fit a new model on every stored paper and save it (see :meth:`refresh` for ``must_save``)."""
        with self._lock:
            fitted = self._fit_from_store()
            if fitted is not None:
                self._install(*fitted, must_save=must_save)

    def _fit_from_store(self) -> tuple[PaperIndex, int] | None:
        seq = self.store.max_paper_seq()
        papers = list(self.store.papers_changed_since(0))
        if not papers:
            return None
        # Imported here: `paperbot run` chooses the metrics' multiprocess directory after importing this.
        from bot.metrics import refitting

        with refitting():
            return PaperIndex.build([p.id for _, p in papers], [p.text for _, p in papers]), seq

    def _install(self, index: PaperIndex, seq: int, must_save: bool = False) -> None:
        self._index, self._seq = index, seq
        self._checked = self.clock()
        payload = pickle.dumps({"seq": seq, "index": index.dumps()}, protocol=pickle.HIGHEST_PROTOCOL)
        try:
            self._version = self.store.save_artifact(ARTIFACT, payload)
        except StorageError as exc:
            # The papers are stored: whoever next finds no usable saved model refits and saves it.
            if must_save:
                raise
            log.warning("the refitted model was not saved (%s); serving it from memory", exc)

    def _load(self) -> None:
        """Take the saved index, or, when it is unusable in any way, leave none so it is refitted."""
        try:
            saved = self.store.load_artifact(ARTIFACT)
        except StorageError as exc:  # the same kind of error (busy, unavailable), saying what failed
            raise type(exc)(f"the saved model could not be loaded: {exc}") from None
        if saved is None:  # removed since its version was read
            return
        version, data = saved
        self._version = version
        try:
            self._index, self._seq = self._usable(data)
        except Exception as exc:  # whatever a damaged blob unpickles into, it is refitted
            log.warning("the saved model %r in %s is unusable (%s); refitting it from the papers",
                        ARTIFACT, self.store.path, _short(exc))
            self._index, self._seq = None, 0

    def _usable(self, data: bytes | None) -> tuple[PaperIndex, int]:
        """The index and change counter in ``data``; raises for anything else."""
        if not data:
            raise ValueError("empty" if data is not None else "NULL")
        # Only paperbot's own database is ever unpickled here.
        payload = pickle.loads(data)  # noqa: S301
        if not isinstance(payload, dict) or not {"seq", "index"} <= payload.keys():
            raise ValueError(f"a {type(payload).__name__}, not a dict of seq and index")
        seq = payload["seq"]
        if type(seq) is not int or not 0 <= seq <= self.store.max_paper_seq():
            raise ValueError(f"seq {seq!r:.40} is not a change counter of these papers")
        if not isinstance(payload["index"], bytes):
            raise ValueError(f"index is a {type(payload['index']).__name__}, not bytes")
        index = PaperIndex.loads(payload["index"])
        if not isinstance(index.model, TextModel) or type(index.fitted_on) is not int:
            raise ValueError("index holds no fitted text model")
        if index.matrix.shape != (len(index.ids), index.model.transform(["probe"]).shape[1]):
            raise ValueError("index rows and vocabulary don't match its papers")
        return index, seq

    def _refit_in_background(self) -> None:
        if self._refitting:
            return
        self._refitting = True

        def work() -> None:
            owner = owner_id()
            try:
                if not claim_job(self.store, REFIT_JOB, owner, REFIT_LEASE):
                    log.debug("another process is refitting the model; its saved model is loaded when ready")
                    return
                try:
                    # Another process may have refitted and saved since this one looked: the next
                    # refresh loads that instead.
                    newer = self.store.artifact_version(ARTIFACT) > self._version
                    fitted = None if newer else self._fit_from_store()
                    with self._lock:
                        if fitted is not None:
                            self._install(*fitted)
                finally:  # done or not, the next refit may be claimed whenever one is needed
                    now = iso_utc(datetime.now(UTC))
                    self.store.finish_lease(JOB, (REFIT_JOB,), owner, "done", now, again_at=now)
            except StorageError as exc:  # the database's own trouble, already one line naming it
                log.warning("background refit failed (%s); keeping the current model", exc)
            except Exception:
                log.exception("background refit failed; keeping the current model")
            finally:
                self.store.close()  # this thread's connection (SQLite)
                self._refitting = False

        threading.Thread(target=work, name="paperbot-refit", daemon=True).start()


def _short(exc: Exception) -> str:
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text[:120]}" if text else type(exc).__name__


class Colleagues:
    """Everyone's likes as a :class:`~recommender.Community`, for one process. Rebuilt only when the
    store says feedback changed since (in any process), so a request pays one read, not the build."""

    def __init__(self, store: Store):
        self.store = store
        self._lock = threading.Lock()
        self._version: int | None = None
        self._community: Community | None = None

    def community(self) -> Community:
        """The current community of likes."""
        version = self.store.feedback_version()  # read before the likes: a change meanwhile rebuilds again
        with self._lock:
            if self._community is None or version != self._version:
                self._community = Community(self.store.likes_by_person())
                self._version = version
            return self._community
