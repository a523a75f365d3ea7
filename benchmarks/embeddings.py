"""The embedding option (``paperbot[embeddings]``) beside TF-IDF alone, in benchmarks/quality.py's columns.

    .venv/bin/python benchmarks/embedding_cache.py   # once: encodes the papers (minutes) into .cache/
    .venv/bin/python benchmarks/embeddings.py  # the table; rewrites its part of docs/measurements/quality.md
    .venv/bin/python benchmarks/embeddings.py --users 500 --splits P1 --weights 0.5,1,2   # a quick look

The same splits, users and protocol as benchmarks/quality.py (it is imported, not copied), each method
through ``recommender.evaluate.evaluate``: "paperbot" (TF-IDF, the default), "paperbot + embeddings" (the same
with :class:`recommender.embeddings.EmbeddingBlend`, as the bot runs it with PAPERBOT_EMBEDDINGS=1), and
for reference "embedding centroid" (the cosine to the mean of the liked papers' vectors alone) and the
TF-IDF centroid. Paper vectors come from the cache (benchmarks/embedding_cache.py), as the bot reads them
from its database: never computed while ranking. Without the extra the script says so in one line.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks import quality
from benchmarks.common import SHARED_DATA, machine, read_papers, wants_write, write_section
from benchmarks.embedding_cache import cached_vectors, conf_papers
from recommender import PaperIndex
from recommender.embeddings import EmbeddingBlend, EmbeddingWeights, PaperVectors, embedding_queries
from recommender.evaluate import evaluate

SPLITS = ("P10", "P1", "cold", "conf-half", "conf-one", "conf-cold")
START, END = "<!-- embeddings:start -->", "<!-- embeddings:end -->"
DEFAULT_WEIGHT = EmbeddingWeights().weight


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _alone(vectors: PaperVectors, encode):
    """Rank by the embedding cosine only (a reference row)."""
    def blend(index, profiles, scores):
        matrix, has = vectors.aligned(index)
        cos = embedding_queries(vectors, index, profiles, encode) @ matrix.T
        return np.where(has[None, :], cos, -1.0).astype(np.float32)
    return blend


def run(splits: list[str], n_users: int | None, weights: list[float]) -> tuple[list[quality.Row], dict]:
    from bot.state.embedding_model import DIMENSIONS, encoder

    rows: list[quality.Row] = []
    info: dict = {"weights": weights, "rss_before_model": _rss_mb()}
    encode = encoder()
    encode(["load the model"])
    info["rss_model"] = _rss_mb()

    def add(split, method, ranked, truth, seconds, index):
        scores = quality.metrics(ranked, truth, ks=quality.KS)
        ils = quality.intra_list_similarity(index, ranked, 10)
        rows.append(quality.Row(split, method, scores["users"], scores, seconds, ils,
                                quality.recall_per_user(ranked, truth)))
        print(f"  {split:9s} {method:40s} recall@50 {scores['recall@50']:.4f}  ({seconds:.1f}s)", flush=True)

    def measure(split, index, reference, vectors, train, test, candidates):
        if n_users is not None and n_users < len(train):
            chosen = {u.user for u in quality.random.Random(0).sample(train, n_users)}
            train = [u for u in train if u.user in chosen]
        wanted = {u.user for u in train}
        truth = [t for t in test if t.user in wanted]
        methods = [("paperbot", {})]
        for w in weights:
            only = w == DEFAULT_WEIGHT and len(weights) == 1
            name = "paperbot + embeddings" + ("" if only else f" (weight {w:g})")
            methods.append((name, {"blend": EmbeddingBlend(vectors, encode, EmbeddingWeights(weight=w))}))
        methods.append(("embedding centroid", {"blend": _alone(vectors, encode), "collaborative": False}))
        for method, options in methods:
            start = time.perf_counter()
            ranked = dict(evaluate(index, train, k=quality.K, candidates=candidates, **options))
            add(split, method, ranked, truth, time.perf_counter() - start, index)
        start = time.perf_counter()
        ranked = reference.centroid(train, candidates)
        add(split, "TF-IDF centroid", ranked, truth, time.perf_counter() - start, index)

    def vectors_for(name, ids, texts):
        matrix, meta = cached_vectors(name, ids, texts)
        vectors = PaperVectors(DIMENSIONS)
        vectors.put(ids, matrix)
        info[name] = {**meta, "vector_mb": matrix.nbytes / 2**20}
        return vectors

    cite = [s for s in splits if not s.startswith("conf-")]
    if cite:
        ids, texts = read_papers(quality.DATA / "papers.jsonl")
        index, reference = PaperIndex.build(ids, texts), quality.Reference(ids, texts)
        vectors = vectors_for("citeulike-a", ids, texts)
        for split in cite:
            measure(split, index, reference, vectors, *quality.load_split(split, ids))
    conf = [s for s in splits if s.startswith("conf-")]
    if conf:
        ids, texts = conf_papers()
        _, _, authors = quality.load_conf()
        index, reference = PaperIndex.build(ids, texts), quality.Reference(ids, texts)
        vectors = vectors_for("conf", ids, texts)
        for split in conf:
            measure(split, index, reference, vectors, *quality.conf_split(split, ids, authors))
    info["rss_end"] = _rss_mb()
    return rows, info


def markdown(rows: list[quality.Row], info: dict, command: str) -> str:
    lines = [START, "### The table", "",
             f"Command: `{command}` ({machine()}), vectors from `benchmarks/embedding_cache.py`. Columns "
             "as in the table above (\"Δ recall@50 vs paperbot\" is paired against TF-IDF paperbot, same "
             "users).", "", "| " + " | ".join(quality.HEADERS) + " |",
             "|" + "|".join("---" for _ in quality.HEADERS) + "|"]
    lines += ["| " + " | ".join(quality.cells(rows, r)) + " |" for r in rows]
    notes = []
    for name in ("citeulike-a", "conf"):
        if name in info:
            m = info[name]
            # The model loads once per process: only the first data set encoded pays for it.
            load = f"; loading the model {m['load_seconds']:.0f} s" if m["load_seconds"] >= 1 else ""
            notes.append(f"{name}: {m['papers']:,} papers encoded in {m['seconds']:.0f} s "
                         f"({1000 * m['seconds'] / m['papers']:.1f} s per 1,000 papers{load}), vectors "
                         f"{m['vector_mb']:.1f} MB in float32.")
    notes.append(f"Process RSS: {info['rss_before_model']:.0f} MB before the model, "
                 f"{info['rss_model']:.0f} MB with it loaded, {info['rss_end']:.0f} MB at the end (indexes "
                 "and vectors of both data sets).")
    lines += ["", " ".join(notes), END]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--users", type=int, help="rank only a fixed random sample of this many users")
    parser.add_argument("--splits", default=",".join(SPLITS), help=f"comma-separated, of {', '.join(SPLITS)}")
    parser.add_argument("--weights", default=str(DEFAULT_WEIGHT),
                        help="embedding weights to try, comma-separated")
    parser.add_argument("--write", action=argparse.BooleanOptionalAction, default=None,
                        help="rewrite its part of docs/measurements/quality.md (default: a full run)")
    args = parser.parse_args(argv)
    from bot.state.embedding_model import MISSING, available

    if not available():
        print(MISSING)
        return 0
    splits = [s.strip() for s in args.splits.split(",") if s.strip()]
    if unknown := [s for s in splits if s not in SPLITS]:
        parser.error(f"unknown split(s): {', '.join(unknown)}")
    if not (quality.DATA / "papers.jsonl").exists() or not all(
            (SHARED_DATA / f).exists() for f in quality.CONF_FILES):
        print("citeulike-a or NeurIPS/ICML papers not found in ../shared/data; nothing to measure.")
        return 0
    weights = [float(w) for w in args.weights.split(",") if w.strip()]
    rows, info = run(splits, args.users, weights)
    for r in rows:
        print(" | ".join(quality.cells(rows, r)))
    full = args.users is None and splits == list(SPLITS) and weights == [DEFAULT_WEIGHT]
    if wants_write(args, full):
        options = "" if full else " " + " ".join(argv if argv is not None else sys.argv[1:])
        write_section(markdown(rows, info, ".venv/bin/python benchmarks/embeddings.py" + options), START, END,
                      quality.DOC)
        print(f"Wrote {quality.DOC.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
