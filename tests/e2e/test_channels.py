"""Channels end to end: `/papers channel …` run in a channel through signed requests to the real Bolt
app, the channel's own digest posted in the channel, reactions there counting for the channel and the
person, and trending posts, against the local Slack stand-in, on both backends."""

from __future__ import annotations

import json
import threading
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from slack_sdk.models.blocks import Block

from bot.config import Settings
from bot.slack.delivery.digests import Served, digest_client, serve_workspaces, slack_courier
from bot.slack.delivery.trending import trending_poster
from bot.slack.subcommands.channel import FROM_DM, INVITE
from bot.slack.views.messages import DISLIKE_ACTION, LIKE_ACTION, MORE_ACTION, SAVE_ACTION, WHO_ACTION
from bot.state.context import Context
from bot.usecases.digests.run import run_daily
from bot.usecases.trending import due_at, post_due_trending, week_of
from stand_ins.driving import reply_of
from tests.e2e.forgetting import press, pressed, ticket_of
from tests.e2e.harness import TEAM_ID, bot_environment, query, table_counts, user_ids
from tests.fakes import Clock

new_user = user_ids("UCHAN")
new_channel = user_ids("C0CHAN")
BERLIN = ZoneInfo("Europe/Berlin")  # the stand-in's timezone for everyone
OTHER_TEAM = "T0ELSEWHERE"

#: Papers only the trending tests like (no channel here follows anything like them).
TRENDY = [{"id": f"trendy-{i}", "title": f"Obsidian tessellation patterns, part {i}",
           "abstract": f"Obsidian tessellations and mosaic tilings studied, case {i}."} for i in range(4)]


@pytest.fixture(scope="module")
def extra_papers():
    return TRENDY


def ask_in(slack, user: str, text: str, channel: str):
    """`/papers TEXT` as ``user`` in ``channel``: the reply the caller sees (the ack's or a respond's)."""
    body, key = slack.command_body(user, text, channel=channel)
    status, data, _ = slack.post(body, "application/x-www-form-urlencoded")
    assert status == 200, data
    ack = json.loads(data) if data.startswith(b"{") else None
    if ack and (ack.get("text") or ack.get("blocks")):
        return reply_of(ack, "ack")
    call = slack.standin.wait_for(lambda: slack.standin.responses(key),
                                  what=f"a reply to /papers {text!r}")[0]
    return reply_of(call.params, "respond")


def posted_in(standin, channel: str) -> list:
    """Messages Slack took into ``channel`` (answered ok), oldest first."""
    return [c for c in standin.calls("chat.postMessage", channel=channel) if (c.response or {}).get("ok")]


def paper_posts(standin, channel: str) -> list:
    return [c for c in posted_in(standin, channel)
            if (c.params.get("metadata") or {}).get("event_type") == "paperbot_digest_paper"]


def feedback_of(store, subject: str) -> dict[str, int]:
    rows = query(store, "select paper_id, value from feedback where ws = ? and user_id = ?",
                 [TEAM_ID, subject])
    return {r["paper_id"]: r["value"] for r in rows}


@pytest.fixture
def digests(standin, db_path):
    """Run the digests due at a moment for some subjects, as the scheduler would: their outcomes."""
    settings = Settings.load(environ=bot_environment(standin, db_path), dotenv=None)
    root = Context.open(str(db_path), digest_size=3)
    ctx = root.for_workspace(TEAM_ID)
    courier = slack_courier(ctx, digest_client(settings))

    def run(at: datetime, subjects: list[str]):
        return [o for o in run_daily(ctx, [], courier, at, clock=lambda: at, users=subjects).outcomes
                if o.user_id in subjects]

    yield run
    root.close()


@pytest.fixture
def trending(standin, db_path):
    """(ctx, poster) for running the weekly trending posts at a chosen moment."""
    settings = Settings.load(environ=bot_environment(standin, db_path), dotenv=None)
    root = Context.open(str(db_path))
    yield root.for_workspace(TEAM_ID), trending_poster(digest_client(settings))
    root.close()


def this_minute_in_berlin() -> tuple[datetime, datetime]:
    """Now (moved past the end of a minute that is about to end) and the same moment in Berlin."""
    now = datetime.now(UTC)
    if now.second >= 55:  # a time set now must still be this minute
        now += timedelta(seconds=60 - now.second)
    return now, now.astimezone(BERLIN)


def a_channel_digest(slack, standin, digests, topic: str = "feline cats whiskers") -> tuple[str, str, list]:
    """A new channel following ``topic`` whose digest went out just now: (user, channel, paper posts)."""
    user, channel = new_user(), new_channel()
    ask_in(slack, user, f"channel follow {topic}", channel)
    now, local = this_minute_in_berlin()
    ask_in(slack, user, f"channel digest daily {local:%H:%M}", channel)
    assert [o.status for o in digests(now + timedelta(seconds=1), [channel])] == ["sent"]
    return user, channel, paper_posts(standin, channel)


# -- a channel's digest ------------------------------------------------------------------------------

def test_channel_follow_and_a_due_digest_post_in_the_channel_once_never_the_same_paper_twice(
        slack, standin, store, digests):
    user, channel = new_user(), new_channel()
    reply = ask_in(slack, user, "channel follow feline cats whiskers", channel)
    assert "This channel now follows “feline cats whiskers”" in reply.text
    assert "posted here daily at 09:00 (Europe/Berlin time)" in reply.text  # the setter's timezone
    now, local = this_minute_in_berlin()
    reply = ask_in(slack, user, f"channel digest daily {local:%H:%M}", channel)
    assert f"daily at {local:%H:%M} (Europe/Berlin time), posted here; the next one today" in reply.text
    shown = ask_in(slack, user, "channel", channel).text
    assert "feline cats whiskers" in shown and f"daily at {local:%H:%M}" in shown
    assert "*Trending:* off" in shown

    assert [o.status for o in digests(now + timedelta(seconds=1), [channel])] == ["sent"]
    header, *papers = posted_in(standin, channel)
    assert "This channel's digest for" in header.params["text"]
    assert len(papers) == 3 and all(p.params.get("blocks") for p in papers)
    for paper in papers:  # the buttons of a person's paper: 👍/👎 count for both, Save and More are below
        blocks = paper.params["blocks"]
        blocks = json.loads(blocks) if isinstance(blocks, str) else blocks
        for block in blocks:
            Block.parse(block).validate_json()
        buttons = [e["action_id"] for b in blocks if b["type"] == "actions" for e in b["elements"]]
        assert buttons == [SAVE_ACTION, LIKE_ACTION, DISLIKE_ACTION, MORE_ACTION, WHO_ACTION]
    assert not standin.calls("conversations.open", users=channel)  # no DM opened for a channel
    assert digests(now + timedelta(minutes=5), [channel]) == []  # once a day
    assert len(posted_in(standin, channel)) == 4

    shown_sql = "select paper_id from shown where ws = ? and user_id = ?"
    day_one = {r["paper_id"] for r in query(store, shown_sql, [TEAM_ID, channel])}
    assert len(day_one) == 3
    assert [o.status for o in digests(now + timedelta(days=1, seconds=1), [channel])] == ["sent"]
    shown_all = [r["paper_id"] for r in query(store, shown_sql, [TEAM_ID, channel])]
    assert len(shown_all) == 6 and len(set(shown_all)) == 6  # the next day: three others, none again
    assert len(paper_posts(standin, channel)) == 6
    # The person who set it up gets nothing of it in their DM, and their own profile is untouched.
    assert not query(store, "select * from topics where ws = ? and user_id = ?", [TEAM_ID, user])


def test_a_weekly_channel_digest_and_digest_off(slack, standin, digests):
    user, channel = new_user(), new_channel()
    ask_in(slack, user, "channel follow graph neural networks", channel)
    now, local = this_minute_in_berlin()
    reply = ask_in(slack, user, f"channel digest weekly {local:%A} {local:%H:%M}", channel)
    assert f"weekly on {local:%A}s at {local:%H:%M} (Europe/Berlin time), posted here" in reply.text
    assert [o.status for o in digests(now + timedelta(seconds=1), [channel])] == ["sent"]
    assert "This channel's weekly digest" in posted_in(standin, channel)[0].params["text"]
    assert digests(now + timedelta(days=1, seconds=1), [channel]) == []  # not the next day
    assert "digest is off" in ask_in(slack, user, "channel digest off", channel).text
    assert digests(now + timedelta(days=7, seconds=1), [channel]) == []
    assert "*Digest:* off" in ask_in(slack, user, "channel", channel).text


def test_not_in_the_channel_the_reply_says_how_to_invite_and_the_digest_is_not_counted_as_sent(
        slack, standin, store, digests):
    user, channel = new_user(), new_channel()
    standin.not_member.add(channel)
    reply = ask_in(slack, user, "channel follow robot grasping", channel)
    assert "This channel now follows" in reply.text and "/invite @paperbot" in reply.text
    now, local = this_minute_in_berlin()
    assert "/invite @paperbot" in ask_in(slack, user, f"channel digest daily {local:%H:%M}", channel).text
    outcomes = digests(now + timedelta(seconds=1), [channel])  # the scheduler carries on
    assert [o.status for o in outcomes] == ["failed"] and "not_in_channel" in outcomes[0].note.detail
    assert posted_in(standin, channel) == []
    assert not query(store, "select * from shown where ws = ? and user_id = ?", [TEAM_ID, channel])
    status = query(store, "select status from digests where ws = ? and user_id = ?", [TEAM_ID, channel])
    assert [r["status"] for r in status] == ["failed"]  # for that day only: not "sent"
    assert ask_in(slack, user, "channel trending now", channel).text == INVITE
    standin.not_member.discard(channel)  # invited: the next day's goes out, with papers never shown
    assert [o.status for o in digests(now + timedelta(days=1, seconds=1), [channel])] == ["sent"]
    assert "/invite" not in ask_in(slack, user, "channel", channel).text


# -- feedback in a channel ---------------------------------------------------------------------------

def test_a_reaction_on_a_channel_paper_counts_for_the_channel_and_the_person_and_removing_takes_both(
        slack, standin, store, digests):
    _, channel, papers = a_channel_digest(slack, standin, digests, "diffusion models denoising")
    reader = new_user()  # anyone in the channel, not the one who set it up
    first, second = papers[0].response["ts"], papers[1].response["ts"]
    by_ts = {r["message_ts"]: r["paper_id"] for r in query(
        store, "select * from shown where ws = ? and user_id = ?", [TEAM_ID, channel])}
    assert slack.reaction(reader, "+1", channel, first) == 200
    standin.wait_for(lambda: feedback_of(store, channel) and feedback_of(store, reader), what="the like")
    assert feedback_of(store, reader) == {by_ts[first]: 1}
    assert feedback_of(store, channel) == {by_ts[first]: 1}
    assert not standin.calls("chat.update", channel=channel)  # the shared message shows nobody's marks
    assert slack.reaction(reader, "+1", channel, first, added=False) == 200
    standin.wait_for(lambda: not feedback_of(store, channel) and not feedback_of(store, reader),
                     what="the like taken back")
    # The 👍 button counts for both too, and answers only the person who clicked.
    status, key = slack.click(reader, LIKE_ACTION, channel, second)
    assert status == 200
    text = standin.wait_for(lambda: standin.responses(key), what="the button's answer")[0].params["text"]
    assert "Noted" in text
    assert feedback_of(store, reader) == {by_ts[second]: 1} == feedback_of(store, channel)


# -- trending ----------------------------------------------------------------------------------------

def _like(store, users: list[str], paper_id: str) -> None:
    with store.transaction():
        for user in users:
            store.set_feedback(user, paper_id, 1)


def test_trending_now_posts_the_most_liked_with_counts_never_who(slack, standin, store):
    likers = [new_user() for _ in range(3)]
    _like(store, likers, "trendy-0")
    _like(store, likers[:2], "trendy-1")
    user, channel = new_user(), new_channel()
    reply = ask_in(slack, user, "channel trending now", channel)
    assert "most-liked (then most-saved) papers of the past 7 days here" in reply.text
    post = posted_in(standin, channel)[-1]
    text, blocks = post.params["text"], json.dumps(post.params["blocks"])
    assert "Obsidian tessellation patterns, part 0 (3 likes)" in text
    assert "part 1 (2 likes)" in text and text.index("part 0") < text.index("part 1")
    assert ":+1: 3 likes" in blocks
    for who in [*likers, user]:
        assert who not in text and who not in blocks
    assert "UCHAN" not in text + blocks  # nobody's id, in any form


def test_trending_counts_only_this_workspaces_likes(slack, standin, store):
    elsewhere = store.for_workspace(OTHER_TEAM)
    _like(elsewhere, [f"UOTHER{i}" for i in range(6)], "trendy-3")  # liked a lot, in another workspace
    _like(store, [new_user()], "trendy-2")
    channel = new_channel()
    ask_in(slack, new_user(), "channel trending now", channel)
    text = posted_in(standin, channel)[-1].params["text"]
    assert "part 2" in text and "part 3" not in text


def test_trending_on_posts_every_monday_at_nine_utc_once_a_week(slack, standin, store, trending):
    ctx, poster = trending
    user, channel = new_user(), new_channel()
    reply = ask_in(slack, user, "channel trending on", channel)
    assert "Every Monday at 09:00 UTC" in reply.text and "never who" in reply.text
    assert "*Trending:* on" in ask_in(slack, user, "channel", channel).text
    monday = due_at(week_of(datetime.now(UTC)) + timedelta(days=7))  # next Monday 09:00 UTC
    mine = lambda outcomes: [o.status for o in outcomes if o.channel_id == channel]  # noqa: E731

    assert post_due_trending(ctx, monday - timedelta(minutes=1), poster) == []  # not before 09:00
    # "empty" when no like of this file's falls in the 7 days before that Monday (it said so in a post).
    assert mine(post_due_trending(ctx, monday + timedelta(seconds=30), poster)) in (["posted"], ["empty"])
    assert len(posted_in(standin, channel)) == 1
    for later in (timedelta(hours=1), timedelta(days=1), timedelta(days=6, hours=23)):
        assert mine(post_due_trending(ctx, monday + later, poster)) == []  # once that week
    # Two processes at once on the next Monday: one post between them.
    following = monday + timedelta(days=7, seconds=5)
    results: list = []
    runs = [threading.Thread(target=lambda o=owner: results.extend(
        post_due_trending(ctx, following, poster, owner=o))) for owner in ("proc-a", "proc-b")]
    for run in runs:
        run.start()
    for run in runs:
        run.join()
    assert [o.status for o in results if o.channel_id == channel] == ["empty"]  # no like that recent
    assert len(posted_in(standin, channel)) == 2
    weeks = query(store, "select week, status from trending_posts where ws = ? and channel_id = ?",
                  [TEAM_ID, channel])
    assert sorted(r["week"] for r in weeks) == [monday.date().isoformat(), following.date().isoformat()]
    assert "Nobody here liked or saved a paper" in posted_in(standin, channel)[-1].params["text"]
    assert "No more trending posts" in ask_in(slack, user, "channel trending off", channel).text
    assert mine(post_due_trending(ctx, monday + timedelta(days=14, seconds=5), poster)) == []


def test_a_weekly_trending_post_the_bot_may_not_make_is_skipped_for_the_week_without_stopping_others(
        slack, standin, store, trending):
    ctx, poster = trending
    blocked, fine = new_channel(), new_channel()
    for channel in (blocked, fine):
        ask_in(slack, new_user(), "channel trending on", channel)
    standin.not_member.add(blocked)
    liked_at = datetime.now(UTC)
    _like(store, [new_user()], "trendy-2")  # something to post, whichever of the file's tests ran before
    monday = due_at(week_of(liked_at) + timedelta(days=7))
    at = monday + timedelta(minutes=1)
    outcomes = {o.channel_id: o.status for o in post_due_trending(ctx, at, poster)}
    # The like counts when it falls in the week before: not on a Monday before 09:01 UTC.
    assert outcomes[blocked] == "failed"
    assert outcomes[fine] == ("posted" if liked_at >= at - timedelta(days=7) else "empty")
    assert {o.channel_id for o in post_due_trending(ctx, monday + timedelta(minutes=5), poster)}.isdisjoint(
        {blocked, fine})


# -- refused and wrong ---------------------------------------------------------------------------------

def test_turning_off_what_a_channel_never_had_writes_nothing(slack, db_path):
    before = table_counts(db_path)
    channel = new_channel()
    assert "No more trending posts" in ask_in(slack, new_user(), "channel trending off", channel).text
    assert "has no digest" in ask_in(slack, new_user(), "channel digest off", channel).text
    assert "wasn't following" in ask_in(slack, new_user(), "channel unfollow all", channel).text
    assert "no papers of its own yet" in ask_in(slack, new_user(), "channel", channel).text
    after = table_counts(db_path)
    assert {t: n for t, n in after.items() if t != "once_keys"} == {
        t: n for t, n in before.items() if t != "once_keys"}  # (once_keys: each request, run once)


def test_a_channel_command_from_a_dm_is_refused_and_writes_nothing(slack, db_path):
    user = new_user()
    before = table_counts(db_path)
    reply = ask_in(slack, user, "channel follow feline cats whiskers", "D" + user)
    assert reply.via == "ack" and reply.text == FROM_DM
    assert table_counts(db_path) == before


@pytest.mark.parametrize(("text", "says"), [
    ("channel follow", "/papers channel follow diffusion models"),
    ("channel digest", "/papers channel digest daily 08:30"),
    ("channel digest weekly blursday", "/papers channel digest weekly monday 09:00"),
    ("channel digest 25:00", "24-hour HH:MM"),
    ("channel trending sometimes", "not “sometimes”"),
    ("channel <!here> & more", "I don't know “&lt;!here&gt;”"),
])
def test_a_wrong_channel_command_is_answered_at_once_and_writes_nothing(slack, db_path, text, says):
    before = table_counts(db_path)
    reply = ask_in(slack, new_user(), text, new_channel())
    assert reply.via == "ack" and says in reply.text, reply.text
    assert "<!here>" not in reply.text
    assert table_counts(db_path) == before


def test_forgetting_the_person_who_set_up_a_channel_leaves_the_channel_and_help_lists_channels(
        slack, standin, store):
    user, channel = new_user(), new_channel()
    ask_in(slack, user, "channel follow quantum qubits entanglement", channel)
    slack.ask(user, "follow robot grasping")  # something of their own to forget
    assert "Done" in pressed(slack, press(slack, user, ticket_of(ask_in(slack, user, "forget", channel)),
                                          channel=channel)).text
    assert "quantum qubits entanglement" in ask_in(slack, new_user(), "channel", channel).text
    assert query(store, "select * from channels where ws = ? and channel_id = ?", [TEAM_ID, channel])
    text = ask_in(slack, user, "help channel", channel).text
    assert "/papers channel follow" in text and "/papers channel trending on" in text


def test_the_digest_run_of_every_workspace_posts_the_trending_due_too(slack, standin, db_path):
    channel = new_channel()
    ask_in(slack, new_user(), "channel trending on", channel)
    settings = Settings.load(environ=bot_environment(standin, db_path), dotenv=None)
    monday = due_at(week_of(datetime.now(UTC)) + timedelta(days=7)) + timedelta(minutes=1)
    clock = Clock(monday)
    root = Context.open(str(db_path))
    try:
        served = [Served(TEAM_ID, digest_client(settings))]
        serve_workspaces(root, served, [], users=[], clock=clock)  # nobody's digest; the channels' trending
        assert len(posted_in(standin, channel)) == 1
        clock.advance(timedelta(seconds=30))
        serve_workspaces(root, served, [], users=[], clock=clock)  # the next tick: nothing again
        assert len(posted_in(standin, channel)) == 1
    finally:
        root.close()


# -- Save, More like this and a like that holds, on a channel's papers ------------------------------

def _shown(store, subject: str) -> dict[str, str]:
    """message ts -> paper id of what ``subject`` was shown."""
    return {r["message_ts"]: r["paper_id"] for r in query(
        store, "select * from shown where ws = ? and user_id = ?", [TEAM_ID, subject])}


def _saved(store, user: str) -> set[str]:
    return {r["paper_id"] for r in query(store, "select paper_id from saved where ws = ? and user_id = ?",
                                         [TEAM_ID, user])}


def click_answer(slack, standin, user: str, action: str, channel: str, ts: str) -> str:
    status, key = slack.click(user, action, channel, ts)
    assert status == 200
    return standin.wait_for(lambda: standin.responses(key), what=f"the answer to {action}")[0].params["text"]


def test_save_on_a_channel_paper_saves_it_for_the_clicker_only_and_the_bookmark_for_the_reactor(
        slack, standin, store, digests):
    _, channel, papers = a_channel_digest(slack, standin, digests, "feline cats whiskers")
    by_ts = _shown(store, channel)
    first, second = papers[0].response["ts"], papers[1].response["ts"]
    clicker, reactor = new_user(), new_user()
    answer = click_answer(slack, standin, clicker, SAVE_ACTION, channel, first)
    assert answer.startswith(":bookmark: Saved")
    assert _saved(store, clicker) == {by_ts[first]}
    assert feedback_of(store, clicker) == {}  # a save is no like, the clicker's or the channel's
    assert _saved(store, channel) == set() and feedback_of(store, channel) == {}  # the channel's own: 👍/👎
    assert not standin.calls("chat.update", channel=channel)  # the shared message shows nobody's marks
    assert click_answer(slack, standin, clicker, SAVE_ACTION, channel, first).startswith("Removed")
    assert _saved(store, clicker) == set() and feedback_of(store, clicker) == {}

    assert slack.reaction(reactor, "bookmark", channel, second) == 200
    standin.wait_for(lambda: _saved(store, reactor), what="the bookmark's save")
    assert _saved(store, reactor) == {by_ts[second]} and _saved(store, clicker) == set()
    assert slack.reaction(reactor, "bookmark", channel, second, added=False) == 200
    standin.wait_for(lambda: not _saved(store, reactor), what="the bookmark taken off")


def test_more_like_this_on_a_channel_paper_posts_the_channels_new_papers_in_its_thread(
        slack, standin, store, digests):
    _, channel, papers = a_channel_digest(slack, standin, digests, "diffusion models denoising")
    ts = papers[0].response["ts"]
    before = set(_shown(store, channel).values())
    asker = new_user()
    answer = click_answer(slack, standin, asker, MORE_ACTION, channel, ts)
    thread = [c for c in posted_in(standin, channel) if c.params.get("thread_ts") == ts]
    assert 1 <= len(thread) <= 3 and "in the thread under it" in answer
    shown = _shown(store, channel)
    new = [shown[c.response["ts"]] for c in thread]  # recorded as shown to the channel
    assert not set(new) & before and len(set(new)) == len(new)
    assert _shown(store, asker) == {}  # nothing of it in the asker's own record or DM
    assert not standin.calls("conversations.open", users=asker)
    for call in thread:
        blocks = call.params["blocks"]
        blocks = json.loads(blocks) if isinstance(blocks, str) else blocks
        for block in blocks:
            Block.parse(block).validate_json()
        assert "someone here asked for more of" in json.dumps(blocks)
    # Again, from the thread's paper this time: never a paper the channel had, until none is left.
    seen = before | set(new)
    for _ in range(8):
        answer = click_answer(slack, standin, new_user(), MORE_ACTION, channel, thread[0].response["ts"])
        fresh = [p for p in _shown(store, channel).values() if p not in seen]
        assert len(fresh) <= 3
        if not fresh:
            assert "this channel has seen every paper close to it" in answer
            break
        seen |= set(fresh)
    else:
        pytest.fail("More like this never ran out")
    # A reaction on a thread's paper counts for the channel, as on the digest's own.
    reader, thread_ts = new_user(), thread[0].response["ts"]
    assert slack.reaction(reader, "+1", channel, thread_ts) == 200
    standin.wait_for(lambda: feedback_of(store, channel), what="the like")
    assert feedback_of(store, channel) == {shown[thread_ts]: 1} == feedback_of(store, reader)


def test_the_channels_like_holds_while_anyones_reaction_still_holds(slack, standin, store, digests):
    _, channel, papers = a_channel_digest(slack, standin, digests, "feline cats whiskers")
    ts = papers[0].response["ts"]
    paper = _shown(store, channel)[ts]
    alice, bob = new_user(), new_user()
    for who in (alice, bob):
        assert slack.reaction(who, "+1", channel, ts) == 200
    standin.wait_for(lambda: feedback_of(store, alice) and feedback_of(store, bob), what="both likes")
    # Alice takes hers back; Slack still lists Bob's 👍 on the message.
    standin.reactions[(channel, ts)] = [{"name": "+1", "users": [bob], "count": 1}]
    assert slack.reaction(alice, "+1", channel, ts, added=False) == 200
    standin.wait_for(lambda: not feedback_of(store, alice), what="Alice's like taken back")
    assert feedback_of(store, channel) == {paper: 1} and feedback_of(store, bob) == {paper: 1}
    # Carol dislikes it (the latest word: the channel's dislike), then takes that back: Bob's 👍 holds.
    carol = new_user()
    assert slack.reaction(carol, "-1", channel, ts) == 200
    standin.wait_for(lambda: feedback_of(store, channel) == {paper: -1}, what="Carol's dislike")
    assert slack.reaction(carol, "-1", channel, ts, added=False) == 200
    standin.wait_for(lambda: feedback_of(store, channel) == {paper: 1}, what="Bob's like again")
    # Bob's goes too, and nobody's is left: so does the channel's.
    standin.reactions[(channel, ts)] = []
    assert slack.reaction(bob, "+1", channel, ts, added=False) == 200
    standin.wait_for(lambda: not feedback_of(store, channel) and not feedback_of(store, bob),
                     what="the channel's like gone with the last one")


def test_channel_digest_now_posts_the_channels_digest_at_once_then_an_extra_one(slack, standin, store):
    user, channel = new_user(), new_channel()
    ask_in(slack, user, "channel follow feline cats whiskers", channel)
    reply = ask_in(slack, user, "channel digest now", channel)
    assert reply.text.startswith("Posted 3 papers here."), reply.text
    header, *papers = posted_in(standin, channel)
    assert "This channel's digest for" in header.params["text"] and len(papers) == 3
    assert not standin.calls("conversations.open", users=channel)
    first = set(_shown(store, channel).values())
    assert len(first) == 3
    reply = ask_in(slack, user, "channel digest now", channel)  # today's went out: an extra one
    assert reply.text.startswith("Posted") or "No new papers" in reply.text
    shown = list(_shown(store, channel).values())
    assert len(shown) == len(set(shown)) and first <= set(shown)  # never one twice
    assert _shown(store, user) == {}  # the person who asked gets nothing of it


def test_channel_digest_now_where_it_cannot_post_or_for_a_channel_with_no_topics_writes_nothing(
        slack, standin, db_path):
    user, channel = new_user(), new_channel()
    before = table_counts(db_path)
    reply = ask_in(slack, user, "channel digest now", channel)
    assert "follows nothing yet" in reply.text and "/papers channel follow" in reply.text
    assert {t: n for t, n in table_counts(db_path).items() if t != "once_keys"} == {
        t: n for t, n in before.items() if t != "once_keys"}
    ask_in(slack, user, "channel follow feline cats whiskers", channel)
    standin.not_member.add(channel)
    before = table_counts(db_path)
    assert ask_in(slack, user, "channel digest now", channel).text == INVITE
    assert posted_in(standin, channel) == []
    assert {t: n for t, n in table_counts(db_path).items() if t != "once_keys"} == {
        t: n for t, n in before.items() if t != "once_keys"}
    standin.not_member.discard(channel)
    assert "digest now" in ask_in(slack, user, "help digest", channel).text
