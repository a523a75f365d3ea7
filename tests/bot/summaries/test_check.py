"""The check a summary passes before it may be shown (bot/summaries/check.py): every number and name in it
occurs in the title or abstract, and it is not empty, cut off, too long or a copy of the abstract."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.summaries.check import (
    COPIED,
    CUT_OFF,
    EMPTY,
    MOST_CHARACTERS,
    NAME,
    NUMBER,
    TOO_LONG,
    check_summary,
)
from tests.bot.summaries.papers import GRAPHS, GRAPHS_FAITHFUL, PAPERS, SHORT, SPARSE, SPARSE_FAITHFUL

TITLE, ABSTRACT = SPARSE.title, SPARSE.abstract


def verdict(summary: str, finish_reason: str | None = "stop", paper=SPARSE):
    return check_summary(summary, paper.title, paper.abstract, finish_reason)


@pytest.mark.parametrize("paper", [p for p in PAPERS if p is not SHORT], ids=lambda p: p.id)
def test_each_faithful_summary_passes(paper):
    from tests.bot.summaries import papers

    faithful = getattr(papers, f"{paper.id.upper()}_FAITHFUL")
    assert verdict(faithful, paper=paper).ok


@pytest.mark.parametrize("summary", [
    "Proposes V-MoE, a sparse mixture-of-experts ViT that matches dense networks 3.5x larger.",
    "The authors scale sparse MoE layers in ViTs to 15 billion parameters.",  # 15B, said in words
    "V-MoE trains on 1000 TPU cores and matches larger dense networks.",  # 1,000 without its comma
    "V-MoE reaches 90.35 % top-1 on ImageNet.",  # the unit apart
    "We present a sparse ViT, V-MoE, whose Batch Prioritized Routing skips the least useful tokens.",
    "A ViT-based sparse model, V-MoE, saves half the compute at inference.",  # a name with a plain suffix
    "Sparse ViTs (V-MoE) grow without a matching growth in compute on ImageNet.",
    "\"V-MoE reaches 90.35% top-1 on ImageNet.\"",  # quotes around it
])
def test_what_the_abstract_says_in_other_words_passes(summary):
    assert verdict(summary).ok, verdict(summary)


@pytest.mark.parametrize(("summary", "detail"), [
    ("V-MoE reaches 91.2% top-1 accuracy on ImageNet.", "91.2"),
    ("V-MoE matches dense networks 4x larger.", "4x"),
    ("V-MoE matches dense networks three times larger.", "three"),  # a number word
    ("V-MoE scales to 15B parameters and trains on 2,000 TPU cores.", "2000"),  # thousands separated
    ("V-MoE, published in 2021, reaches 90.35% on ImageNet.", "2021"),  # a year is a number
    ("V-MoE with 15B parameters is 35% cheaper.", "35"),  # a part of 90.35 is no number of its own
])
def test_an_invented_number_is_refused(summary, detail):
    found = verdict(summary)
    assert (found.ok, found.reason, found.detail) == (False, NUMBER, detail)


@pytest.mark.parametrize(("summary", "detail"), [
    ("V-MoE beats ResNet-50 on ImageNet with half the compute.", "ResNet-50"),
    ("V-MoE beats GPT-4 on ImageNet.", "GPT-4"),  # a name joined to a number occurs whole
    ("V-MoE reaches 90.35% on ImageNet and JFT.", "JFT"),  # an acronym
    ("V-MoE reaches 90.35% on ImageNet, unlike Switch Transformers.", "Switch"),  # capitalised mid-sentence
    ("Llama-style experts reach 90.35% on ImageNet.", "Llama-style"),  # sentence-initial, not a plain word
    ("Google's V-MoE reaches 90.35% on ImageNet.", "Google's"),
    ("V-MoE uses word2vec routing to reach 90.35% on ImageNet.", "word2vec"),  # letters with digits
    ("V-MoE reaches 90.35% on ImageNet-21k.", "ImageNet-21k"),  # a dataset name's variant
    ("V-MoE's code is on github.com, reaching 90.35% on ImageNet.", "github.com"),  # a made-up address
])
def test_an_invented_name_is_refused(summary, detail):
    found = verdict(summary)
    assert (found.ok, found.reason, found.detail) == (False, NAME, detail)


def test_a_name_is_matched_whatever_its_case_and_plural():
    assert verdict("Sparse mixture-of-experts Transformers reach 90.35% on ImageNet.").ok  # "Transformer"
    assert verdict("V-MOE reaches 90.35% on imagenet.").ok


def test_a_sentence_may_begin_with_a_plain_word_but_not_with_an_invented_name():
    assert verdict("Introduces V-MoE, which reaches 90.35% on ImageNet. It matches dense networks 3.5x "
                   "larger.").ok
    assert verdict("On ImageNet, V-MoE reaches 90.35%. Moreover it uses half the compute at inference.").ok
    assert verdict("Gemini-like sparse ViTs reach 90.35% on ImageNet.").reason == NAME


@pytest.mark.parametrize("summary", ["", "   ", "\n", "****"])
def test_an_empty_summary_is_refused(summary):
    assert verdict(summary).reason == EMPTY


def test_a_summary_cut_off_is_refused():
    assert verdict("V-MoE reaches 90.35% top-1 on ImageNet while using half the", "stop").reason == CUT_OFF
    assert verdict("V-MoE reaches 90.35% top-1 on ImageNet.", "length").reason == CUT_OFF  # its token limit
    assert verdict("V-MoE reaches 90.35% top-1 on ImageNet and...").reason == CUT_OFF
    assert verdict("V-MoE reaches 90.35% top-1 on ImageNet (half the compute).").ok
    assert verdict("V-MoE reaches 90.35% on ImageNet with half the compute!").ok


def test_a_summary_longer_than_280_characters_is_refused():
    long = "V-MoE reaches 90.35% top-1 on ImageNet with half the compute, " * 5 + "it says."
    assert len(long) > MOST_CHARACTERS
    found = verdict(long)
    assert (found.reason, found.detail) == (TOO_LONG, str(len(long)))
    exactly = ("V-MoE, a sparse ViT. " * 20)[:MOST_CHARACTERS - 1].rstrip() + "."
    assert len(exactly) <= MOST_CHARACTERS and verdict(exactly).reason != TOO_LONG


def test_a_copy_of_the_abstract_is_refused():
    first = ABSTRACT.split(". ")[1] + "."
    assert verdict(first).reason == COPIED  # its second sentence, word for word
    assert verdict(ABSTRACT.split(". ")[0] + ".").reason == COPIED
    nearly = ("We present V-MoE, a sparse version of the Vision Transformer (ViT) that scales to 15B "
              "parameters.")
    assert verdict(nearly).reason == COPIED
    # Phrases of the abstract in a summary of its own are no copy.
    assert verdict(SPARSE_FAITHFUL).ok


def test_tex_in_the_abstract_is_read_as_it_is_shown():
    abstract = (r"We present $\mathrm{FooNet}$, which reaches $93.5\%$ accuracy on CIFAR-10 with $10^4$ "
                r"labels, a simple method that needs no pretraining at all and runs on one GPU in a day.")
    assert check_summary("FooNet reaches 93.5% on CIFAR-10 with one GPU in a day.", "FooNet", abstract).ok
    assert check_summary("FooNet reaches 93.5% on CIFAR-100.", "FooNet", abstract).reason == NAME


def test_a_summary_of_another_paper_is_refused():
    assert not verdict(GRAPHS_FAITHFUL).ok
    assert verdict(GRAPHS_FAITHFUL, paper=GRAPHS).ok


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=400), st.text(max_size=80), st.text(max_size=600),
       st.sampled_from([None, "stop", "length", "content_filter"]))
def test_any_text_gets_a_verdict_never_an_exception(summary, title, abstract, finish_reason):
    found = check_summary(summary, title, abstract, finish_reason)
    assert found.ok or found.reason in (EMPTY, CUT_OFF, TOO_LONG, COPIED, NUMBER, NAME)


def test_an_abstract_of_tex_only_or_another_language_refuses_what_it_does_not_hold():
    assert not check_summary("FooNet reaches 93.5% accuracy.", "", r"$\alpha + \beta = \gamma$").ok
    german = ("Wir stellen FooNet vor, ein Modell, das auf ImageNet eine Genauigkeit von 93,5 % erreicht "
              "und dabei nur die Hälfte der Rechenzeit benötigt.")
    assert check_summary("FooNet erreicht auf ImageNet eine hohe Genauigkeit.", "FooNet", german).ok
    assert not check_summary("FooNet beats ResNet on ImageNet.", "FooNet", german).ok
