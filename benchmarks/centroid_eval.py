"""The TF-IDF centroid as a whole evaluation process, the reference ``paperbot eval`` is timed against.

    .venv/bin/python benchmarks/centroid_eval.py --papers P.jsonl --users U.jsonl [--candidates C.txt] \
        --k 300 --out ranked.jsonl

It does what a minimal centroid tool has to: read the papers and users, fit arxiv-sanity's
vectorizer, rank every user's mean liked row by cosine (liked and disliked papers never ranked, only
candidates when given) and write ``{"user", "ranked"}`` lines, as ``paperbot eval`` writes them.
Used by ``benchmarks/eval_time.py``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import read_papers
from benchmarks.quality import Reference
from recommender.evaluate import load_candidates, load_users


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--papers", required=True)
    parser.add_argument("--users", required=True)
    parser.add_argument("--candidates")
    parser.add_argument("--k", type=int, default=300)
    parser.add_argument("--out", required=True)
    args = parser.parse_args(argv)
    ids, texts = read_papers(Path(args.papers))
    users = load_users(args.users)
    candidates = load_candidates(args.candidates) if args.candidates else None
    ranked = Reference(ids, texts).centroid(users, candidates, k=args.k)
    with open(args.out, "w", encoding="utf-8") as out:
        for user in users:
            out.write(json.dumps({"user": user.user, "ranked": ranked.get(user.user, [])}) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
