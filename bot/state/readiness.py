"""Whether this process can answer Slack now (``GET /readyz``, :mod:`bot.slack.health`): the database
answers, and the paper model is in memory."""

from __future__ import annotations

import logging
import threading
import time

from bot.state.context import Context
from storage import StorageError

log = logging.getLogger(__name__)

#: Seconds a readiness check waits for the database (for a connection, a lock, the answer).
READY_WAIT = 1.0
#: Seconds after a failed load before a check starts another: load balancers ask every few seconds, and
#: a model that can't be loaded would otherwise be tried, and logged, at each of their checks.
RETRY_PAUSE = 60.0


class Readiness:
    """Whether this process can answer Slack now, each check one trivial query (the newest paper change's
    number) under a short bound.

    Ready once the database answers and the paper model is in memory, or there are no papers yet (nothing
    to load: a fresh install is ready at once, and is told "no papers yet" by the commands). The model is
    loaded at its first use: a check that finds it missing starts loading it in the background, and says
    so until it is in."""

    def __init__(self, ctx: Context):
        self.ctx = ctx
        self._loading = threading.Lock()
        self._empty_at: int | None = None  # the change number at which a load found no papers
        self._failed: tuple[float, str] | None = None  # when the last load failed (monotonic), and why

    def problem(self) -> str | None:
        """None when ready; else why not, in one line (no password: storage's errors name the database
        without it)."""
        store = self.ctx.store
        try:
            with store.waiting_at_most(READY_WAIT):
                newest = store.max_paper_seq()
        except StorageError as exc:
            return f"the database does not answer: {' '.join(str(exc).split())[:200]}"
        if self.ctx.engine.loaded or newest == 0 or newest == self._empty_at:
            return None
        failed = self._failed
        if failed is not None and time.monotonic() - failed[0] < RETRY_PAUSE:
            return f"the paper model could not be loaded ({failed[1]}); trying again within a minute"
        self._load(newest)
        return "the paper model is loading"

    def _load(self, newest: int) -> None:
        if not self._loading.acquire(blocking=False):
            return  # under way

        def load() -> None:
            try:
                with self.ctx.engine.index():
                    pass
                if not self.ctx.engine.loaded:  # its papers went meanwhile: nothing to load at this change
                    self._empty_at = newest
                self._failed = None
            except Exception as exc:  # a check after RETRY_PAUSE tries again
                why = " ".join(str(exc).split())[:200] or type(exc).__name__
                self._failed = (time.monotonic(), why)
                log.warning("loading the paper model failed (%s); /readyz tries again within a minute", why)
            finally:
                self.ctx.store.close()  # this thread's connection (SQLite)
                self._loading.release()

        threading.Thread(target=load, name="paperbot-load-model", daemon=True).start()
