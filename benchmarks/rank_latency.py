"""How long one person's ranking takes: ``recommender.rank(index, profile, 5, exclude=…)``, as in a digest.

    .venv/bin/python benchmarks/rank_latency.py  # rewrites its part of docs/measurements/benchmarks.md

Corpus: neurips2018 + icml2019 + citeulike-a papers from ../shared/data (about 18,800). The issue asks
about 28,000 papers, so the same is measured again with the corpus grown to 28,000 by adding copies of
random papers under new ids, each with a tenth of its words dropped (so no two rows are identical).
The index is built once per corpus (fit time reported); then ~200 varied profiles are ranked: 3 topics
each, half of them also with 10 liked and 3 disliked papers (enough for the per-person model), each
with 100 already-shown papers excluded. A last row ranks heavy users on the grown corpus: 300 liked
and 60 disliked papers each, with ages (fading), and MMR diversity 0.15, as a digest would.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

import numpy as np
from rich.console import Console
from rich.table import Table

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import (
    DOC,
    FILES,
    ROOT,
    SHARED_DATA,
    TARGET,
    TOPICS,
    add_write_option,
    machine,
    read_papers,
    wants_write,
    write_section,
)
from recommender import PaperIndex, Profile, rank

START, END = "<!-- latency:start -->", "<!-- latency:end -->"

console = Console(width=None if sys.stdout.isatty() else 160)


def load_corpus() -> tuple[list[str], list[str]]:
    ids, texts = [], []
    for name in FILES:
        path = SHARED_DATA / name
        if path.exists():
            more_ids, more_texts = read_papers(path)
            ids += more_ids
            texts += more_texts
    return ids, texts


def grow(ids: list[str], texts: list[str], target: int, seed: int = 0) -> tuple[list[str], list[str]]:
    """The corpus plus perturbed copies of random papers, up to ``target`` papers."""
    rng = random.Random(seed)
    ids, texts = list(ids), list(texts)
    n = len(ids)
    copy = 0
    while len(ids) < target:
        source = rng.randrange(n)
        words = texts[source].split()
        kept = [w for w in words if rng.random() >= 0.1] or words
        copy += 1
        ids.append(f"copy{copy}-{ids[source]}")
        texts.append(" ".join(kept))
    return ids, texts


def profiles(ids: list[str], n: int, seed: int = 0, heavy: bool = False) -> list[tuple[Profile, set[str]]]:
    """``n`` (profile, shown ids) pairs: 3 topics each; every other one with 10 likes and 3 dislikes
    (``heavy``: every one with 300 likes and 60 dislikes, with ages)."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        topics = rng.sample(TOPICS, 3)
        liked, disliked, liked_ages, disliked_ages = [], [], None, None
        if heavy:
            picked = rng.sample(ids, 360)
            liked, disliked = picked[:300], picked[300:]
            liked_ages = [rng.uniform(0, 720) for _ in liked]
            disliked_ages = [rng.uniform(0, 720) for _ in disliked]
        elif i % 2:
            picked = rng.sample(ids, 13)
            liked, disliked = picked[:10], picked[10:]
        out.append((Profile(topics=topics, liked=liked, disliked=disliked, liked_age_days=liked_ages,
                            disliked_age_days=disliked_ages), set(rng.sample(ids, 100))))
    return out


def measure(ids: list[str], texts: list[str], n_profiles: int, heavy: bool = False,
            index: PaperIndex | None = None) -> dict:
    start = time.perf_counter()
    index = index or PaperIndex.build(ids, texts)
    fit = time.perf_counter() - start
    cases = profiles(ids, n_profiles, heavy=heavy)
    diversity = 0.15 if heavy else 0.0
    # The first call also builds lazily cached state (term list, per-paper factors): report it on its own.
    start = time.perf_counter()
    # With feedback, so the per-person model's cache is built here too.
    warm = next((c for c in cases if c[0].liked), cases[0])
    rank(index, warm[0], 5, exclude=warm[1], diversity=diversity)
    first = (time.perf_counter() - start) * 1000
    times, picks = [], 0
    for profile, shown in cases:
        start = time.perf_counter()
        result = rank(index, profile, 5, exclude=shown, diversity=diversity)
        times.append((time.perf_counter() - start) * 1000)
        picks += len(result)
        assert not {p.paper_id for p in result} & (shown | set(profile.liked) | set(profile.disliked))
    t = np.array(times)
    return {"index": index, "papers": len(ids), "terms": index.matrix.shape[1], "fit": fit, "first": first,
            "n": len(times), "picks": picks / len(times),
            "p50": float(np.percentile(t, 50)), "p95": float(np.percentile(t, 95)),
            "p99": float(np.percentile(t, 99)), "max": float(t.max())}


HEADERS = ("corpus", "papers", "terms", "fit", "profiles", "first call", "p50", "p95", "p99", "max")


def cells(name: str, r: dict) -> list[str]:
    fit = "(same index)" if r["fit"] < 0.01 else f"{r['fit']:.1f} s"
    return [name, f"{r['papers']:,}", f"{r['terms']:,}", fit, str(r["n"]),
            f"{r['first']:.0f} ms", f"{r['p50']:.1f} ms", f"{r['p95']:.1f} ms", f"{r['p99']:.1f} ms",
            f"{r['max']:.1f} ms"]


def markdown(results: list[tuple[str, dict]], command: str) -> str:
    lines = [
        START,
        "## Ranking latency: one person's digest",
        "",
        f"Command: `{command}` ({machine()}). Times of `recommender.rank(index, profile, 5, exclude=…)`: "
        "~200 profiles of 3 topics each, every other one also with 10 liked and 3 disliked papers (so the "
        "per-person model is on), each with 100 already-shown papers excluded; explanations included. "
        "The index is built once (fit).",
        "",
        "| " + " | ".join(HEADERS) + " |",
        "|" + "|".join("---" for _ in HEADERS) + "|",
    ]
    lines += ["| " + " | ".join(cells(name, r)) + " |" for name, r in results]
    lines += [
        "",
        f"The shared papers (NeurIPS 2018, ICML 2019, citeulike-a) number {results[0][1]['papers']:,}, "
        f"fewer than the {TARGET:,} asked about, so the second row adds copies of random papers under "
        "new ids, each with a tenth of its words dropped. \"first call\" is the first ranking after the "
        "fit, for a profile with feedback: it also builds the model's list of displayable terms (once per "
        "process, ~0.1 s), the "
        "per-paper factors and the per-person model's random negatives (500 papers and the "
        "eigendecomposition of their Gram matrix) cached with the index (again after every change to "
        "the index). The heavy row reuses the grown index; the per-person model keeps each person's "
        "300 weightiest likes and dislikes.",
        END,
    ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--profiles", type=int, default=200, help="profiles to rank (default 200)")
    add_write_option(parser)
    args = parser.parse_args(argv)
    ids, texts = load_corpus()
    if not ids:
        console.print("No papers found in ../shared/data; nothing to measure.")
        return 0
    results = [("shared papers", measure(ids, texts, args.profiles))]
    if len(ids) < TARGET:
        ids, texts = grow(ids, texts, TARGET)
        results.append((f"grown to {TARGET:,}", measure(ids, texts, args.profiles)))
    results.append(("same, heavy users (300 liked, 60 disliked, ages, diversity 0.15)",
                    measure(ids, texts, args.profiles, heavy=True, index=results[-1][1]["index"])))
    table = Table(title="recommender.rank(…, 5, exclude=100 shown)")
    for h in HEADERS:
        table.add_column(h, justify="left" if h == "corpus" else "right")
    for name, r in results:
        table.add_row(*cells(name, r))
    console.print(table)
    default = args.profiles == 200
    if wants_write(args, default):
        options = "" if default else f" --profiles {args.profiles}"
        command = ".venv/bin/python benchmarks/rank_latency.py" + options
        write_section(markdown(results, command), START, END)
        console.print(f"Wrote {DOC.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
