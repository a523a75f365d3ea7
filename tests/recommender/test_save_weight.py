"""A save teaches a profile as a weaker like (:data:`recommender.profile.SAVE_WEIGHT`)."""

import pytest

from recommender import Profile
from recommender.profile import SAVE_WEIGHT


def test_a_save_weighs_save_weight_of_a_like_of_the_same_age():
    profile = Profile(liked=["a", "b", "c"], liked_age_days=[0.0, 0.0, 30.0], saved=frozenset({"b", "c"}))
    assert profile.liked_weights(30.0) == pytest.approx([1.0, SAVE_WEIGHT, SAVE_WEIGHT / 2])
    assert Profile(liked=["a"], saved=frozenset({"a"})).liked_weights(30.0) == [SAVE_WEIGHT]
    assert 0 < SAVE_WEIGHT < 1


def test_without_saves_the_weights_are_as_before():
    profile = Profile(liked=["a", "b"], liked_age_days=[0.0, 30.0])
    assert profile.liked_weights(30.0) == pytest.approx([1.0, 0.5])
    assert not Profile(saved=frozenset({"x"})).liked_weights(30.0)


def test_saves_alone_make_a_profile_to_rank_by():
    assert not Profile(liked=["a"], saved=frozenset({"a"})).is_empty
