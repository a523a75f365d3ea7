"""Recommendation quality on citeulike-a: paperbot's own ranking against the references, in one run.

    .venv/bin/python benchmarks/quality.py                 # everything; rewrites docs/benchmarks.md
    .venv/bin/python benchmarks/quality.py --users 500 --splits P10   # a quick look; prints only

Methods, each ranking 300 papers per user and never a paper the user already liked:
- paperbot: ``bot.evaluate.evaluate`` (``PaperIndex`` + ``score_matrix`` + ``top_k``: the bot's code).
- TF-IDF centroid: arxiv-sanity's vectorizer, mean of the liked rows, cosine.
- arxiv-sanity SVM: the same vectorizer, one ``LinearSVC(C=0.01, class_weight="balanced")`` per user,
  on a fixed sample of users (seed 0); paperbot and the centroid are re-run on that same sample.

Splits: P10 and P1 (the CVAE split: 10 or 1 liked papers given per user, the rest held out), and
``cold``: a fixed 20% of papers (by a hash of the id) is removed from every training set and only those
papers are ranked, against the P10 held-out likes among them, as a digest ranks new papers.
"""

from __future__ import annotations

import argparse
import hashlib
import random
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from rich.console import Console
from rich.table import Table
from scipy import sparse
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.preprocessing import normalize
from sklearn.svm import LinearSVC

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import DOC, ROOT, SHARED_DATA, machine, read_papers, write_section  # noqa: E402
from bot.evaluate import EvalUser, evaluate, load_users, metrics  # noqa: E402
from recommender import PaperIndex  # noqa: E402

DATA = SHARED_DATA / "citeulike-a"
START, END = "<!-- quality:start -->", "<!-- quality:end -->"
K = 300
KS = (50, 100, 300)
SPLITS = ("P10", "P1", "cold")

# arxiv-sanity-lite's vectorizer, exactly.
REFERENCE_VECTORIZER = dict(
    stop_words="english", strip_accents="unicode", token_pattern=r"(?u)\b[a-zA-Z_][a-zA-Z0-9_]+\b",
    ngram_range=(1, 2), max_features=20000, min_df=5, max_df=0.1, sublinear_tf=True, norm="l2",
)

console = Console(width=None if sys.stdout.isatty() else 160)


@dataclass
class Row:
    split: str
    method: str
    users: int
    scores: dict
    seconds: float


def held_out_bucket(paper_id: str) -> bool:
    """The fixed 20% of papers the cold-start split treats as new."""
    return int.from_bytes(hashlib.sha256(paper_id.encode()).digest()[:8], "big") % 100 < 20


def load_split(split: str, ids: list[str]) -> tuple[list[EvalUser], list[EvalUser], list[str] | None]:
    """(training users, held-out truth, candidates or None)."""
    p = "P1" if split == "P1" else "P10"
    train = load_users(DATA / f"users-train-{p}.jsonl")
    test = load_users(DATA / f"users-test-{p}.jsonl")
    if split != "cold":
        return train, test, None
    new = {pid for pid in ids if held_out_bucket(pid)}
    train = [EvalUser(u.user, [i for i in u.liked if i not in new]) for u in train]
    known = {u.user for u in train if u.liked}
    train = [u for u in train if u.user in known]
    test = [EvalUser(u.user, [i for i in u.liked if i in new]) for u in test if u.user in known]
    return train, test, sorted(new)


class Reference:
    """arxiv-sanity's TF-IDF, for the centroid and the SVM."""

    def __init__(self, ids: list[str], texts: list[str]):
        self.ids = ids
        self.row_of = {pid: i for i, pid in enumerate(ids)}
        self.matrix = sparse.csr_matrix(TfidfVectorizer(**REFERENCE_VECTORIZER).fit_transform(texts),
                                        dtype=np.float32)

    def _top(self, scores: np.ndarray, liked_rows: list[int], allowed: np.ndarray | None) -> list[str]:
        scores = scores.astype(np.float64, copy=True)
        if allowed is not None:
            scores[~allowed] = -np.inf
        scores[liked_rows] = -np.inf
        k = min(K, int(np.isfinite(scores).sum()))
        best = np.argpartition(-scores, k - 1)[:k]
        best = best[np.argsort(-scores[best], kind="stable")]
        return [self.ids[i] for i in best]

    def _allowed(self, candidates: list[str] | None) -> np.ndarray | None:
        if candidates is None:
            return None
        allowed = np.zeros(len(self.ids), dtype=bool)
        allowed[[self.row_of[c] for c in candidates]] = True
        return allowed

    def centroid(self, users: list[EvalUser], candidates: list[str] | None, batch: int = 256) -> dict:
        allowed = self._allowed(candidates)
        out = {}
        for start in range(0, len(users), batch):
            chunk = users[start:start + batch]
            rows = [[self.row_of[i] for i in u.liked if i in self.row_of] for u in chunk]
            select = sparse.csr_matrix(
                (np.ones(sum(map(len, rows)), np.float32),
                 np.array([r for rs in rows for r in rs], dtype=np.int64),
                 np.cumsum([0] + [len(r) for r in rows])),
                shape=(len(chunk), self.matrix.shape[0]),
            )
            queries = normalize(select @ self.matrix)
            scores = (queries @ self.matrix.T).toarray()
            for u, r, s in zip(chunk, rows, scores, strict=True):
                out[u.user] = self._top(s, r, allowed)
        return out

    def svm(self, users: list[EvalUser], candidates: list[str] | None) -> dict:
        allowed = self._allowed(candidates)
        out = {}
        for u in users:
            rows = [self.row_of[i] for i in u.liked if i in self.row_of]
            y = np.zeros(self.matrix.shape[0], dtype=np.int8)
            y[rows] = 1
            clf = LinearSVC(C=0.01, class_weight="balanced", max_iter=10_000, tol=1e-6)
            clf.fit(self.matrix, y)
            out[u.user] = self._top(clf.decision_function(self.matrix), rows, allowed)
        return out


def timed(fn, *args, **kwargs):
    start = time.perf_counter()
    result = fn(*args, **kwargs)
    return result, time.perf_counter() - start


def ranked_by_paperbot(index: PaperIndex, users: list[EvalUser], candidates: list[str] | None) -> dict:
    return dict(evaluate(index, users, k=K, candidates=candidates))


def run(splits: list[str], n_users: int | None, svm_users: int) -> tuple[list[Row], dict]:
    ids, texts = read_papers(DATA / "papers.jsonl")
    index, pb_fit = timed(PaperIndex.build, ids, texts)
    reference, ref_fit = timed(Reference, ids, texts)
    info = {"papers": len(ids), "svm_users": svm_users, "paperbot_fit": pb_fit, "reference_fit": ref_fit,
            "paperbot_terms": index.matrix.shape[1], "reference_terms": reference.matrix.shape[1]}
    console.print(f"{len(ids)} papers; fit: paperbot {pb_fit:.1f}s ({index.matrix.shape[1]} terms), "
                  f"reference {ref_fit:.1f}s ({reference.matrix.shape[1]} terms)")
    rows: list[Row] = []

    def add(split, method, ranked, truth, seconds):
        scores = metrics(ranked, truth, ks=KS)
        rows.append(Row(split, method, scores["users"], scores, seconds))
        console.print(f"  {split:5s} {method:32s} recall@50 {scores['recall@50']:.4f}  ({seconds:.1f}s)")

    for split in splits:
        train, test, candidates = load_split(split, ids)
        if n_users is not None and n_users < len(train):
            chosen = {u.user for u in random.Random(0).sample(train, n_users)}
            train = [u for u in train if u.user in chosen]
        wanted = {u.user for u in train}
        truth = [t for t in test if t.user in wanted]
        ranked, secs = timed(ranked_by_paperbot, index, train, candidates)
        add(split, "paperbot", ranked, truth, secs)
        ranked, secs = timed(reference.centroid, train, candidates)
        add(split, "TF-IDF centroid", ranked, truth, secs)
        if svm_users:
            sample = random.Random(0).sample(train, min(svm_users, len(train)))
            names = {u.user for u in sample}
            sample_truth = [t for t in truth if t.user in names]
            label = " (sample)"
            ranked, secs = timed(reference.svm, sample, candidates)
            add(split, "arxiv-sanity SVM" + label, ranked, sample_truth, secs)
            ranked, secs = timed(ranked_by_paperbot, index, sample, candidates)
            add(split, "paperbot" + label, ranked, sample_truth, secs)
            ranked, secs = timed(reference.centroid, sample, candidates)
            add(split, "TF-IDF centroid" + label, ranked, sample_truth, secs)
    return rows, info


def ratio(rows: list[Row], row: Row) -> str:
    """recall@50 against the centroid on the same split and users."""
    base = "TF-IDF centroid" + row.method[len(row.method.split(" (")[0]):]
    for other in rows:
        if other.split == row.split and other.method == base and other.scores["recall@50"]:
            return f"{row.scores['recall@50'] / other.scores['recall@50']:.2f}×"
    return ""


HEADERS = ("split", "method", "users", "recall@50", "recall@100", "recall@300", "nDCG@50", "vs centroid",
           "rank time")


def cells(rows: list[Row], row: Row) -> list[str]:
    s = row.scores
    return [row.split, row.method, str(row.users), f"{s['recall@50']:.4f}", f"{s['recall@100']:.4f}",
            f"{s['recall@300']:.4f}", f"{s['ndcg@50']:.4f}", ratio(rows, row), f"{row.seconds:.1f} s"]


def markdown(rows: list[Row], info: dict, command: str) -> str:
    lines = [
        START,
        "## Quality on citeulike-a",
        "",
        f"Command: `{command}` ({machine()}). {info['papers']:,} papers; users with held-out papers only. "
        "Every method ranks 300 papers per user, never one the user liked.",
        "",
        "| " + " | ".join(HEADERS) + " |",
        "|" + "|".join("---" for _ in HEADERS) + "|",
    ]
    lines += ["| " + " | ".join(cells(rows, r)) + " |" for r in rows]
    lines += [
        "",
        f"Fit once for all splits: paperbot's index {info['paperbot_fit']:.1f} s "
        f"({info['paperbot_terms']:,} terms), the reference TF-IDF {info['reference_fit']:.1f} s "
        f"({info['reference_terms']:,} terms); rank time excludes it. \"vs centroid\" is recall@50 over the "
        "centroid's on the same split and users. The SVM rows and their side-by-side rows use a fixed "
        f"sample of {info['svm_users']} users (seed 0). `cold`: a fixed 20% of papers (by a hash of the "
        "id) is removed from every training set; only those papers are ranked, and the truth is each "
        "user's P10 held-out likes among them (users left with no training like are dropped).",
        END,
    ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--users", type=int, help="rank only a fixed random sample of this many users")
    parser.add_argument("--splits", default=",".join(SPLITS), help=f"comma-separated, of {', '.join(SPLITS)}")
    parser.add_argument("--svm-users", type=int, default=100, help="users in the SVM sample (0: no SVM)")
    parser.add_argument("--write", action=argparse.BooleanOptionalAction, default=None,
                        help="rewrite docs/benchmarks.md (default: only for a full run)")
    args = parser.parse_args(argv)
    splits = [s.strip() for s in args.splits.split(",") if s.strip()]
    if unknown := [s for s in splits if s not in SPLITS]:
        parser.error(f"unknown split(s): {', '.join(unknown)}")
    if not (DATA / "papers.jsonl").exists():
        console.print(f"citeulike-a not found at ../shared/data/{DATA.name}; nothing to measure.")
        return 0
    rows, info = run(splits, args.users, args.svm_users)
    table = Table(title=f"citeulike-a, {info['papers']} papers")
    for h in HEADERS:
        table.add_column(h, justify="left" if h in ("split", "method") else "right")
    for r in rows:
        table.add_row(*cells(rows, r))
    console.print(table)
    full = args.users is None and splits == list(SPLITS) and args.svm_users == 100
    if args.write or (args.write is None and full):
        options = "" if full else " " + " ".join(argv if argv is not None else sys.argv[1:])
        command = ".venv/bin/python benchmarks/quality.py" + options
        write_section(markdown(rows, info, command), START, END)
        console.print(f"Wrote {DOC.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
