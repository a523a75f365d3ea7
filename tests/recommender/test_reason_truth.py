"""Every reason holds against its paper's text, on real abstracts.

People follow realistic interests (benchmarks/reason_truth.py: multi-word ones, and some the corpora
only touch, such as "quantum chromodynamics lattice"). For each person's top picks, as the bot words
them (:func:`recommender.surface.worded`, then the "why" line): every interest the line claims is
covered by the paper (at least half of its content words by stem, or the phrase), and every word or
phrase it quotes as matched is written in the paper, whole words, never a stem.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from benchmarks.reason_truth import PEOPLE, covers, read_papers, stands_in
from bot.presentation.reasons import reason_text
from recommender import PaperIndex, Profile, rank
from recommender.surface import worded
from tests.conftest import ROOT, shared_data

K = 5
_QUOTED = r"“[^”]*”(?:(?:, | and )“[^”]*”)*"
CLAIM = re.compile(rf"Matches your interests? (?P<topics>{_QUOTED})(?:; also (?P<also>.+))?")
SHARE = re.compile(rf"Shares (?P<words>{_QUOTED}) with your interest “(?P<topic>[^”]*)”"
                   r"(?:; also (?P<also>.+))?")
TERMS = re.compile(r"Matches your interests: (?P<also>.+)")


def _bundled() -> tuple[list[str], list[str]]:
    text = (ROOT / "bot" / "data" / "icml2025-abstracts.txt").read_text(encoding="utf-8")
    paragraphs = [p.strip() for p in text.split("\n\n")[1:] if p.strip()]
    return [f"icml2025-{i}" for i in range(len(paragraphs))], paragraphs


def _shared() -> tuple[list[str], list[str]]:
    ids: list[str] = []
    texts: list[str] = []
    for name in ("neurips2018.jsonl", "icml2019.jsonl"):
        i, t = read_papers(Path(shared_data(name)))
        ids += i
        texts += t
    return ids, texts


@pytest.fixture(scope="module", params=["bundled", "shared"])
def corpus(request) -> tuple[PaperIndex, dict[str, str]]:
    """One index per corpus for the whole module (the shared one skipped when its files are absent)."""
    ids, texts = _bundled() if request.param == "bundled" else _shared()
    return PaperIndex.build(ids, texts), dict(zip(ids, texts, strict=True))


def _quoted(found: str) -> list[str]:
    return re.findall(r"“([^”]*)”", found)


def test_every_reason_claims_only_covered_interests_and_quotes_the_papers_own_words(corpus):
    index, text_of = corpus
    claims = quotes = shares = 0
    for topics in PEOPLE:
        for pick in rank(index, Profile(topics=list(topics)), K):
            text = text_of[pick.paper_id]
            said = worded(pick, text)
            reason = reason_text(said, {})
            where = f"{reason!r} for {topics} on {text[:80]!r}"
            also: str | None = None
            if claim := CLAIM.fullmatch(reason):
                named = _quoted(claim["topics"])
                assert named == said.topics and set(named) <= set(topics), where
                for topic in named:
                    claims += 1
                    assert covers(topic, text, index), where
                also = claim["also"]
            elif share := SHARE.fullmatch(reason):
                assert share["topic"] in topics and not covers(share["topic"], text, index), where
                for word in _quoted(share["words"]):
                    shares += 1
                    assert stands_in(word, text), where
                also = share["also"]
            elif terms := TERMS.fullmatch(reason):
                also = terms["also"]
            else:
                assert reason == "Close to your interests overall", where
            for term in (also.split(", ") if also else []):
                quotes += 1
                assert stands_in(term, text), where
            assert all(stands_in(t, text) for t in said.terms), where
    assert claims > 0
    if len(text_of) > 1000:  # the shared corpora: every kind of reason is met, not assumed
        assert claims > 100 and quotes > 10 and shares > 10
