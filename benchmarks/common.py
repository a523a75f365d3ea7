"""What the benchmark scripts share: where things are, reading papers, and updating the docs page."""

from __future__ import annotations

import json
import os
import platform
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = ROOT.parent / "shared" / "data"
DOC = ROOT / "docs" / "benchmarks.md"

#: The ~28,000-paper corpus the speed benchmarks use: these shared files, topped up to TARGET.
FILES = ("neurips2018.jsonl", "icml2019.jsonl", "citeulike-a/papers.jsonl")
TARGET = 28_000

#: Research topics for synthetic people.
TOPICS = [
    "reinforcement learning", "graph neural networks", "protein structure prediction", "gene expression",
    "diffusion models", "variational inference", "bayesian optimization", "causal inference",
    "social networks", "community detection", "language models", "machine translation", "optimal transport",
    "federated learning", "differential privacy", "adversarial examples", "meta-learning",
    "gaussian processes", "sparse regression", "matrix completion", "recommender systems",
    "information retrieval", "phylogenetics", "sequence alignment", "metabolic networks",
    "neural architecture search", "contrastive learning", "time series forecasting", "topic models",
    "image segmentation", "speech recognition", "multi-armed bandits", "stochastic gradient descent",
    "kernel methods", "game theory", "climate", "epidemiology", "semantic web", "ontologies",
    "peer review", "open access publishing", "evolution of cooperation", "scale-free networks",
]


def read_papers(path: Path) -> tuple[list[str], list[str]]:
    """Ids and texts of a JSON-lines file, each text built as ``storage.models.Paper.text`` builds it."""
    ids, texts = [], []
    with path.open(encoding="utf-8") as f:
        for line in f:
            if line.strip():
                p = json.loads(line)
                ids.append(str(p["id"]))
                title, abstract = p.get("title") or "", p.get("abstract") or ""
                texts.append(f"{title}. {abstract}" if title else abstract)
    return ids, texts


def machine() -> str:
    """One line on where the numbers came from."""
    return (f"{os.cpu_count()} cores, Python {platform.python_version()}, numpy {np.__version__}, "
            f"{platform.system()} {platform.machine()}")


def write_section(text: str, start: str, end: str, doc: Path = DOC) -> None:
    """Replace one benchmark's section (between its markers) of a docs page (docs/benchmarks.md by
    default), keeping the rest."""
    old = doc.read_text(encoding="utf-8") if doc.exists() else "# Benchmarks\n"
    if start in old and end in old:
        head, rest = old.split(start, 1)
        new = head + text.strip("\n") + rest.split(end, 1)[1]
    else:
        new = old.rstrip("\n") + "\n\n" + text.strip("\n") + "\n"
    doc.parent.mkdir(parents=True, exist_ok=True)
    doc.write_text(new, encoding="utf-8")
