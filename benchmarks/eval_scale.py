"""A larger evaluation set than citeulike-a, drawn from the shared data, for timing ``paperbot eval``.

    .venv/bin/python benchmarks/eval_time.py --scale --repeat 3     # times every split on it

Built deterministically (``seed``, 0 by default) from ../shared/data, with ``papers`` (26,000) papers
and ``users`` (8,000) users:

- Papers: citeulike-a's 16,980 and NeurIPS 2018 + ICML 2019's 1,781 as they are, topped up with
  perturbed copies of random citeulike-a papers (each word dropped with probability 0.1, as
  ``digest_throughput.py``'s copies are; id ``copy<n>-<source id>``, the text as the abstract).
- Users: citeulike-a's 5,551 as they are, then synthetic ones up to ``users``: each copies a random
  real user (drawn with replacement) and moves every paper of that user's library that has copies
  onto one of them (chosen at random, once per synthetic user, so its P1 and P10 splits name the same
  papers). A library is kept split as its model's (the given and held-out papers of P10 and of P1).
- Splits, as ``benchmarks/quality.py`` makes them: ``P10`` and ``P1`` from those libraries;
  ``cold`` with the same hash's 20% of all papers as new; ``feedback`` and ``foreign`` on a fixed
  sample (seed 0) of P10 users as large a share of them as quality.py's 2,000 of 5,551; the
  ``conf-`` splits' authors (NeurIPS + ICML) ranking among all the papers, not only the conferences'.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from benchmarks import quality
from benchmarks.common import SHARED_DATA
from recommender import PaperIndex
from recommender.evaluate import EvalUser

PAPERS = 26_000
USERS = 8_000
#: A copy keeps each word of its source with this probability.
KEEP = 0.9


def _records(path: Path) -> list[dict]:
    with path.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def papers(n: int = PAPERS, seed: int = 0) -> tuple[list[dict], dict[str, list[str]]]:
    """The shared papers topped up to ``n`` with perturbed copies of citeulike-a's; and the copies
    of each copied paper's id."""
    cite = _records(quality.DATA / "papers.jsonl")
    records = cite + [r for name in quality.CONF_FILES for r in _records(SHARED_DATA / name)]
    rng = random.Random(seed)
    copies: dict[str, list[str]] = {}
    copy = 0
    while len(records) < n:
        source = cite[rng.randrange(len(cite))]
        title, abstract = source.get("title") or "", source.get("abstract") or ""
        text = f"{title}. {abstract}" if title else abstract
        words = text.split()
        kept = [w for w in words if rng.random() < KEEP] or words
        copy += 1
        pid = f"copy{copy}-{source['id']}"
        copies.setdefault(str(source["id"]), []).append(pid)
        records.append({"id": pid, "title": "", "abstract": " ".join(kept)})
    return records, copies


def users(n: int, copies: dict[str, list[str]],
          seed: int = 0) -> dict[str, tuple[list[EvalUser], list[EvalUser]]]:
    """(given, held out) for ``"P10"`` and ``"P1"``: citeulike-a's users, then synthetic ones up to ``n``."""
    splits = {p: (quality.load_users(quality.DATA / f"users-train-{p}.jsonl"),
                  quality.load_users(quality.DATA / f"users-test-{p}.jsonl")) for p in ("P10", "P1")}
    real = splits["P10"][0]
    held = {p: {u.user: u.liked for u in test} for p, (_, test) in splits.items()}
    given = {p: {u.user: u.liked for u in train} for p, (train, _) in splits.items()}
    out = {p: (list(train), list(test)) for p, (train, test) in splits.items()}
    rng = random.Random(seed)
    for i in range(max(0, n - len(real))):
        source = real[rng.randrange(len(real))].user
        library = sorted({*given["P10"].get(source, []), *held["P10"].get(source, [])})
        moved = {pid: rng.choice(copies[pid]) for pid in library if pid in copies}
        name = f"synthetic{i}-{source}"
        for p in ("P10", "P1"):
            out[p][0].append(EvalUser(name, [moved.get(x, x) for x in given[p].get(source, [])]))
            out[p][1].append(EvalUser(name, [moved.get(x, x) for x in held[p].get(source, [])]))
    return out


def prepare(splits: list[str], where: Path, written, n_papers: int = PAPERS, n_users: int = USERS,
            seed: int = 0) -> dict[str, tuple[Path, Path, Path | None]]:
    """(papers file, users file, candidates file or None) per split, all on the one larger papers file;
    ``written(where, split, papers file, users, candidates)`` writes a split's files and names them."""
    records, copies = papers(n_papers, seed)
    papers_file = where / "papers.jsonl"
    papers_file.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    ids = [str(r["id"]) for r in records]
    libraries = users(n_users, copies, seed)
    index: PaperIndex | None = None
    conf = None
    out: dict[str, tuple[Path, Path, Path | None]] = {}
    for split in splits:
        cand: list[str] | None = None
        if split.startswith("conf-"):
            if conf is None:
                c_ids, _, authors = quality.load_conf()
                conf = (c_ids, authors)
            train, _, cand = quality.conf_split(split, *conf)
            cand = cand if split == "conf-cold" else None
        elif split in ("P10", "P1"):
            train = libraries[split][0]
        elif split == "cold":
            new = {pid for pid in ids if quality.held_out_bucket(pid)}
            train, _ = quality.cold_split(*libraries["P10"], new)
            cand = sorted(new)
        else:
            if index is None:
                texts = [f"{r.get('title') or ''}. {r.get('abstract') or ''}" if r.get("title")
                         else r.get("abstract") or "" for r in records]
                index = PaperIndex.build(ids, texts)
            train, test = libraries["P10"]
            sample = round(quality.SIM_USERS * len(train) / 5551)
            train, _, _ = quality.simulated_split(split, index, ids, (train, test), sample)
        out[split] = written(where, split, papers_file, train, cand)
    return out
