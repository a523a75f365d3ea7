"""Block Kit for the App Home tab and its modals (settings forms and the first round of papers to rate),
within Slack's limits (100 blocks, a modal title of 24 characters, section texts of 3000), every
outside text escaped. Builds views from plain data; reads and writes nothing."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from bot.presentation.paper_view import shown_abstract, title_url
from bot.slack.manifest import COMMAND
from bot.slack.views.library import HOME_LINE as LIBRARY_LINE
from bot.slack.views.messages import (
    HOME_BLOCKS,
    SECTION_LIMIT,
    byline,
    escape,
    fit,
    header_block,
    link,
    title_of,
)
from bot.usecases.digest_schedule import WEEKDAYS, weekday_name
from bot.usecases.feeds import MAIN
from bot.usecases.home import HomeData
from bot.usecases.interests import Interests
from bot.usecases.saved import SavedItem
from storage import Paper

# Buttons on Home (the topics button's value names the feed; "" is the main feed).
TOPICS_ACTION = "home_edit_topics"
NEW_FEED_ACTION = "home_new_feed"
AUTHORS_ACTION = "home_edit_authors"
MUTES_ACTION = "home_edit_mutes"
SCHEDULE_ACTION = "home_edit_schedule"
ROUND_ACTION = "home_rate_papers"
SUGGEST_ACTION = "home_suggest"  # its value: "on" or "off", what the click sets
FOLLOWUPS_ACTION = "home_followups"  # likewise
ALERTS_ACTION = "home_edit_alerts"
# Buttons in the round's modal (the value is the paper's id).
ROUND_LIKE, ROUND_DISLIKE = "round_like", "round_dislike"

# Modals (callback ids) and their inputs (block ids; each input's action id is INPUT).
TOPICS_VIEW, NEW_FEED_VIEW, AUTHORS_VIEW, MUTES_VIEW, SCHEDULE_VIEW, ROUND_VIEW, WAIT_VIEW = (
    "home_topics", "home_new_feed", "home_authors", "home_mutes", "home_schedule", "home_round", "home_wait")
TOPICS_BLOCK, FEED_NAME_BLOCK, AUTHORS_BLOCK, MUTES_BLOCK = "topics", "feed_name", "authors", "mutes"
KIND_BLOCK, TIME_BLOCK, DAY_BLOCK = "schedule_kind", "schedule_time", "schedule_day"
ALERTS_VIEW, ALERTS_BLOCK = "home_alerts", "alerts"
INPUT = "value"

MODAL_BLOCKS = 100
MODAL_TITLE = 24  # characters of a modal's title, submit and close labels
INPUT_LIMIT = 3000  # characters a plain_text_input holds
LIST_LIMIT = 1200  # characters of one list (topics, authors, words) on Home
BUTTON_LIMIT = 75
SHORT_ABSTRACT = 280

HOW_TO = (f"*How it works:* follow topics and authors, and I send you new papers that match them, one "
          "message per paper, at the time you choose. React :+1: or :-1: (or use the buttons) to tune what "
          f"comes next, :bookmark: to save a paper. `{COMMAND} recommend` sends papers now, "
          f"`{COMMAND} search QUERY` finds some, `{COMMAND} help` lists every command.")
#: What a channel can have, said on Home (`/papers help channel` tells more).
IN_CHANNELS = (f"*In a channel:* `{COMMAND} channel follow TOPICS` gives it papers of its own, and "
               f"`{COMMAND} channel poll` lets it vote on which of them to read next (a reading-group poll; "
               f"`{COMMAND} channel poll close` posts the winner with a thread to discuss it).")


def listed(items: list[str], limit: int = LIST_LIMIT) -> str:
    """Escaped items, comma-separated, as many as fit in ``limit`` characters, then "and N more"."""
    shown: list[str] = []
    used = 0
    for i, item in enumerate(items):
        text = fit(item, 200)
        if used + len(text) + 2 + len(" and 999 more") > limit:
            return ", ".join(shown) + f" and {len(items) - i} more"
        shown.append(text)
        used += len(text) + 2
    return ", ".join(shown)


def schedule_text(info: Interests) -> str:
    """The digest schedule in words."""
    if not info.digest_enabled or not info.digest_time:
        return "off"
    where = f"({escape(info.tz)} time)" if info.tz else "(your Slack timezone)"
    if info.digest_weekday is not None:
        return f"weekly on {weekday_name(info.digest_weekday)}s at {info.digest_time} {where}"
    return f"daily at {info.digest_time} {where}"


def suggest_text(on: bool) -> str:
    """Home's line on suggestions ("Who should read this?"): whether colleagues may send them papers."""
    if on:
        return ("*Suggestions from colleagues:* on. Anyone here may find you with *Who should read this?* "
                "(a button on every paper) when a paper fits your interests, and send it to you.")
    return ("*Suggestions from colleagues:* off. Turn them on and colleagues may send you papers that fit "
            f"your interests with *Who should read this?* (or `{COMMAND} suggest on`).")


def followups_text(on: bool) -> str:
    """Home's line on follow-ups: whether they hear what became of the papers they saved or liked."""
    if on:
        return ("*Follow-ups:* on. When a paper you saved or liked gets a new version, a venue, a DOI or "
                "code, or is withdrawn, your next digest says so.")
    return ("*Follow-ups:* off. Turn them on to hear what becomes of the papers you saved or liked "
            f"(or `{COMMAND} followups on`).")


def _button(text: str, action: str, value: str = "", primary: bool = False) -> dict:
    button = {"type": "button", "action_id": action, "value": value or "-",
              "text": {"type": "plain_text", "text": text[:BUTTON_LIMIT], "emoji": True}}
    if primary:
        button["style"] = "primary"
    return button


def _section(text: str, button: dict | None = None) -> dict:
    block: dict = {"type": "section", "text": {"type": "mrkdwn", "text": text[:SECTION_LIMIT]}}
    if button:
        block["accessory"] = button
    return block


def _saved_line(item: SavedItem) -> str:
    paper = item.paper
    by = byline(paper)
    return "• " + link(title_url(paper), fit(title_of(paper), 200)) + (f" · {fit(by, 200)}" if by else "")


def arrival_text(newest: str | None) -> str:
    """When the newest paper arrived, in the reader's own timezone (Slack formats the date)."""
    if newest is None:
        return "*Newest paper:* none yet (an admin runs `paperbot ingest`, or sets PAPERBOT_FEEDS)"
    at = datetime.fromisoformat(newest)
    fallback = at.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")
    when = f"<!date^{int(at.timestamp())}^{{date_short_pretty}} at {{time}}|{fallback}>"
    return f"*Newest paper:* arrived {when}"


def alerts_text(alerts: list[str]) -> str:
    """Home's line of the person's alerts (``alert PHRASE``)."""
    if not alerts:
        return (f"*Alerts:* none (`{COMMAND} alert graph transformers`: new papers that say it come first "
                "in your digest)")
    return f"*Alerts:* {listed(alerts)}"


def alerts_modal(phrases: list[str]) -> dict:
    """Edit the alerts, one a line (20 of 100 characters fit the input)."""
    return modal(ALERTS_VIEW, "Alerts", [
        _section("A new paper whose title or abstract says one of these (whole words, any case) comes "
                 "first in your next digest, whatever its rank; at most 3 a day."),
        _text_input(ALERTS_BLOCK, "Alerts", "\n".join(phrases), "One phrase a line, e.g. graph transformers. "
                    "Leave empty for none.", optional=True),
    ])


def home_view(data: HomeData, notice: str | None = None) -> dict:
    """The Home tab: ``notice`` (escaped by the caller) first when given, the round for someone new,
    then feeds, authors, muted words, alerts, schedule, latest saved papers and how it works."""
    info = data.interests
    blocks: list[dict] = [header_block("Your paperbot")]
    if notice:
        blocks.append(_section(f":warning: {notice}"))
    if data.new:
        blocks.append(_section("*New here?* Rate a few papers and I'll learn what you like, fast.",
                               _button("Rate papers to get started", ROUND_ACTION, "start", primary=True)))
    blocks.append({"type": "divider"})
    main = listed(info.topics) if info.topics else f"none yet (or `{COMMAND} follow diffusion models`)"
    label = "Main feed" if info.feeds else "Your topics"
    blocks.append(_section(f"*{label}:* {main}", _button("Edit topics", TOPICS_ACTION, MAIN)))
    for name, topics in info.feeds.items():
        blocks.append(_section(f"*Feed “{escape(name)}”:* {listed(topics)}",
                               _button("Edit feed", TOPICS_ACTION, name)))
    blocks.append({"type": "actions", "elements": [_button("New feed", NEW_FEED_ACTION, "new")]})
    authors = listed(info.authors) if info.authors else "none"
    blocks.append(_section(f"*Authors you follow:* {authors}",
                           _button("Edit authors", AUTHORS_ACTION, "edit")))
    muted = listed(info.muted) if info.muted else "none"
    blocks.append(_section(f"*Muted words:* {muted}", _button("Edit muted words", MUTES_ACTION, "edit")))
    blocks.append(_section(alerts_text(info.alerts), _button("Edit alerts", ALERTS_ACTION, "edit")))
    blocks.append(_section(f"*Digest:* {schedule_text(info)}", _button("Change", SCHEDULE_ACTION, "edit")))
    switch = ("Turn off", "off") if info.suggest else ("Turn on", "on")
    blocks.append(_section(suggest_text(info.suggest), _button(switch[0], SUGGEST_ACTION, switch[1])))
    switch = ("Turn off", "off") if info.followups else ("Turn on", "on")
    blocks.append(_section(followups_text(info.followups), _button(switch[0], FOLLOWUPS_ACTION, switch[1])))
    blocks.append({"type": "context", "elements": [
        {"type": "mrkdwn", "text": f"*Feedback:* {info.liked} liked, {info.disliked} disliked"
                                   + (f", {info.saved} saved" if info.saved else "")},
        {"type": "mrkdwn", "text": arrival_text(data.newest_paper)}]})
    blocks.append({"type": "divider"})
    if data.latest_saved:
        lines = [_saved_line(item) for item in data.latest_saved]
        more = data.saved_count - len(lines)
        tail = f"\nand {more} more: `{COMMAND} saved` lists them all" if more > 0 else ""
        blocks.append(_section("*Latest saved papers:*\n" + "\n".join(lines)[:SECTION_LIMIT - 200] + tail))
    else:
        blocks.append(_section("*Saved papers:* none yet; click Save on a paper I send you."))
    blocks.append({"type": "divider"})
    blocks.append(_section(HOW_TO))
    blocks.append(_section(IN_CHANNELS))
    blocks.append(_section(LIBRARY_LINE))
    return {"type": "home", "blocks": blocks[:HOME_BLOCKS]}


# -- modals --------------------------------------------------------------------------------------


def _plain(text: str) -> dict:
    return {"type": "plain_text", "text": text[:MODAL_TITLE], "emoji": True}


def modal(callback_id: str, title: str, blocks: list[dict], submit: str | None = "Save",
          metadata: str = "") -> dict:
    """A modal view; ``title`` and ``submit`` are cut to Slack's 24 characters."""
    view = {"type": "modal", "callback_id": callback_id, "title": _plain(title), "close": _plain("Cancel"),
            "blocks": blocks[:MODAL_BLOCKS]}
    if submit:
        view["submit"] = _plain(submit)
    if metadata:
        view["private_metadata"] = metadata
    return view


def _text_input(block_id: str, label: str, initial: str, hint: str, multiline: bool = True,
                optional: bool = False, max_length: int = INPUT_LIMIT) -> dict:
    element = {"type": "plain_text_input", "action_id": INPUT, "multiline": multiline,
               "max_length": max_length}
    if initial:
        element["initial_value"] = initial
    return {"type": "input", "block_id": block_id, "optional": optional, "element": element,
            "label": {"type": "plain_text", "text": label}, "hint": {"type": "plain_text", "text": hint}}


def too_long_modal(title: str, what: str) -> dict:
    """A modal saying a list is too long to edit in a form (a plain_text_input holds 3000 characters)."""
    return modal(WAIT_VIEW, title, [_section(
        f"Your {what} are too many to edit here. Use `{COMMAND} unfollow …`, `{COMMAND} unmute …` or "
        f"`{COMMAND} feed remove NAME` to trim them, then come back.")], submit=None)


def topics_modal(feed: str, topics: list[str]) -> dict:
    """Edit one feed's topics (:data:`MAIN` for the main feed), comma-separated."""
    initial = ", ".join(topics)
    if len(initial) > INPUT_LIMIT:
        return too_long_modal("Edit topics", "topics")
    main = feed == MAIN
    intro = ("Your *main feed*: the topics of `/papers follow`." if main else
             f"The feed *“{escape(feed)}”*: its own section in your digest.")
    hint = ("Comma-separated words or phrases. Leave empty to follow no topics." if main else
            "Comma-separated words or phrases; at least one.")
    return modal(TOPICS_VIEW, "Edit topics", [
        _section(intro),
        _text_input(TOPICS_BLOCK, "Topics", initial, hint, optional=main),
    ], metadata=json.dumps({"feed": feed}))


def new_feed_modal() -> dict:
    """A new named feed: its name and topics."""
    return modal(NEW_FEED_VIEW, "New feed", [
        _section("A feed of its own, with its own section in your digest."),
        _text_input(FEED_NAME_BLOCK, "Name", "", "One or two words, e.g. robotics", multiline=False,
                    max_length=40),
        _text_input(TOPICS_BLOCK, "Topics", "", "Comma-separated words or phrases, e.g. grasping, sim2real"),
    ], submit="Create")


def authors_modal(names: list[str]) -> dict:
    """Edit the followed authors, one a line."""
    initial = "\n".join(names)
    if len(initial) > INPUT_LIMIT:
        return too_long_modal("Authors you follow", "authors")
    return modal(AUTHORS_VIEW, "Authors you follow", [
        _section("Their new papers come whatever they are about."),
        _text_input(AUTHORS_BLOCK, "Authors", initial, "One name a line, e.g. Andrea Bajcsy. Leave empty "
                    "to follow none.", optional=True),
    ])


def mutes_modal(words: list[str]) -> dict:
    """Edit the muted words, comma-separated."""
    initial = ", ".join(words)
    if len(initial) > INPUT_LIMIT:
        return too_long_modal("Muted words", "muted words")
    return modal(MUTES_VIEW, "Muted words", [
        _section("A paper whose title or abstract says one of these (or a plural) is never sent to you."),
        _text_input(MUTES_BLOCK, "Muted words", initial, "Comma-separated words or phrases. Leave empty to "
                    "mute nothing.", optional=True),
    ])


def _option(text: str, value: str) -> dict:
    return {"text": {"type": "plain_text", "text": text}, "value": value}


def schedule_modal(info: Interests) -> dict:
    """Daily, weekly or off; the time; the weekday of a weekly digest."""
    kind = "off" if not info.digest_enabled or not info.digest_time else (
        "weekly" if info.digest_weekday is not None else "daily")
    kinds = [_option("Daily", "daily"), _option("Weekly", "weekly"), _option("Off", "off")]
    days = [_option(day.capitalize(), str(i)) for i, day in enumerate(WEEKDAYS)]
    where = f"in your Slack timezone ({escape(info.tz)})" if info.tz else "in your Slack timezone"
    return modal(SCHEDULE_VIEW, "Digest schedule", [
        {"type": "input", "block_id": KIND_BLOCK, "label": {"type": "plain_text", "text": "Digest"},
         "element": {"type": "radio_buttons", "action_id": INPUT, "options": kinds,
                     "initial_option": next(o for o in kinds if o["value"] == kind)}},
        {"type": "input", "block_id": TIME_BLOCK, "label": {"type": "plain_text", "text": "Time"},
         "hint": {"type": "plain_text", "text": f"Local time, {where}"[:150]},
         "element": {"type": "timepicker", "action_id": INPUT, "initial_time": info.digest_time or "09:00"}},
        {"type": "input", "block_id": DAY_BLOCK, "optional": True,
         "label": {"type": "plain_text", "text": "Day (weekly digest)"},
         "element": {"type": "static_select", "action_id": INPUT, "options": days,
                     "initial_option": days[info.digest_weekday or 0]}},
    ])


def wait_modal() -> dict:
    """What the round's modal shows while its papers are picked."""
    return modal(WAIT_VIEW, "Rate papers", [_section(":hourglass_flowing_sand: Picking papers for you…")],
                 submit=None)


def round_modal(papers: list[Paper], rated: dict[str, int]) -> dict:
    """The round: each paper with 👍 / 👎 showing the rating given, and how many are rated."""
    if not papers:
        return modal(ROUND_VIEW, "Rate papers", [_section(
            f"No papers to rate right now: you have seen them all. `{COMMAND} recommend` sends new ones "
            "as they arrive.")], submit=None)
    done = sum(1 for p in papers if p.id in rated)
    blocks: list[dict] = [_section(
        f"Rate each paper: :+1: for more like it, :-1: for fewer (click again to take it back). "
        f"*{done} of {len(papers)} rated.* These papers won't be sent to you again.")]
    for i, paper in enumerate(papers):
        blocks.append({"type": "divider"})
        head = f"*{link(title_url(paper), fit(title_of(paper), 250))}*"
        by = byline(paper)
        blocks.append(_section(head + (f"\n{fit(by, 300)}" if by else "")))
        abstract = shown_abstract(paper)
        if abstract:
            blocks.append({"type": "context", "elements": [{"type": "mrkdwn",
                                                            "text": fit(abstract, SHORT_ABSTRACT)}]})
        value = rated.get(paper.id)
        like = _button("👍 Liked" if value == 1 else "👍", ROUND_LIKE, paper.id, primary=value == 1)
        dislike = _button("👎 Not for me" if value == -1 else "👎", ROUND_DISLIKE, paper.id)
        if value == -1:
            dislike["style"] = "danger"
        blocks.append({"type": "actions", "block_id": f"round_{i}", "elements": [like, dislike]})
    return modal(ROUND_VIEW, "Rate papers", blocks, submit="Done",
                 metadata=json.dumps([p.id for p in papers]))
