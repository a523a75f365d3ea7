"""How long explaining one person's digest takes: ``recommender.explain_picks`` of 5 picks, as a digest
run does for each person after scoring their batch (it never scores the person again).

    .venv/bin/python benchmarks/explain_latency.py      # prints only

Corpus: the shared papers (about 18,800; see ``rank_latency.py``). Profiles: 3 topics each, with 10 liked
and 3 disliked papers (enough for the per-person model) or none; 5 random picks each. Each kind is timed
over 100 profiles, three rounds (the first warms the topic rows and the model's caches); the last round is
the figure.
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import TOPICS, machine
from benchmarks.rank_latency import load_corpus
from recommender import PaperIndex, Profile, explain_picks

PROFILES, ROUNDS, PICKS = 100, 3, 5


def main() -> int:
    ids, texts = load_corpus()
    if not ids:
        print("No papers found in ../shared/data; nothing to measure.")
        return 0
    start = time.perf_counter()
    index = PaperIndex.build(ids, texts)
    print(f"{len(ids):,} papers indexed in {time.perf_counter() - start:.1f} s ({machine()})")
    rng = random.Random(0)
    for label, likes, dislikes in (("topics only", 0, 0), ("topics, 10 likes, 3 dislikes", 10, 3)):
        people = []
        for _ in range(PROFILES):
            feedback = rng.sample(ids, likes + dislikes)
            profile = Profile(topics=rng.sample(TOPICS, 3), liked=feedback[:likes], disliked=feedback[likes:])
            people.append((profile, [(pid, 0.5) for pid in rng.sample(ids, PICKS)]))
        for _ in range(ROUNDS):
            start = time.perf_counter()
            for profile, picks in people:
                explain_picks(index, profile, picks)
            took = (time.perf_counter() - start) / PROFILES
        print(f"{label}: {1000 * took:.2f} ms a person")
    return 0


if __name__ == "__main__":
    sys.exit(main())
