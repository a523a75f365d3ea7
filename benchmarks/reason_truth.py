"""How often a "why" line claims an interest the paper barely touches, on real abstracts.

    .venv/bin/python benchmarks/reason_truth.py [--k 10] [--files neurips2018.jsonl icml2019.jsonl]

Fits one index over the shared NeurIPS 2018 + ICML 2019 abstracts, ranks the top ``k`` papers for a
set of people following realistic interests (one each, then three at a time; some deliberately
partial, such as "quantum chromodynamics lattice"), and counts the interests the reasons claim
("Matches your interest “X”") whose paper does not cover them: fewer than half of the interest's
content words (by the model's stems; stop words and words too common to be a reason left out) and
not the phrase itself. The check here is written apart from the code it checks.

With the ``recommender`` of a checkout before issue 23 (``PYTHONPATH=<that checkout>``) the claims
are the ranker's topics as they were shown; from then on, what :func:`recommender.surface.worded`
keeps. tests/recommender/test_reason_truth.py holds every reason to the same check.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from collections.abc import Iterable, Sequence
from pathlib import Path

# Appended, not put first: PYTHONPATH can point at another checkout's code to measure it.
sys.path.append(str(Path(__file__).resolve().parents[1]))

from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS, strip_accents_unicode

import recommender
from benchmarks.common import SHARED_DATA, read_papers
from recommender import PaperIndex, Pick, Profile, rank
from recommender.ranker import generic_terms
from recommender.text_model import stem

#: What people follow: the common subjects of the corpora, multi-word ones, and some the corpora
#: only touch (a word or two of them is all a paper shares).
INTERESTS = [
    "quantum chromodynamics lattice", "reinforcement learning", "graph neural networks", "diffusion models",
    "robot models", "protein structure prediction", "variational inference", "bayesian optimization",
    "causal inference", "language models", "machine translation", "optimal transport",
    "federated learning", "differential privacy", "adversarial examples", "meta-learning",
    "gaussian processes", "sparse regression", "matrix completion", "time series forecasting",
    "speech recognition for low-resource languages", "multi-armed bandits",
    "model-based reinforcement learning for robots", "climate change impact on crop yields",
    "protein folding with graph neural networks", "neural architecture search",
    "contrastive self-supervised representation learning", "fairness in credit scoring",
    "molecular dynamics simulation of proteins", "image segmentation for medical imaging",
    "hamiltonian monte carlo", "knowledge graph embeddings",
]
#: One person per interest, then people following three at once.
PEOPLE = [[t] for t in INTERESTS] + [INTERESTS[i:i + 3] for i in range(0, len(INTERESTS), 3)]
_WORD = re.compile(r"(?u)\b[a-zA-Z_][a-zA-Z0-9_]+\b")


def _stems(text: str) -> list[str]:
    plain = strip_accents_unicode(text.lower())
    return [stem(w) for w in _WORD.findall(plain) if w not in ENGLISH_STOP_WORDS]


def content_words(topic: str, index: PaperIndex) -> set[str]:
    """A topic's content words as stems: not stop words, not too common to be a reason (the ranker's
    judgement of the model's words); all of its words when each is common."""
    generic = generic_terms(index.model, index.fitted_on)
    vocabulary, pruned = index.model.vectorizer.vocabulary_, index.model.pruned or frozenset()
    stems = set(_stems(topic))
    content = {s for s in stems if s not in pruned and not (s in vocabulary and generic[vocabulary[s]])}
    return content or stems


def covers(topic: str, text: str, index: PaperIndex) -> bool:
    """Whether ``text`` covers ``topic``: at least half of its content words, or the phrase itself."""
    content = content_words(topic, index)
    if content and 2 * len(content & set(_stems(text))) >= len(content):
        return True
    words = [re.escape(w) for w in re.findall(r"\w+", topic.lower())]
    return bool(words) and re.search(r"(?<!\w)" + r"\W+".join(words) + r"(?!\w)", text.lower()) is not None


def stands_in(term: str, text: str) -> bool:
    """Whether ``term`` is written in ``text`` as it is, whole words, any case (spacing aside): a stem
    such as "diffus" is not."""
    words = [re.escape(w) for w in term.split()]
    pattern = r"(?<!\w)" + r"\s+".join(words) + r"(?!\w)"
    return bool(words) and re.search(pattern, text, re.IGNORECASE) is not None


def claimed(pick: Pick, text: str) -> Pick:
    """The pick as its reason states it: checked against the paper where this checkout can do so."""
    if "partial" not in getattr(Pick, "__dataclass_fields__", {}):
        return pick  # before issue 23: every topic the ranker named was claimed
    from recommender.surface import worded
    return worded(pick, text)


def load(files: Iterable[str]) -> tuple[list[str], list[str]]:
    """Ids and texts (title. abstract) of the shared files."""
    ids, texts = [], []
    for name in files:
        i, t = read_papers(SHARED_DATA / name)
        ids += i
        texts += t
    return ids, texts


def measure(index: PaperIndex, text_of: dict[str, str], people: Sequence[list[str]], k: int) -> dict:
    """Claims made in the top ``k`` picks of each person, and those naming a barely-touched interest."""
    claims = barely = partial = 0
    examples: list[str] = []
    for topics in people:
        for pick in rank(index, Profile(topics=list(topics)), k):
            said = claimed(pick, text_of[pick.paper_id])
            partial += len(getattr(said, "partial", []))
            for topic in said.topics:
                claims += 1
                if not covers(topic, text_of[pick.paper_id], index):
                    barely += 1
                    if len(examples) < 5:
                        examples.append(f"“{topic}” on “{text_of[pick.paper_id][:70]}…”")
    return {"claims": claims, "barely": barely, "partial": partial, "examples": examples}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--k", type=int, default=10, help="picks per person")
    parser.add_argument("--files", nargs="+", default=["neurips2018.jsonl", "icml2019.jsonl"])
    args = parser.parse_args(argv)
    started = time.perf_counter()
    ids, texts = load(args.files)
    index = PaperIndex.build(ids, texts)
    result = measure(index, dict(zip(ids, texts, strict=True)), PEOPLE, args.k)
    share = result["barely"] / max(result["claims"], 1)
    print(f"recommender: {Path(recommender.__file__).parent}")
    print(f"{len(ids)} papers, {len(PEOPLE)} people, top {args.k} each: "
          f"{result['claims']} interests claimed, "
          f"{result['barely']} barely touched ({share:.1%}); {result['partial']} named as shared words only "
          f"({time.perf_counter() - started:.1f} s)")
    for example in result["examples"]:
        print("  e.g.", example)
    return 0


if __name__ == "__main__":
    sys.exit(main())
