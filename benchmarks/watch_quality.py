"""Scoop watch (issue 43): does a watch fire on the paper it describes, how often on the rest, and how long
comparing one paper with 1,000 watches takes.

The shared NeurIPS 2018 and ICML 2019 abstracts (1,781 papers) are shuffled into a stream of
:data:`PER_DAY` papers a day: the first 90 days are the history a watch's bar is set from, the rest arrive
a day at a time (the described papers among them). Each of :data:`WATCHES` is a project description written
in other words than its paper's abstract (as someone would describe their own unpublished work). A day's
papers are compared with each watch as the bot compares them (:func:`recommender.watch.bars`,
:func:`recommender.watch.closeness`, one alert a day unless closer than any before), for several
shuffles. Prints the figures; skips in one line without the shared data.

    .venv/bin/python -m benchmarks.watch_quality [--seeds 5] [--per-day 15]
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from benchmarks.common import SHARED_DATA
from bot.usecases.watches import ALERTS_IN_WINDOW, LEAST
from recommender import PaperIndex
from recommender.watch import bars, closeness, overlaps, watch_rows

FILES = ("neurips2018.jsonl", "icml2019.jsonl")
#: Papers a day: a lab following a handful of arXiv categories' new submissions, filtered to its field.
PER_DAY = 15
HISTORY_DAYS = 90

#: Project descriptions in one's own words, each for one paper of the data (its id).
WATCHES = {
    "neurips2018-11420": (
        "Faster gradient exchange for data-parallel training. We are building a way for the workers of a "
        "distributed training job to share their gradients with less time on the wire. Rather than a "
        "parameter server on a fat-tree data-centre network, servers are wired as a BCube and gradients are "
        "aggregated in stages along it, so synchronisation gets several times quicker and the switches "
        "cost less. First numbers come from a small cluster training image classifiers."),
    "neurips2018-11992": (
        "Exploring by being different from yourself. Our project makes reinforcement learning agents explore "
        "better when rewards are sparse or misleading: the loss gets an extra term that rewards the policy "
        "for behaving unlike its recent past policies, measured as a distance between them. It plugs into "
        "on-policy and off-policy methods alike, and we adapt the weight of the term as training goes. "
        "Tested on Atari games and MuJoCo control tasks with deceptive local optima."),
    "icml2019-4174": (
        "A learned memory for online learners. We design a tree-shaped memory that a learning system can "
        "write experiences into and read from quickly, however many it stores: inserting and retrieving "
        "both cost logarithmic time, and routing down the tree is learned by reduction to classification. "
        "It can be attached to an existing learner as an extra memory module, for few-shot classification, "
        "image retrieval and multi-label problems."),
    "icml2019-4102": (
        "Training GANs as a mixed-strategy game. GAN training is unstable and theory only promises local "
        "convergence because the problem is not convex. We lift the generator and discriminator to "
        "distributions over their parameters, so the objective becomes a convex-concave game over mixed "
        "strategies, and look for mixed Nash equilibria with a mirror-descent style algorithm, "
        "implemented with Langevin sampling, comparing with Adam and SGD baselines on image generation."),
    "icml2019-4312": (
        "One network that predicts and models its inputs. We put a linear classifier or regressor on top of "
        "features made by an invertible deep network (a normalizing flow), so the density of the inputs and "
        "the predictive distribution both come out exactly in one pass. It should be about as accurate "
        "as a purely discriminative model while telling when inputs are out of distribution, and help "
        "semi-supervised learning."),
}


def read(path) -> list[dict]:
    with path.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def text(p: dict) -> str:
    return f"{p.get('title') or ''}. {p.get('abstract') or ''}"


def one_shuffle(papers: list[dict], seed: int, per_day: int) -> dict[str, tuple[bool, int, int]]:
    """Per watch: (did its paper bring an alert, alerts on other papers, days of stream)."""
    rng = np.random.default_rng(seed)
    targets = [p for p in papers if p["id"] in WATCHES]
    rest = [papers[i] for i in rng.permutation(len(papers)) if papers[i]["id"] not in WATCHES]
    split = HISTORY_DAYS * per_day
    history, stream = rest[:split], rest[split:]
    for t in targets:  # each described paper arrives on a random day of the stream
        stream.insert(int(rng.integers(0, len(stream) + 1)), t)
    index = PaperIndex.build([p["id"] for p in history], [text(p) for p in history])
    index.add([p["id"] for p in stream], [text(p) for p in stream])
    watched = list(WATCHES)
    rows = watch_rows(index.model, [WATCHES[w] for w in watched])
    bar = bars(index.rows([p["id"] for p in history]), rows, [ALERTS_IN_WINDOW] * len(watched), LEAST)
    scores = closeness(index.rows([p["id"] for p in stream]), rows)
    days = (len(stream) + per_day - 1) // per_day
    out = {}
    for j, wid in enumerate(watched):
        best, hit, others = -1.0, False, 0
        for d in range(days):
            day = range(d * per_day, min(len(stream), (d + 1) * per_day))
            passed = sorted(((float(scores[i, j]), stream[i]["id"]) for i in day if scores[i, j] >= bar[j]),
                            reverse=True)
            if passed:  # the day's closest; one a day (the whole day arrives in one ingest)
                score, pid = passed[0]
                best = max(best, score)
                hit |= pid == wid
                others += pid != wid
        out[wid] = (hit, others, days)
    return out


def passages_example(papers: list[dict]) -> None:
    by_id = {p["id"]: p for p in papers}
    index = PaperIndex.build([p["id"] for p in papers], [text(p) for p in papers])
    from bot.usecases.watches import sentences
    wid = "icml2019-4174"
    mine, theirs = sentences(WATCHES[wid]), sentences(by_id[wid]["abstract"])
    print(f"\nPassages side by side ({by_id[wid]['title']}):")
    for i, j, s in overlaps(index.model, theirs, mine, 3):
        print(f"  {s:.2f}  paper: {theirs[i][:90]}…\n        watch: {mine[j][:90]}…")


def speed(papers: list[dict], n_watches: int = 1000, repeats: int = 50) -> None:
    index = PaperIndex.build([p["id"] for p in papers], [text(p) for p in papers])
    texts = [text(papers[i % len(papers)])[:3000] for i in range(n_watches)]
    start = time.perf_counter()
    rows = watch_rows(index.model, texts)
    made = time.perf_counter() - start
    paper = index.rows([papers[0]["id"]])
    bar = np.full(n_watches, 0.3)
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        hits = np.flatnonzero(closeness(paper, rows)[0] >= bar)
        times.append(time.perf_counter() - start)
    assert hits.size >= 1
    history = index.rows(index.ids)
    start = time.perf_counter()
    bars(history, rows, [ALERTS_IN_WINDOW] * n_watches, LEAST)
    barred = time.perf_counter() - start
    print(f"\nSpeed: one paper against {n_watches:,} watches: median {np.median(times) * 1000:.2f} ms, "
          f"worst {max(times) * 1000:.2f} ms (target <= 50 ms); once per ingest, turning the {n_watches:,} "
          f"watch texts into rows: {made * 1000:.0f} ms, and their bars from {history.shape[0]:,} papers of "
          f"history: {barred * 1000:.0f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--per-day", type=int, default=PER_DAY,
                        help="papers a day (the 90 days of history must leave a stream)")
    args = parser.parse_args()
    paths = [SHARED_DATA / f for f in FILES]
    if not all(p.exists() for p in paths):
        print(f"skipped: the shared abstracts ({', '.join(FILES)}) are not in {SHARED_DATA}")
        return
    papers = [p for path in paths for p in read(path)]
    per_day = args.per_day
    print(f"{len(papers):,} papers, {per_day} a day: {HISTORY_DAYS} days of history "
          f"({HISTORY_DAYS * per_day:,} papers), the rest a day at a time; {len(WATCHES)} watches, "
          f"{args.seeds} shuffles; bar: the {ALERTS_IN_WINDOW}th closest of the history, at least {LEAST}")
    hits = total = others = days = 0
    per_watch: dict[str, list[int]] = {w: [0, 0] for w in WATCHES}
    for seed in range(args.seeds):
        for wid, (hit, extra, n_days) in one_shuffle(papers, seed, per_day).items():
            hits += hit
            total += 1
            others += extra
            days += n_days
            per_watch[wid][0] += hit
            per_watch[wid][1] += extra
    stream_days = days / total
    for wid, (hit, extra) in per_watch.items():
        rate = extra / (args.seeds * stream_days) * 7
        print(f"  {wid:<20} described paper fired {hit}/{args.seeds}; other alerts {rate:.2f} a week")
    print(f"Described paper fired: {hits}/{total}; alerts on other papers: "
          f"{others / (total * stream_days) * 7:.2f} a week per watch (target about 1), "
          f"over {stream_days:.0f} days of stream each")
    passages_example(papers)
    speed(papers)


if __name__ == "__main__":
    main()
