"""Conference plans in Block Kit (issue 43): a person's plan for a venue, each paper with Going and Skip
buttons, its reason and, when the records carry it, its session; the reminder before a Going paper's
session; and a channel's papers of a venue with how many members would want each."""

from __future__ import annotations

import json
from datetime import datetime
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from bot.presentation.paper_view import title_url
from bot.slack.manifest import COMMAND
from bot.slack.views.messages import byline, escape, fit, header_block, link, title_of
from bot.usecases.conference import ChannelPlan, Plan, PlanEntry, Reminder, Wanted
from storage.models import Paper, PaperSession

GOING_ACTION = "conference_going"
SKIP_ACTION = "conference_skip"
#: Characters a button's value may take (Slack's limit).
VALUE_LIMIT = 2000
TITLE_LIMIT = 250
REASON_LIMIT = 300
PLACE_LIMIT = 150
CHOSEN = {"going": "✅ Going", "skip": "Skipping"}


def choice_value(venue_key: str, paper_id: str) -> str:
    """A button's value: the plan's venue and the paper."""
    return json.dumps({"v": venue_key, "p": paper_id}, separators=(",", ":"))


def chosen_in(value: str) -> tuple[str, str] | None:
    """The venue and paper a button's value names, or None for a value that is not one."""
    try:
        found = json.loads(value)
    except (TypeError, ValueError):
        return None
    if not isinstance(found, dict):
        return None
    venue, paper = found.get("v"), found.get("p")
    if not isinstance(venue, str) or not isinstance(paper, str):
        return None
    return venue, paper


def when_text(starts_at: str | None, tz: str | None) -> str:
    """A session's start as a person reads it: in their timezone when known, else UTC ("" without one)."""
    if not starts_at:
        return ""
    try:
        moment = datetime.fromisoformat(starts_at)
    except ValueError:
        return ""
    zone_name = "UTC"
    if tz:
        try:
            moment, zone_name = moment.astimezone(ZoneInfo(tz)), tz
        except (ZoneInfoNotFoundError, ValueError):
            pass
    return f"{moment:%a %d %b %H:%M} ({zone_name})"


def session_text(session: PaperSession | None, tz: str | None) -> str:
    """A paper's session, escaped: its name, when, where; "" without one."""
    if session is None:
        return ""
    parts = [fit(session.session, PLACE_LIMIT) if session.session else "", when_text(session.starts_at, tz),
             f"📍 {fit(session.location, PLACE_LIMIT)}" if session.location else ""]
    return " · ".join(p for p in parts if p)


def _head(paper: Paper) -> str:
    head = f"*{link(title_url(paper), fit(title_of(paper), TITLE_LIMIT))}*"
    line = byline(paper)
    return head + ("\n" + line if line else "")


def _button(action: str, label: str, value: str, chosen: bool) -> dict:
    button = {"type": "button", "action_id": action, "value": value,
              "text": {"type": "plain_text", "text": label, "emoji": True}}
    if chosen:
        button["style"] = "primary"
    return button


def entry_blocks(entry: PlanEntry, venue_key: str, tz: str | None) -> list[dict]:
    """One paper of a plan: its head, why and when, what was chosen, and the Going and Skip buttons."""
    blocks: list[dict] = [{"type": "section", "text": {"type": "mrkdwn", "text": _head(entry.paper)}}]
    facts = [f"*Why:* {fit(entry.reason, REASON_LIMIT)}" if entry.reason else "",
             session_text(entry.session, tz), f"*{CHOSEN[entry.choice]}*" if entry.choice else ""]
    facts = [f for f in facts if f]
    if facts:
        blocks.append({"type": "context", "elements": [{"type": "mrkdwn", "text": " · ".join(facts)}]})
    value = choice_value(venue_key, entry.paper.id)
    if len(value) <= VALUE_LIMIT:
        blocks.append({"type": "actions", "elements": [
            _button(GOING_ACTION, "Going", value, entry.choice == "going"),
            _button(SKIP_ACTION, "Skip", value, entry.choice == "skip"),
        ]})
    return blocks


def plan_message(plan: Plan) -> dict:
    """A person's plan as one message (``text`` and ``blocks``), times in their timezone: at most 15
    papers of 3 blocks each and a header fit Slack's 50 blocks."""
    tz = plan.tz
    names = ", ".join(plan.venue.names[:3]) + (" …" if len(plan.venue.names) > 3 else "")
    going = sum(1 for e in plan.entries if e.choice == "going")
    text = f"Your plan for {plan.venue.key}: {len(plan.entries)} papers, {going} marked Going"
    order = "in the order their sessions start" if plan.timed else "best first"
    intro = (f"Your best papers of {fit(names, 200)}, {order}. Mark *Going* or *Skip* on each"
             + ("; I'll remind you 15 minutes before each paper you're going to." if plan.timed else "."))
    blocks: list[dict] = [header_block(f"📅 Your plan: {plan.venue.key}"),
                          {"type": "context", "elements": [{"type": "mrkdwn", "text": intro}]}]
    for entry in plan.entries:
        blocks.extend(entry_blocks(entry, plan.venue.key, tz))
    return {"text": escape(text), "blocks": blocks}


def empty_plan_text(plan: Plan) -> str:
    """What a person hears when no paper of the venue fits their interests."""
    return (f"None of the papers I hold of {fit(', '.join(plan.venue.names[:3]), 200)} fits your interests "
            "yet: follow more topics, then ask again.")


def reminder_text(reminder: Reminder) -> str:
    """The DM before a Going paper's session (mrkdwn, escaped), its time in the person's timezone."""
    where = session_text(reminder.session, reminder.tz)
    head = link(title_url(reminder.paper), fit(title_of(reminder.paper), TITLE_LIMIT))
    return f":alarm_clock: Starting in 15 minutes: *{head}*" + (f"\n{where}" if where else "")


def wanted_text(wanted: Wanted) -> str:
    """How many of the channel would want a paper, and who only when the workspace shows who."""
    said = f"👥 {wanted.count} people here would want this"
    if wanted.who:
        said += ": " + ", ".join(f"<@{escape(user)}>" for user in wanted.who)
    return said


def wanted_message(wanted: Wanted) -> dict:
    """A paper of a channel's conference list as a message of its own (its thread is where people
    coordinate)."""
    blocks = [{"type": "section", "text": {"type": "mrkdwn", "text": _head(wanted.paper)}},
              {"type": "context", "elements": [{"type": "mrkdwn", "text": wanted_text(wanted)}]}]
    return {"text": fit(title_of(wanted.paper), TITLE_LIMIT), "blocks": blocks}


THREAD_OPENER = "🧵 Going to this one? Say so here to meet up."


def channel_intro(plan: ChannelPlan) -> str:
    """The channel's message before its papers."""
    return (f"📅 *{escape(plan.venue.key)}*: {len(plan.papers)} papers several of you would want "
            f"(of {plan.asked} people here who opted in). Each has a thread to coordinate.")


def channel_none_text(plan: ChannelPlan) -> str:
    """Why a channel got no list."""
    if plan.asked < 2:
        return (f"Fewer than two people here have opted in to suggestions (`{COMMAND} suggest on`) with "
                "interests to rank by, so there is nothing several of you would want.")
    return (f"No paper of {escape(plan.venue.key)} is among the best of two or more of the {plan.asked} "
            "people here who opted in.")
