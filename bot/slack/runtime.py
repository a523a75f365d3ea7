"""What the Slack listeners share: the use cases' context, the threads that do the work after the
ack, and per-person locks (:class:`Runtime`).

Listeners answer Slack (``ack``) at once and never touch the database before it: the work (the
database, the ranker, Slack API calls) runs after the ack on :class:`Background`'s own threads, so
neither a burst of slow work nor another process holding the database's write lock can delay an ack.
There, each event, slash command and click is first claimed by its key (the event id, the trigger
id) in the database, so that a redelivery or a replay of the same signed request runs it at most once.

The listener modules (:mod:`bot.slack.listeners`) import this module, never :mod:`bot.slack.app`, which
builds the Bolt app and calls each one's ``register(app, runtime)``; each hands its work over with
:meth:`Runtime.after_ack`.
"""

from __future__ import annotations

import copy
import functools
import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from datetime import timedelta

from bot.slack.error_handler import report_error
from bot.slack.team import workspace_key
from bot.state.context import Context
from storage import Store, StoreBusy

log = logging.getLogger(__name__)

BACKGROUND_THREADS = 8  # slow work after the ack

#: How long a claimed key is kept. Slack redelivers an event for minutes; a signed request (a slash
#: command, a click) is accepted for 5 minutes either side of its timestamp, so a replay comes within 10.
EVENT_KEY_KEPT = timedelta(hours=24)
REQUEST_KEY_KEPT = timedelta(minutes=15)
EVENT_TRIES = 3  # an event's work, when the database stays busy for a whole write wait (StoreBusy)
EVENT_RETRY_PAUSE = 5.0  # seconds between those tries


def once_key(body: dict) -> str | None:
    """What makes this request the same request when it comes again: an event's id (Slack's
    redeliveries) or a slash command's or click's trigger id (a replayed signed request)."""
    if body.get("type") == "event_callback":
        event_id = body.get("event_id")
        return f"event:{event_id}" if isinstance(event_id, str) and event_id else None
    trigger_id = body.get("trigger_id")
    return f"trigger:{trigger_id}" if isinstance(trigger_id, str) and trigger_id else None


def actor(body: dict) -> str | None:
    """Who a request is from (a slash command's caller, a clicker, an event's user), if anyone."""
    user = body.get("user_id") or body.get("user") or (body.get("event") or {}).get("user")
    if isinstance(user, dict):
        user = user.get("id")
    return user if isinstance(user, str) and user else None


class Background:
    """Threads for the work after the ack. Each piece of work first claims its request's key (see
    :func:`once_key`) in ``store``, so it runs at most once, whichever process or retry gets it. One
    person's requests run one after another, in the order they came (``digest 07:45`` then ``digest
    off`` must end off). A failure goes through :func:`report_error`, like Bolt's; an event (which has
    nobody to answer) is tried again while the database stays busy."""

    def __init__(self, store: Store | None = None, workers: int = BACKGROUND_THREADS,
                 retry_pause: float | None = None):
        self.store = store
        self.retry_pause = EVENT_RETRY_PAUSE if retry_pause is None else retry_pause
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="paperbot-work")
        self._guard = threading.Lock()
        self._queues: dict[tuple[str, str], deque[Callable[[], None]]] = {}  # per person, while theirs runs

    def for_store(self, store: Store) -> Background:
        """The same threads and queues, claiming keys in ``store`` (a workspace's view): one workspace's
        request key never stands in for another's, and two workspaces' U1 are two people's queues."""
        view = copy.copy(self)
        view.store = store
        return view

    def submit(self, work: Callable[[], None], body: dict, respond=None) -> None:
        """Run ``work`` after the ack, at most once for this request, after that person's earlier work."""
        run = functools.partial(self._run, work, body, respond)
        user = actor(body)
        if user is None:
            self._pool.submit(run)
            return
        who = (self.store.workspace if self.store is not None else "", user)
        with self._guard:
            queue = self._queues.get(who)
            if queue is not None:  # a drain for this person is under way: it will get to this
                queue.append(run)
                return
            self._queues[who] = deque([run])
        self._pool.submit(self._drain, who)

    def _drain(self, who: tuple[str, str]) -> None:
        while True:
            with self._guard:
                queue = self._queues[who]
                if not queue:
                    del self._queues[who]
                    return
                run = queue.popleft()
            run()

    def _run(self, work: Callable[[], None], body: dict, respond) -> None:
        key = once_key(body)
        event = body.get("type") == "event_callback"
        tries = EVENT_TRIES if event else 1
        claimed = False
        for attempt in range(1, tries + 1):
            try:
                if not claimed and key and self.store is not None:
                    if not self.store.claim_once(key, EVENT_KEY_KEPT if event else REQUEST_KEY_KEPT):
                        log.info("skipping %s: already handled", key)
                        return
                    claimed = True
                work()
                return
            except StoreBusy as exc:
                if attempt < tries:  # the failed write was rolled back: the work can run again
                    log.warning("%s; trying %s again in %.0f s", exc, key, self.retry_pause)
                    time.sleep(self.retry_pause)
                    continue
                self._report(exc, body, respond)
            except Exception as exc:  # routed to the one error handler, like Bolt's listeners
                self._report(exc, body, respond)
                return

    @staticmethod
    def _report(exc: Exception, body: dict, respond) -> None:
        try:
            report_error(exc, body, respond, log)
        except Exception:
            log.exception("the error handler failed")

    def shutdown(self) -> None:
        """Wait for the work under way and queued, then stop."""
        self._pool.shutdown(wait=True)


class UserLocks:
    """One lock per person, so two deliveries to one person never pick the same papers: a thread lock
    within this process, then the store's ``hold_person`` across processes sharing the database."""

    def __init__(self, store: Store | None = None) -> None:
        self.store = store
        self._guard = threading.Lock()
        self._locks: dict[tuple[str, str], threading.Lock] = {}

    def for_store(self, store: Store) -> UserLocks:
        """The same locks, for the people of ``store`` (a workspace's view)."""
        view = copy.copy(self)
        view.store = store
        return view

    @contextmanager
    def hold(self, user_id: str) -> Iterator[None]:
        with self._guard:
            ws = self.store.workspace if self.store is not None else ""
            lock = self._locks.setdefault((ws, user_id), threading.Lock())
        # This process's threads queue on their own lock first, so each process waits on the database
        # with one connection per person at most.
        with lock, (self.store.hold_person(user_id) if self.store is not None else nullcontext()):
            yield


@dataclass
class Runtime:
    """What the listeners share: the use cases' context, the background threads, per-person locks.
    A listener works in the runtime of its request's workspace (:meth:`for_request`)."""

    ctx: Context
    background: Background = None  # type: ignore[assignment]  # made from ctx when not given
    locks: UserLocks = field(default_factory=UserLocks)
    _views: dict[str, Runtime] = field(default_factory=dict, init=False, repr=False)
    _views_lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)

    def __post_init__(self) -> None:
        if self.background is None:
            self.background = Background(self.ctx.store)
        if self.locks.store is None:
            self.locks.store = self.ctx.store

    def for_workspace(self, ws: str) -> Runtime:
        """The runtime of workspace ``ws``: its context, the same threads, its people's locks."""
        if ws == self.ctx.workspace:
            return self
        with self._views_lock:
            view = self._views.get(ws)
            if view is None:
                ctx = self.ctx.for_workspace(ws)
                view = Runtime(ctx, self.background.for_store(ctx.store), self.locks.for_store(ctx.store))
                self._views[ws] = view
            return view

    def after_ack(self, context, body: dict, work: Callable[[Runtime], None], respond=None) -> None:
        """Run ``work(runtime)`` after the ack, in the runtime of the request's workspace
        (:meth:`for_request`), on the background threads: at most once for this request, after that
        person's earlier work, a failure routed to the one error handler (and answered through
        ``respond`` when given). Every listener hands its slow work over through this."""
        rt = self.for_request(context)
        rt.background.submit(functools.partial(work, rt), body, respond)

    def for_request(self, context) -> Runtime:
        """The runtime of the workspace a Bolt request is served as: ``context["workspace"]`` (set by
        the app's middleware), else the workspace the request names."""
        ws = context.get("workspace")
        if not isinstance(ws, str):
            ws = workspace_key(team_id=context.team_id, enterprise_id=context.enterprise_id,
                               is_enterprise_install=context.is_enterprise_install)
        return self.for_workspace(ws)


