"""Sealing installation data with PAPERBOT_SECRET_KEY: a round trip, a wrong key, no token in clear, and a
changed key (PAPERBOT_OLD_SECRET_KEYS): what an old key sealed opens, and is re-sealed under the new one."""

import json

import pytest

from bot.errors import ConfigError
from bot.slack.oauth.token_crypto import MIN_SECRET_KEY_LENGTH, TokenBox, WrongSecretKey

KEY = "k" * 24 + "-0123456789"  # 35 characters
NEW, OLDER = "n" * 24 + "-0123456789", "o" * 24 + "-0123456789"
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


def test_what_an_old_key_sealed_opens_with_the_new_key_and_the_old_one_among_the_old():
    sealed = TokenBox(KEY).seal(TOKEN)
    box = TokenBox(NEW, [OLDER, KEY])
    assert box.open(sealed) == TOKEN
    assert TokenBox(KEY, [NEW]).open(box.seal("a")) == "a"  # new seals open wherever the new key is known
    with pytest.raises(WrongSecretKey):
        TokenBox(NEW).open(sealed)  # the old key forgotten: nothing opens it


def test_reseal_seals_an_old_keys_text_under_the_new_key_and_leaves_the_new_keys_alone():
    box = TokenBox(NEW, [KEY])
    sealed = TokenBox(KEY).seal(TOKEN)
    resealed = box.reseal(sealed)
    assert resealed is not None and resealed != sealed and TOKEN not in resealed
    assert TokenBox(NEW).open(resealed) == TOKEN  # the new key alone opens it now
    with pytest.raises(WrongSecretKey):
        TokenBox(KEY).open(resealed)
    assert box.reseal(resealed) is None  # sealed under the current key already: nothing to do
    assert box.reseal(box.seal(TOKEN)) is None


@pytest.mark.parametrize("sealed", [TokenBox(OLDER).seal(TOKEN), "not base64 at all", "ünïcode", ""])
def test_a_text_no_key_opens_is_not_resealed_but_named_in_one_line(sealed):
    with pytest.raises(WrongSecretKey) as raised:
        TokenBox(NEW, [KEY]).reseal(sealed)
    message = str(raised.value)
    assert "PAPERBOT_OLD_SECRET_KEYS" in message and "PAPERBOT_SECRET_KEY" in message and "\n" not in message


def test_each_old_key_must_be_as_long_as_the_current_one():
    with pytest.raises(ConfigError, match="PAPERBOT_OLD_SECRET_KEYS"):
        TokenBox(NEW, [KEY, "short"])
    # The current key listed among the old ones too: harmless.
    assert TokenBox(NEW, [NEW, KEY]).open(TokenBox(NEW).seal("a")) == "a"
