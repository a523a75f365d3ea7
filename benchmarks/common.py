"""What the benchmark scripts share: where things are, reading papers, and updating the docs page."""

from __future__ import annotations

import argparse
import json
import os
import platform
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = ROOT.parent / "shared" / "data"
DOC = ROOT / "docs" / "measurements" / "benchmarks.md"

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


#: What one Slack Web API call costs, for estimating a morning against real Slack (no network here).
SLACK_CALL_SECONDS = 0.2


def slack_minutes(calls: int, workers: int = 8) -> float:
    """Minutes ``calls`` Web API calls take against real Slack on ``workers`` threads, before rate limits."""
    return calls * SLACK_CALL_SECONDS / workers / 60


def add_write_option(parser: argparse.ArgumentParser, doc: str = "docs/measurements/benchmarks.md",
                     when: str = "with the default options") -> None:
    """``--write/--no-write``: whether the run rewrites its part of ``doc``."""
    parser.add_argument("--write", action=argparse.BooleanOptionalAction, default=None,
                        help=f"rewrite {doc} (default: only {when})")


def wants_write(args: argparse.Namespace, default_run: bool) -> bool:
    """Rewrite the docs when asked to, or by default for the run the docs describe."""
    return bool(args.write or (args.write is None and default_run))


def write_section(text: str, start: str, end: str, doc: Path = DOC) -> None:
    """Replace one benchmark's section (between its markers) of a docs page
    (docs/measurements/benchmarks.md by default), keeping the rest."""
    old = doc.read_text(encoding="utf-8") if doc.exists() else "# Benchmarks\n"
    if start in old and end in old:
        head, rest = old.split(start, 1)
        new = head + text.strip("\n") + rest.split(end, 1)[1]
    else:
        new = old.rstrip("\n") + "\n\n" + text.strip("\n") + "\n"
    doc.parent.mkdir(parents=True, exist_ok=True)
    doc.write_text(new, encoding="utf-8")
