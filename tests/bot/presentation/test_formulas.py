"""Every formula of real papers reads as text: none loses a letter or digit, none shows a ``\\command``
(the figures of benchmarks/formulas.py, held at zero)."""

from __future__ import annotations

import pytest

from benchmarks.formulas import SHARED, Corpus, Formula, corpora, paper_formulas
from tests.conftest import SHARED_DATA


def _failures(corpus: Corpus) -> list[str]:
    failing = [f"{f.where}: {f.source} shown as {f.shown!r}" for f in corpus.formulas
               if f.lost or f.command_shown]
    return failing + [f"{where}: {shown[:200]!r}" for where, shown in corpus.command_texts]


@pytest.fixture(scope="module")
def measured() -> dict[str, Corpus]:
    return {corpus.name: corpus for corpus in corpora(SHARED_DATA)}


def test_the_bundled_sample_loses_nothing_and_shows_no_command(measured):
    sample = measured["icml2025-abstracts.txt"]
    assert sample.formulas and _failures(sample) == []


@pytest.mark.parametrize("name", [name for name, _ in SHARED])
def test_the_shared_corpora_lose_nothing_and_show_no_command(measured, name):
    if name not in measured:
        pytest.skip(f"shared data not available: {name}")
    corpus = measured[name]
    assert len(corpus.formulas) > 50 and _failures(corpus) == []


def test_the_check_sees_a_lost_letter_and_a_shown_command():
    kept, = paper_formulas("p", "", r"We bound $x_t$ by the step size, which decays quickly over time.")
    assert kept.shown == "xₜ" and not kept.lost and not kept.command_shown
    assert Formula("p", r"$\theta_{t+1}$", "₊₁").lost  # what the tester saw
    assert Formula("p", r"$a_t$ and $b$", "b").lost and Formula("p", "$x$", None).lost
    assert not Formula("p", r"$\theta_{t+1} \in \mathbb{R}^2$", "θₜ₊₁ ∈ ℝ²").lost
    assert not Formula("p", r"$\tilde{O}(1)$", "Õ(1)").lost
    assert Formula("p", r"$\pi$", r"\pi").command_shown
