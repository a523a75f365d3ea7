"""Reading-group polls as plain use cases, on both backends: choosing the channel's best unseen papers,
one open poll a channel, votes (changeable, none once closed), the winner (most votes, a tie to the
better-ranked, nobody voting: the first-ranked), and a post that fails leaving nothing behind."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from bot.errors import BadArgument, NoInterests, Outage
from bot.usecases.channel_subjects import follow_in_channel
from bot.usecases.polls import (
    UNPOSTED,
    Poll,
    close_poll,
    find_poll,
    open_poll,
    vote,
    winner_of,
    winner_posted,
)
from storage.moments import iso_utc

CHANNEL = "C0READING"


class Posts:
    """A poster that records each poll it is handed and answers with a new ts."""

    def __init__(self) -> None:
        self.polls: list[Poll] = []

    def __call__(self, poll: Poll) -> str:
        self.polls.append(poll)
        return f"1700000000.{len(self.polls):06d}"


@pytest.fixture
def channel(app):
    follow_in_channel(app, CHANNEL, "USETTER", None, "feline cats whiskers")
    return app


def test_a_poll_offers_the_channel_s_best_unseen_papers_in_rank_order_and_records_them_shown(channel):
    posts = Posts()
    opened = open_poll(channel, CHANNEL, 3, posts)
    assert opened.status == "opened" and opened.poll is not None
    poll = opened.poll
    assert poll.message_ts == "1700000000.000001" and poll.is_open and len(poll.choices) == 3
    assert all(c.rec.paper.id.startswith("cats-") and c.votes == 0 for c in poll.choices)
    assert all(c.rec.reason for c in poll.choices)  # why each was picked, as a digest says it
    ids = [c.rec.paper.id for c in poll.choices]
    assert channel.store.shown_paper_ids(CHANNEL) == set(ids)
    assert [c.rec.paper.id for c in find_poll(channel, poll.poll_id).choices] == ids  # as stored
    assert posts.polls[0].poll_id == poll.poll_id

    again = open_poll(channel, CHANNEL, 3, posts)  # one at a time
    assert again.status == "busy" and again.poll.poll_id == poll.poll_id and len(posts.polls) == 1
    close_poll(channel, CHANNEL)
    second = open_poll(channel, CHANNEL, 3, posts).poll
    assert not {c.rec.paper.id for c in second.choices} & set(ids)  # the next one offers others


def test_a_channel_with_nothing_to_offer_gets_no_poll(channel, app):
    with pytest.raises(NoInterests):
        open_poll(app, "C0NOTHING", 4, Posts())
    for _ in range(2):  # 8 cat papers: two polls of 4 take them all
        assert open_poll(channel, CHANNEL, 4, Posts()).status == "opened"
        close_poll(channel, CHANNEL)
    posts = Posts()
    left = open_poll(channel, CHANNEL, 4, posts)
    assert left.status == "too-few" and left.found < 2 and posts.polls == []
    assert channel.store.open_poll(CHANNEL) is None
    with pytest.raises(BadArgument):
        open_poll(channel, CHANNEL, 7, Posts())


def test_a_post_that_fails_keeps_no_poll_and_shows_nothing(channel):
    def down(poll: Poll) -> str:
        raise Outage("Slack is down")

    with pytest.raises(Outage):
        open_poll(channel, CHANNEL, 3, down)
    assert channel.store.open_poll(CHANNEL) is None and channel.store.shown_paper_ids(CHANNEL) == set()
    assert open_poll(channel, CHANNEL, 3, Posts()).status == "opened"


def test_votes_are_one_a_person_changeable_and_refused_once_closed(channel):
    poll = open_poll(channel, CHANNEL, 3, Posts()).poll
    a, b, c = (choice.rec.paper.id for choice in poll.choices)
    first = vote(channel, CHANNEL, poll.poll_id, "U1", a)
    assert first.status == "voted" and first.before is None and first.poll.choice(a).votes == 1
    assert vote(channel, CHANNEL, poll.poll_id, "U2", b).poll.total == 2
    moved = vote(channel, CHANNEL, poll.poll_id, "U1", b)
    assert moved.before == a and [ch.votes for ch in moved.poll.choices] == [0, 2, 0]
    assert moved.poll.version == 3
    assert vote(channel, CHANNEL, poll.poll_id, "U1", "not-in-the-poll").status == "unknown"
    assert vote(channel, "C0ELSEWHERE", poll.poll_id, "U1", a).status == "unknown"  # another channel's
    assert vote(channel, CHANNEL, "no-such-poll", "U1", a).status == "unknown"
    closed = close_poll(channel, CHANNEL)
    assert closed is not None and closed.winner.rec.paper.id == b and not closed.nobody_voted
    assert closed.poll.winner == b and not closed.poll.is_open
    late = vote(channel, CHANNEL, poll.poll_id, "U3", c)
    assert late.status == "closed" and late.poll.total == 2
    assert channel.store.poll_vote(poll.poll_id, "U3") is None
    assert close_poll(channel, CHANNEL) is None  # closed once


def test_the_winner_has_most_votes_a_tie_goes_to_the_better_ranked_and_no_votes_to_the_first(channel):
    poll = open_poll(channel, CHANNEL, 4, Posts()).poll
    ids = [choice.rec.paper.id for choice in poll.choices]
    assert winner_of(poll).rec.paper.id == ids[0]  # nobody voted
    for user, paper in (("U1", ids[3]), ("U2", ids[2]), ("U3", ids[3]), ("U4", ids[2])):
        vote(channel, CHANNEL, poll.poll_id, user, paper)
    closed = close_poll(channel, CHANNEL)
    assert closed.winner.rec.paper.id == ids[2]  # 2 each: the better-ranked of the two
    winner_posted(channel, closed, "1700000000.000900")
    stored = channel.store.get_poll(poll.poll_id)
    assert (stored.winner, stored.winner_ts, stored.status) == (ids[2], "1700000000.000900", "closed")
    assert channel.store.paper_for_message(CHANNEL, "1700000000.000900") == (CHANNEL, ids[2])


def test_a_poll_its_opener_never_posted_is_dropped_after_a_while_and_a_vote_names_its_message(channel):
    now = datetime(2026, 12, 1, 10, 0, tzinfo=UTC)
    stuck = channel.store.start_poll(CHANNEL, ["cats-0", "cats-1"], iso_utc(now))  # opener died here
    assert open_poll(channel, CHANNEL, 3, Posts(), now=now + timedelta(minutes=1)).status == "busy"
    # Its message did go out: a vote on it tells where, and the counts can be shown there.
    voted = vote(channel, CHANNEL, stuck, "U1", "cats-1", message_ts="1700000000.000042")
    assert voted.status == "voted" and voted.poll.message_ts == "1700000000.000042"
    close_poll(channel, CHANNEL)
    never = channel.store.start_poll(CHANNEL, ["cats-2", "cats-3"], iso_utc(now))
    opened = open_poll(channel, CHANNEL, 3, Posts(), now=now + UNPOSTED + timedelta(seconds=1))
    assert opened.status == "opened" and opened.poll.poll_id != never
    assert channel.store.get_poll(never) is None
