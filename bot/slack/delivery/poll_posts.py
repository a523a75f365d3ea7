"""Reading-group polls in Slack: posting a poll, showing its counts as they change, and announcing its
winner (the rules are :mod:`bot.usecases.polls`'s; the Block Kit :mod:`bot.slack.views.poll_message`'s).

Counts are shown as the database has them, whichever process updates the message last: after each
``chat.update`` the poll's version (votes cast) is read again, and a vote that came in meanwhile gets the
message updated once more. Whoever's update lands last reads afterwards, so the message ends on the
final counts even when votes race on several replicas.
"""

from __future__ import annotations

import http.client
import logging
from collections.abc import Callable

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError, SlackClientError

from bot.slack.client import classified
from bot.slack.delivery.digests import slack_courier
from bot.slack.views.poll_message import discussion_text, poll_message
from bot.state.context import Context
from bot.usecases.polls import Closed, Poll, find_poll, poll_version

log = logging.getLogger(__name__)

#: Updates of one poll's message after one vote, at most: each further one is for votes cast while the
#: previous one was on its way (their own voters' updates follow too).
MOST_UPDATES = 5

_SLACK_ERRORS = (SlackApiError, SlackClientError, OSError, http.client.HTTPException)


def poll_poster(client: WebClient, channel: str) -> Callable[[Poll], str]:
    """``post(poll) -> ts``: the poll posted in ``channel``; failures raised as
    :func:`bot.slack.client.classified` says (Unreachable: the bot is not in the channel)."""

    def post(poll: Poll) -> str:
        try:
            return client.chat_postMessage(channel=channel, unfurl_links=False, unfurl_media=False,
                                           **poll_message(poll))["ts"]
        except _SLACK_ERRORS as exc:
            raise classified(exc) from exc

    return post


def show_poll(ctx: Context, client: WebClient, poll_id: str) -> bool:
    """Update the poll's message to the counts the database has now, again while votes come in
    meanwhile (at most :data:`MOST_UPDATES` times); False (logged) when Slack would not update it."""
    for _ in range(MOST_UPDATES):
        poll = find_poll(ctx, poll_id)
        if poll is None or poll.message_ts is None:
            return False
        try:
            client.chat_update(channel=poll.channel_id, ts=poll.message_ts, **poll_message(poll))
        except _SLACK_ERRORS as exc:
            log.warning("could not show the counts of poll %s: %s", poll_id, exc)
            return False
        if poll_version(ctx, poll_id) == poll.version:
            return True
    return True


def poll_link(client: WebClient, poll: Poll) -> str | None:
    """A link to the poll's message (``chat.getPermalink``), or None when Slack can't give one."""
    if poll.message_ts is None:
        return None
    try:
        link = client.chat_getPermalink(channel=poll.channel_id, message_ts=poll.message_ts).get("permalink")
    except _SLACK_ERRORS as exc:
        log.info("no link to poll %s: %s", poll.poll_id, exc)
        return None
    return link if isinstance(link, str) else None


def post_winner(ctx: Context, client: WebClient, closed: Closed) -> str | None:
    """The closed poll's winner posted in its channel as a paper message (its buttons and reactions count
    as a channel digest paper's), with a first reply in its thread opening the discussion; its ts (None
    for a poll without a winner). Raises as a digest's post does (Unreachable, Outage, Slack's error)."""
    if closed.winner is None:
        return None
    channel = closed.poll.channel_id
    _, ts = slack_courier(ctx, client).post_paper(channel, closed.winner.rec)
    try:
        client.chat_postMessage(channel=channel, thread_ts=ts, text=discussion_text(closed))
    except _SLACK_ERRORS as exc:  # the winner is out: a missing first reply is no reason to fail
        log.warning("could not open the discussion of poll %s: %s", closed.poll.poll_id, exc)
    return ts
