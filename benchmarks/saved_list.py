"""How long ``/papers saved`` takes for a person who saved 3,000 papers, on SQLite and on PostgreSQL.
Run by hand; prints figures.

    .venv/bin/python benchmarks/saved_list.py                   # 3,000 saved papers, both backends
    .venv/bin/python benchmarks/saved_list.py --saved 500 --backend sqlite

The papers are real: the shared NeurIPS 2018 and ICML 2019 files and the bundled ICML 2025 sample,
topped up from the shared CiteULike papers that have an abstract. A third of them have their title
blanked, so that their shown title must be derived from the abstract (as for papers ingested from
plain text). One person
saves them all, and the whole reply (``reply_saved``: the use case, the store, the rendering) is timed
cold: the kept titles and TeX renderings are forgotten before each run, as after a restart or for a
list never shown before. PostgreSQL is the server at $PAPERBOT_BENCH_POSTGRES or ``--postgres URL``,
else the local one; its throwaway database is dropped at the end (skipped when no server answers).

Printed per backend: the p50 and the slowest of the runs, how many papers the reply shows, how many it
rendered (shown titles worked out) and its ``split_title`` calls: a title derived from an abstract for
an untitled paper, or the check that a stored title was not derived from its abstract.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks import pg  # noqa: E402
from benchmarks.common import SHARED_DATA, machine  # noqa: E402

FILES = ("neurips2018.jsonl", "icml2019.jsonl")
TOP_UP = "citeulike-a/papers.jsonl"
USER = "U_READER"
RUNS = 5


def papers(n: int) -> list:
    """``n`` real papers (fewer when the shared data is absent), every third one untitled."""
    from bot.cli.demo import sample_path
    from bot.sources.text import read_text_file
    from storage import Paper

    found: list[Paper] = [p for p in read_text_file(sample_path()) if isinstance(p, Paper)]
    for name in (*FILES, TOP_UP):
        path = SHARED_DATA / name
        if not path.exists():
            continue
        with path.open(encoding="utf-8") as f:
            for line in f:
                if len(found) >= n:
                    break
                record = json.loads(line) if line.strip() else {}
                if record.get("abstract"):  # an untitled paper without one would show only its id
                    found.append(_paper(record, name))
    return [p if i % 3 else _untitled(p) for i, p in enumerate(found[:n])]


def _paper(record: dict, source: str):
    from storage import Paper

    authors = record.get("authors") or []
    if isinstance(authors, str):  # the shared files hold the list as its Python repr
        authors = [a.strip(" '\"") for a in authors.strip("[]").split(",") if a.strip(" '\"")]
    prefix = "" if "-" in str(record["id"]) else source.split("/")[0] + "-"
    return Paper(id=prefix + str(record["id"]), title=record.get("title") or "",
                 abstract=record.get("abstract") or "", authors=authors, url=record.get("url"),
                 venue=record.get("venue"))


def _untitled(paper):
    from dataclasses import replace

    return replace(paper, title="")


def fill(target: str, chosen: list) -> None:
    """Store ``chosen`` in the database ``target`` and have one person save every one of them."""
    from bot.state.context import Context

    ctx = Context.open(target)
    try:
        ctx.store.upsert_papers(chosen)
        with ctx.store.transaction():  # one commit: the saves as the Save button makes them, oldest first
            ctx.store.ensure_person(USER)
            for paper in chosen:
                ctx.store.save_paper(USER, paper.id)
    finally:
        ctx.store.dispose()


@contextlib.contextmanager
def counting() -> Iterator[dict[str, int]]:
    """Counts of ``split_title`` calls made through the shown-title code while the block runs."""
    import bot.presentation.paper_view as view

    counts = {"split_title": 0}
    original = view.split_title

    def spy(text: str) -> tuple[str, str]:
        counts["split_title"] += 1
        return original(text)

    view.split_title = spy
    try:
        yield counts
    finally:
        view.split_title = original


def forget_renderings() -> None:
    """Forget every kept title and TeX rendering: the next reply starts cold."""
    import bot.presentation.paper_view as view
    import bot.text.tex as tex

    view.clear_kept()
    tex._rendered.cache_clear()


def measure(target: str, label: str, runs: int) -> None:
    """Print the figures of one database."""
    import bot.presentation.paper_view as view
    from bot.slack.subcommands.saved_commands import reply_saved
    from bot.state.context import Context

    ctx = Context.open(target)
    try:
        reply_saved(ctx, USER)  # the connection and the modules warmed, not the renderings
        times = []
        for _ in range(runs):
            forget_renderings()
            with counting() as counts:
                start = time.perf_counter()
                reply = reply_saved(ctx, USER)
                times.append(time.perf_counter() - start)
            rendered = view._split.cache_info().misses
        intro = reply["blocks"][0]["text"]["text"]
        shown = sum(block["text"]["text"].count("\n• ") + block["text"]["text"].startswith("• ")
                    for block in reply["blocks"][1:] if block["type"] == "section")
        print(f"{label}: {intro}")
        print(f"  reply_saved, cold, {runs} runs: p50 {1000 * statistics.median(times):.0f} ms,"
              f" slowest {1000 * max(times):.0f} ms")
        print(f"  papers shown {shown}; rendered {rendered} (shown titles worked out); split_title calls"
              f" {counts['split_title']} (a title derived, or checked not to be)")
    finally:
        ctx.store.dispose()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--saved", type=int, default=3000, help="papers the person saved (default 3000)")
    parser.add_argument("--runs", type=int, default=RUNS)
    pg.add_backend_options(parser)
    args = parser.parse_args(argv)
    chosen = papers(args.saved)
    untitled = sum(1 for p in chosen if not p.title)
    print(f"{len(chosen):,} saved papers ({untitled:,} untitled); {machine()}")
    with tempfile.TemporaryDirectory() as tmp, contextlib.ExitStack() as stack:
        if args.backend != "postgres":
            db = str(Path(tmp) / "saved.db")
            fill(db, chosen)
            measure(db, "SQLite", args.runs)
        if args.backend != "sqlite":
            url = pg.server_url(args.postgres)
            if why := pg.problem(url):
                print(f"PostgreSQL skipped: no server at {url} ({why})")
                return 0
            server = stack.enter_context(pg.server(url))
            target = server.url_of(server.create("saved"))
            fill(target, chosen)
            measure(target, f"PostgreSQL ({pg.version(url)})", args.runs)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
