"""The arXiv rate limit holds across threads: a link lookup and an `arxiv:` ingest waiting at once
still go out at least the interval apart (one limiter is shared by the whole process)."""

from __future__ import annotations

import threading

import pytest

from bot.sources.http import RateLimiter, default_fetcher

CALLERS = 5


class RacingClock:
    """Not tests/fakes.py's Clock: this one makes threads meet. A fake monotonic clock for several threads.
    Each thread's first reading waits (briefly) until every caller reads at once, the worst
    interleaving an unlocked limiter could meet; a locked one lets only one thread read, so the
    barrier gives up and the threads go one after another. ``sleep`` moves time to when that sleeper
    wakes: two sleeping at once wake at the same time."""

    def __init__(self, callers: int):
        self.now = 0.0
        self.sleeps: list[float] = []
        self._guard = threading.Lock()
        self._together = threading.Barrier(callers, timeout=0.3)
        self._seen: set[int] = set()

    def clock(self) -> float:
        me = threading.get_ident()
        if me not in self._seen:
            self._seen.add(me)
            try:
                self._together.wait()
            except threading.BrokenBarrierError:
                pass
        with self._guard:
            return self.now

    def sleep(self, seconds: float) -> None:
        with self._guard:
            wake = self.now + seconds
            self.sleeps.append(seconds)
        threading.Event().wait(0.01)  # let any other thread run meanwhile
        with self._guard:
            self.now = max(self.now, wake)


def test_callers_in_several_threads_at_once_are_each_spaced_a_full_interval():
    clock = RacingClock(CALLERS)
    limiter = RateLimiter(3.0, clock=clock.clock, sleep=clock.sleep)
    threads = [threading.Thread(target=limiter.wait) for _ in range(CALLERS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=10)
    assert not any(t.is_alive() for t in threads)
    # The first call goes at once; each later one waits its whole 3 s after the one before it.
    assert clock.sleeps == [pytest.approx(3.0)] * (CALLERS - 1)
    assert clock.now == pytest.approx(3.0 * (CALLERS - 1))


def test_the_process_has_one_fetcher_even_when_threads_ask_for_it_at_once(monkeypatch):
    from bot.sources import http

    monkeypatch.setattr(http, "_default", None)
    start = threading.Barrier(4)
    found: list = []

    def ask() -> None:
        start.wait()
        found.append(default_fetcher())

    threads = [threading.Thread(target=ask) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=10)
    assert len(found) == 4 and len({id(f) for f in found}) == 1
