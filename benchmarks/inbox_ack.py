"""How long does writing down acknowledged work take (issue 24's inbox), as an ack would, with 8 senders?

Times each of N entries, sent from concurrent threads, as written by the two ways an ack can record its
work: ``Journal.append`` beside a SQLite file (one JSON line, synced to disk) and ``inbox_put`` of one
entry on a throwaway PostgreSQL database (one committed transaction). Also, for comparison,
``inbox_put`` on SQLite, the journal's append while another connection holds the SQLite write lock,
and one drain of the journal into the inbox. Prints p50, p99 and the worst, in milliseconds.

    .venv/bin/python benchmarks/inbox_ack.py [--entries 1000] [--senders 8] [--postgres URL]
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks import pg  # noqa: E402
from bot.state.journal import Journal  # noqa: E402
from storage import open_store  # noqa: E402
from storage.models import InboxEntry  # noqa: E402
from storage.records import utcnow  # noqa: E402


def entries(n: int, tag: str) -> list[InboxEntry]:
    """``n`` follow commands from 40 people, as an ack would record them."""
    return [InboxEntry("T1", f"{tag}-{i}", "command", f"U{i % 40}", json.dumps(
        {"command": "/papers", "text": "follow graph neural networks", "user_id": f"U{i % 40}"}), utcnow())
        for i in range(n)]


def timed(write: Callable[[InboxEntry], object], items: list[InboxEntry], senders: int) -> list[float]:
    """Milliseconds each write took, ``senders`` at a time."""

    def one(item: InboxEntry) -> float:
        started = time.perf_counter()
        write(item)
        return (time.perf_counter() - started) * 1000

    with ThreadPoolExecutor(senders) as pool:
        return list(pool.map(one, items))


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(p / 100 * len(ordered)) - 1))]


def report(name: str, times: list[float]) -> None:
    print(f"{name:<52} p50 {percentile(times, 50):7.2f} ms   p99 {percentile(times, 99):7.2f} ms"
          f"   max {max(times):7.2f} ms   ({len(times)} entries)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=1000)
    parser.add_argument("--senders", type=int, default=8)
    parser.add_argument("--postgres",
                        help=f"the PostgreSQL server (default: ${pg.ENV}, else {pg.DEFAULT_SERVER})")
    args = parser.parse_args()
    n, senders = args.entries, args.senders

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.db"
        store = open_store(str(path))
        journal = Journal(path)
        report(f"journal.append ({senders} senders)", timed(journal.append, entries(n, "j"), senders))

        holder = sqlite3.connect(path)
        holder.execute("BEGIN IMMEDIATE")  # another process's long write
        try:
            report("journal.append, write lock held elsewhere",
                   timed(journal.append, entries(n, "l"), senders))
        finally:
            holder.rollback()
            holder.close()

        started = time.perf_counter()
        drained = journal.drain(store)
        print(f"{'journal.drain into the SQLite inbox':<52} {(time.perf_counter() - started) * 1000:7.1f} ms"
              f" for {drained.read} entries ({drained.new} new)")
        report(f"inbox_put on SQLite ({senders} senders)", timed(lambda e: store.inbox_put([e]),
                                                                 entries(n, "s"), senders))
        store.close()

    url = pg.server_url(args.postgres)
    if why := pg.problem(url):
        print(f"no PostgreSQL server at {url} ({why}): skipped")
        return 0
    with pg.server(url) as server:
        name = server.create("inbox")
        store = open_store(server.url_of(name))
        try:
            report(f"inbox_put on PostgreSQL ({senders} senders)",
                   timed(lambda e: store.inbox_put([e]), entries(n, "p"), senders))
        finally:
            store.dispose()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
