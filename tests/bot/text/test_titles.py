"""Titles derived from abstracts: the first sentence, or what the paper contributes, cut where a phrase
ends, TeX never cut inside."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

import bot
from bot.text.titles import derive_title, split_title
from bot.text.whitespace import collapse_ws


def test_title_is_the_first_sentence_when_short():
    assert derive_title("We study cats. Then dogs.") == "We study cats"
    assert derive_title("One sentence only") == "One sentence only"
    # Abbreviations and domain names followed by lower case don't end the sentence.
    assert derive_title("Heuristics (e.g., routing) help. More.") == "Heuristics (e.g., routing) help"


def test_title_is_cut_at_a_word_with_an_ellipsis():
    abstract = "word " * 40 + "end."
    title = derive_title(abstract)
    assert len(title) <= 90
    assert title.endswith("word…")
    assert derive_title("x" * 200) == "x" * 89 + "…"


def test_title_drops_dangling_punctuation_before_the_ellipsis():
    assert derive_title("a" * 70 + ", " + "b" * 30).endswith("a…")


def test_a_long_first_sentence_gives_its_first_clause_as_title_and_the_rest_to_read():
    abstract = ("Exploration is critical for solving real-world decision-making problems, such as "
                "robotics and recommendation. We propose X.")
    title, rest = split_title(abstract)
    assert title == "Exploration is critical for solving real-world decision-making problems"
    assert rest == "…such as robotics and recommendation. We propose X."


def test_a_lead_in_clause_is_skipped_and_the_title_capitalised():
    title, rest = split_title("Recently, large language models have shown remarkable capabilities in many "
                              "tasks including reasoning and coding. More.")
    assert title == "Large language models have shown remarkable capabilities in many tasks"
    assert rest == "…including reasoning and coding. More."
    # A one-word first clause that leads nowhere is not a lead-in.
    assert split_title("Transformers, " + "large " * 20 + "models.")[0].startswith("Transformers")


def test_a_long_clause_ends_where_a_part_of_it_ends_with_at_most_twelve_words_and_no_dangling_word():
    abstract = ("Large language models have shown remarkable capabilities in many tasks including "
                "reasoning and coding and much more besides. Second.")
    title, rest = split_title(abstract)
    assert title == "Large language models have shown remarkable capabilities in many tasks"
    assert len(title.split()) <= 12
    assert rest.startswith("…including reasoning")
    for abstract in ("word of the " * 20, "We study the effect of the " * 5):
        last = split_title(abstract)[0].rstrip("…").split()[-1]
        assert last not in {"of", "the"}


def test_a_title_that_takes_the_whole_abstract_leaves_nothing_to_repeat():
    assert split_title("Short and sweet.") == ("Short and sweet", "")
    assert split_title("We study cats. Then dogs.") == ("We study cats", "Then dogs.")


# Real abstract shapes (shortened from ICML 2025 and NeurIPS 2018 abstracts) for titles from the contribution.
MUZERO = ("The MuZero reinforcement learning method has achieved superhuman performance at games, and "
          "advances that enable MuZero to contend with complex actions now enable use of MuZero-class "
          "methods in high-dimensional continuous control. However, MuZero's robustness to perturbations is "
          "unexplored. "
          "In this work, we introduce RobustZero, the first MuZero-class method that is robust to state "
          "perturbations. Experiments show it works.")
CFG = ("Classifier-free guidance (CFG) has emerged as a pivotal advancement in text-to-image latent "
       "diffusion models, establishing itself as a cornerstone technique for achieving high-quality image "
       "synthesis. However, under high guidance weights, CFG also leads to pronounced color distortions. "
       "We present a theoretical framework that elucidates the mechanisms of norm amplification and "
       "anomalous diffusion phenomena induced by classifier-free guidance.")
EXPLORATION = ("Exploration is critical for solving real-world decision-making problems such as scientific "
               "discovery, where the objective is to generate truly novel designs. We introduce a novel "
               "framework that casts exploration as entropy maximization over the approximate data manifold "
               "implicitly defined by a pre-trained diffusion model. We prove convergence.")


def test_the_title_names_what_the_paper_contributes_and_the_abstract_is_shown_whole_under_it():
    for abstract, expected in [
        (MUZERO, "RobustZero: The first MuZero-class method"),
        (CFG, "A theoretical framework elucidating the mechanisms of norm amplification"),
        (EXPLORATION,
         "A framework casting exploration as entropy maximization over the approximate data manifold"),
    ]:
        title, rest = split_title(abstract)
        assert title == expected
        # Taken from the middle, the title repeats nothing at the start of the abstract, shown whole.
        assert rest == abstract


def test_a_contribution_in_the_first_sentence_is_not_repeated_below():
    abstract = ("We propose DRAGO, a novel approach for continual model-based reinforcement learning aimed "
                "at improving the incremental development of world models. DRAGO comprises two parts.")
    assert split_title(abstract) == (
        "DRAGO: An approach for continual model-based reinforcement learning",
        "…aimed at improving the incremental development of world models. DRAGO comprises two parts.")
    title, rest = split_title("In this paper, we propose a new method for learning robust policies "
                              "from offline data with guarantees, and test it. More.")
    assert title == "A method for learning robust policies from offline data with guarantees"
    assert rest == "…and test it. More."
    assert split_title("We introduce FlexTok, a tokenizer that projects 2D images into variable-length, "
                       "ordered 1D token sequences. For example, one image.") == (
        "FlexTok: A tokenizer projecting 2D images into variable-length, ordered 1D token sequences",
        "For example, one image.")


def test_contribution_shapes_read_as_titles():
    cases = {
        "We study the problem of off-policy policy evaluation (OPPE) in RL. In contrast to prior work, "
        "we consider how to estimate it.": "Off-policy policy evaluation (OPPE) in RL",
        "We propose to learn sparse reward functions from human preferences over pairs of trajectories. "
        "More.": "Learning sparse reward functions from human preferences over pairs of trajectories",
        "Pre-training is costly. We propose a method, termed Metadata Conditioning then Cooldown (MeCo), to "
        "speed up pre-training. It works.": "Metadata Conditioning then Cooldown (MeCo)",
        "Vision is hard. We introduce a visual challenge, Pathfinder, and describe a novel recurrent neural "
        "network architecture. More.": "Pathfinder: A visual challenge",
        "Nets lack theory. In this work, we provide a new paradigm, named Propagation and Optimization based "
        "Deep Model (PODM), to bridge the gap. More.": "Propagation and Optimization based Deep Model (PODM)",
        "K-means is popular. We propose an alternative to Lloyd's algorithm that retains its simplicity and "
        "mitigates its tendency to get trapped. More.":  # "its tendency" alone asks for more: it stops before
            "An alternative to Lloyd's algorithm retaining its simplicity",
        "We propose to jointly learn embeddings and graph structure from noisy data. More.":
            "Jointly learning embeddings and graph structure from noisy data",
        "Data is scarce. We propose CURIOUS , an algorithm that learns modular goal-conditioned policies in "
        "intrinsically motivated agents. More.":
            "CURIOUS: An algorithm learning modular goal-conditioned policies",
        # A name and its description too long together: the name alone.
        "We propose DecaProp (Densely Connected Attention Propagation), a new densely connected neural "
        "architecture for reading comprehension (RC). More.":
            "DecaProp (Densely Connected Attention Propagation)",
        "Models fail. This paper considers MMF under a probabilistic formulation, and our focus is on "
        "inference methods. More.": "MMF under a probabilistic formulation",
        # A finding is the title only when nothing is proposed or studied.
        "Bandits are hard. In this paper, we show that optimism fails in linear bandits with heavy tails. "
        "We propose a new algorithm for heavy-tailed linear bandits. More.":
            "An algorithm for heavy-tailed linear bandits",
        "Bandits are hard. We show that optimism fails in linear bandits with heavy tails. More.":
            "Optimism fails in linear bandits with heavy tails",
        # "We show it" or "we study this" name nothing: the first sentence is the title then.
        "Graph matching is hard to scale to large graphs. We study this. We show it.":
            "Graph matching is hard to scale to large graphs",
    }
    for abstract, expected in cases.items():
        assert split_title(abstract)[0] == expected


def test_tex_is_never_cut_inside_math_or_braces():
    abstract = ("Regret is studied. We propose an algorithm with $O(d \\sqrt{T \\log T})$ regret for linear "
                "bandits against adaptive adversaries with heavy tails and many arms. More.")
    title = split_title(abstract)[0]
    assert title == "An algorithm with $O(d \\sqrt{T \\log T})$ regret"
    for abstract in ("We propose $x_1 + x_2 + x_3 + x_4 + x_5 + x_6 + x_7 + x_8$ as a bound. More.",
                     "We study \\emph{very long emphasised words going on and on and on for ever} here. X."):
        title = split_title(abstract)[0]
        assert title.count("$") % 2 == 0 and title.count("{") == title.count("}"), title


def _bundled_abstracts() -> list[str]:
    text = (Path(bot.__file__).parent / "data" / "icml2025-abstracts.txt").read_text(encoding="utf-8")
    return [collapse_ws(p) for p in text.split("\n\n")[1:] if p.strip()]


def test_every_bundled_abstract_gets_a_whole_word_title_not_repeated_below():
    abstracts = _bundled_abstracts()
    assert len(abstracts) >= 19
    for abstract in abstracts:
        title, rest = split_title(abstract)
        assert title and len(title) <= 90 and len(title.split()) <= 12, title
        assert not title.endswith("…"), title
        source_words = {word.strip(".,;:").lower() for word in abstract.split()}
        for word in title.split():
            # Every word is a whole word of the abstract (so none was cut), or one turned to "-ing"/"an".
            whole = word.strip(".,;:").lower() in source_words
            assert whole or word.endswith("ing") or word in ("A", "An", "a", "an"), (word, title)
        assert title.split()[-1].lower() not in {"of", "the", "a", "an", "and", "to", "for", "with", "by"}
        assert not rest.lower().startswith(title.lower()[:25]), title
        if rest != abstract:  # the title came from the first sentence: the rest goes on after it
            assert abstract.endswith(rest.removeprefix("…")), title


_WORDS = ["we", "propose", "a", "novel", "method", "that", "learns", "for", "the", "graphs", "In", "this",
          "paper,", "We", "study", "problem", "of", "$x_1 + y$", "(GNN)", "deep", "networks.",
          "Recently,", "supercalifragilistic"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_WORDS), min_size=1, max_size=60))
def test_any_abstract_gets_a_non_empty_title_of_whole_words(words):
    abstract = " ".join(words)
    title, _rest = split_title(abstract)
    assert title.strip()
    assert len(title) <= 90
    assert title.count("$") % 2 == 0  # a cut never falls inside $…$
    kept = title.removesuffix("…").replace(":", " ").split()
    known = {w.lower().strip(",.:;") for w in abstract.split()}
    for word in kept:
        whole = word.lower().strip(",.:;") in known
        assert whole or word.endswith("ing") or word.lower() in ("a", "an"), word
