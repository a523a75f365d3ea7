"""Would weights fitted on weak labels beat the hand-set weights of ``bot/text/highlights.py``?

    .venv/bin/python benchmarks/highlights_fit.py

Weak labels, from cue phrases alone, over every shared NeurIPS 2018 and ICML 2019 abstract that is not in
the hand-labelled set: a sentence opening "We propose/introduce/present" (or "In this paper, we propose…",
"This paper presents…") is a contribution, the other sentences of an abstract that has exactly one are
not; a sentence saying "experiments/results show", "outperforms" or "state-of-the-art" is a finding, the
others of an abstract with one are not. A logistic regression (scikit-learn, balanced classes) is fitted
for each, on the features ``highlights`` weighs (``bot.text.highlights.features``), and both are scored on
the *tuning* part of the hand-labelled set beside the hand-set weights (the held-out part is left alone).
The figures are in docs/highlights.md: the fitted weights did not do better, so the hand-set ones are kept
and nothing fitted is shipped; this script is how to check again after changing the features.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks import highlights_quality as quality
from bot.text import highlights as hl
from bot.text.sentences import sentence_spans

_WHAT = re.compile(r"^(?:(?:in this|here|in the present) (?:paper|work)?,? )?(?:we|this (?:paper|work)) "
                   r"(?:propose|introduce|present)s?\b", re.IGNORECASE)
_RESULT = re.compile(r"\b(?:(?:experiments?|results?|evaluations?) (?:\w+ )?(?:show|demonstrate)\w*|"
                     r"outperform\w*|state[- ]of[- ]the[- ]art)", re.IGNORECASE)


def weak_examples(found: dict[str, dict], labelled: set[str]) -> dict[str, tuple[list[dict], list[int]]]:
    """(features, weak label) of the sentences of every abstract outside ``labelled``, for each kind."""
    out: dict[str, tuple[list[dict], list[int]]] = {"what": ([], []), "result": ([], [])}
    for pid, paper in found.items():
        if pid in labelled or pid.startswith(quality.SAMPLE_PREFIX):
            continue
        text = paper["abstract"]
        spans = sentence_spans(text)
        sentences = [text[s:e] for s, e in spans]
        described = [hl.features(s, k, len(spans)) for k, s in enumerate(sentences)]
        for kind, cue in (("what", _WHAT), ("result", _RESULT)):
            marks = [bool(cue.search(s)) for s in sentences]
            if kind == "result":  # a contribution sentence is no finding, whatever it promises
                marks = [m and not _WHAT.search(s) for m, s in zip(marks, sentences, strict=True)]
            if (sum(marks) == 1 if kind == "what" else any(marks)) and len(spans) > 1:
                out[kind][0].extend(described)
                out[kind][1].extend(map(int, marks))
    return out


def fit(examples: tuple[list[dict], list[int]]) -> tuple[dict[str, float], float]:
    """Weights (per feature) and intercept of a logistic regression on the weak labels."""
    from sklearn.feature_extraction import DictVectorizer
    from sklearn.linear_model import LogisticRegression

    vectorizer = DictVectorizer()
    x = vectorizer.fit_transform(examples[0])
    model = LogisticRegression(class_weight="balanced", max_iter=1000).fit(x, examples[1])
    names = vectorizer.get_feature_names_out()
    return dict(zip(names, (float(w) for w in model.coef_[0]), strict=True)), float(model.intercept_[0])


def main() -> None:
    found = quality.papers()
    if found is None:
        print("NeurIPS/ICML papers not found in ../shared/data; nothing to fit.")
        return
    rows = quality.labels()
    tuning = [r for r in rows if not quality.held_out(r["id"])]
    examples = weak_examples(found, {r["id"] for r in rows})
    print(f"weak labels: {sum(examples['what'][1])} contribution sentences of {len(examples['what'][1])}, "
          f"{sum(examples['result'][1])} finding sentences of {len(examples['result'][1])}")
    (what_w, _), (result_w, result_b) = fit(examples["what"]), fit(examples["result"])
    print("fitted what weights:  ", {k: round(v, 2) for k, v in sorted(what_w.items())})
    print("fitted result weights:", {k: round(v, 2) for k, v in sorted(result_w.items())})
    variants = {
        "hand-set": (hl.WHAT_WEIGHTS, hl.RESULT_WEIGHTS, hl.RESULT_THRESHOLD),
        "fitted": (what_w, result_w, -result_b),  # a result when its probability is at least 1/2
    }
    print(f"{'weights':<10} {'idea (tuning)':>15} {'result (tuning)':>16}")
    for name, (what_weights, result_weights, threshold) in variants.items():
        def method(text: str, title: str, w=what_weights, r=result_weights, t=threshold):
            lines = hl.weighed(title, text, w, r, t)
            return quality.locate(text, lines.what), quality.locate(text, lines.result)
        cells = []
        for kind in ("idea", "result"):
            hit, total = quality.coverage(tuning, found, kind, method)
            cells.append(f"{hit / total:6.0%} ({hit}/{total})")
        print(f"{name:<10} {cells[0]:>15} {cells[1]:>16}")


if __name__ == "__main__":
    main()
