"""Reading-group polls end to end: `/papers channel poll` run in a channel through signed requests to the
real Bolt app, Vote clicks as Slack sends them, the poll's message as ``chat.update`` leaves it in the
Slack stand-in, and the close posting the winner with a thread to discuss it, on both backends."""

from __future__ import annotations

import json
import threading

import pytest
from slack_sdk.models.blocks import Block

from bot.slack.subcommands.channel import FROM_DM, INVITE
from bot.slack.subcommands.channel_poll import NO_TOPICS, NONE_OPEN
from bot.slack.views.messages import LIKE_ACTION, SAVE_ACTION
from bot.slack.views.metadata import PAPER_EVENT
from bot.slack.views.poll_message import VOTE_ACTION, voted_for
from tests.e2e.forgetting import forget_me
from tests.e2e.harness import TEAM_ID, query, table_counts, user_ids
from tests.e2e.test_channels import ask_in, posted_in

new_user = user_ids("UPOLL")
new_channel = user_ids("C0POLL")


def a_channel(slack, topic: str = "feline cats whiskers") -> tuple[str, str]:
    """A new channel following ``topic``: (who set it up, the channel)."""
    user, channel = new_user(), new_channel()
    assert "now follows" in ask_in(slack, user, f"channel follow {topic}", channel).text
    return user, channel


def open_a_poll(slack, standin, user: str, channel: str, text: str = "channel poll 3") -> tuple[str, list]:
    """Run ``text`` in the channel: the poll message's ts and its (poll id, paper id) choices in order."""
    reply = ask_in(slack, user, text, channel)
    assert "Posted a reading-group poll" in reply.text, reply.text
    post = posted_in(standin, channel)[-1]
    return post.response["ts"], [voted_for(value) for value in vote_values(message_blocks(post.params))]


def in_channel(standin, channel: str) -> list:
    """Messages Slack took into the channel itself (not into a thread), oldest first."""
    return [c for c in posted_in(standin, channel) if not c.params.get("thread_ts")]


def message_blocks(message: dict) -> list[dict]:
    blocks = message.get("blocks") or []
    return json.loads(blocks) if isinstance(blocks, str) else blocks


def vote_values(blocks: list[dict]) -> list[str]:
    """The values of a poll message's Vote buttons, in order."""
    return [b["accessory"]["value"] for b in blocks
            if b.get("accessory", {}).get("action_id") == VOTE_ACTION]


def counts_shown(standin, channel: str, ts: str) -> list[str]:
    """Each paper's count line of the poll's message as it is now in Slack."""
    blocks = message_blocks(standin.message(channel, ts))
    return [e["text"] for b in blocks if b["type"] == "context" for e in b["elements"]
            if ":ballot_box_with_ballot:" in e["text"]]


def click_vote(slack, user: str, channel: str, ts: str, choice: tuple[str, str]) -> str:
    """Click Vote on a paper of the poll as ``user``; the click's response_url key."""
    payload, key = slack.click_payload(user, VOTE_ACTION, channel, ts)
    payload["actions"][0].update(value=" ".join(choice), block_id="poll_paper")
    assert slack.interaction(payload)[0] == 200
    return key


def vote(slack, user: str, channel: str, ts: str, choice: tuple[str, str]) -> str:
    """Vote and wait for the private answer: its text."""
    key = click_vote(slack, user, channel, ts, choice)
    calls = slack.standin.wait_for(lambda: slack.standin.responses(key), what="the vote's answer")
    assert calls[0].params.get("response_type") == "ephemeral"
    return calls[0].params["text"]


def stored_votes(store, ts: str) -> dict[str, str]:
    rows = query(store, "select v.user_id, v.paper_id from poll_votes v join polls p on p.ws = v.ws"
                        " and p.poll_id = v.poll_id where p.ws = ? and p.message_ts = ?", [TEAM_ID, ts])
    return {r["user_id"]: r["paper_id"] for r in rows}


def test_a_poll_counts_votes_as_they_change_and_its_close_posts_the_winner_with_a_thread(
        slack, standin, store):
    user, channel = a_channel(slack)
    ts, choices = open_a_poll(slack, standin, user, channel)
    post = posted_in(standin, channel)[-1]
    for block in message_blocks(post.params):
        Block.parse(block).validate_json()
    assert len(choices) == 3 and len({paper for _, paper in choices}) == 3
    assert "Reading-group poll" in post.params["text"]
    assert counts_shown(standin, channel, ts) == [":ballot_box_with_ballot: no votes"] * 3
    shown = {r["paper_id"] for r in query(store, "select paper_id from shown where ws = ? and user_id = ?",
                                          [TEAM_ID, channel])}
    assert shown == {paper for _, paper in choices}  # recorded as shown: the next poll or digest differs

    first, second, third = choices
    alice, bob = new_user(), new_user()
    assert "Your vote" in vote(slack, alice, channel, ts, first)
    assert "Your vote" in vote(slack, bob, channel, ts, second)
    assert counts_shown(standin, channel, ts) == [":ballot_box_with_ballot: 1 vote",
                                                  ":ballot_box_with_ballot: 1 vote",
                                                  ":ballot_box_with_ballot: no votes"]
    assert "moved from your earlier choice" in vote(slack, alice, channel, ts, second)
    assert "already" in vote(slack, alice, channel, ts, second)
    assert counts_shown(standin, channel, ts) == [":ballot_box_with_ballot: no votes",
                                                  ":ballot_box_with_ballot: 2 votes",
                                                  ":ballot_box_with_ballot: no votes"]
    assert stored_votes(store, ts) == {alice: second[1], bob: second[1]}
    assert standin.calls("chat.update", channel=channel, ts=ts)  # the message itself was updated
    assert all(c.params.get("channel") != channel for c in standin.calls("chat.postMessage")
               if "Your vote" in str(c.params.get("text")))  # no public noise

    busy = ask_in(slack, new_user(), "channel poll", channel)  # anyone in the channel, while one is open
    assert "already has an open poll" in busy.text and "poll close" in busy.text
    assert f"/archives/{channel}/p{ts.replace('.', '')}|vote there>" in busy.text
    assert len(posted_in(standin, channel)) == 1  # nothing else posted

    closed = ask_in(slack, bob, "channel poll close", channel)
    assert "Closed the poll" in closed.text and "won with 2 votes of 2" in closed.text
    blocks = message_blocks(standin.message(channel, ts))
    assert not vote_values(blocks) and "closed" in json.dumps(blocks)  # the buttons are gone
    assert ":trophy:" in counts_shown(standin, channel, ts)[1]
    _, winner_post = in_channel(standin, channel)
    assert winner_post.params["metadata"]["event_payload"] == {"paper_id": second[1]}
    assert winner_post.params["metadata"]["event_type"] == PAPER_EVENT
    buttons = [e["action_id"] for b in message_blocks(winner_post.params) if b["type"] == "actions"
               for e in b["elements"]]
    assert SAVE_ACTION in buttons and LIKE_ACTION in buttons  # a normal paper message
    winner_ts = winner_post.response["ts"]
    (discussion,) = standin.replies(channel, winner_ts)
    assert "Discuss it here" in discussion["text"] and "2 votes of 2" in discussion["text"]
    poll = query(store, "select status, winner, winner_ts from polls where ws = ? and message_ts = ?",
                 [TEAM_ID, ts])
    assert poll == [{"status": "closed", "winner": second[1], "winner_ts": winner_ts}]
    assert query(store, "select message_ts from shown where ws = ? and user_id = ? and paper_id = ?",
                 [TEAM_ID, channel, second[1]]) == [{"message_ts": winner_ts}]  # its reactions count

    # After the close: a vote changes nothing, a second close finds nothing open.
    updates = len(standin.calls("chat.update", channel=channel, ts=ts))
    assert "closed" in vote(slack, new_user(), channel, ts, third)
    assert "closed" in vote(slack, alice, channel, ts, first)
    assert stored_votes(store, ts) == {alice: second[1], bob: second[1]}
    assert len(standin.calls("chat.update", channel=channel, ts=ts)) == updates
    assert ask_in(slack, user, "channel poll close", channel).text == NONE_OPEN

    # The next poll offers papers the channel has not seen.
    next_ts, next_choices = open_a_poll(slack, standin, user, channel, "channel poll 2")
    assert next_ts != ts and not {p for _, p in next_choices} & shown


def test_votes_at_once_leave_the_message_showing_the_stored_counts(slack, standin, store):
    user, channel = a_channel(slack, "graph neural networks message passing")
    ts, choices = open_a_poll(slack, standin, user, channel, "channel poll")
    assert len(choices) == 4  # the default
    voters = [new_user() for _ in range(8)]
    # The first update lands after the others, with the counts of its moment: its sender must see the
    # votes cast meanwhile and update again, or the message ends on stale counts.
    standin.delay("chat.update", 1.5, times=1)
    keys: list[str] = []
    clicks = [threading.Thread(target=lambda v=v, i=i: keys.append(
        click_vote(slack, v, channel, ts, choices[i % 3]))) for i, v in enumerate(voters)]
    for click in clicks:
        click.start()
    for click in clicks:
        click.join()
    standin.wait_for(lambda: all(standin.responses(k) for k in keys), what="every vote's answer")
    assert len(stored_votes(store, ts)) == 8
    expected = [":ballot_box_with_ballot: 3 votes", ":ballot_box_with_ballot: 3 votes",
                ":ballot_box_with_ballot: 2 votes", ":ballot_box_with_ballot: no votes"]
    assert counts_shown(standin, channel, ts) == expected
    closed = ask_in(slack, user, "channel poll close", channel).text
    assert "won with 3 votes of 8 (tied: the better-ranked paper wins a tie)" in closed
    assert query(store, "select winner from polls where ws = ? and message_ts = ?",
                 [TEAM_ID, ts]) == [{"winner": choices[0][1]}]


def test_nobody_voting_posts_the_top_ranked_paper_and_a_forgotten_voter_s_vote_goes(slack, standin, store):
    user, channel = a_channel(slack, "robot grasping manipulation")
    ts, choices = open_a_poll(slack, standin, user, channel, "channel poll 2")
    voter = new_user()
    vote(slack, voter, channel, ts, choices[1])
    assert stored_votes(store, ts) == {voter: choices[1][1]}
    assert "deleted everything" in forget_me(slack, voter)
    assert stored_votes(store, ts) == {}
    closed = ask_in(slack, user, "channel poll close", channel).text
    assert "nobody voted, so the winner is its top-ranked paper" in closed
    winner_post = in_channel(standin, channel)[-1]
    assert winner_post.params["metadata"]["event_payload"] == {"paper_id": choices[0][1]}
    (discussion,) = standin.replies(channel, winner_post.response["ts"])
    assert "Nobody voted" in discussion["text"]


@pytest.mark.parametrize(("text", "expected"), [
    ("channel poll 7", "A poll has 2 to 6 papers, not 7"),
    ("channel poll 1", "A poll has 2 to 6 papers, not 1"),
    ("channel poll two", "not “two”"),
    ("channel poll 3 more", "not “3 more”"),
])
def test_a_bad_poll_argument_says_what_was_wrong_and_points_to_help(slack, store, db_path, text, expected):
    user, channel = new_user(), new_channel()
    before = table_counts(db_path)
    reply = ask_in(slack, user, text, channel)
    assert reply.via == "ack" and expected in reply.text and "/papers help" in reply.text
    assert table_counts(db_path) == before


def test_a_poll_where_it_cannot_be_gets_a_clear_reply_and_nothing_is_posted(slack, standin, store):
    user, channel = new_user(), new_channel()
    assert ask_in(slack, user, "channel poll", channel).text == NO_TOPICS  # follows no topics
    assert ask_in(slack, user, "channel poll", "D0POLLDM").text == FROM_DM  # not in a channel
    assert ask_in(slack, user, "channel poll close", channel).text == NONE_OPEN
    _, elsewhere = a_channel(slack)
    standin.not_member.add(elsewhere)
    assert ask_in(slack, user, "channel poll", elsewhere).text == INVITE
    assert posted_in(standin, channel) == [] and posted_in(standin, elsewhere) == []
    assert not query(store, "select * from polls where ws = ? and channel_id in (?, ?)",
                     [TEAM_ID, channel, elsewhere])
