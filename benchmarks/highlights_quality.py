"""How often the highlights' *what* and *result* lines cover what a reader marked as the abstract's idea
and main result, beside the baselines, and what they cost.

    .venv/bin/python benchmarks/highlights_quality.py            # the figures
    .venv/bin/python benchmarks/highlights_quality.py --show 10  # and 10 held-out misses

The labelled set is ``benchmarks/highlights_labels.jsonl``: 159 abstracts (140 drawn with seed 41 from the
shared NeurIPS 2018 and ICML 2019 files, and the 19 of the bundled ICML 2025 sample), each with the spans a
reader marked as stating the idea and the main result, as character offsets into the abstract with its
whitespace collapsed (no abstract text is stored). An abstract is held out when the first hex digit of the
SHA-1 of its id, as a number, is a multiple of 3 (6 of 16 digits): the weights were never tuned on those.

A chosen sentence *covers* a labelled span when it overlaps at least half of it; it covers the abstract's
idea (result) when it covers any of its idea (result) spans. Coverage counts only the abstracts with such a
span. Baselines: the first sentence and the first with "we propose" (idea), the last sentence and the last
with a results cue (result). CPU: ``highlights`` over every shared NeurIPS 2018 and ICML 2019 abstract.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import bot
from benchmarks.common import SHARED_DATA
from bot.text.highlights import highlights
from bot.text.sentences import sentence_spans
from bot.text.whitespace import collapse_ws

LABELS = Path(__file__).resolve().parent / "highlights_labels.jsonl"
FILES = ("neurips2018.jsonl", "icml2019.jsonl")
SAMPLE = Path(bot.__file__).parent / "data" / "icml2025-abstracts.txt"
SAMPLE_PREFIX = "icml2025-sample-"
#: The issue's targets on its own human-labelled set.
TARGETS = {"idea": 0.50, "result": 0.65}

Span = tuple[int, int]
_PROPOSE = re.compile(r"\bwe propose\b", re.IGNORECASE)
_RESULTS = re.compile(r"\b(?:outperform\w*|state[- ]of[- ]the[- ]art|improv\w*|achiev\w*|results? show\w*|"
                      r"experiments? show\w*|demonstrat\w*)", re.IGNORECASE)


def held_out(paper_id: str) -> bool:
    """Whether ``paper_id`` is in the held-out third (never tuned on)."""
    return int(hashlib.sha1(paper_id.encode(), usedforsecurity=False).hexdigest()[0], 16) % 3 == 0


def papers() -> dict[str, dict] | None:
    """Every paper the labels may name (id -> title and collapsed abstract); None without the shared data."""
    if not all((SHARED_DATA / name).exists() for name in FILES):
        return None
    found = {}
    for name in FILES:
        for line in (SHARED_DATA / name).read_text(encoding="utf-8").splitlines():
            if line.strip():
                record = json.loads(line)
                found[record["id"]] = {"title": record.get("title") or "",
                                       "abstract": collapse_ws(record.get("abstract") or "")}
    paragraphs = [p for p in SAMPLE.read_text(encoding="utf-8").split("\n\n")[1:] if p.strip()]
    for i, paragraph in enumerate(paragraphs):
        found[f"{SAMPLE_PREFIX}{i:02d}"] = {"title": "", "abstract": collapse_ws(paragraph)}
    return found


def labels() -> list[dict]:
    return [json.loads(line) for line in LABELS.read_text(encoding="utf-8").splitlines() if line.strip()]


def covers(chosen: Span | None, spans: list[list[int]]) -> bool:
    """Whether the chosen sentence overlaps at least half of any of ``spans``."""
    if chosen is None:
        return False
    start, end = chosen
    return any(min(end, b) - max(start, a) >= (b - a) / 2 for a, b in spans)


def locate(text: str, sentence: str | None) -> Span | None:
    """Where ``sentence`` (a substring of ``text``) stands in it."""
    if sentence is None:
        return None
    at = text.find(sentence)
    return None if at < 0 else (at, at + len(sentence))


# -- the methods: each gives (idea sentence, result sentence) spans --------------------------------------

def first_sentence(text: str, title: str) -> tuple[Span | None, Span | None]:
    spans = sentence_spans(text)
    return (spans[0] if spans else None), None


def propose_cue(text: str, title: str) -> tuple[Span | None, Span | None]:
    return next((s for s in sentence_spans(text) if _PROPOSE.search(text[s[0]:s[1]])), None), None


def last_sentence(text: str, title: str) -> tuple[Span | None, Span | None]:
    spans = sentence_spans(text)
    return None, (spans[-1] if spans else None)


def results_cue(text: str, title: str) -> tuple[Span | None, Span | None]:
    found = [s for s in sentence_spans(text) if _RESULTS.search(text[s[0]:s[1]])]
    return None, (found[-1] if found else None)


def ours(text: str, title: str) -> tuple[Span | None, Span | None]:
    lines = highlights(title, text)
    return locate(text, lines.what), locate(text, lines.result)


METHODS: dict[str, tuple[str, Callable]] = {
    "first sentence": ("idea", first_sentence),
    '"we propose" cue': ("idea", propose_cue),
    "paperbot what": ("idea", ours),
    "last sentence": ("result", last_sentence),
    "results cue": ("result", results_cue),
    "paperbot result": ("result", ours),
}


def coverage(rows: list[dict], found: dict[str, dict], kind: str, method: Callable) -> tuple[int, int]:
    """(covered, labelled) over ``rows`` for ``kind`` ("idea" or "result")."""
    hit = total = 0
    for row in rows:
        if not row[kind]:
            continue
        paper = found[row["id"]]
        chosen = method(paper["abstract"], paper["title"])[0 if kind == "idea" else 1]
        total += 1
        hit += covers(chosen, row[kind])
    return hit, total


def false_results(rows: list[dict], found: dict[str, dict]) -> tuple[int, int]:
    """(abstracts given a result line, abstracts with no labelled result)."""
    none = [r for r in rows if not r["result"]]
    given = sum(ours(found[r["id"]]["abstract"], found[r["id"]]["title"])[1] is not None for r in none)
    return given, len(none)


def cpu_per_paper(found: dict[str, dict], rounds: int = 3) -> float:
    """Mean CPU seconds of one ``highlights`` call over the shared abstracts (best of ``rounds``)."""
    items = [(p["title"], p["abstract"]) for pid, p in found.items() if not pid.startswith(SAMPLE_PREFIX)]
    best = float("inf")
    for _ in range(rounds):
        start = time.process_time()
        for title, abstract in items:
            highlights(title, abstract)
        best = min(best, time.process_time() - start)
    return best / len(items)


def figures(found: dict[str, dict]) -> dict:
    rows = labels()
    parts = {"tuning": [r for r in rows if not held_out(r["id"])],
             "held-out": [r for r in rows if held_out(r["id"])]}
    out: dict = {"parts": {name: len(part) for name, part in parts.items()}, "coverage": {}}
    for name, (kind, method) in METHODS.items():
        out["coverage"][name] = {part: coverage(part_rows, found, kind, method)
                                 for part, part_rows in parts.items()}
    out["false results"] = {part: false_results(part_rows, found) for part, part_rows in parts.items()}
    return out


def show_misses(found: dict[str, dict], count: int) -> None:
    for row in [r for r in labels() if held_out(r["id"])][:count]:
        paper = found[row["id"]]
        text = paper["abstract"]
        idea, result = ours(text, paper["title"])
        for kind, chosen in (("idea", idea), ("result", result)):
            if row[kind] and not covers(chosen, row[kind]):
                print(f"\n{row['id']} {kind} missed")
                print("  labelled:", " | ".join(text[a:b] for a, b in row[kind]))
                print("  chosen:  ", text[chosen[0]:chosen[1]] if chosen else None)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--show", type=int, default=0, help="print this many held-out abstracts' misses")
    args = parser.parse_args()
    found = papers()
    if found is None:
        print("NeurIPS/ICML papers not found in ../shared/data; nothing to measure.")
        return
    result = figures(found)
    print(f"labelled abstracts: {result['parts']['tuning']} tuning, {result['parts']['held-out']} held out")
    print(f"{'method':<20} {'covers':<7} {'tuning':>14} {'held-out':>14}")
    for name, (kind, _method) in METHODS.items():
        cells = []
        for part in ("tuning", "held-out"):
            hit, total = result["coverage"][name][part]
            cells.append(f"{hit / total:6.0%} ({hit}/{total})")
        target = f"   target {TARGETS[kind]:.0%}" if name.startswith("paperbot") else ""
        print(f"{name:<20} {kind:<7} {cells[0]:>14} {cells[1]:>14}{target}")
    for part in ("tuning", "held-out"):
        given, none = result["false results"][part]
        print(f"{part}: a result line for {given} of the {none} abstracts labelled with none")
    print(f"CPU per paper: {cpu_per_paper(found) * 1e3:.3f} ms (mean over the shared abstracts, best of 3)")
    if args.show:
        show_misses(found, args.show)


if __name__ == "__main__":
    main()
