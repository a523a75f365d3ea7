"""How long the muted-word filter takes for a crowd: 1,000 people each muting 3 of 50 words over 100,000
papers, before (a LIKE scan of every paper per person, then the muter) and after (the full-text index,
each word looked up once per state of the papers), on SQLite and on PostgreSQL; and the followed-author
filter for 1,000 people over 10,000 recent papers (SQLite). Run by hand; prints figures.

    .venv/bin/python benchmarks/mutes_scale.py                      # 100,000 papers, both backends
    .venv/bin/python benchmarks/mutes_scale.py --papers 20000 --backend sqlite --before 100

The corpus is ``digest_throughput.py``'s (the shared papers topped up with perturbed copies), ingested
into a temporary SQLite file and copied with ``paperbot db copy`` into a throwaway PostgreSQL database
(``--postgres URL``, else $PAPERBOT_BENCH_POSTGRES, else the local server), dropped at the end. The
"before" figure times the old scan for the first ``--before`` people (all by default) and says so when
it is fewer; both answers are compared person by person wherever both are computed.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks import pg  # noqa: E402
from benchmarks.common import machine  # noqa: E402
from benchmarks.digest_throughput import corpus  # noqa: E402

#: What people mute: plain words, plurals, phrases, hyphenated words, a symbol and an accent.
WORDS = ["blockchain", "transformer", "transformers", "graph neural network", "reinforcement learning",
         "self-supervised", "bayesian", "kernels", "protein", "quantum", "cryptocurrency", "gan", "gans",
         "large language model", "llm", "diffusion", "federated learning", "adversarial", "robot",
         "robotics", "medical", "covid", "c++", "gödel", "state-of-the-art", "attention", "survey",
         "benchmark", "privacy", "fairness", "music", "speech", "video", "3d", "point cloud", "traffic",
         "finance", "stock", "emotion", "twitter", "social network", "recommender", "genome", "brain",
         "eeg", "mri", "drug", "molecule", "chemistry", "policies"]
BATCH = 5000
#: People the old followed-author match is timed for (it takes about a second a person at 10,000 papers).
SAMPLE = 20


def mutes(people: int, seed: int = 0) -> list[list[str]]:
    rng = random.Random(seed)
    return [rng.sample(WORDS, 3) for _ in range(people)]


def fill_sqlite(db: Path, records: list[dict]) -> float:
    from storage import Paper, SqliteStore

    start = time.perf_counter()
    store = SqliteStore(str(db))
    try:
        for i in range(0, len(records), BATCH):
            store.upsert_papers([Paper(id=r["id"], title=r["title"], abstract=r["abstract"])
                                 for r in records[i:i + BATCH]])
    finally:
        store.close()
    return time.perf_counter() - start


def measure(target: str, crowd: list[list[str]], before: int, label: str) -> None:
    from bot.state.context import Context
    from bot.usecases.mutes import Muter, _unplain_papers, muted_ids

    root = Context.open(target)
    ctx = root.for_workspace("TBENCH")
    try:
        for i, words in enumerate(crowd):
            ctx.store.add_mutes(f"UMUTE{i:05d}", words)
        users = [f"UMUTE{i:05d}" for i in range(len(crowd))]
        print(f"\n{label}: {ctx.store.count_papers():,} papers, {len(users):,} people")

        def old(user: str) -> set[str]:
            found = Muter(ctx.store.get_mutes(user))
            return {pid for pid, text in ctx.store.papers_containing(found.fragments()).items()
                    if found.holds(text)}

        start = time.perf_counter()
        unplain = len(_unplain_papers(ctx, ctx.store.max_paper_seq()))
        reading = time.perf_counter() - start
        after = [muted_ids(ctx, user) for user in users]
        cold = time.perf_counter() - start
        start = time.perf_counter()
        for user in users:
            muted_ids(ctx, user)
        warm = time.perf_counter() - start
        start = time.perf_counter()
        scanned = [old(user) for user in users[:before]]
        took = time.perf_counter() - start
        whole = took * len(users) / max(1, len(scanned))
        said = "" if len(scanned) == len(users) else f" (timed for {len(scanned):,}, scaled)"
        each = 1000 / len(users)
        print(f"  before (LIKE scan per person)    {whole:8.2f} s  {whole * each:7.2f} ms a person{said}")
        print(f"  after, first run of the state    {cold:8.2f} s  {cold * each:7.2f} ms a person")
        print(f"  after, again (every word known)  {warm:8.2f} s  {warm * each:7.2f} ms a person")
        print(f"  (the first run's reading of every paper for those the index can't serve alone:"
              f" {reading:.2f} s, {unplain:,} papers)")
        more = sum(len(a - s) for a, s in zip(after, scanned, strict=False))
        fewer = sum(len(s - a) for a, s in zip(after, scanned, strict=False))
        hidden = sum(len(a) for a in after[:len(scanned)])
        print(f"  papers hidden, people compared: {hidden:,}; the index found {more:,} the scan missed"
              f" and missed {fewer:,} it found")
    finally:
        root.close()


def followed_authors(db: Path, papers: int, people: int, seed: int = 0) -> None:
    """The followed-author filter on SQLite: ``papers`` recent papers of 5 authors each (of 20,000
    names), ``people`` people following 5 each; the old match of every recent author against every
    followed name, and the surname map."""
    from bot.state.context import Context
    from bot.usecases.authors import NEW_DAYS, _recent_authors, add_author, new_papers_by, same_person
    from storage import Paper

    rng = random.Random(seed)
    names = [f"{rng.choice('ABCDEFGHJKLMNPRSTVW')}{i:05d}x Surname{i % 7000:04d}y" for i in range(20_000)]
    today = datetime.now(UTC).date()
    root = Context.open(str(db))
    ctx = root.for_workspace("TBENCH")
    try:
        days = [(today - timedelta(days=d)).isoformat() for d in range(NEW_DAYS)]
        ctx.store.upsert_papers([Paper(id=f"a{i:06d}", title=f"Paper {i}", abstract="Text.",
                                       authors=rng.sample(names, 5), published=rng.choice(days))
                                 for i in range(papers)])
        users = [f"UAUTH{i:05d}" for i in range(people)]
        for user in users:
            for name in rng.sample(names, 5):
                add_author(ctx, user, name)
        since = (today - timedelta(days=NEW_DAYS)).isoformat()

        def old(user: str) -> int:
            followed = [key for key, _ in ctx.store.get_followed_authors(user)]
            return sum(1 for authors, _ in _recent_authors(ctx, since).values()
                       if any(same_person(k, a) for a in authors for k in followed))

        start = time.perf_counter()
        found = [len(new_papers_by(ctx, user, today, set())) for user in users]
        after = time.perf_counter() - start
        sample = users[:SAMPLE]
        start = time.perf_counter()
        before = [old(user) for user in sample]
        took = (time.perf_counter() - start) * len(users) / len(sample)
        print(f"\nFollowed authors, SQLite: {papers:,} recent papers, {people:,} people following 5 each")
        print(f"  before (every author against every name)  {took:7.2f} s (timed for {len(sample)}, scaled)")
        print(f"  after (surname map, made once)             {after:7.2f} s, {sum(found):,} papers found;"
              f" the same for the first {len(sample)}: {found[:len(sample)] == before}")
    finally:
        root.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--papers", type=int, default=100_000)
    parser.add_argument("--people", type=int, default=1000)
    parser.add_argument("--before", type=int, help="time the old scan for this many people (default: all)")
    parser.add_argument("--recent", type=int, default=10_000, help="recent papers for the authors' part")
    pg.add_backend_options(parser)
    args = parser.parse_args(argv)
    records, real = corpus(args.papers)
    crowd = mutes(args.people)
    before = args.people if args.before is None else args.before
    print(f"{len(records):,} papers ({real:,} real, the rest perturbed copies); {machine()}")
    server_url = pg.chosen_server(args)
    with tempfile.TemporaryDirectory() as tmp, contextlib.ExitStack() as stack:
        db = Path(tmp) / "mutes.db"
        print(f"ingested in {fill_sqlite(db, records):.0f} s (SQLite, not timed below)")
        if args.backend != "postgres":
            measure(str(db), crowd, before, "SQLite")
            followed_authors(Path(tmp) / "authors.db", args.recent, args.people)
        if server_url:
            server = stack.enter_context(pg.server(server_url))
            name = server.filled_from("mutes", db, dict(os.environ), ROOT)
            measure(server.url_of(name), crowd, before, f"PostgreSQL ({pg.version(server_url)})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
