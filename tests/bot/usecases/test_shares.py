"""Paper links shared in channels as interest (bot/usecases/shares.py): which links count, once, as a save
does in the person's profile, never offered again, and nothing once the person turned it off."""

from __future__ import annotations

import pytest

from bot.usecases import recommend
from bot.usecases.picking import left_out, profile_for
from bot.usecases.shares import record_shared_links, set_share_signals
from recommender.profile import SAVE_WEIGHT
from storage import Paper

FORUM = "https://openreview.net/forum?id=Cat5F0rum"


def held(ctx):
    ctx.store.upsert_papers([
        Paper(id="arxiv:2402.00011", title="Whiskers of cats, measured",
              abstract="Cats whiskers feline purring.", authors=["Rae Coral"], arxiv_id="2402.00011",
              arxiv_version=1),
        Paper(id="openreview:Cat5F0rum", title="Purring as a signal",
              abstract="Cats purring feline whiskers.", authors=["Tom Sea"], url=FORUM),
        Paper(id="pmid:40000007", title="Feline kidney disease", abstract="Cats kidney feline disease.",
              authors=["Kai Kelp"], url="https://pubmed.ncbi.nlm.nih.gov/40000007/", doi="10.1000/kidney.7"),
    ])
    ctx.engine.refresh()


def test_links_to_held_papers_count_each_once_and_other_links_nothing(ctx):
    held(ctx)
    counted = record_shared_links(ctx, "U1", [
        "https://arxiv.org/abs/2402.00011v3", FORUM, "https://doi.org/10.1000/KIDNEY.7",
        "https://arxiv.org/abs/2402.99999", "https://example.org/cats", "https://arxiv.org/pdf/2402.00011"],
        "C1")
    assert [p.id for p in counted] == ["arxiv:2402.00011", "openreview:Cat5F0rum", "pmid:40000007"]
    assert record_shared_links(ctx, "U1", [FORUM], "C2") == []  # posted again: counted once
    assert {s.paper_id for s in ctx.store.shared_papers("U1")} == {p.id for p in counted}


def test_a_share_pulls_as_a_save_does_and_the_paper_is_never_offered(ctx):
    held(ctx)
    record_shared_links(ctx, "U1", [FORUM], "C1")
    profile = profile_for(ctx, "U1")
    assert profile.liked == ["openreview:Cat5F0rum"] and profile.saved == {"openreview:Cat5F0rum"}
    assert profile.liked_weights(30.0) == [pytest.approx(SAVE_WEIGHT)]
    assert "openreview:Cat5F0rum" in left_out(ctx, "U1")
    offered = [r.paper.id for r in recommend(ctx, "U1", 5, remember=False)]
    assert offered and "openreview:Cat5F0rum" not in offered
    assert all(pid.startswith(("cats", "arxiv:", "pmid:")) for pid in offered[:3])  # cat papers, by the share


def test_a_paper_liked_or_saved_is_counted_as_that_not_twice(ctx):
    held(ctx)
    ctx.store.set_feedback("U1", "arxiv:2402.00011", 1)
    ctx.store.save_paper("U1", "openreview:Cat5F0rum")
    record_shared_links(ctx, "U1", ["https://arxiv.org/abs/2402.00011", FORUM], "C1")
    profile = profile_for(ctx, "U1")
    assert sorted(profile.liked) == ["arxiv:2402.00011", "openreview:Cat5F0rum"]


def test_with_shares_off_nothing_is_counted_and_earlier_shares_stop_pulling(ctx):
    held(ctx)
    record_shared_links(ctx, "U1", [FORUM], "C1")
    assert set_share_signals(ctx, "U1", False) is True
    assert set_share_signals(ctx, "U1", False) is False
    assert record_shared_links(ctx, "U1", ["https://arxiv.org/abs/2402.00011"], "C1") == []
    assert profile_for(ctx, "U1").liked == []
    assert "openreview:Cat5F0rum" in left_out(ctx, "U1")  # still known to them: not offered
    assert set_share_signals(ctx, "U1", True) is True
    assert profile_for(ctx, "U1").liked == ["openreview:Cat5F0rum"]
