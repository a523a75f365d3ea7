"""arXiv ids, titles, authors, dates and ids: the clean-up every source shares."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bot
from bot.presentation.titles import derive_title, split_title
from bot.sources.normalize import (
    build_paper,
    collapse_ws,
    normalize_date,
    parse_arxiv_id,
    split_authors,
    split_categories,
    stable_id,
)
from bot.sources.records import BadRecord


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2401.12345", ("2401.12345", None)),
        ("2401.12345v3", ("2401.12345", 3)),
        ("0704.0001", ("0704.0001", None)),
        ("hep-th/9901001v2", ("hep-th/9901001", 2)),
        ("math.GT/0309136", ("math.GT/0309136", None)),
        ("arXiv:2401.12345v2", ("2401.12345", 2)),
        ("arxiv:hep-th/9901001", ("hep-th/9901001", None)),
        ("oai:arXiv.org:2401.06001v1", ("2401.06001", 1)),
        ("https://arxiv.org/abs/2401.12345", ("2401.12345", None)),
        ("http://arxiv.org/abs/2401.12345v2", ("2401.12345", 2)),
        ("https://arxiv.org/pdf/2401.12345v2.pdf", ("2401.12345", 2)),
        ("https://arxiv.org/pdf/2401.12345", ("2401.12345", None)),
        ("http://export.arxiv.org/abs/hep-th/9901001v1", ("hep-th/9901001", 1)),
        ("  2401.12345v1 \n", ("2401.12345", 1)),
    ],
)
def test_parse_arxiv_id_recognises_every_spelling(text, expected):
    assert parse_arxiv_id(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "",
        "0",
        "neurips2018-11127",
        "1234.5678",  # month 34: a decimal, not an id
        "posts/1234567",  # not an arXiv archive
        "see 2401.12345 for details",
        "https://example.org/abs/2401.12345",
        "2401.123",
    ],
)
def test_parse_arxiv_id_rejects_what_is_not_an_id(text):
    assert parse_arxiv_id(text) is None


def test_every_version_and_spelling_dedupes_to_one_key():
    spellings = [
        "2401.12345",
        "2401.12345v1",
        "arXiv:2401.12345v7",
        "https://arxiv.org/abs/2401.12345v2",
        "https://arxiv.org/pdf/2401.12345v3.pdf",
    ]
    assert {parse_arxiv_id(s)[0] for s in spellings} == {"2401.12345"}
    ids = {build_paper(abstract="Same paper.", id=s).id for s in spellings}
    ids |= {build_paper(abstract="Same paper.", url=s).id for s in spellings}
    assert ids == {"arxiv:2401.12345"}


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


def test_stable_id_ignores_whitespace_differences():
    assert stable_id("A  study of\ncats.") == stable_id(" A study of cats. ")
    assert stable_id("A study of cats.").startswith("sha1:")
    assert len(stable_id("x")) == len("sha1:") + 12
    assert stable_id("A study of cats.") != stable_id("A study of dogs.")


def test_dates_are_validated_and_normalised():
    assert normalize_date("2024-01-15") == "2024-01-15"
    assert normalize_date("2024-01-15T18:59:59Z") == "2024-01-15"
    assert normalize_date("2024-01-15 18:59:59+02:00") == "2024-01-15"
    assert normalize_date("") is None
    assert normalize_date(None) is None
    with pytest.raises(BadRecord, match=r"bad published date '2020-13-45'"):
        normalize_date("2020-13-45")
    with pytest.raises(BadRecord, match="not a number"):
        normalize_date(2020)


def test_authors_and_categories_split():
    assert split_authors("Ann Lee; Bo  Chen ;") == ["Ann Lee", "Bo Chen"]
    assert split_authors(["Ann Lee", " Bo Chen "]) == ["Ann Lee", "Bo Chen"]
    assert split_authors(None) == []
    with pytest.raises(BadRecord, match="authors"):
        split_authors([{"name": "Ann"}])
    assert split_categories("cs.LG; stat.ML,cs.CL cs.LG") == ["cs.LG", "stat.ML", "cs.CL"]
    assert split_categories(["cs.LG"]) == ["cs.LG"]
    with pytest.raises(BadRecord, match="categories"):
        split_categories(3)


def test_build_paper_fills_in_missing_fields():
    paper = build_paper(abstract="  We study   cats.\nThen dogs. ", url="https://arxiv.org/abs/2401.00001v4")
    assert paper.abstract == "We study cats. Then dogs."
    assert paper.title == "We study cats"
    assert paper.id == "arxiv:2401.00001"
    assert (paper.arxiv_id, paper.arxiv_version) == ("2401.00001", 4)
    assert paper.url == "https://arxiv.org/abs/2401.00001v4"

    by_id = build_paper(abstract="Text.", id="arXiv:2401.00001")
    assert by_id.url == "https://arxiv.org/abs/2401.00001"
    assert by_id.arxiv_version is None

    kept = build_paper(abstract="Text.", id="p3", url="https://arxiv.org/abs/2401.00001")
    assert kept.id == "p3"  # an explicit non-arXiv id is kept; the arXiv id still links sources
    assert kept.arxiv_id == "2401.00001"

    plain = build_paper(abstract="Text.", title="  A   title ", venue=" ")
    assert plain.id == stable_id("Text.")
    assert plain.title == "A title"
    assert plain.venue is None
    assert plain.url is None and plain.arxiv_id is None

    with pytest.raises(BadRecord, match="no abstract"):
        build_paper(abstract=" \n ")


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
