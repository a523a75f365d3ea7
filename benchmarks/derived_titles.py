"""How title-like are the titles paperbot derives for untitled papers? Figures on papers that do have a title.

    .venv/bin/python benchmarks/derived_titles.py            # prints the figures
    .venv/bin/python benchmarks/derived_titles.py --show 20  # and 20 examples, real title beside derived

Each abstract of the shared NeurIPS 2018 + ICML 2019 files (which come with their real titles) gets a
title derived from it alone, by every method, and is scored as a reader would see it (TeX rendered):

- cut: share ending in "…" (a line broken off);
- words, chars: mean and 95th percentile length of the derived line;
- ROUGE-1 F: unigram overlap (lower case, clipped counts) with the real title, averaged;
- real words: share of the real title's content words (not function words) found in the derived line,
  averaged;
- ends badly: share ending on a function word ("of", "the", "and", "we"…), an auxiliary or a verb
  left without its object ("is", "can", "enables", "using"…) or a noun that asks for more ("its
  ability"): a line that stops mid-phrase (:func:`ends_badly`);
- complete: share of lines that read complete: not cut, not ending badly, brackets and ``$`` balanced;
- repeats: share where the abstract shown below starts with the title's first words again.

Methods: "first 90 chars" (the oldest way), "first sentence" (the first sentence or its first clause:
the way before the contribution sentence was used, kept as the fallback) and "paperbot" (what
``bot.sources.normalize.split_title`` does now).
"""

from __future__ import annotations

import argparse
import json
import random
import re
import statistics
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import SHARED_DATA
from bot.text.tex import tex_to_text
from bot.text.titles import first_sentence_title, split_title
from bot.text.whitespace import collapse_ws

FILES = ("neurips2018.jsonl", "icml2019.jsonl")
_TOKEN = re.compile(r"[a-z0-9]+")
# A line ending on one of these reads as broken off. Kept apart from paperbot's own lists, so that the
# figure measures them rather than repeats them.
_FUNCTION_WORDS = frozenset(
    "a an the and or but nor of in on at by for from to with without within into onto upon via over under "
    "about after before during between among across through towards toward against per versus vs unlike "
    "despite beyond behind as than that which who whom whose where when while whether if how what why "
    "we our their its his her this these those such including based not no".split()
)
# Auxiliaries, modals and verbs that leave their object or complement missing at a line's end.
_DANGLING_VERBS = frozenset(
    "is are was were be been being has have had do does did can could may might will would should must "
    "using use uses enables enable enabling allows allow allowing makes make making provides provide "
    "providing yields yield achieves achieve requires require leverages leverage exploits exploit gives give "
    "shows show propose proposes present presents introduce introduces called termed named dubbed known "
    "aims aim seeks seek tries try lets let involves include includes become becomes consists relies "
    "depends refers lies".split()
)
# Nouns that ask for what follows ("its ability [to …]").
_WANTING_NOUNS = frozenset(
    "ability abilities capability capabilities capacity inability tendency propensity".split())

Method = Callable[[str], tuple[str, str]]


def first_chars(abstract: str, limit: int = 90) -> tuple[str, str]:
    """The oldest derivation: the first 90 characters, cut at a word, with "…"; the abstract kept whole."""
    text = collapse_ws(abstract)
    if len(text) <= limit:
        return text, ""
    cut = text[: limit - 1].rsplit(" ", 1)[0]
    return cut + "…", text


METHODS: dict[str, Method] = {
    "first 90 chars": first_chars,
    "first sentence": first_sentence_title,
    "paperbot": split_title,
}


def read_papers() -> list[tuple[str, str]]:
    """(real title, abstract) of every shared paper that has both."""
    papers = []
    for name in FILES:
        with (SHARED_DATA / name).open(encoding="utf-8") as f:
            for line in f:
                record = json.loads(line)
                if record.get("title") and record.get("abstract"):
                    papers.append((record["title"], record["abstract"]))
    return papers


def tokens(text: str) -> list[str]:
    """Lower-case word tokens."""
    return _TOKEN.findall(text.lower())


def rouge1_f(candidate: str, reference: str) -> float:
    """ROUGE-1 F1 of ``candidate`` against ``reference`` (clipped unigram counts)."""
    cand, ref = Counter(tokens(candidate)), Counter(tokens(reference))
    overlap = sum((cand & ref).values())
    if not overlap:
        return 0.0
    precision, recall = overlap / sum(cand.values()), overlap / sum(ref.values())
    return 2 * precision * recall / (precision + recall)


def ends_badly(title: str) -> bool:
    """Whether ``title`` stops mid-phrase: on a function word, a dangling verb or auxiliary, or a noun
    that asks for more (a "…" after it is looked through)."""
    words = title.removesuffix("…").split()
    if not words:
        return False
    last = words[-1].strip(".,;:!?\"'*").lower()
    return last in _FUNCTION_WORDS or last in _DANGLING_VERBS or last in _WANTING_NOUNS


def content_words(text: str) -> set[str]:
    """The words of ``text`` that are no function words, lower case."""
    return {w for w in tokens(text) if w not in _FUNCTION_WORDS and w not in _DANGLING_VERBS}


def real_words_found(candidate: str, reference: str) -> float:
    """The share of ``reference``'s content words found in ``candidate`` (1 when it has none)."""
    wanted = content_words(reference)
    return len(wanted & set(tokens(candidate))) / len(wanted) if wanted else 1.0


def reads_complete(title: str) -> bool:
    """Not cut, not ending badly, brackets and dollars balanced."""
    if not title.split() or title.endswith("…"):
        return False
    balanced = title.count("(") == title.count(")") and title.count("[") == title.count("]")
    return not ends_badly(title) and balanced and title.count("$") % 2 == 0


def repeats(title: str, rest: str) -> bool:
    """Whether the abstract shown below starts with the title's first words (four, or all if fewer)."""
    head = tokens(title.removesuffix("…"))[:4]
    return bool(head) and tokens(rest)[: len(head)] == head


def percentile(values: list[float], share: float) -> float:
    """The ``share`` quantile (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def score(method: Method, papers: list[tuple[str, str]]) -> dict[str, float]:
    """The figures of one method over ``papers``."""
    rows = []
    for real, abstract in papers:
        title, rest = method(abstract)
        shown = tex_to_text(title)
        rows.append((shown, len(shown.split()), len(shown), rouge1_f(shown, tex_to_text(real)),
                     reads_complete(shown), repeats(shown, tex_to_text(rest)), ends_badly(shown),
                     real_words_found(shown, tex_to_text(real))))
    n = len(rows)
    return {
        "cut %": 100 * sum(r[0].endswith("…") for r in rows) / n,
        "words mean": statistics.mean(r[1] for r in rows),
        "words p95": percentile([r[1] for r in rows], 0.95),
        "chars mean": statistics.mean(r[2] for r in rows),
        "chars p95": percentile([r[2] for r in rows], 0.95),
        "ROUGE-1 F": statistics.mean(r[3] for r in rows),
        "real words %": 100 * statistics.mean(r[7] for r in rows),
        "ends badly %": 100 * sum(r[6] for r in rows) / n,
        "complete %": 100 * sum(r[4] for r in rows) / n,
        "repeats %": 100 * sum(r[5] for r in rows) / n,
        "empty": sum(not r[0].strip() for r in rows),
    }


def main(argv: list[str] | None = None) -> None:
    """Print the figures of every method, and optionally examples."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--show", type=int, default=0, help="print this many random examples (seed 0)")
    args = parser.parse_args(argv)
    papers = read_papers()
    print(f"{len(papers)} papers with real titles ({', '.join(FILES)})\n")
    figures = {name: score(method, papers) for name, method in METHODS.items()}
    columns = list(next(iter(figures.values())))
    print(f"{'method':<16}" + "".join(f"{c:>13}" for c in columns))
    for name, row in figures.items():
        print(f"{name:<16}" + "".join(_figure(c, row[c]) for c in columns))
    for real, abstract in random.Random(0).sample(papers, min(args.show, len(papers))):
        print(f"\n{'real:':<16}{tex_to_text(real)}")
        for name, method in METHODS.items():
            print(f"{name + ':':<16}{tex_to_text(method(abstract)[0])}")


def _figure(column: str, value: float) -> str:
    places = 0 if column == "empty" else 3 if column == "ROUGE-1 F" else 2
    return f"{value:>13.{places}f}"


if __name__ == "__main__":
    main()
