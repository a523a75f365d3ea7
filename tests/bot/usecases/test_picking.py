"""One picking pipeline (bot/usecases/picking.py) for digests, `/papers recommend`, More like this and the
onboarding round. Where the paths used to differ, each decision is pinned here, on every path:

* liked and disliked papers are always left out (not only for people with named feeds or followed
  authors), as are those shown, saved or muted;
* no path lists one paper twice, or shows again under an id merged into it a paper that was left out
  (the index keeps such an id until its next refresh: the digest once gave ['quasar-a', 'quasar-a']);
* a followed author's "new" papers count back from the person's local day on every path (recommend
  used the UTC day);
* followed authors' papers come first and count for the main feed; the places left are shared fairly
  among the feeds, and what one cannot fill goes to the others.
"""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from bot.usecases import follow, recommend, record_feedback
from bot.usecases.digests.choose import choose_papers
from bot.usecases.feeds import MAIN, add_feed
from bot.usecases.mutes import mute, muted_ids
from bot.usecases.onboarding import start_round
from bot.usecases.picking import Recommendation, distinct, left_out, share
from bot.usecases.saved import save
from bot.usecases.similar import similar_papers
from storage import Paper


def ids(recs):
    return [r.paper.id if isinstance(r, Recommendation) else r.id for r in recs]


def add_papers(ctx, *papers):
    ctx.store.upsert_papers(list(papers))
    ctx.engine.refresh()


def every_path(ctx, user, like_this="cats-7"):
    """What each path would offer the person now (nothing recorded but the onboarding round's)."""
    return {
        "digest": ids(choose_papers(ctx, user)),
        "recommend": ids(recommend(ctx, user, 10, remember=False)),
        "more like this": ids(similar_papers(ctx, user, like_this, n=10)),
        "onboarding": ids(start_round(ctx, user, k=10)),
    }


# -- what is left out ---------------------------------------------------------------------------------

@pytest.mark.parametrize("named_feeds", [False, True])
def test_shown_saved_liked_disliked_and_muted_papers_are_left_out_on_every_path(ctx, named_feeds):
    ctx.digest_size = 10
    follow(ctx, "U1", "feline cats kittens whiskers")
    if named_feeds:
        add_feed(ctx, "U1", "robots: robot grasping")
    record_feedback(ctx, "U1", "cats-0", +1)
    record_feedback(ctx, "U1", "cats-1", -1)
    ctx.store.mark_shown("U1", "cats-2", "earlier")
    save(ctx, "U1", "cats-3")  # saved, neither liked nor disliked: still out
    add_papers(ctx, Paper(id="cats-zebra", title="Feline cats and zebras", abstract="Kittens, zebras."))
    mute(ctx, "U1", "zebra")
    muted = muted_ids(ctx, "U1")
    assert muted == {"cats-zebra"}
    out = {"cats-0", "cats-1", "cats-2", "cats-3"} | muted
    assert out <= left_out(ctx, "U1")
    for path, picked in every_path(ctx, "U1").items():
        assert picked, path
        assert not out & set(picked), (path, out & set(picked))
        assert len(picked) == len(set(picked)), path


def test_a_followed_authors_paper_that_was_liked_or_disliked_is_left_out_on_both_paths(ctx):
    today = datetime.now(UTC).date().isoformat()
    add_papers(ctx, *[Paper(id=f"lovelace-{i}", title=f"Engines {i}", abstract=f"Analytical engines {i}.",
                            authors=["Ada Lovelace"], published=today) for i in range(3)])
    follow(ctx, "U1", "author: Ada Lovelace")
    record_feedback(ctx, "U1", "lovelace-0", +1)
    record_feedback(ctx, "U1", "lovelace-1", -1)
    assert ids(choose_papers(ctx, "U1"))[:1] == ["lovelace-2"]
    assert ids(recommend(ctx, "U1", 3, remember=False))[:1] == ["lovelace-2"]
    picked = ids(choose_papers(ctx, "U1")) + ids(recommend(ctx, "U1", 5))
    assert not {"lovelace-0", "lovelace-1"} & set(picked)


# -- merged copies ------------------------------------------------------------------------------------

QUASAR_A = Paper(id="quasar-a", title="Quasar redshift surveys", authors=["Ana Duarte"],
                 arxiv_id="2501.01234", abstract="Quasar telescopes spectrographs redshift surveys.")
QUASAR_B = Paper(id="quasar-b", title="Quasar redshift telescopes at scale", authors=["Ana Duarte"],
                 doi="10.1/b", abstract="Quasar telescopes spectrographs redshift surveys at scale.")
#: Names both: quasar-b is merged into quasar-a, whose id it keeps; the index still holds quasar-b until
#: it is refreshed (within the engine's refresh interval).
BRIDGE = Paper(id="bridge", title="Quasars", abstract="Short.", authors=["Duarte, Ana"],
               arxiv_id="2501.01234", doi="10.1/b")


def merge_the_quasars(ctx):
    ctx.store.upsert_papers([BRIDGE])
    assert ctx.store.get_paper("quasar-b").id == "quasar-a"
    with ctx.engine.index() as index:
        assert {"quasar-a", "quasar-b"} <= set(index.row_of)  # not refreshed yet


def test_a_paper_and_a_copy_merged_into_it_are_never_listed_twice(ctx):
    add_papers(ctx, QUASAR_A, QUASAR_B)
    follow(ctx, "U1", "quasar telescopes redshift")
    merge_the_quasars(ctx)
    assert ids(choose_papers(ctx, "U1")).count("quasar-a") == 1  # was ['quasar-a', 'quasar-a']
    assert ids(recommend(ctx, "U1", 5, remember=False)).count("quasar-a") == 1
    assert ids(start_round(ctx, "U2", k=8)).count("quasar-a") <= 1


def test_a_paper_shown_under_an_id_merged_since_is_not_shown_again(ctx):
    add_papers(ctx, QUASAR_A, QUASAR_B)
    follow(ctx, "U1", "quasar telescopes redshift")
    ctx.store.mark_shown("U1", "quasar-b", "earlier")
    merge_the_quasars(ctx)
    assert "quasar-a" in left_out(ctx, "U1")  # what was done with quasar-b moved to quasar-a
    for path, picked in every_path(ctx, "U1", like_this="cats-0").items():
        assert "quasar-a" not in picked, path


def test_more_like_this_never_offers_the_paper_asked_about_under_another_id(ctx):
    add_papers(ctx, QUASAR_A, QUASAR_B)
    follow(ctx, "U1", "feline cats")
    merge_the_quasars(ctx)
    assert "quasar-a" not in ids(similar_papers(ctx, "U1", "quasar-a"))  # quasar-b is quasar-a
    assert "quasar-a" not in ids(similar_papers(ctx, "U1", "quasar-b"))


def test_distinct_keeps_the_first_of_each_paper_and_drops_what_is_left_out():
    a, b = Paper(id="a", abstract="x"), Paper(id="b", abstract="y")
    recs = [Recommendation(a, 1.0, "one"), Recommendation(b, 0.9, "two"), Recommendation(a, 0.8, "again")]
    assert [r.reason for r in distinct(recs)] == ["one", "two"]
    assert [r.reason for r in distinct(recs, {"a"})] == ["two"]


# -- followed authors ---------------------------------------------------------------------------------

def by_lovelace(pid, day):
    return Paper(id=pid, title=f"Engines {pid}", abstract="Analytical engines.", authors=["Ada Lovelace"],
                 published=day)


@pytest.mark.parametrize(("tz", "now", "local_day", "in_window", "out_of_window"), [
    # Already the 16th in Kiritimati (UTC+14): thirty days back is June 16th, not the UTC day's 15th.
    ("Pacific/Kiritimati", datetime(2026, 7, 15, 12, 0, tzinfo=UTC), date(2026, 7, 16), "2026-06-16",
     "2026-06-15"),
    # Still the 14th in Los Angeles: thirty days back is June 14th, which the UTC day would miss.
    ("America/Los_Angeles", datetime(2026, 7, 15, 3, 0, tzinfo=UTC), date(2026, 7, 14), "2026-06-14",
     "2026-06-13"),
])
def test_a_followed_authors_new_window_counts_from_the_persons_local_day_on_both_paths(
        ctx, tz, now, local_day, in_window, out_of_window):
    add_papers(ctx, by_lovelace("inside", in_window), by_lovelace("outside", out_of_window))
    follow(ctx, "U1", "author: Ada Lovelace")
    ctx.store.set_timezone("U1", tz)
    assert ids(choose_papers(ctx, "U1", today=local_day)) == ["inside"]
    assert ids(recommend(ctx, "U1", 3, remember=False, now=now)) == ["inside"]


def test_followed_authors_come_first_for_the_main_feed_and_count_towards_the_size(ctx):
    add_papers(ctx, by_lovelace("lovelace-new", datetime.now(UTC).date().isoformat()))
    follow(ctx, "U1", "feline cats")
    follow(ctx, "U1", "author: Ada Lovelace")
    add_feed(ctx, "U1", "robots: robot grasping")
    ctx.digest_size = 5
    for recs in (choose_papers(ctx, "U1"), recommend(ctx, "U1", 5, remember=False)):
        assert len(recs) == 5
        assert (recs[0].paper.id, recs[0].feed) == ("lovelace-new", MAIN)
        assert [r.feed for r in recs[1:]] == [MAIN, MAIN, "robots", "robots"]  # 4 places: 2 and 2


# -- fair shares --------------------------------------------------------------------------------------

def test_share_gives_each_feed_its_share_then_what_one_cannot_fill_to_the_others():
    pools = [["a1"], ["b1", "b2", "shared", "b4"], ["c1", "c2", "c3"], ["shared", "d1"]]

    def pick(i, k, taken):
        return [pid for pid in pools[i] if pid not in taken][:k]

    taken = {"c2"}  # left out from the start
    out = share(8, 4, pick, taken, key=lambda pid: pid)
    # Shares of 2 each; a has only one, so its place goes to the first feed with more (b), which
    # skips the paper d already took.
    assert out == [["a1"], ["b1", "b2", "b4"], ["c1", "c3"], ["shared", "d1"]]
    assert taken == {"a1", "b1", "b2", "b4", "c1", "c2", "c3", "shared", "d1"}
    assert share(3, 0, pick, set(), key=str) == [] and share(0, 2, pick, set(), key=str) == [[], []]


def test_both_paths_share_a_list_among_feeds_alike(ctx):
    follow(ctx, "U1", "feline cats kittens")
    add_feed(ctx, "U1", "robots: robot grasping manipulation")
    add_feed(ctx, "U1", "qubits: quantum circuits qubits")
    ctx.digest_size = 5
    for recs in (choose_papers(ctx, "U1"), recommend(ctx, "U1", 5, remember=False)):
        counts = {}
        for rec in recs:
            counts[rec.feed] = counts.get(rec.feed, 0) + 1
        assert counts == {MAIN: 2, "qubits": 2, "robots": 1}
