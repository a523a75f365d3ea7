"""Sealing installation data with PAPERBOT_SECRET_KEY: a round trip, a wrong key, no token in clear."""

import json

import pytest

from bot.errors import ConfigError
from bot.slack.oauth.token_crypto import MIN_SECRET_KEY_LENGTH, TokenBox, WrongSecretKey

KEY = "k" * 24 + "-0123456789"  # 35 characters
TOKEN = "xoxb-1111-2222-secretsecret"


def test_a_sealed_text_opens_with_the_same_key_even_in_another_box():
    sealed = TokenBox(KEY).seal(json.dumps({"bot_token": TOKEN, "name": "Zoë"}))
    assert json.loads(TokenBox(KEY).open(sealed)) == {"bot_token": TOKEN, "name": "Zoë"}


def test_the_sealed_text_shows_no_token_and_differs_each_time():
    box = TokenBox(KEY)
    first, second = box.seal(TOKEN), box.seal(TOKEN)
    assert TOKEN not in first and "xoxb" not in first and "secretsecret" not in first
    assert first != second  # a fresh IV each time: equal tokens don't look equal when stored


def test_a_wrong_key_raises_the_named_error_with_one_clear_line():
    sealed = TokenBox(KEY).seal(TOKEN)
    with pytest.raises(WrongSecretKey) as raised:
        TokenBox(KEY[:-1] + "X").open(sealed)
    message = str(raised.value)
    assert "PAPERBOT_SECRET_KEY" in message and "\n" not in message and TOKEN not in message


@pytest.mark.parametrize("garbage", ["", "not base64 at all", "gAAAAA", "ünïcode"])
def test_text_that_was_never_sealed_is_a_wrong_key_too(garbage):
    with pytest.raises(WrongSecretKey):
        TokenBox(KEY).open(garbage)


def test_a_changed_sealed_text_is_refused():
    sealed = TokenBox(KEY).seal(TOKEN)
    flipped = sealed[:20] + ("A" if sealed[20] != "A" else "B") + sealed[21:]
    with pytest.raises(WrongSecretKey):
        TokenBox(KEY).open(flipped)


@pytest.mark.parametrize("key", [None, "", "short", "x" * (MIN_SECRET_KEY_LENGTH - 1)])
def test_a_missing_or_short_key_is_a_config_error_naming_the_setting(key):
    with pytest.raises(ConfigError, match="PAPERBOT_SECRET_KEY"):
        TokenBox(key)


def test_a_key_of_exactly_the_minimum_length_is_enough():
    box = TokenBox("x" * MIN_SECRET_KEY_LENGTH)
    assert box.open(box.seal("a")) == "a"
