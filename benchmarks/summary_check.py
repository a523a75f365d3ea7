"""How the summaries' check (bot/summaries/check.py) behaves on real abstracts, without a model.

    .venv/bin/python benchmarks/summary_check.py

On the shared NeurIPS 2018 + ICML 2019 abstracts, every sentence of 40 to 280 characters ending in "." is
given as a "summary":

- of its own paper: the check of numbers and names (``check_facts``; the whole check refuses it as a copy)
  must find every number and name it holds in the title or abstract, reading both the same way, so none
  may be refused as invented; the figure is how many are;
- of the next paper in the file (another paper's claims): how many the check refuses, and why, in all and
  among the sentences that hold a number or a name. What passes is what a check of numbers and names can't
  see (a generic claim of the wrong paper);
- and the CPU time of one check.
"""

from __future__ import annotations

import json
import re
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import SHARED_DATA
from bot.summaries import check
from bot.summaries.check import check_facts, check_summary

FILES = ("neurips2018.jsonl", "icml2019.jsonl")
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")


def sentences(abstract: str) -> list[str]:
    return [s for s in _SENTENCE.split(abstract) if 40 <= len(s) <= 280 and s.endswith(".")]


def specific(sentence: str) -> bool:
    """Whether a sentence holds a number or a name as the check reads them."""
    return any(check._kind(token.split("-")[0]) in ("number", "name")
               or (check._kind(token) == "capitalised" and not initial)
               for token, initial in check._tokens(check._plain(sentence)))


def share(counts: Counter, total: int) -> str:
    return ", ".join(f"{k} {v} ({100 * v / total:.1f}%)" for k, v in counts.most_common())


def main() -> None:
    paths = [SHARED_DATA / name for name in FILES if (SHARED_DATA / name).is_file()]
    if not paths:
        print("The shared NeurIPS/ICML abstracts are not in ../shared/data; nothing to measure.")
        return
    rows = [json.loads(line) for path in paths for line in path.open(encoding="utf-8")]
    own, other, other_specific = Counter(), Counter(), Counter()
    total = specific_total = 0
    spent = 0.0
    for paper, neighbour in zip(rows, rows[1:] + rows[:1], strict=True):
        for sentence in sentences(paper["abstract"]):
            total += 1
            start = time.process_time()
            verdict = check_summary(sentence, paper["title"], paper["abstract"])
            spent += time.process_time() - start
            # Its own sentence is a copy, refused as such: its numbers and names are checked apart.
            own[check_facts(sentence, paper["title"], paper["abstract"]).reason or "passed"] += 1
            verdict = check_summary(sentence, neighbour["title"], neighbour["abstract"])
            other[verdict.reason or "passed"] += 1
            if specific(sentence):
                specific_total += 1
                other_specific[verdict.reason or "passed"] += 1
    print(f"{len(rows)} abstracts, {total} sentences of 40-280 characters")
    invented = own["invented_number"] + own["invented_name"]
    print(f"as a summary of its own paper: refused as invented {invented} ({100 * invented / total:.2f}%); "
          f"{share(own, total)}")
    print(f"as a summary of the next paper: {share(other, total)}")
    print(f"  of those holding a number or a name ({specific_total}): "
          f"{share(other_specific, specific_total)}")
    print(f"CPU per check: {1000 * spent / total:.2f} ms")


if __name__ == "__main__":
    main()
