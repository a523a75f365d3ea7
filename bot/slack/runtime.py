"""What the Slack listeners share: the use cases' context, the threads that do the work after the
ack, and per-person locks (:class:`Runtime`).

Listeners answer Slack (``ack``) at once and never wait on the database's locks before it: each
event, slash command and click is written down (an inbox row, or the journal beside a SQLite file) and
its work (the database, the ranker, Slack API calls) runs after the ack on :class:`Background`'s own
threads, once per key (the event id, the trigger id), by this process or, if it dies, another
(:mod:`bot.slack.background`).

The listener modules (:mod:`bot.slack.listeners`) import this module, never :mod:`bot.slack.app`, which
builds the Bolt app and calls each one's ``register(app, runtime)``; each hands its work over with
:meth:`Runtime.after_ack`.
"""

from __future__ import annotations

import copy
import functools
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field

from bot.slack.background import Background
from bot.slack.request_keys import actor, once_key
from bot.slack.team import workspace_key
from bot.state.context import Context
from storage import Store
from storage.models import InboxItem

__all__ = ["REPLAYING", "Background", "Runtime", "UserLocks", "actor", "once_key"]

#: The context key of a request the inbox replays (:mod:`bot.slack.background`): its claimed item.
REPLAYING = "paperbot_inbox_item"


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
    #: Called with (workspace, user id) once a person is forgotten, for what the Slack layer keeps of them
    #: outside the store's rows (with OAuth: the installer's id inside a sealed installation).
    forgotten: Callable[[str, str], object] | None = None
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
                view = Runtime(ctx, self.background.for_store(ctx.store), self.locks.for_store(ctx.store),
                               self.forgotten)
                self._views[ws] = view
            return view

    def after_ack(self, context, body: dict, work: Callable[[Runtime], None], respond=None) -> None:
        """Write the request down, then run ``work(runtime)`` after the ack, in the runtime of the
        request's workspace (:meth:`for_request`), on the background threads: once for this request,
        after that person's earlier work, a failure routed to the one error handler (and answered
        through ``respond`` when given). Every listener hands its slow work over through this, before
        its answer goes back to Slack (the app processes each request before answering it).

        When the inbox replays the request (``context[REPLAYING]``), the work runs here and now, under
        the item's claim."""
        rt = self.for_request(context)
        item: InboxItem | None = context.get(REPLAYING)
        if item is not None:
            rt.background.carry_out(item, functools.partial(work, rt), body, respond)
            return
        rt.background.submit(functools.partial(work, rt), body, respond)

    def for_request(self, context) -> Runtime:
        """The runtime of the workspace a Bolt request is served as: ``context["workspace"]`` (set by
        the app's middleware), else the workspace the request names."""
        ws = context.get("workspace")
        if not isinstance(ws, str):
            ws = workspace_key(team_id=context.team_id, enterprise_id=context.enterprise_id,
                               is_enterprise_install=context.is_enterprise_install)
        return self.for_workspace(ws)


