"""The work after the ack (issue 24): written down before the ack, carried out once, in each person's
order, by the process that took it or, when that one dies or stops, by any other.

A listener hands its work over with :meth:`bot.slack.runtime.Runtime.after_ack`, which calls
:meth:`Background.submit` before the HTTP answer goes: the request's body is written down as an inbox
entry (:class:`bot.state.intake.Intake`: an inbox row on PostgreSQL, the journal beside a SQLite file),
keyed by what makes it the same request when it comes again (:func:`once_key`). Then, on this process's
threads, the work claims its item (:meth:`storage.store.Store.inbox_claim_one`), runs, and marks it done.

An item nobody carried out (its process was killed, or stopped first) is found by the sweep
(:meth:`Background.start`): every second each process claims what is due (an item another process
took is left alone for :data:`HOLD` after it arrived, and a claim's lease lasts :data:`LEASE`, renewed
while the work runs; a dead process's claims on this host are handed back at once) and replays it:
the request is handed to the Bolt app again (:attr:`Background.replay`, set by :mod:`bot.slack.app`),
whose listener runs again and, reaching ``after_ack``, carries the work out under the same claim.

Without a store (or without a key) the work runs as before, in memory only.
"""

from __future__ import annotations

import copy
import functools
import json
import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from datetime import UTC, datetime, timedelta

from bot import logs
from bot.slack.error_handler import KEPT_FOR_LATER, report_error
from bot.slack.request_keys import actor, kind_of, once_key
from bot.state.intake import Intake
from bot.state.owner import owner_alive, owner_id
from storage import StorageError, Store, StoreBusy, StoreUnavailable
from storage.models import InboxEntry, InboxItem
from storage.moments import iso_utc

log = logging.getLogger(__name__)

BACKGROUND_THREADS = 8  # slow work after the ack
#: How long a claim lasts unless renewed (every :data:`RENEW_SECONDS` while its work runs): how long an
#: item of a process that died on another host waits.
LEASE = timedelta(seconds=30)
RENEW_SECONDS = 10.0
#: How long other processes leave an item alone after it arrived: the one that took it claims it at once.
HOLD = timedelta(seconds=20)
SWEEP_SECONDS = 1.0
#: How long a process about to send digests spends at most carrying out what was acknowledged and left
#: (:meth:`Background.catch_up`): a backlog of thousands takes seconds.
CATCH_UP_SECONDS = 120.0
BACKLOG_PAUSE = 0.05  # between sweeps while they find more than there is room for
QUEUED_PER_THREAD = 4  # how much a sweep claims: enough to keep the threads busy, not to hoard
#: On SIGTERM: how long the work under way may take before what is still held is handed back.
STOP_SECONDS = 10.0
EVENT_TRIES = 3  # an event's work, when the database stays busy for a whole write wait (StoreBusy)
EVENT_RETRY_PAUSE = 5.0  # seconds between those tries
#: An event whose work the database could not take is tried again this much later, up to
#: :data:`MAX_ATTEMPTS` claims in all.
RETRY_LATER = timedelta(seconds=30)
MAX_ATTEMPTS = 5
#: Work the database was away for is tried again after RETRY_LATER times its attempts so far, at most
#: this many times RETRY_LATER (5 minutes), for as long as it takes: it was acknowledged.
AWAY_PAUSES = 10
#: Finished items are kept this long: while kept, their keys turn a request sent again away (Slack
#: redelivers an event for minutes; a signed request is accepted for 5 minutes either side of its time).
KEPT = timedelta(hours=24)
PURGE_SECONDS = 600.0

#: Hands an item to the Bolt app again (see the module); the status Bolt answered.
Replay = Callable[[InboxItem], int]


def _iso(when: datetime) -> str:
    return iso_utc(when)


class Background:
    """Threads for the work after the ack, each request's work recorded in ``store``'s inbox and carried
    out once (see the module). One person's requests run one after another, in the order they came
    (``digest 07:45`` then ``digest off`` must end off). A failure goes through :func:`report_error`,
    like Bolt's; an event (which has nobody to answer) is tried again while the database is busy."""

    def __init__(self, store: Store | None = None, workers: int = BACKGROUND_THREADS,
                 retry_pause: float | None = None, intake: Intake | None = None):
        self.store = store
        self.workers = workers
        self.retry_pause = EVENT_RETRY_PAUSE if retry_pause is None else retry_pause
        self.intake = intake or (Intake(store, HOLD) if store is not None else None)
        self.owner = owner_id()
        self.replay: Replay | None = None  # set by the app: without it, nothing is swept
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="paperbot-work")
        self._guard = threading.Lock()
        self._queues: dict[tuple[str, str], deque[Callable[[], None]]] = {}  # per person, while theirs runs
        self._queued = 0  # the runs in those queues, counted as they come and go: read at every sweep
        self._futures: set[Future] = set()
        self._held: set[tuple[str, str]] = set()  # the items this process has claimed and not finished
        # Taken, but not claimed while the database could not be written: the sweep claims them later.
        self._deferred: dict[tuple[str, str], tuple[InboxEntry, Callable[[], None], dict, object]] = {}
        self._stopping = threading.Event()
        self._stop_by: list[float] = []  # shared by the views: when a stop hands back what is held
        self._sweeper: threading.Thread | None = None

    def for_store(self, store: Store) -> Background:
        """The same threads, queues and inbox, for ``store`` (a workspace's view): one workspace's
        request key never stands in for another's, and two workspaces' U1 are two people's queues."""
        view = copy.copy(self)
        view.store = store
        return view

    # -- taking work ------------------------------------------------------------------------------

    def submit(self, work: Callable[[], None], body: dict, respond=None) -> None:
        """Write the request down (durably, before the ack), then run ``work`` after that person's earlier
        work, once for this request. Raises StorageError when the request can't be written down."""
        key = once_key(body)
        user = actor(body)
        if self.store is None or self.intake is None or key is None:
            self._enqueue(user, functools.partial(self._run_unrecorded, work, body, respond))
            return
        payload = json.dumps(body, ensure_ascii=False, separators=(",", ":"))
        now = _iso(datetime.now(UTC))
        entry = InboxEntry(self.store.workspace, key, kind_of(body), user or key, payload, now, self.owner)
        if not self.intake.accept(entry):
            log.info("skipping %s: already handled", key)
            return
        self._enqueue(user, functools.partial(self._run_taken, entry, work, body, respond))

    def carry_out(self, item: InboxItem, work: Callable[[], None], body: dict, respond=None) -> None:
        """Run the work of ``item``, which this process has claimed, and finish it: done; failed for good
        (reported like any failure); or, for an event the database could not take, tried again later."""
        ref = (item.entry.ws, item.entry.key)
        with self._guard:
            self._held.add(ref)
        try:
            with logs.handling(item.entry.key, item.entry.ws, actor(body) or item.entry.subject):
                self._attempt(item, work, body, respond)
        finally:
            with self._guard:
                self._held.discard(ref)

    # -- the sweep --------------------------------------------------------------------------------

    def start(self) -> None:
        """Begin sweeping (see the module): what the journal holds reaches the inbox, dead processes'
        claims are handed back, this process's are renewed, and due items are claimed and replayed."""
        if self._sweeper is None and self.store is not None and self.replay is not None:
            self._sweeper = threading.Thread(target=self._sweep_loop, name="paperbot-inbox", daemon=True)
            self._sweeper.start()

    def _sweep_loop(self) -> None:
        renewed = purged = time.monotonic()
        failing = False
        pause = SWEEP_SECONDS
        while not self._stopping.wait(pause):
            pause = SWEEP_SECONDS
            try:
                now = time.monotonic()
                if now - renewed >= RENEW_SECONDS:
                    self._renew()
                    renewed = now
                if self._sweep():  # there may be more: look again as soon as there is room
                    pause = BACKLOG_PAUSE
                if now - purged >= PURGE_SECONDS:
                    self._purge()
                    purged = now
                if failing:
                    log.info("the inbox answers again")
                failing = False
            except StorageError as exc:  # said once until it answers again; everything waits in it
                if not failing:
                    log.warning("%s; the work acknowledged meanwhile waits for it", exc)
                failing = True
            except Exception:
                log.exception("sweeping the inbox failed")

    def catch_up(self, timeout: float = CATCH_UP_SECONDS) -> int:
        """Carry out now, on this process's threads, every acknowledged item that no living process
        holds (left by a process that died or stopped, or in the journal), each in its person's order,
        and wait for them, up to ``timeout`` seconds: before digests are chosen, so that they count.
        Items a living process holds are left to it. How many items it carried out (or began)."""
        if self.store is None or self.intake is None or self.replay is None:
            return 0
        deadline = time.monotonic() + timeout
        self.intake.settle(wait=True)
        self._take_back_dead()
        under_way: set[Future] = set()
        begun = 0
        while not self._stopping.is_set() and time.monotonic() < deadline:
            room = self.workers * QUEUED_PER_THREAD - self.busy()
            claimed = (self.store.inbox_claim(self.owner, self._lease(), _iso(datetime.now(UTC)), room)
                       if room > 0 else [])
            for item in claimed:
                finished: Future = Future()
                self._enqueue(item.entry.subject, functools.partial(self._replay_then, item, finished),
                              item.entry.ws)
                under_way.add(finished)
            begun += len(claimed)
            under_way = {f for f in under_way if not f.done()}
            if not claimed and not under_way:
                break
            if claimed and len(claimed) == room:
                continue  # there may be more at once
            # A person's next item is claimed once their earlier one is done: wait for one to end.
            wait(under_way, timeout=max(0.0, min(SWEEP_SECONDS, deadline - time.monotonic())),
                 return_when=FIRST_COMPLETED)
        if begun:
            log.info("carried out %d acknowledged request(s) left for later", begun)
        return begun

    def _replay_then(self, item: InboxItem, finished: Future) -> None:
        try:
            self._replay_item(item)
        finally:
            finished.set_result(None)

    def _take_back_dead(self) -> None:
        """Hand back what processes that are gone (on this host) held, to be claimed at once."""
        assert self.store is not None
        for owner in self.store.inbox_owners():
            if owner != self.owner and owner_alive(owner) is False:
                handed = self.store.inbox_release(owner)
                if handed:
                    log.info("took back %d item(s) of %s, which is gone", handed, owner)

    def _sweep(self) -> bool:
        """One sweep; whether to look again soon (it claimed as much as it had room for, or had none)."""
        assert self.store is not None and self.intake is not None
        room = self.workers * QUEUED_PER_THREAD - self.busy()
        if room <= 0:  # busy enough: look again soon, when some of it is done
            return True
        self.intake.settle(wait=False)
        self._resume_deferred()
        self._take_back_dead()
        if self._stopping.is_set():
            return False
        claimed = self.store.inbox_claim(self.owner, self._lease(), _iso(datetime.now(UTC)), room)
        for item in claimed:
            self._enqueue(item.entry.subject, functools.partial(self._replay_item, item), item.entry.ws)
        return len(claimed) == room

    def _resume_deferred(self) -> None:
        """The work this process took but could not claim while the database could not be written: now
        that it can, claimed and run as it was handed over (in the order it came)."""
        assert self.store is not None
        with self._guard:
            deferred = list(self._deferred.items())
        for ref, (entry, work, body, respond) in deferred:
            item = self.store.inbox_claim_one(entry.ws, entry.key, self.owner, self._lease())
            if item is None and self.store.inbox_item(entry.ws, entry.key) is None:
                continue  # still in the journal (another drain has it): the next sweep
            with self._guard:
                self._deferred.pop(ref, None)
            if item is not None:  # else done elsewhere, or after an earlier item (the claims above get it)
                run = functools.partial(self.carry_out, item, work, body, respond)
                self._enqueue(actor(body), run, entry.ws)

    def _renew(self) -> None:
        if self._held and self.store is not None:
            self.store.inbox_renew_all(self.owner, self._lease())

    def _purge(self) -> None:
        if self.store is not None:
            gone = self.store.inbox_purge(_iso(datetime.now(UTC) - KEPT))
            if gone:
                log.info("purged %d finished inbox item(s)", gone)

    def _replay_item(self, item: InboxItem) -> None:
        if self._stopping.is_set():
            return  # handed back by stop()
        assert self.replay is not None and self.store is not None
        entry = item.entry
        if item.attempts > MAX_ATTEMPTS:  # it was claimed that often and never finished: it may be what kills
            log.warning("giving up on %s after %d attempts", entry.key, item.attempts - 1)
            self._give_up(item, "never finished")
            return
        with logs.handling(entry.key, entry.ws, entry.subject):
            log.info("carrying out %s, acknowledged at %s (attempt %d)", entry.key, entry.received_at,
                     item.attempts)
            try:
                status = self.replay(item)
            except Exception as exc:
                log.exception("replaying %s failed", entry.key)
                self._give_up(item, exc)
                return
        # The listener handed no work over (the request needs none now, or was turned away): nothing left.
        if status < 500:
            self._quietly(lambda: self.store.inbox_done(entry.ws, entry.key, self.owner))
        else:
            self._retry_later(item, f"the app answered {status}")

    # -- stopping ---------------------------------------------------------------------------------

    def stop_taking(self, grace: float = STOP_SECONDS) -> None:
        """Stop taking work (SIGTERM): nothing more is claimed or started, and what is queued stays in the
        inbox (or journal) for the next process; :meth:`stop` hands back, ``grace`` seconds from now,
        what is then still under way."""
        if not self._stop_by:
            self._stop_by.append(time.monotonic() + grace)
        self._stopping.set()
        with self._guard:
            self._queues.clear()
            self._queued = 0
            self._deferred.clear()

    def stop(self, grace: float = STOP_SECONDS) -> None:
        """Stop taking work (:meth:`stop_taking`), let the work under way run for up to ``grace`` seconds
        (from the first :meth:`stop_taking`), then hand back what is still held, to be claimed at once by
        anyone."""
        self.stop_taking(grace)
        with self._guard:
            futures = set(self._futures)
        wait(futures, timeout=max(0.0, min(grace, self._stop_by[0] - time.monotonic())))
        if self.store is not None:
            with self._guard:
                still = len(self._held)
            self._quietly(lambda: self.store.inbox_release(self.owner))
            if still:
                log.warning("stopped with %d item(s) under way: handed back to the next process", still)
        self._pool.shutdown(wait=False, cancel_futures=True)

    def shutdown(self) -> None:
        """Wait for the work under way and queued, then stop (tests, the demo)."""
        while True:
            with self._guard:
                futures = set(self._futures)
            if not futures:
                break
            wait(futures)
        self._stopping.set()
        self._pool.shutdown(wait=True)

    # -- running ----------------------------------------------------------------------------------

    def _enqueue(self, subject: str | None, run: Callable[[], None], ws: str | None = None) -> None:
        if subject is None:
            self._track(self._pool.submit(run))
            return
        who = (self.store.workspace if ws is None and self.store is not None else ws or "", subject)
        with self._guard:
            self._queued += 1
            queue = self._queues.get(who)
            if queue is not None:  # a drain for this person is under way: it will get to this
                queue.append(run)
                return
            self._queues[who] = deque([run])
        self._track(self._pool.submit(self._drain, who))

    def _track(self, future: Future) -> None:
        with self._guard:
            self._futures.add(future)
        future.add_done_callback(self._untrack)

    def _untrack(self, future: Future) -> None:
        with self._guard:
            self._futures.discard(future)

    def busy(self) -> int:
        """How many requests are running or queued in this process."""
        with self._guard:
            return len(self._futures) + self._queued

    def _drain(self, who: tuple[str, str]) -> None:
        while True:
            with self._guard:
                queue = self._queues.get(who)
                if not queue:
                    self._queues.pop(who, None)
                    return
                run = queue.popleft()
                self._queued -= 1
            run()

    def _run_unrecorded(self, work: Callable[[], None], body: dict, respond) -> None:
        try:
            work()
        except Exception as exc:  # routed to the one error handler, like Bolt's listeners
            self._report(exc, body, respond)

    def _run_taken(self, entry: InboxEntry, work: Callable[[], None], body: dict, respond) -> None:
        if self._stopping.is_set():
            return  # it waits in the inbox (or journal) for the next process
        assert self.store is not None and self.intake is not None
        try:
            self.intake.settle(wait=True)
            item = self.store.inbox_claim_one(entry.ws, entry.key, self.owner, self._lease())
        except StorageError as exc:
            log.warning("%s; %s is kept until the database can be written", exc, entry.key)
            with self._guard:
                self._deferred[(entry.ws, entry.key)] = (entry, work, body, respond)
            if respond is not None:
                self._tell(respond, KEPT_FOR_LATER)
            return
        if item is None:
            log.info("skipping %s: already handled, or it waits for that person's earlier work", entry.key)
            return
        self.carry_out(item, work, body, respond)

    def _attempt(self, item: InboxItem, work: Callable[[], None], body: dict, respond) -> None:
        event = item.entry.kind == "event"
        tries = EVENT_TRIES if event else 1
        for attempt in range(1, tries + 1):
            try:
                work()
            except StoreBusy as exc:
                if attempt < tries:  # the failed write was rolled back: the work can run again
                    log.warning("%s; trying %s again in %.0f s", exc, item.entry.key, self.retry_pause)
                    time.sleep(self.retry_pause)
                    continue
                self._failed(item, exc, body, respond, event)
                return
            except StorageError as exc:
                self._failed(item, exc, body, respond, event)
                return
            except Exception as exc:  # routed to the one error handler, like Bolt's listeners
                self._report(exc, body, respond)
                self._give_up(item, exc)
                return
            else:
                self._quietly(lambda: self.store.inbox_done(item.entry.ws, item.entry.key, self.owner))
                return

    def _failed(self, item: InboxItem, exc: StorageError, body: dict, respond, event: bool) -> None:
        """The database could not take the work. While it is away (busy, down, restarting) any work is
        tried again later, with a growing pause, for as long as it takes; a person who asked is told so
        once. Otherwise an event is tried again a few times, and a person who asked is told it failed."""
        away = isinstance(exc, StoreBusy | StoreUnavailable)
        if away or event:
            if away and not event and item.attempts <= 1 and respond is not None:
                self._tell(respond, KEPT_FOR_LATER)
            self._retry_later(item, str(exc), away)
            return
        self._report(exc, body, respond)
        self._give_up(item, exc)

    def _retry_later(self, item: InboxItem, why: str, away: bool = False) -> None:
        entry = item.entry
        if item.attempts >= MAX_ATTEMPTS and not away:
            log.warning("giving up on %s after %d attempts: %s", entry.key, item.attempts, why)
            self._give_up(item, why)
            return
        pause = RETRY_LATER * (min(item.attempts, AWAY_PAUSES) if away else 1)
        at = _iso(datetime.now(UTC) + pause)
        log.warning("%s: %s is tried again from %s", why, entry.key, at)
        self._quietly(lambda: self.store.inbox_failed(entry.ws, entry.key, self.owner, why[:500], at))

    def _give_up(self, item: InboxItem, error: Exception | str) -> None:
        text = str(error) if isinstance(error, str) else f"{type(error).__name__}: {error}"
        self._quietly(lambda: self.store.inbox_failed(item.entry.ws, item.entry.key, self.owner,
                                                      text[:500], None))

    def _quietly(self, write: Callable[[], object]) -> None:
        """An inbox write after the work: if the database can't take it, the lease runs out and the item
        is claimed again (the work is written to bear that)."""
        try:
            write()
        except StorageError as exc:
            log.warning("%s; the inbox could not be updated", exc)

    def _lease(self) -> str:
        return _iso(datetime.now(UTC) + LEASE)

    @staticmethod
    def _tell(respond, text: str) -> None:
        try:
            respond(text=text, response_type="ephemeral", replace_original=False)
        except Exception as exc:  # Slack's answer to a notice changes nothing here
            log.warning("could not say the request was kept: %s", exc)

    @staticmethod
    def _report(exc: Exception, body: dict, respond) -> None:
        try:
            report_error(exc, body, respond, log)
        except Exception:
            log.exception("the error handler failed")
