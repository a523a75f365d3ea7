import pytest

from bot.errors import BadArgument
from bot.slack.subcommands import Command
from bot.slack.subcommands.digest_commands import (
    reply_digest_highlights,
    reply_digest_off,
    reply_digest_quiet,
)
from bot.slack.subcommands.follow_commands import reply_interests, reply_unfollow
from bot.slack.subcommands.forget_commands import reply_forget
from bot.slack.subcommands.personal import HELP, SHORT_HELP_MOST, parse
from bot.slack.subcommands.recommend_commands import reply_search
from bot.usecases import follow


@pytest.mark.parametrize("text, expected", [
    ("", Command("help")),
    ("   ", Command("help")),
    ("help", Command("help")),
    ("HELP digest", Command("help", "digest")),
    ("follow  diffusion models, 2401.00001 ", Command("follow", "diffusion models, 2401.00001")),
    ("unfollow all", Command("unfollow", "all")),
    ("interests", Command("interests")),
    ("recommend", Command("recommend", count=5)),
    ("recommend 12", Command("recommend", count=12)),
    ("Recommend 20", Command("recommend", count=20)),
    ("search graph  neural\nnets", Command("search", "graph  neural\nnets")),
    ("digest 7:05", Command("digest-at", time="07:05")),
    ("digest 00:00", Command("digest-at", time="00:00")),
    ("digest 23:59", Command("digest-at", time="23:59")),
    ("digest OFF", Command("digest-off")),
    ("digest now", Command("digest-now")),
    ("digest quiet ON", Command("digest-quiet", "on")),
    ("digest quiet off", Command("digest-quiet", "off")),
    ("digest highlights OFF", Command("digest-highlights", "off")),
    ("digest highlights on", Command("digest-highlights", "on")),
    ("forget", Command("forget")),
    ("follow a &amp; b &lt;x&gt;", Command("follow", "a & b <x>")),  # Slack's entities decoded
])
def test_parse(text, expected):
    assert parse(text) == expected


@pytest.mark.parametrize("text, message", [
    ("frobnicate", "I don't know the subcommand “frobnicate”"),
    ("x" * 7000, "I don't know the subcommand"),
    ("recommend 0", "a number from 1 to 20"),
    ("recommend 21", "a number from 1 to 20"),
    ("recommend five", "a number from 1 to 20"),
    ("recommend -3", "a number from 1 to 20"),
    ("digest", "Say when"),
    ("digest 24:00", "not a time"),
    ("digest 12:60", "not a time"),
    ("digest 123:00", "not a time"),
    ("digest 9", "not a time"),
    ("digest " + "9" * 7000, "not a time"),
    ("digest quiet", "digest quiet on"),
    ("digest quiet please", "digest quiet off"),
    ("digest highlights", "digest highlights on"),
    ("digest highlights maybe", "digest highlights off"),
    ("forget everything", "takes nothing after it"),
    ("interests please", "takes nothing after it"),
])
def test_parse_rejects_with_what_was_wrong(text, message):
    with pytest.raises(BadArgument) as caught:
        parse(text)
    assert message in str(caught.value)
    assert len(str(caught.value)) < 300


def test_help_mentions_every_subcommand():
    for sub in ("follow", "unfollow", "interests", "recommend", "search", "digest", "forget"):
        assert f"`{sub}" in HELP or f"/papers {sub}" in HELP
    assert len(HELP) < SHORT_HELP_MOST


def test_interests_reply_escapes_topics_and_shows_the_schedule(ctx):
    follow(ctx, "U1", "<!channel>, a & b")
    ctx.store.record_timezone("U1", "Europe/Paris")
    text = reply_interests(ctx, "U1")["text"]
    assert "&lt;!channel&gt;, a &amp; b" in text and "<!channel>" not in text
    assert "daily at 09:00 (Europe/Paris time)" in text
    reply_digest_off(ctx, "U1")
    assert "off" in reply_interests(ctx, "U1")["text"]
    assert ctx.store.get_person("U1").digest_time == "09:00"  # kept for when it's turned back on


def test_quiet_days_reply_and_show_in_interests(ctx):
    follow(ctx, "U1", "cats")
    assert "you'll hear nothing" in reply_digest_quiet(ctx, "U1", Command("digest-quiet", "on"))["text"]
    assert "already hear nothing" in reply_digest_quiet(ctx, "U1", Command("digest-quiet", "on"))["text"]
    assert "no note on days nothing matched" in reply_interests(ctx, "U1")["text"]
    assert "short note" in reply_digest_quiet(ctx, "U1", Command("digest-quiet", "off"))["text"]
    assert "nothing matched" not in reply_interests(ctx, "U1")["text"]


def test_interests_reply_fits_a_section_with_fifty_long_topics(ctx):
    follow(ctx, "U1", ", ".join(f"{i:02d}" + "&" * 98 for i in range(50)))
    text = reply_interests(ctx, "U1")["text"]
    assert len(text) < 3000 and "more" in text


def test_unfollow_replies(ctx):
    follow(ctx, "U1", "cats, dogs")
    assert reply_unfollow(ctx, "U1", Command("unfollow", "CATS"))["text"] == "Stopped following “cats”."
    assert "weren't following “&lt;x&gt;”" in reply_unfollow(ctx, "U1", Command("unfollow", "<x>"))["text"]
    assert "dogs" in reply_unfollow(ctx, "U1", Command("unfollow", "all"))["text"]
    assert reply_unfollow(ctx, "U1", Command("unfollow", "all"))["text"] == "You weren't following anything."


def test_search_reply_is_blocks_with_an_escaped_echo(ctx):
    reply = reply_search(ctx, "U1", Command("search", "qubits <!channel>"))
    assert "“qubits &lt;!channel&gt;”" in reply["text"] and len(reply["blocks"]) <= 50
    assert "quantum" in str(reply["blocks"]).lower() or "qubits" in str(reply["blocks"])


def test_forget_reply(ctx):
    from bot.slack.runtime import Runtime

    follow(ctx, "U1", "cats")
    before = ctx.store.rows_about("U1")
    reply = reply_forget(Runtime(ctx), "U1")
    assert "1 topic" in reply["text"] and "Forget me" in str(reply["blocks"])
    assert ctx.store.rows_about("U1") == before  # nothing goes before the button is pressed
    assert "nothing to forget" in reply_forget(Runtime(ctx), "U2")["text"]


def test_forget_reply_counts_the_rows_naming_someone_who_set_up_a_channel_and_nothing_else(ctx):
    from bot.slack.runtime import Runtime

    ctx.store.add_channel("C1", "U3")
    reply = reply_forget(Runtime(ctx), "U3")
    assert "1 mention of you as who installed me or set up a channel" in reply["text"]
    assert "Forget me" in str(reply["blocks"])


def test_control_characters_nobody_types_are_dropped_from_a_command():
    from bot.slack.subcommands import clean

    assert clean("follow\x00 bandits\x07, regret\x1b\n") == "follow bandits, regret"
    assert parse("follow ban\x00dits").arg == "bandits"


def test_highlights_off_is_kept_for_the_person_and_on_again_stores_nothing_for_someone_unknown(ctx):
    assert "already show their highlights" in reply_digest_highlights(ctx, "UNEW", Command("x", "on"))["text"]
    assert ctx.store.get_person("UNEW") is None
    said = reply_digest_highlights(ctx, "U1", Command("digest-highlights", "off"))["text"]
    assert "start of its abstract" in said and ctx.store.get_person("U1").highlights_off is True
    assert "already show the start" in reply_digest_highlights(ctx, "U1", Command("x", "off"))["text"]
    said = reply_digest_highlights(ctx, "U1", Command("digest-highlights", "on"))["text"]
    assert "quoted from its abstract" in said and ctx.store.get_person("U1").highlights_off is False
