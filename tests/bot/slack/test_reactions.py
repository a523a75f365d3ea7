import pytest

from bot.usecases import follow, recommend
from bot.usecases.reactions import (
    feedback_on_message,
    reaction_added,
    reaction_removed,
    reaction_value,
)


@pytest.mark.parametrize("name, value", [
    ("+1", 1), ("thumbsup", 1), ("heart", 1), ("star", 1), ("fire", 1),
    ("+1::skin-tone-2", 1), ("thumbsup::skin-tone-6", 1), (":heart:", 1), ("Fire", 1),
    ("-1", -1), ("thumbsdown", -1), ("-1::skin-tone-4", -1), ("thumbsdown::skin-tone-3", -1),
    ("eyes", None), ("tada", None), ("", None), ("heart_eyes", None), ("star2", None), ("+", None),
    ("skin-tone-2", None),
])
def test_reaction_names_map_to_feedback(name, value):
    assert reaction_value(name) == value


@pytest.fixture
def posted(ctx):
    """Two papers shown to U1 as two messages in D1."""
    follow(ctx, "U1", "feline cats")
    recs = recommend(ctx, "U1", 2, remember=False)
    for i, rec in enumerate(recs):
        ctx.store.mark_shown("U1", rec.paper.id, rec.reason, "D1", f"1.{i}")
    return [r.paper.id for r in recs]


def feedback(ctx, user="U1"):
    return {f.paper_id: f.value for f in ctx.store.get_feedback(user)}


def test_a_reaction_on_a_paper_message_likes_or_dislikes_it(ctx, posted):
    assert reaction_added(ctx, "U1", "D1", "1.0", "heart::skin-tone-2") == posted[0]
    assert reaction_added(ctx, "U1", "D1", "1.1", "thumbsdown") == posted[1]
    assert feedback(ctx) == {posted[0]: 1, posted[1]: -1}
    assert reaction_added(ctx, "U1", "D1", "1.1", "+1") == posted[1]  # the latest one wins
    assert feedback(ctx)[posted[1]] == 1


def test_other_reactions_people_and_messages_are_ignored(ctx, posted):
    assert reaction_added(ctx, "U1", "D1", "1.0", "eyes") is None
    assert reaction_added(ctx, "U2", "D1", "1.0", "+1") is None  # not the person it was shown to
    assert reaction_added(ctx, "U1", "D1", "9.9", "+1") is None  # not a paper message
    assert reaction_added(ctx, "U1", "C1", "1.0", "+1") is None
    assert feedback(ctx) == {} and feedback(ctx, "U2") == {}


def test_removing_takes_back_only_that_value(ctx, posted):
    reaction_added(ctx, "U1", "D1", "1.0", "+1")
    assert reaction_removed(ctx, "U1", "D1", "1.0", "-1") == posted[0]
    assert feedback(ctx) == {posted[0]: 1}
    reaction_removed(ctx, "U1", "D1", "1.0", "fire")
    assert feedback(ctx) == {}
    assert reaction_removed(ctx, "U1", "D1", "1.0", "eyes") is None


def test_removing_one_of_two_likes_keeps_the_like_and_a_lone_dislike_comes_back(ctx, posted):
    reaction_added(ctx, "U1", "D1", "1.0", "+1")
    reaction_added(ctx, "U1", "D1", "1.0", "heart")
    reaction_removed(ctx, "U1", "D1", "1.0", "heart", remaining=["+1", "eyes"])
    assert feedback(ctx) == {posted[0]: 1}
    reaction_added(ctx, "U1", "D1", "1.0", "-1")  # now both 👍 and 👎 are on it; 👎 came last
    reaction_removed(ctx, "U1", "D1", "1.0", "-1", remaining=["+1"])
    assert feedback(ctx) == {posted[0]: 1}
    reaction_removed(ctx, "U1", "D1", "1.0", "+1", remaining=["thumbsdown::skin-tone-2"])
    assert feedback(ctx) == {posted[0]: -1}


def test_after_forget_reactions_on_old_messages_do_nothing(ctx, posted):
    from bot.usecases import forget

    forget(ctx, "U1")
    assert reaction_added(ctx, "U1", "D1", "1.0", "+1") is None
    assert feedback_on_message(ctx, "U1", "D1", "1.0", 1) is None
    assert not any(ctx.store.rows_about("U1").values())


@pytest.fixture
def in_channel(ctx):
    """A paper of channel C1's digest, posted there as message 5.0."""
    follow(ctx, "C1", "feline cats")
    rec = recommend(ctx, "C1", 1, remember=False)[0]
    ctx.store.mark_shown("C1", rec.paper.id, rec.reason, "C1", "5.0")
    return rec.paper.id


def test_a_channels_like_holds_while_anyones_liking_reaction_is_left(ctx, in_channel):
    paper = in_channel
    for who in ("U1", "U2"):
        assert reaction_added(ctx, who, "C1", "5.0", "+1") == paper
    assert reaction_removed(ctx, "U1", "C1", "5.0", "+1", [], everyone=["+1"]) == paper  # U2's is left
    assert feedback(ctx, "U1") == {} and feedback(ctx, "C1") == {paper: 1} == feedback(ctx, "U2")
    # Slack couldn't say what is left: the person's goes, the channel's stays (others may hold it).
    assert reaction_removed(ctx, "U2", "C1", "5.0", "+1", [], everyone=None) == paper
    assert feedback(ctx, "U2") == {} and feedback(ctx, "C1") == {paper: 1}
    # A lone dislike left by someone else becomes the channel's word; with nothing left, nothing.
    assert reaction_added(ctx, "U3", "C1", "5.0", "heart") == paper
    assert reaction_removed(ctx, "U3", "C1", "5.0", "heart", [], everyone=["-1", "thumbsdown"]) == paper
    assert feedback(ctx, "C1") == {paper: -1}
    assert reaction_removed(ctx, "U4", "C1", "5.0", "-1", [], everyone=[]) == paper
    assert feedback(ctx, "C1") == {}
