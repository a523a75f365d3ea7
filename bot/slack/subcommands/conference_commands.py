"""`/papers conference VENUE`: the person's best papers of a venue paperbot holds, as a plan with Going and
Skip on each (:mod:`bot.usecases.conference`); reminders before Going papers' sessions come from the
scheduler (:mod:`bot.slack.delivery.conference_reminders`). The channel's variant, `/papers channel
conference VENUE`, is parsed and answered here, declared in :mod:`bot.slack.subcommands.channel`."""

from __future__ import annotations

import http.client
import logging

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError, SlackClientError

from bot.errors import BadArgument
from bot.slack.client import classified
from bot.slack.manifest import COMMAND
from bot.slack.runtime import Runtime
from bot.slack.subcommands import ECHO_LIMIT, Command, HelpTopic, Reply, Subcommand
from bot.slack.views.conference_plans import (
    THREAD_OPENER,
    channel_intro,
    channel_none_text,
    empty_plan_text,
    plan_message,
    wanted_message,
)
from bot.state.context import Context
from bot.usecases.conference import channel_plan, plan_for

log = logging.getLogger(__name__)

_SLACK_ERRORS = (SlackApiError, SlackClientError, OSError, http.client.HTTPException)
#: Members of a channel read, at most (conversations.members pages).
MEMBERS_MOST = 2000


def parse_conference(arg: str) -> Command:
    """The venue after `conference`: any part of its name."""
    venue = " ".join(arg.split())
    if not venue:
        raise BadArgument(f"Say which venue, e.g. `{COMMAND} conference ICML 2025`.")
    if len(venue) > ECHO_LIMIT:
        raise BadArgument(f"A venue's name is at most {ECHO_LIMIT} characters.")
    return Command("conference", venue)


def reply_conference(ctx: Context, user_id: str, cmd: Command) -> Reply:
    """The person's plan for the venue, as a message with Going and Skip buttons."""
    plan = plan_for(ctx, user_id, cmd.arg)
    if not plan.entries:
        return {"text": empty_plan_text(plan)}
    return plan_message(plan)


def channel_members(client: WebClient, channel: str) -> list[str]:
    """The channel's members (``conversations.members``, paged); raises as a post would
    (:func:`bot.slack.client.classified`)."""
    members: list[str] = []
    cursor = None
    while len(members) < MEMBERS_MOST:
        try:
            page = client.conversations_members(channel=channel, limit=200, cursor=cursor)
        except _SLACK_ERRORS as exc:
            raise classified(exc) from exc
        members += [m for m in page.get("members") or [] if isinstance(m, str)]
        cursor = (page.get("response_metadata") or {}).get("next_cursor")
        if not cursor:
            break
    return members


def reply_channel_conference(rt: Runtime, client: WebClient, channel: str, venue: str) -> Reply:
    """Post in the channel the venue's papers several of its opted-in members would want, each a message
    of its own with a first reply opening its thread; who ran it hears how it went."""
    with rt.locks.hold(channel):
        found = channel_plan(rt.ctx, venue, channel_members(client, channel))
        if not found.papers:
            return {"text": channel_none_text(found)}
        try:
            client.chat_postMessage(channel=channel, text=channel_intro(found), unfurl_links=False,
                                    unfurl_media=False)
            for wanted in found.papers:
                ts = client.chat_postMessage(channel=channel, unfurl_links=False, unfurl_media=False,
                                             **wanted_message(wanted))["ts"]
                client.chat_postMessage(channel=channel, thread_ts=ts, text=THREAD_OPENER)
        except _SLACK_ERRORS as exc:
            raise classified(exc) from exc
    return {"text": f"Posted {len(found.papers)} papers here, each with a thread to coordinate."}


CONFERENCE = Subcommand(
    "conference",
    f"• `{COMMAND} conference ICML 2025`: your best 15 papers of a venue I hold, with *Going* and *Skip* on "
    "each; when its records say when each paper is presented, in that order, and a DM 15 minutes before each "
    f"you're going to. `{COMMAND} channel conference ICML 2025`, in a channel: the papers several of its "
    f"members who turned on `{COMMAND} suggest on` would want, with how many, a thread each",
    parse_conference, lambda req, cmd: reply_conference(req.rt.ctx, req.user, cmd))
SUBCOMMANDS = (CONFERENCE,)
#: Only named in the short help's list of topics (it is full): the integrator writes the combined line.
TOPIC = HelpTopic("conference", "", SUBCOMMANDS, aliases=("conferences", "venue", "venues", "plan", "plans"))
