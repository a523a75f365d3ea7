"""Muted words found through the papers' full-text index (issue 24): exactly the papers whose text
:meth:`Muter.holds` (the scan before, ``papers_containing``, missed phrases across hyphens), hyphens,
accents, capitals beyond ASCII, symbols, plurals and phrases across punctuation included, on both
backends; each word looked up once per state of the papers."""

from __future__ import annotations

import pytest

from bot.state.context import Context
from bot.usecases.mutes import Muter, hidden_by, indexable, mute, muted_ids
from storage import Paper
from tests.bot.usecases.conftest import workspace_context
from tests.storage.conftest import any_store  # noqa: F401 - a fixture (each backend in turn)

TEXTS = {
    "hyphen": ("Self-supervised learning of transformers", "We pretrain."),
    "caps": ("SELF SUPERVISED pretraining", "A TRANSFORMER-based model."),
    "dash": ("A self–supervised approach", "An en dash between."),
    "underscore": ("transformer_xl and self_supervised", "Underscores join words."),
    "godel": ("Gödel's incompleteness", "Godel numbering too."),
    "godel-caps": ("GÖDEL MACHINES", "Self-improving."),
    "godel-plain": ("Godel numbering", "Plain letters only."),
    "godel-decomposed": ("Go\u0308del, decomposed", "A combining mark."),
    "cpp": ("C++ templates", "Objective-C and C# code; c++s are many."),
    "c-letter": ("Vitamin C", "Of citrus."),
    "strasse": ("Straße networks", "Roads."),
    "ligature": ("An eﬃcient method", "Typeset with a ligature."),
    "efficient": ("Efficient methods", "Plain."),
    "llm-comma": ("Large, language model", "Commas break a phrase."),
    "llm-hyphen": ("Large language-model", "A hyphen joins it."),
    "llm-lines": ("", "Large\nlanguage   models at scale."),
    "policies": ("Policies", "Learning policy gradients."),
    "apostrophe": ("Don't stop", "Pretraining, state-of-the-art and state of the arts."),
    "typographic": ("Don’t stop", "Typographic apostrophe."),
    "naive": ("Naïve Bayes", "Naive baselines."),
    "istanbul": ("İstanbul traffic", "A dotted capital I."),
    "cjk": ("日本語 text", "Japanese."),
    "greek": ("α-helix folding", "ΣΊΣΥΦΟΣ and σίσυφος."),
    "arrow": ("x→transformer", "An arrow joins."),
    "nbsp": ("Self\u00a0supervised", "A no-break space."),
    "control": ("Self\x1fsupervised", "A unit separator."),
    "private": ("Self\ue000supervised", "A private-use character."),
}
WORDS = ["self-supervised", "self supervised", "supervised", "gödel", "godel", "del", "c++", "c", "c#",
         "transformer", "transformers", "strasse", "efficient", "large language model", "language models",
         "policy", "policies", "don't", "don", "state-of-the-art", "state of the art", "naive", "naïve",
         "stanbul", "日本語", "α", "helix", "xl", "σίσυφος", "bayes", "numbering", "self"]


@pytest.fixture
def ctx(any_store):  # noqa: F811
    """The papers of :data:`TEXTS` on each backend in turn (a workspace's view, as the bot has it)."""
    return workspace_context(any_store, [Paper(id=pid, title=title, abstract=abstract)
                                         for pid, (title, abstract) in TEXTS.items()])


def truth(ctx: Context, words: list[str]) -> set[str]:
    """What a mute means: every paper whose text the muter holds, each paper tried."""
    found = Muter(words)
    return {pid for pid, text in ctx.store.paper_texts("", 1000) if found.holds(text)}


def scanned(ctx: Context, words: list[str]) -> set[str]:
    """What muted_ids answered before the index: a LIKE scan, then the muter. Its first pass looked for
    a phrase's words with one space between, so it missed "self-supervised" for "self supervised"."""
    found = Muter(words)
    return {pid for pid, text in ctx.store.papers_containing(found.fragments()).items() if found.holds(text)}


def test_each_word_hides_through_the_index_exactly_what_the_muter_holds(ctx):
    for word in WORDS:
        hidden = set(hidden_by(ctx, word))
        assert hidden == truth(ctx, [word]), word
        assert scanned(ctx, [word]) <= hidden, word
    # Where the scan fell short: a phrase across a hyphen or line break.
    assert scanned(ctx, ["self supervised"]) == {"caps"}
    assert scanned(ctx, ["large language model"]) == set()
    # The cases that matter were found at all (the equivalence is no emptiness on both sides).
    assert hidden_by(ctx, "self supervised") == {"hyphen", "caps", "nbsp", "control"}
    assert hidden_by(ctx, "self-supervised") == {"hyphen"}
    assert hidden_by(ctx, "strasse") == {"strasse"}
    assert hidden_by(ctx, "efficient") == {"ligature", "efficient"}
    assert hidden_by(ctx, "del") == {"godel-decomposed"} and hidden_by(ctx, "stanbul") == {"istanbul"}
    assert hidden_by(ctx, "gödel") == {"godel", "godel-caps"} and "arrow" in hidden_by(ctx, "transformer")
    assert hidden_by(ctx, "large language model") == {"llm-hyphen", "llm-lines"}


def test_a_person_muting_several_words_hides_what_the_muter_holds(ctx):
    people = {"U1": "transformers, gödel", "U2": "c++, large language model", "U3": "policy, naïve, α",
              "U4": "state-of-the-art, don't, 日本語"}
    for user, words in people.items():
        mute(ctx, user, words)
        assert muted_ids(ctx, user) == truth(ctx, ctx.store.get_mutes(user)), user
    assert muted_ids(ctx, "nobody") == set()


def test_a_word_is_looked_up_once_per_state_of_the_papers(ctx, monkeypatch):
    asked: list[list[str]] = []
    holders = ctx.store.text_holders
    monkeypatch.setattr(ctx.store, "text_holders",
                        lambda phrases: asked.append(list(phrases)) or holders(phrases))
    mute(ctx, "U1", "transformer")
    mute(ctx, "U2", "transformers, c++")
    assert muted_ids(ctx, "U1") <= muted_ids(ctx, "U2")
    assert len(asked) == 3  # transformer, transformers, c++: once each, whoever mutes them
    muted_ids(ctx, "U1")
    assert len(asked) == 3
    ctx.store.upsert_papers([Paper(id="new", title="Vision transformers", abstract="Patches.")])
    assert "new" in muted_ids(ctx, "U1") and len(asked) == 4


def test_only_plain_words_with_a_letter_go_to_the_index():
    assert indexable("self-supervised") and indexable("gödel") and indexable("c++") and indexable("日本語")
    assert not indexable("gÖdel") and not indexable("a→b") and not indexable("straße")
    assert not indexable("++") and not indexable("x\u0301")
