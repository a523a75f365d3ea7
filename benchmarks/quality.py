"""Recommendation quality: paperbot's own ranking, its ablations and the references, side by side in one run.

    .venv/bin/python benchmarks/quality.py                 # everything; rewrites docs/measurements/quality.md
    .venv/bin/python benchmarks/quality.py --users 500 --splits P10,P1   # a quick look; prints only

Every method ranks 300 papers per user through its own code, never a paper the user liked or disliked:
- paperbot: ``recommender.evaluate.evaluate`` (``PaperIndex`` + ``score_matrix`` + ``top_k``, the bot's code),
  with its defaults: other users' given likes as a ``Community`` (collaborative), the per-person model,
  fading, dislikes.
- its ablations: without the collaborative part; without the per-person model; with MMR diversity;
  and paperbot as it was before feedback learning (dislikes at 0.5, no model, no fading, no
  collaborative part).
- TF-IDF centroid: arxiv-sanity's vectorizer, mean of the liked rows, cosine.
- arxiv-sanity SVM: the same vectorizer, one ``LinearSVC(C=0.01, class_weight="balanced")`` per user,
  on a fixed sample of users (seed 0); paperbot and the centroid are re-run on that same sample.

Splits on citeulike-a (titles, some abstracts):
- ``P10``, ``P1``: the CVAE split (10 or 1 liked papers given per user, the rest held out).
- ``cold``: a fixed 20% of papers (by a hash of the id) is removed from every training set and only
  those papers are ranked, against the P10 held-out likes among them, as a digest ranks new papers.
- ``feedback``: one digest of 10 papers was shown (ranked by paperbot without the collaborative part)
  and reacted to: held-out papers in it liked, every other one disliked (a harsh test: these
  "dislikes" are near misses, often on the user's own topic). Truth: the rest of the held-out.
- ``foreign``: each profile also holds another user's 10 likes (an interest the person doesn't have);
  one digest of 10 was shown; held-out papers in it liked, papers closer to the other user's library
  than to the person's own disliked, the rest ignored.
- ``drift``: each profile also holds another user's 10 likes, given a year ago (``liked_age_days`` 365;
  the person's own ones are new): does old feedback fade?
  The last three use a fixed sample of 2,000 P10 users (seed 0).
- ``shares``: links a person posted in channels as a second kind of positive: each P1 user's one given
  like, and :data:`SHARED` more of their held-out papers (a fixed pseudo-random choice) as papers they
  shared, counted as saves are (half a like); truth: the rest of the held-out. Against the same users
  ignoring the shares (each weighed next to nothing, so they are still never ranked) and counting them as
  full likes.

Second data set, NeurIPS 2018 + ICML 2019 (full abstracts; its own index): a "user" is an author;
``conf-half``: authors with 4+ papers, half of them given (by a hash), the rest held out; ``conf-one``:
authors with 3+ papers, one given; ``conf-cold``: as ``cold``, authors with 4+ papers. The authors
are not in the text, so only the words can find the held-out papers (and, with the collaborative
part, co-authors' given papers: rows "without collaborative" are the content-only check).

ILS@10 is the mean pairwise cosine (paperbot's TF-IDF rows) of each user's first 10 papers: lower is
more diverse.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
from rich.console import Console
from rich.table import Table
from scipy import sparse
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.preprocessing import normalize
from sklearn.svm import LinearSVC

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import (
    ROOT,
    SHARED_DATA,
    add_write_option,
    machine,
    read_papers,
    wants_write,
    write_section,
)
from recommender import DEFAULT_WEIGHTS, PaperIndex, Weights
from recommender.evaluate import EvalUser, evaluate, intra_list_similarity, load_users, metrics

DATA = SHARED_DATA / "citeulike-a"
CONF_FILES = ("neurips2018.jsonl", "icml2019.jsonl")
DOC = ROOT / "docs" / "measurements" / "quality.md"
SUMMARY_DOC = ROOT / "docs" / "measurements" / "benchmarks.md"
START, END = "<!-- quality:start -->", "<!-- quality:end -->"
K = 300
KS = (50, 100, 300)
SPLITS = ("P10", "P1", "cold", "feedback", "foreign", "drift", "shares", "conf-half", "conf-one", "conf-cold")
SIM_USERS = 2000
DIVERSITY = 0.15
#: paperbot before it learned from feedback: how it weighed dislikes, and nothing else.
PREVIOUS = Weights(disliked=0.5, topics_fade=0.0, half_life_days=0.0, model=0.0)
#: paperbot without what issue 14 added for one seed paper and new papers (the idf lean, expansion).
UNSHARPENED = replace(DEFAULT_WEIGHTS, query_idf=0.0, expansion=0.0)

# arxiv-sanity-lite's vectorizer, exactly.
REFERENCE_VECTORIZER = dict(
    stop_words="english", strip_accents="unicode", token_pattern=r"(?u)\b[a-zA-Z_][a-zA-Z0-9_]+\b",
    ngram_range=(1, 2), max_features=20000, min_df=5, max_df=0.1, sublinear_tf=True, norm="l2",
)

console = Console(width=None if sys.stdout.isatty() else 180)


@dataclass
class Row:
    split: str
    method: str
    users: int
    scores: dict
    seconds: float
    ils: float
    per_user: dict  # user -> recall@50, for paired comparisons


def held_out_bucket(paper_id: str) -> bool:
    """The fixed 20% of papers the cold-start splits treat as new."""
    return int.from_bytes(hashlib.sha256(paper_id.encode()).digest()[:8], "big") % 100 < 20


def _order(key: str, items: list[str]) -> list[str]:
    """A fixed pseudo-random order of ``items`` (by a hash with ``key``)."""
    return sorted(items, key=lambda x: hashlib.sha256(f"{key}\0{x}".encode()).hexdigest())


def load_split(split: str, ids: list[str]) -> tuple[list[EvalUser], list[EvalUser], list[str] | None]:
    """citeulike-a: (training users, held-out truth, candidates or None)."""
    p = "P1" if split == "P1" else "P10"
    train = load_users(DATA / f"users-train-{p}.jsonl")
    test = load_users(DATA / f"users-test-{p}.jsonl")
    if split != "cold":
        return train, test, None
    new = {pid for pid in ids if held_out_bucket(pid)}
    return (*cold_split(train, test, new), sorted(new))


def cold_split(train: list[EvalUser], test: list[EvalUser],
               new: set[str]) -> tuple[list[EvalUser], list[EvalUser]]:
    """The ``new`` papers out of every training set, and only those in the truth; users left with no
    given like are dropped."""
    train = [EvalUser(u.user, [i for i in u.liked if i not in new]) for u in train]
    known = {u.user for u in train if u.liked}
    train = [u for u in train if u.user in known]
    test = [EvalUser(u.user, [i for i in u.liked if i in new]) for u in test if u.user in known]
    return train, test


def load_conf() -> tuple[list[str], list[str], list[list[str]]]:
    ids, texts, authors = [], [], []
    for name in CONF_FILES:
        with (SHARED_DATA / name).open(encoding="utf-8") as f:
            for line in f:
                if line.strip():
                    p = json.loads(line)
                    ids.append(str(p["id"]))
                    texts.append(f"{p.get('title') or ''}. {p.get('abstract') or ''}")
                    authors.append(list(p.get("authors") or []))
    return ids, texts, authors


def conf_split(split: str, ids: list[str], authors: list[list[str]]):
    """NeurIPS + ICML: authors as users (see the module's docstring)."""
    papers_of: dict[str, list[str]] = defaultdict(list)
    for pid, names in zip(ids, authors, strict=True):
        for name in names:
            papers_of[name].append(pid)
    new = {pid for pid in ids if held_out_bucket(pid)} if split == "conf-cold" else set()
    train, test = [], []
    for name, papers in sorted(papers_of.items()):
        papers = _order(name, papers)
        if split == "conf-half" and len(papers) >= 4:
            given, held = papers[:len(papers) // 2], papers[len(papers) // 2:]
        elif split == "conf-one" and len(papers) >= 3:
            given, held = papers[:1], papers[1:]
        elif split == "conf-cold" and len(papers) >= 4:
            given = [p for p in papers[:len(papers) // 2 + 1] if p not in new]
            held = [p for p in papers if p in new and p not in given]
        else:
            continue
        if given and held:
            train.append(EvalUser(name, given))
            test.append(EvalUser(name, held))
    return train, test, (sorted(new) if split == "conf-cold" else None)


class Reference:
    """arxiv-sanity's TF-IDF, for the centroid and the SVM."""

    def __init__(self, ids: list[str], texts: list[str]):
        self.ids = ids
        self.row_of = {pid: i for i, pid in enumerate(ids)}
        self.matrix = sparse.csr_matrix(TfidfVectorizer(**REFERENCE_VECTORIZER).fit_transform(texts),
                                        dtype=np.float32)

    def _top(self, scores: np.ndarray, seen_rows: list[int], allowed: np.ndarray | None,
             k: int = K) -> list[str]:
        scores = scores.astype(np.float64, copy=True)
        if allowed is not None:
            scores[~allowed] = -np.inf
        scores[seen_rows] = -np.inf
        k = min(k, int(np.isfinite(scores).sum()))
        best = np.argpartition(-scores, k - 1)[:k]
        best = best[np.argsort(-scores[best], kind="stable")]
        return [self.ids[i] for i in best]

    def _allowed(self, candidates: list[str] | None) -> np.ndarray | None:
        if candidates is None:
            return None
        allowed = np.zeros(len(self.ids), dtype=bool)
        allowed[[self.row_of[c] for c in candidates]] = True
        return allowed

    def _seen(self, u: EvalUser) -> list[int]:
        return [self.row_of[i] for i in [*u.liked, *u.disliked] if i in self.row_of]

    def centroid(self, users: list[EvalUser], candidates: list[str] | None, batch: int = 256,
                 k: int = K) -> dict:
        """Mean of the liked rows, cosine; dislikes and ages are not used (only never ranked)."""
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
            for u, s in zip(chunk, scores, strict=True):
                out[u.user] = self._top(s, self._seen(u), allowed, k)
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
            out[u.user] = self._top(clf.decision_function(self.matrix), self._seen(u), allowed)
        return out


def timed(fn, *args, **kwargs):
    start = time.perf_counter()
    result = fn(*args, **kwargs)
    return result, time.perf_counter() - start


def paperbot(index: PaperIndex, **options):
    def rank(users: list[EvalUser], candidates: list[str] | None) -> dict:
        return dict(evaluate(index, users, k=K, candidates=candidates, **options))
    return rank


def _centroid_of(index: PaperIndex, ids) -> np.ndarray:
    rows = [index.row_of[p] for p in ids if p in index.row_of]
    v = np.asarray(index.matrix[rows].sum(axis=0)).ravel()
    return v / (np.linalg.norm(v) or 1.0)


def with_other_users_likes(train: list[EvalUser], age_days: float | None,
                           seed: int = 0) -> tuple[list[EvalUser], dict[str, str]]:
    """Each profile plus another (random) user's likes, optionally given ``age_days`` ago; and whose."""
    rng = random.Random(seed)
    out, other_of = [], {}
    for u in train:
        other = train[rng.randrange(len(train))]
        while other.user == u.user:
            other = train[rng.randrange(len(train))]
        extra = [p for p in other.liked if p not in u.liked]
        ages = None if age_days is None else [age_days] * len(extra) + [0.0] * len(u.liked)
        out.append(EvalUser(u.user, extra + u.liked, liked_age_days=ages))
        other_of[u.user] = other.user
    return out, other_of


def one_digest(index: PaperIndex, train: list[EvalUser], test: list[EvalUser], dislike, shown: int = 10):
    """Show each user ``shown`` papers (paperbot without the collaborative part), and react:
    held-out ones liked, those ``dislike(user, paper)`` says disliked. Returns (train, truth)."""
    truth = {t.user: set(t.liked) for t in test}
    ranked = dict(evaluate(index, train, k=shown, collaborative=False))
    new_train, new_test = [], []
    for u in train:
        held = truth.get(u.user, set())
        top = ranked.get(u.user, [])
        hits = [p for p in top if p in held]
        disliked = [p for p in top if p not in held and dislike(u, p)]
        ages = None if u.liked_age_days is None else u.liked_age_days + [0.0] * len(hits)
        new_train.append(EvalUser(u.user, u.liked + hits, u.disliked + disliked, u.topics, ages))
        new_test.append(EvalUser(u.user, sorted(held - set(hits))))
    return new_train, new_test


def simulated_split(split: str, index: PaperIndex, ids: list[str],
                    p10: tuple[list[EvalUser], list[EvalUser]] | None = None, sample: int = SIM_USERS):
    """feedback / foreign / drift (see the module's docstring): (train, truth, None). ``p10`` (given,
    held out) are citeulike-a's P10 users unless given; ``sample`` of them are used."""
    train, test = p10 if p10 is not None else load_split("P10", ids)[:2]
    own = {u.user: u.liked for u in train}
    train = random.Random(0).sample(train, min(sample, len(train)))
    if split == "feedback":
        return (*one_digest(index, train, test, lambda u, p: True), None)
    if split == "drift":
        return with_other_users_likes(train, 365.0)[0], test, None
    # foreign: the other user's likes are in the profile as if the person's own.
    mixed, other_of = with_other_users_likes(train, None)
    held = {t.user: t.liked for t in test}
    taste: dict[str, np.ndarray] = {}

    def of(user: str) -> np.ndarray:
        if user not in taste:
            taste[user] = _centroid_of(index, [*own.get(user, []), *held.get(user, [])])
        return taste[user]

    def dislike(u: EvalUser, pid: str) -> bool:
        row = index.matrix[index.row_of[pid]]
        return float((row @ of(other_of[u.user]))[0]) > float((row @ of(u.user))[0])
    return (*one_digest(index, mixed, test, dislike), None)


#: Papers each user of the ``shares`` split shared (of their held-out ones); users with fewer than this
#: and one more held out are left out.
SHARED = 3
#: An age that makes a paper's weight next to nothing (fading's floor) while it stays in the profile.
IGNORED_DAYS = 1e6


def shares_split(ids: list[str]) -> tuple[list[EvalUser], list[EvalUser], list[EvalUser], list[EvalUser]]:
    """``shares`` (see the module): (with shares as saves, ignoring them, with them as likes, truth)."""
    train, test = load_split("P1", ids)[:2]
    held = {t.user: t.liked for t in test}
    saved, ignored, liked, truth = [], [], [], []
    for u in train:
        shared = _order(u.user, held.get(u.user, []))[:SHARED]
        rest = [p for p in held.get(u.user, []) if p not in shared]
        if len(shared) < SHARED or not rest:
            continue
        both = [*u.liked, *shared]
        saved.append(replace(u, liked=both, saved=frozenset(shared), liked_age_days=[0.0] * len(both)))
        ignored.append(replace(u, liked=both, liked_age_days=[0.0] * len(u.liked) + [IGNORED_DAYS] * SHARED))
        liked.append(replace(u, liked=both, liked_age_days=[0.0] * len(both)))
        truth.append(EvalUser(u.user, liked=rest))
    return saved, ignored, liked, truth


def cvae_methods(split: str, index: PaperIndex, default) -> list:
    """The methods measured on P10, P1 and cold: paperbot and the ablations that split tells about."""
    methods = [("paperbot", default)]
    if split == "P10":
        methods += [("paperbot without collaborative", paperbot(index, collaborative=False)),
                    ("paperbot without per-person model",
                     paperbot(index, weights=replace(DEFAULT_WEIGHTS, model=0.0)))]
    if split in ("P1", "cold"):
        methods.append(("paperbot without idf lean and expansion", paperbot(index, weights=UNSHARPENED)))
    if split in ("P10", "P1"):
        methods.append((f"paperbot + MMR (diversity {DIVERSITY})", paperbot(index, diversity=DIVERSITY)))
    methods.append(("paperbot before feedback learning",
                    paperbot(index, weights=PREVIOUS, collaborative=False)))
    return methods


def measure_shares(ids: list[str], default, reference, n_users: int | None, add) -> None:
    """The ``shares`` split's rows: paperbot with the shares as saves, ignoring them, counting them as likes,
    and the centroid; ``add(split, method, ranked, truth, seconds)`` records each."""
    saved, ignored, as_liked, truth = shares_split(ids)
    if n_users is not None and n_users < len(saved):
        chosen = {u.user for u in random.Random(0).sample(saved, n_users)}
        saved, ignored, as_liked = ([u for u in group if u.user in chosen]
                                    for group in (saved, ignored, as_liked))
        truth = [t for t in truth if t.user in chosen]
    for method, users in (("paperbot", saved), ("paperbot ignoring shares", ignored),
                          ("paperbot counting shares as likes", as_liked)):
        ranked, secs = timed(default, users, None)
        add("shares", method, ranked, truth, secs)
    ranked, secs = timed(reference.centroid, saved, None)
    add("shares", "TF-IDF centroid", ranked, truth, secs)


def recall_per_user(ranked: dict, truth: list[EvalUser], k: int = 50) -> dict:
    out = {}
    for t in truth:
        if t.liked:
            held = set(t.liked)
            out[t.user] = len(held & set(ranked.get(t.user, [])[:k])) / len(held)
    return out


def run(splits: list[str], n_users: int | None, svm_users: int) -> tuple[list[Row], dict]:
    rows: list[Row] = []
    info: dict = {"svm_users": svm_users}

    def add(split, method, ranked, truth, seconds, index):
        scores = metrics(ranked, truth, ks=KS)
        ils = intra_list_similarity(index, ranked, 10)
        rows.append(Row(split, method, scores["users"], scores, seconds, ils, recall_per_user(ranked, truth)))
        console.print(f"  {split:9s} {method:44s} recall@50 {scores['recall@50']:.4f}  ILS@10 {ils:.3f}  "
                      f"({seconds:.1f}s)")

    def measure(split, index, reference, train, test, candidates, methods, svm: bool):
        if n_users is not None and n_users < len(train):
            chosen = {u.user for u in random.Random(0).sample(train, n_users)}
            train = [u for u in train if u.user in chosen]
        wanted = {u.user for u in train}
        truth = [t for t in test if t.user in wanted]
        for method, fn in methods:
            ranked, secs = timed(fn, train, candidates)
            add(split, method, ranked, truth, secs, index)
        ranked, secs = timed(reference.centroid, train, candidates)
        add(split, "TF-IDF centroid", ranked, truth, secs, index)
        if svm and svm_users:
            sample = random.Random(0).sample(train, min(svm_users, len(train)))
            names = {u.user for u in sample}
            sample_truth = [t for t in truth if t.user in names]
            for method, fn in [("arxiv-sanity SVM", reference.svm), ("paperbot", methods[0][1]),
                               ("TF-IDF centroid", reference.centroid)]:
                ranked, secs = timed(fn, sample, candidates)
                add(split, method + " (sample)", ranked, sample_truth, secs, index)

    cite_splits = [s for s in splits if not s.startswith("conf-")]
    if cite_splits:
        ids, texts = read_papers(DATA / "papers.jsonl")
        index, pb_fit = timed(PaperIndex.build, ids, texts)
        reference, ref_fit = timed(Reference, ids, texts)
        info.update(papers=len(ids), paperbot_fit=pb_fit, reference_fit=ref_fit,
                    paperbot_terms=index.matrix.shape[1], reference_terms=reference.matrix.shape[1])
        console.print(f"citeulike-a: {len(ids)} papers; fit: paperbot {pb_fit:.1f}s "
                      f"({index.matrix.shape[1]} terms), reference {ref_fit:.1f}s "
                      f"({reference.matrix.shape[1]} terms)")
        default = paperbot(index)
        for split in cite_splits:
            if split == "shares":
                measure_shares(ids, default, reference, n_users, lambda *row: add(*row, index))
            elif split in ("P10", "P1", "cold"):
                train, test, candidates = load_split(split, ids)
                measure(split, index, reference, train, test, candidates, cvae_methods(split, index, default),
                        svm=True)
            else:
                train, test, candidates = simulated_split(split, index, ids)
                methods = [("paperbot", default)]
                if split == "feedback":
                    methods += [("paperbot ignoring dislikes",
                                 paperbot(index, weights=replace(DEFAULT_WEIGHTS, disliked=0.0)))]
                if split in ("feedback", "foreign"):
                    methods += [("paperbot without per-person model",
                                 paperbot(index, weights=replace(DEFAULT_WEIGHTS, model=0.0)))]
                if split == "foreign":
                    methods += [("paperbot ignoring dislikes",
                                 paperbot(index, weights=replace(DEFAULT_WEIGHTS, disliked=0.0)))]
                if split == "drift":
                    methods += [("paperbot without fading",
                                 paperbot(index, weights=replace(DEFAULT_WEIGHTS, half_life_days=0.0)))]
                methods.append(("paperbot before feedback learning",
                                paperbot(index, weights=PREVIOUS, collaborative=False)))
                measure(split, index, reference, train, test, candidates, methods, svm=False)

    conf = [s for s in splits if s.startswith("conf-")]
    if conf:
        ids, texts, authors = load_conf()
        index, pb_fit = timed(PaperIndex.build, ids, texts)
        reference = Reference(ids, texts)
        info.update(conf_papers=len(ids), conf_terms=index.matrix.shape[1])
        console.print(f"NeurIPS 2018 + ICML 2019: {len(ids)} papers, {index.matrix.shape[1]} terms")
        for split in conf:
            train, test, candidates = conf_split(split, ids, authors)
            methods = [("paperbot", paperbot(index)),
                       ("paperbot without collaborative", paperbot(index, collaborative=False)),
                       ("paperbot without idf lean and expansion", paperbot(index, weights=UNSHARPENED)),
                       ("paperbot before feedback learning",
                        paperbot(index, weights=PREVIOUS, collaborative=False))]
            if split == "conf-half":
                methods.append((f"paperbot + MMR (diversity {DIVERSITY})",
                                paperbot(index, diversity=DIVERSITY)))
            measure(split, index, reference, train, test, candidates, methods, svm=False)
            ranked, secs = timed(reference.svm, train, candidates)
            wanted = {u.user for u in train}
            add(split, "arxiv-sanity SVM", ranked, [t for t in test if t.user in wanted], secs, index)
    return rows, info


def _base(rows: list[Row], row: Row, method: str) -> Row | None:
    suffix = row.method[len(row.method.split(" (")[0]):] if row.method.endswith("(sample)") else ""
    for other in rows:
        if other.split == row.split and other.method == method + suffix:
            return other
    return None


def ratio(rows: list[Row], row: Row) -> str:
    """recall@50 against the centroid on the same split and users."""
    base = _base(rows, row, "TF-IDF centroid")
    if base is None or not base.scores["recall@50"]:
        return ""
    return f"{row.scores['recall@50'] / base.scores['recall@50']:.2f}×"


def time_ratio(rows: list[Row], row: Row) -> str:
    base = _base(rows, row, "TF-IDF centroid")
    if base is None or base.seconds <= 0 or row.method.endswith("(sample)"):
        return ""
    return f"{row.seconds / base.seconds:.1f}×"


def paired(rows: list[Row], row: Row) -> str:
    """Δ recall@50 against paperbot on the same users, ± twice its standard error."""
    if row.method.endswith("(sample)") or row.method == "paperbot":
        return ""
    base = _base(rows, row, "paperbot")
    if base is None:
        return ""
    users = sorted(set(base.per_user) & set(row.per_user))
    if len(users) < 2:
        return ""
    diff = np.array([row.per_user[u] - base.per_user[u] for u in users])
    return f"{diff.mean():+.4f} ± {2 * diff.std(ddof=1) / np.sqrt(len(diff)):.4f}"


HEADERS = ("split", "method", "users", "recall@50", "recall@100", "recall@300", "nDCG@50", "ILS@10",
           "vs centroid", "Δ recall@50 vs paperbot", "rank time", "time vs centroid")


def cells(rows: list[Row], row: Row) -> list[str]:
    s = row.scores
    return [row.split, row.method, str(row.users), f"{s['recall@50']:.4f}", f"{s['recall@100']:.4f}",
            f"{s['recall@300']:.4f}", f"{s['ndcg@50']:.4f}", f"{row.ils:.3f}", ratio(rows, row),
            paired(rows, row), f"{row.seconds:.1f} s", time_ratio(rows, row)]


def markdown(rows: list[Row], info: dict, command: str) -> str:
    lines = [
        START,
        "## The table",
        "",
        f"Command: `{command}` ({machine()}). Written by the script; every number below comes from that "
        "one run. Users with held-out papers only; every method ranks 300 papers per user, never one the "
        "user liked or disliked.",
        "",
        "| " + " | ".join(HEADERS) + " |",
        "|" + "|".join("---" for _ in HEADERS) + "|",
    ]
    lines += ["| " + " | ".join(cells(rows, r)) + " |" for r in rows]
    notes = []
    if "papers" in info:
        notes.append(
            f"citeulike-a: {info['papers']:,} papers; fit once for all its splits: paperbot's index "
            f"{info['paperbot_fit']:.1f} s ({info['paperbot_terms']:,} terms), the reference TF-IDF "
            f"{info['reference_fit']:.1f} s ({info['reference_terms']:,} terms).")
    if "conf_papers" in info:
        notes.append(f"NeurIPS 2018 + ICML 2019: {info['conf_papers']:,} papers, "
                     f"{info['conf_terms']:,} terms in paperbot's index.")
    notes.append(
        "Rank time excludes fitting; \"time vs centroid\" is a method's rank time over the centroid's on "
        "the same split and users. \"vs centroid\" is recall@50 over the centroid's on the same users. "
        "\"Δ recall@50 vs paperbot\" is paired, per user, against the paperbot row of the same split, "
        "± twice its standard error: an interval that holds 0 is noise. The `(sample)` rows use a fixed "
        f"sample of {info['svm_users']} users (seed 0) for the SVM, with paperbot and the centroid re-run "
        "on it. Timings on this shared 2-core machine vary by ±30% from run to run.")
    lines += ["", " ".join(notes), END]
    return "\n".join(lines) + "\n"


def summary(rows: list[Row], command: str) -> str:
    """The short version for docs/measurements/benchmarks.md."""
    def find(split, method):
        return next((r for r in rows if r.split == split and r.method == method), None)
    lines = [
        START,
        "## Quality on citeulike-a (summary)",
        "",
        "The full table, its ablations, the second data set (NeurIPS 2018 + ICML 2019 abstracts) and "
        f"what was kept or dropped are in [quality.md](quality.md), written by `{command}`. "
        "recall@50 from that run:",
        "",
        "| split | paperbot | without collaborative | TF-IDF centroid | paperbot / centroid "
        "| time / centroid |",
        "|---|---|---|---|---|---|",
    ]
    for split in ("P10", "P1", "cold", "conf-half", "conf-one", "conf-cold"):
        pb, cen = find(split, "paperbot"), find(split, "TF-IDF centroid")
        if pb is None or cen is None:
            continue
        content = find(split, "paperbot without collaborative")
        without = f"{content.scores['recall@50']:.4f}" if content else "(no co-likes)"
        lines.append(f"| {split} | {pb.scores['recall@50']:.4f} | {without} | "
                     f"{cen.scores['recall@50']:.4f} | {ratio(rows, pb)} | {time_ratio(rows, pb)} |")
    lines.append(END)
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--users", type=int, help="rank only a fixed random sample of this many users")
    parser.add_argument("--splits", default=",".join(SPLITS), help=f"comma-separated, of {', '.join(SPLITS)}")
    parser.add_argument("--svm-users", type=int, default=100, help="users in the SVM sample (0: no SVM)")
    add_write_option(parser, "docs/measurements/quality.md", "for a full run")
    args = parser.parse_args(argv)
    splits = [s.strip() for s in args.splits.split(",") if s.strip()]
    if unknown := [s for s in splits if s not in SPLITS]:
        parser.error(f"unknown split(s): {', '.join(unknown)}")
    if not (DATA / "papers.jsonl").exists():
        console.print(f"citeulike-a not found at ../shared/data/{DATA.name}; nothing to measure.")
        return 0
    if any(s.startswith("conf-") for s in splits) and not all((SHARED_DATA / f).exists() for f in CONF_FILES):
        console.print("NeurIPS/ICML papers not found in ../shared/data; skipping the conf- splits.")
        splits = [s for s in splits if not s.startswith("conf-")]
    rows, info = run(splits, args.users, args.svm_users)
    table = Table(title="paperbot against the references")
    for h in HEADERS:
        table.add_column(h, justify="left" if h in ("split", "method") else "right")
    for r in rows:
        table.add_row(*cells(rows, r))
    console.print(table)
    full = args.users is None and splits == list(SPLITS) and args.svm_users == 100
    if wants_write(args, full):
        options = "" if full else " " + " ".join(argv if argv is not None else sys.argv[1:])
        command = ".venv/bin/python benchmarks/quality.py" + options
        write_section(markdown(rows, info, command), START, END, DOC)
        write_section(summary(rows, command), START, END, SUMMARY_DOC)
        console.print(f"Wrote {DOC.relative_to(ROOT)} and the summary in {SUMMARY_DOC.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
