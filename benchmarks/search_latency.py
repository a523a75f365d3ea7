"""How long a search takes over 100,000 papers: the full-text index alone, and the whole ``search`` use
case (``/papers search``, ``paperbot search``), on SQLite and on PostgreSQL. Run by hand; prints figures.

    .venv/bin/python benchmarks/search_latency.py                    # 100,000 papers, both backends
    .venv/bin/python benchmarks/search_latency.py --papers 20000 --backend sqlite    # a quicker look

The corpus is ``digest_throughput.py``'s: the shared papers topped up with perturbed copies (each copy
drops a tenth of its source's words). It is ingested into a temporary SQLite file (the index fitted and
saved there), then copied with ``paperbot db copy`` into a throwaway PostgreSQL database (the server at
$PAPERBOT_BENCH_POSTGRES or ``--postgres URL``, else the local one), which is dropped at the end.

Queries, each kind a few dozen times (p50 and p95 in milliseconds): a common single word, a rare name
(a word that 1 to 5 papers hold and the TF-IDF model does not know: different names each time, so the
use case's per-term cache does not hide the lookups), a quoted phrase of two words, and an ordinary
topic query for the use case.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import re
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks import pg  # noqa: E402
from benchmarks.common import TOPICS, machine  # noqa: E402
from benchmarks.digest_throughput import corpus  # noqa: E402

COMMON = ["learning", "network", "model", "data", "optimization", "graph", "bayesian", "kernel"]
PHRASES = ["neural networks", "reinforcement learning", "gradient descent", "language models",
           "gaussian processes", "graph neural", "variational inference", "deep learning"]
REPEATS = 40
BATCH = 5000


def percentiles(samples: list[float]) -> str:
    ms = sorted(1000 * s for s in samples)
    p95 = ms[min(len(ms) - 1, int(round(0.95 * (len(ms) - 1))))]
    return f"p50 {statistics.median(ms):7.1f} ms   p95 {p95:7.1f} ms   (n={len(ms)})"


def timed(run: Callable[[str], object], queries: list[str]) -> list[float]:
    took = []
    for q in queries:
        start = time.perf_counter()
        run(q)
        took.append(time.perf_counter() - start)
    return took


def rare_names(records: list[dict], knows: Callable[[str], bool], n: int, seed: int = 1) -> list[str]:
    """``n`` words that 1 to 5 papers hold, the model does not know and it would read (no numbers)."""
    held: Counter = Counter()
    for r in records:
        text = f"{r['title']} {r['abstract']}"
        held.update({w.lower() for w in re.findall(r"[A-Za-z][A-Za-z0-9]{3,}", text)})
    found = sorted(w for w, k in held.items() if k <= 5 and not knows(w))
    random.Random(seed).shuffle(found)
    return found[:n]


def fill_sqlite(db: Path, records: list[dict]) -> float:
    """Ingest ``records`` into the SQLite file ``db`` and fit and save the index; seconds taken."""
    from bot.state.context import Context
    from storage import Paper

    start = time.perf_counter()
    ctx = Context.open(str(db))
    try:
        for i in range(0, len(records), BATCH):
            ctx.store.upsert_papers([Paper(id=r["id"], title=r["title"], abstract=r["abstract"])
                                     for r in records[i:i + BATCH]])
        ctx.engine.rebuild(must_save=True)
    finally:
        ctx.store.close()
    return time.perf_counter() - start


def measure(target: str, records: list[dict], label: str) -> None:
    """Print the figures of one database."""
    from bot.state.context import Context
    from bot.usecases import search
    from storage.fulltext import words

    ctx = Context.open(target)
    try:
        start = time.perf_counter()
        with ctx.engine.index() as index:
            assert index is not None
            knows = index.model.knows
        print(f"\n{label}: {ctx.store.count_papers():,} papers;"
              f" index loaded in {time.perf_counter() - start:.1f} s")
        names = rare_names(records, knows, 2 * REPEATS)
        rng = random.Random(0)
        common = [rng.choice(COMMON) for _ in range(REPEATS)]
        phrases = [rng.choice(PHRASES) for _ in range(REPEATS)]
        topics = [rng.choice(TOPICS) for _ in range(REPEATS)]
        store = ctx.store
        timed(lambda q: store.search_text([q], 10), common[:5])  # warm the caches and the connection
        print("  full-text index, 10 best")
        print(f"    single common word   {percentiles(timed(lambda q: store.search_text([q], 10), common))}")
        lexical = lambda q: store.search_text([q], 10)  # noqa: E731
        print(f"    rare name            {percentiles(timed(lexical, names[:REPEATS]))}")
        print(f"    quoted phrase        {percentiles(timed(lambda q: store.search_text([q], 10), phrases))}")
        print("  search use case, 5 results")
        search(ctx, topics[0], 5)
        print(f"    ordinary topic query {percentiles(timed(lambda q: search(ctx, q, 5), topics))}")
        print(f"    rare name            {percentiles(timed(lambda q: search(ctx, q, 5), names[REPEATS:]))}")
        quoted = [f'"{p}"' for p in phrases]
        mixed = [f'{t} "{p}"' for t, p in zip(topics, phrases, strict=True)]
        print(f"    quoted phrase        {percentiles(timed(lambda q: search(ctx, q, 5), quoted))}")
        print(f"    words + phrase       {percentiles(timed(lambda q: search(ctx, q, 5), mixed))}")
        asked = names[REPEATS:][:10]
        first = [search(ctx, name, 5)[:1] for name in asked]
        found = sum(1 for name, top in zip(asked, first, strict=True)
                    if top and name in words(top[0].paper.text))
        print(f"  (rare names whose first result holds them: {found} of {len(asked)})")
    finally:
        ctx.store.dispose()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--papers", type=int, default=100_000)
    pg.add_backend_options(parser)
    args = parser.parse_args(argv)
    records, real = corpus(args.papers)
    print(f"{len(records):,} papers ({real:,} real, the rest perturbed copies); {machine()}")
    server_url = pg.chosen_server(args)
    with tempfile.TemporaryDirectory() as tmp, contextlib.ExitStack() as stack:
        db = Path(tmp) / "search.db"
        print(f"ingested and fitted in {fill_sqlite(db, records):.0f} s (SQLite, not timed below)")
        if args.backend != "postgres":
            measure(str(db), records, "SQLite")
        if server_url:
            server = stack.enter_context(pg.server(server_url))
            start = time.perf_counter()
            name = server.filled_from("search", db, dict(os.environ), ROOT)
            print(f"copied to PostgreSQL in {time.perf_counter() - start:.0f} s ({pg.version(server_url)})")
            measure(server.url_of(name), records, "PostgreSQL")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
