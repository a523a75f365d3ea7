"""A use case's refusal (a named error with fields) read as a person reads it: the sentence it always
was, with the command answered in what to try (bot/slack/views/refusals.py)."""

import pickle

import pytest

from bot.errors import BadArgument, Missing, NoInterests, NoWords, TooLong, TooMany, UnknownPaper
from bot.slack.views.refusals import MISSING, NO_WORDS, TOO_LONG, TOO_MANY, TOO_MANY_GIVEN, say
from bot.usecases.interests import MAX_TOPICS


def test_a_channel_s_refusal_names_the_channel_s_command():
    assert say(Missing("follow"), "/papers channel") == (
        "Tell me what to follow, e.g. `/papers channel follow diffusion models, 2401.12345`")
    assert say(TooMany("topics", MAX_TOPICS), "/papers channel") == (
        f"You can follow at most {MAX_TOPICS} topics; `/papers channel unfollow` some first")
    assert say(Missing("unfollow")) == "Say which topic to unfollow, or `/papers unfollow all`"


def test_a_form_s_refusal_says_what_it_held_and_names_no_command():
    assert say(TooLong("mute", 100, "x" * 30, 140)) == (
        "A muted word or phrase can be at most 100 characters long; “" + "x" * 30 + "…” is 140")
    assert say(TooMany("mutes", 200, 230)) == "You can mute at most 200 words, not 230"
    assert "`" not in say(NoWords("mute", "?!", form=True))


@pytest.mark.parametrize(("table", "make"), [
    (MISSING, lambda what: Missing(what, "robots")),
    (TOO_LONG, lambda what: TooLong(what, 100)),
    (TOO_MANY, lambda what: TooMany(what, 20)),
    (TOO_MANY_GIVEN, lambda what: TooMany(what, 20, 21)),
    (NO_WORDS, lambda key: NoWords(key[0], "?!", key[1])),
])
def test_every_refusal_has_its_words(table, make):
    for key in table:
        said = say(make(key))
        assert said and "{" not in said and "Missing(" not in said


def test_a_refusal_is_still_the_error_it_was_and_crosses_processes():
    error = TooMany("topics", MAX_TOPICS)
    assert isinstance(error, BadArgument)
    copy = pickle.loads(pickle.dumps(error))
    assert (type(copy), copy.what, copy.most, copy.given) == (TooMany, "topics", MAX_TOPICS, None)
    assert say(UnknownPaper("p1")) == "I don't know a paper with id p1"
    assert say(NoInterests()).startswith("You don't follow anything yet")
    assert say(BadArgument("Its own words.")) == "Its own words."
