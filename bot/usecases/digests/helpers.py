"""Helper processes for a big run of digests.

Choosing a digest is CPU work, and the threads of one process take turns on one core (Python's GIL):
at thousands of digests a run would use one core however many the machine has. A run with at least
:attr:`Helpers.min_due` digests due therefore starts helper processes that send the same run's digests
beside it. Each claims digests in the database as replicas do (:mod:`bot.usecases.digests.send`), so
every digest goes out once whichever process sends it, and each holds the person as the bot does
(``Store.hold_person``, across processes on both backends). Each helper reports what it did; the run
reports every digest as the process that sent it found it.

A helper that dies leaves the digests it had claimed to the next run, as a replica's would be left; a
run that is stopped stops its helpers (SIGTERM: they finish what is under way and give back the rest).
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import signal
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime
from multiprocessing.connection import Connection
from typing import TYPE_CHECKING, Protocol

from bot import logs
from bot.allocator import freeze_startup, limit_arenas
from bot.state.context import Context
from bot.usecases.digest_vocabulary import Courier, Outcome

if TYPE_CHECKING:
    from bot.usecases.digests.run import DailyRun

#: What a helper process runs: :func:`bot.usecases.digests.run.send_due_digests`, handed in by the run
#: (this module can't import it: the run imports this one), pickled by name into the new process.
SendDue = Callable[..., "DailyRun"]

log = logging.getLogger(__name__)

#: Below this many due digests a run is over before a helper would be ready (starting one takes about
#: two seconds: Python, scikit-learn and the index).
MIN_DUE = 1000
#: How much a bot's helpers lower their CPU priority (``nice``): answering Slack comes before digests.
NICE = 10
#: What a process reports of a digest it did not send (another process had it or ended it, or this one
#: was stopping): the outcome of the process that handled it says more.
ELSEWHERE = frozenset({"busy", "done", "skipped"})


class Stop(Protocol):
    """What stops a run: a :class:`threading.Event`, or anything else that says whether it is set."""

    def is_set(self) -> bool: ...


@dataclass(frozen=True)
class Helpers:
    """How a run starts its helpers: ``count`` processes, each opening its context with ``open()`` and
    building its courier with ``courier(ctx, stop)`` (``stop``: set when the helper must stop, e.g. by a
    courier whose token Slack refuses). Both are pickled into the new process: module-level functions,
    or partials of them."""

    count: int
    open: Callable[[], Context]
    courier: Callable[[Context, threading.Event], Courier]
    min_due: int = MIN_DUE
    #: The run's own process sends none of a big run itself, only waits for its helpers: the bot's, whose
    #: process answers Slack (every request within Slack's 3 s, and at once) while they work. Its helpers
    #: then run at a lower CPU priority (:data:`NICE`), so the bot's answers come first on a busy machine.
    alone: bool = False
    #: Called with a helper's process id once it has ended (the metrics of ``paperbot run`` let it go).
    ended: Callable[[int], None] | None = None

    def start(self, due: int, now: datetime, users: list[str] | None, force: bool, workers: int,
              stop: Stop | None, send: SendDue) -> Running | None:
        """Start the helpers for a run of ``due`` digests at ``now``, each sending with ``send`` (None: too
        few to be worth it)."""
        if self.count < 1 or due < self.min_due:
            return None
        job = _Job(self, send, now, users, force, workers, logging.getLogger().getEffectiveLevel(),
                   logs.current_format())
        running = Running(job, stop)
        return running if running.started else None  # none could start: the run sends its digests itself


@dataclass(frozen=True)
class _Job:
    helpers: Helpers
    send: SendDue
    now: datetime
    users: list[str] | None
    force: bool
    workers: int
    log_level: int
    log_format: str  # the run's: JSON lines from a helper too, on the stdout it shares with the run


class Running:
    """The helpers of one run, started at once; :meth:`outcomes` waits for them."""

    def __init__(self, job: _Job, stop: Stop | None):
        self.alone = job.helpers.alone
        self._ended = job.helpers.ended
        spawn = multiprocessing.get_context("spawn")  # the bot's threads make forking unsafe
        self._helpers: list[tuple[multiprocessing.process.BaseProcess, Connection]] = []
        for _ in range(job.helpers.count):
            try:
                receive, send = spawn.Pipe(duplex=False)
                process = spawn.Process(target=_helper, args=(job, send), name="paperbot-digest-helper",
                                        daemon=True)
                process.start()
            except Exception as exc:  # out of processes or memory: the run goes on with those it has
                log.warning("could not start a digest helper process (%s: %s)", type(exc).__name__, exc)
                break
            send.close()
            if job.helpers.alone:  # at once, from here: its start-up (imports, the index) is work too
                _lower_priority(process.pid)
            self._helpers.append((process, receive))
        if self._helpers:
            log.info("%d digest helper process(es) started", len(self._helpers))
        self.started = len(self._helpers)
        self._done = threading.Event()
        if stop is not None and self.started:
            threading.Thread(target=self._stop_when, args=(stop,), name="paperbot-digest-helpers",
                             daemon=True).start()

    def _stop_when(self, stop: Stop) -> None:
        while not self._done.wait(0.2):
            if stop.is_set():
                for process, _ in self._helpers:
                    if process.is_alive():
                        process.terminate()  # SIGTERM: the helper stops as the run does
                return

    def outcomes(self) -> list[Outcome]:
        """Wait for every helper to end; the outcomes of the digests they handled."""
        found: list[Outcome] = []
        try:
            for process, receive in self._helpers:
                try:
                    found += receive.recv()
                except (EOFError, OSError):
                    process.join()
                    log.warning("a digest helper process ended without a report (exit code %s): the digests "
                                "it had claimed go out at the next run", process.exitcode)
                receive.close()
                process.join()
                if self._ended is not None and process.pid is not None:
                    self._ended(process.pid)
        finally:
            self._done.set()
        return found


def _lower_priority(pid: int | None) -> None:
    """Run process ``pid`` at ``nice`` :data:`NICE`; where that can't be done, it runs as it is."""
    if pid is None:
        return
    try:
        os.setpriority(os.PRIO_PROCESS, pid, NICE)
    except (OSError, AttributeError):  # gone already, or not a POSIX system
        pass


def merged(own: list[Outcome], theirs: list[Outcome]) -> list[Outcome]:
    """The run's outcomes in its own order: each digest as the process that handled it found it (a
    helper's outcome replaces "busy", "done" or "skipped" here), then those only a helper found due."""
    by_key: dict[tuple[str, date], Outcome] = {(o.user_id, o.local_date): o for o in theirs}
    out = []
    for outcome in own:
        other = by_key.pop((outcome.user_id, outcome.local_date), None)
        out.append(other if other is not None and outcome.status in ELSEWHERE else outcome)
    return out + list(by_key.values())


def _helper(job: _Job, report: Connection) -> None:
    """A helper process: the run's due digests, as many as it can claim; then its report."""
    limit_arenas()  # as the paperbot command does at its start, before any thread
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a terminal's Ctrl-C reaches the run, which stops us
    logs.configure(job.log_level, fmt=job.log_format)
    try:
        ctx = job.helpers.open()
        try:
            with ctx.engine.index():  # loaded before its objects are put out of the collector's way
                freeze_startup()
            run: DailyRun = job.send(ctx, job.now, job.helpers.courier(ctx, stop), users=job.users,
                                     force=job.force, workers=job.workers, stop=stop)
        finally:
            ctx.close()
    except Exception as exc:  # the run carries on without this helper; the next run takes what it held
        log.warning("a digest helper process stopped: %s: %s", type(exc).__name__, exc)
        raise SystemExit(1) from None
    try:
        report.send([o for o in run.outcomes if o.status not in ELSEWHERE])
        report.close()
    except OSError:  # the run is gone (Ctrl-C in a terminal): its digests are in the database all the same
        pass
