"""Several `paperbot run` processes on one database, as behind a load balancer: for
tests/e2e/test_replicas.py.

Each replica is a real `paperbot run` subprocess (``python -m tests.e2e.quick_ticks -v run --port 0``: its
digest scheduler ticks, and its index refreshes, every second) with a folder of its own (HOME and cwd),
all talking to one Slack stand-in. Its stderr is drained on a thread (a full pipe would block the process)
into lines a test can wait on. Each has its own :class:`FakeSlack` (``replica.slack``); the tests pick the
replica of each request in turn, as a round-robin load balancer would. :class:`Replicas` also knows which
process a claim's owner (``host:pid:start``, see ``bot.state.owner``) names.
"""

from __future__ import annotations

import itertools
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

from stand_ins.slack import SlackStandIn
from stand_ins.waiting import wait_until
from tests.e2e.harness import LISTENING, FakeSlack, bot_environment, process_environment

#: `paperbot run` itself, its digest scheduler ticking and its index refreshed every second (not 30 s, 15 s).
COMMAND = "tests.e2e.quick_ticks"
START_SECONDS = 60.0  # a hang guard: three processes importing scikit-learn on two busy cores
STOP_SECONDS = 60.0  # SIGTERM lets work under way finish (uvicorn gives requests 25 s)


class Replica:
    """One `paperbot run` process (HTTP mode, a free port), started at construction."""

    def __init__(self, name: str, standin: SlackStandIn, db: Path | str, folder: Path, digest_size: int = 3):
        self.name, self.standin = name, standin
        folder.mkdir(parents=True, exist_ok=True)
        environ = process_environment(folder, bot_environment(standin, db, digest_size))
        self.process = subprocess.Popen([sys.executable, "-m", COMMAND, "-v", "run", "--port", "0"],
                                        cwd=folder, env=environ, stdin=subprocess.DEVNULL,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        self._lines: list[str] = []
        self._lock = threading.Lock()
        self._drain = threading.Thread(target=self._read, name=f"{name}-stderr", daemon=True)
        self._drain.start()
        self.url: str | None = None
        self.slack: FakeSlack | None = None
        self._terminated = False

    def _read(self) -> None:
        for line in self.process.stderr:
            with self._lock:
                self._lines.append(line.rstrip("\n"))

    # -- state -----------------------------------------------------------------------------------

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def alive(self) -> bool:
        return self.process.poll() is None

    def owns(self, owner: str | None) -> bool:
        """Whether a claim's ``owner`` (``host:pid:start``) names this process."""
        return bool(owner) and owner.rsplit(":", 2)[-2:-1] == [str(self.pid)]

    @property
    def lines(self) -> list[str]:
        with self._lock:
            return list(self._lines)

    @property
    def log(self) -> str:
        return "\n".join(self.lines)

    def wait_for_line(self, wanted: Callable[[str], object], timeout: float, what: str) -> str:
        """The first log line for which ``wanted`` is truthy; fails (with the log) after ``timeout``."""
        def found() -> str | None:
            line = next((line for line in self.lines if wanted(line)), None)
            if line is None and not self.alive:
                raise AssertionError(f"{self.name}: no log line for {what} (it ended); its log:\n{self.log}")
            return line

        return wait_until(found, timeout, f"{self.name}'s log line for {what}",
                          detail=lambda: f"its log:\n{self.log}")

    # -- lifecycle -------------------------------------------------------------------------------

    def wait_until_listening(self, timeout: float = START_SECONDS) -> str:
        """The events URL it announces (``paperbot is listening on …``); fails if it ends first."""
        line = self.wait_for_line(LISTENING.search, timeout, "listening")
        match = LISTENING.search(line)
        self.url = f"http://127.0.0.1:{match[1]}{match[2]}"
        self.slack = FakeSlack(self.url, self.standin)
        return self.url

    def kill(self) -> None:
        """SIGKILL: no clean-up at all, as when a host or container dies."""
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=STOP_SECONDS)
        self._drain.join(timeout=STOP_SECONDS)

    def terminate(self) -> None:
        """SIGTERM, once: a second one, after the first has run its course and handed the signal back to
        its default, would kill the process while it closes."""
        if self.alive and not self._terminated:
            self._terminated = True
            self.process.send_signal(signal.SIGTERM)

    def stop(self) -> int:
        """SIGTERM, then wait for it to finish the work under way; its exit status (killed if it hangs)."""
        self.terminate()
        if self.alive:
            try:
                self.process.wait(timeout=STOP_SECONDS)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=STOP_SECONDS)
        self._drain.join(timeout=STOP_SECONDS)
        return self.process.returncode


class Replicas:
    """``count`` replicas on ``db`` (each in a folder under ``folder``), all started at once. Use as a
    context manager: each still running is stopped with SIGTERM on the way out."""

    def __init__(self, standin: SlackStandIn, db: Path | str, folder: Path, count: int = 3,
                 digest_size: int = 3):
        self.standin, self.db, self.folder, self.digest_size = standin, db, folder, digest_size
        self._started = itertools.count(1)
        self.members: list[Replica] = []
        self.gone: list[Replica] = []  # replaced after they died
        self.exit_codes: dict[str, int] = {}
        try:
            self.members = [self._new() for _ in range(count)]
            for replica in self.members:  # started together: they migrate and load at the same time
                replica.wait_until_listening()
        except BaseException:
            self.stop()
            raise

    def _new(self) -> Replica:
        n = next(self._started)
        return Replica(f"replica-{n}", self.standin, self.db, self.folder / f"replica-{n}", self.digest_size)

    def __enter__(self) -> Replicas:
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def __len__(self) -> int:
        return len(self.members)

    def __getitem__(self, i: int) -> Replica:
        return self.members[i % len(self.members)]

    def __iter__(self) -> Iterator[Replica]:
        return iter(list(self.members))

    def owner_of(self, owner: str | None) -> Replica | None:
        """The replica whose process a claim's ``owner`` names, if any (a replaced one included)."""
        return next((r for r in self.members + self.gone if r.owns(owner)), None)

    def replace(self, i: int) -> Replica:
        """Start a new process in place of replica ``i`` (dead, as an orchestrator would restart it)."""
        old = self[i]
        assert not old.alive, f"{old.name} is still running"
        self.gone.append(old)
        fresh = self._new()
        self.members[i % len(self.members)] = fresh
        fresh.wait_until_listening()
        return fresh

    def stop(self) -> None:
        """SIGTERM every replica still running, together, and keep their exit statuses."""
        for replica in self.members:
            replica.terminate()
        for replica in self.members:
            self.exit_codes[replica.name] = replica.stop()
