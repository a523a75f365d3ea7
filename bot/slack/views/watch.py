"""The words and blocks of a scoop watch (issue 43): the form a project is described in, the list of a
person's (or channel's) watches, an alert (the paper, and the passages where it and the project overlap
most, side by side, with the Close and Not close buttons), what each button leaves, and each refusal of
:mod:`bot.usecases.watches` as a sentence.

A watch's text is shown to its owner only: the list answers the owner, and an alert goes to the owner's
DM (or to the channel whose watch it is)."""

from __future__ import annotations

from bot.errors import BadArgument, NotFound
from bot.presentation.paper_view import title_url
from bot.slack.manifest import COMMAND
from bot.slack.views.messages import byline, fit, link, title_of
from bot.usecases.watches import (
    MOST_WATCHES,
    TEXT_MOST,
    TITLE_MOST,
    EmptyWatch,
    NoSuchAlert,
    NoSuchWatch,
    TooManyWatches,
    WatchNews,
    WatchTooLong,
)
from storage.models import Watch

#: The form: its callback id, blocks and inputs.
FORM_CALLBACK = "paperbot_watch_form"
TITLE_BLOCK, TITLE_INPUT = "watch_title", "watch_title_input"
TEXT_BLOCK, TEXT_INPUT = "watch_text", "watch_text_input"
#: An alert's buttons (value: ``WATCH_ID:PAPER_ID``) and its message metadata's type (payload: the
#: owner, ``watch_id`` and ``paper_id``), by which a process taking over finds an alert posted already.
CLOSE_ACTION = "paperbot_watch_close"
STRICTER_ACTION = "paperbot_watch_stricter"
ALERT_EVENT = "paperbot_watch_alert"

PASSAGE_LIMIT = 600  # characters of a sentence shown in a field (a field holds 2,000)
LISTED_TEXT = 160  # characters of each watch's text in the list
EXAMPLE = f"`{COMMAND} watch`"

HELP = (f"• {EXAMPLE}: describe a project of yours (a working title and a description or draft abstract, "
        f"at most {TEXT_MOST:,} characters) in a form; a new paper that comes too close brings a message at "
        "once, with the passages where paper and project overlap. Private: nobody else sees it, nothing is "
        f"sent anywhere; in a channel, the watch is the channel's. `{COMMAND} watches` lists them, "
        f"`{COMMAND} watch remove 1` removes one")


def form(owner: str) -> dict:
    """The modal a project is described in; ``owner``: whose watch it makes (a person, or a channel)."""
    if owner[:1] in ("C", "G"):
        intro = ("This channel's watch: a new paper that comes too close is posted *in this channel*, with "
                 "the passages where it overlaps this text, for everyone here to see. For a private watch, "
                 f"type `{COMMAND} watch` in our DM.")
    else:
        intro = ("Describe your project: a new paper that comes too close brings you a message at once. "
                 "Only you see this text; it is never sent anywhere.")
    return {
        "type": "modal", "callback_id": FORM_CALLBACK, "private_metadata": owner,
        "title": {"type": "plain_text", "text": "Scoop watch"},
        "submit": {"type": "plain_text", "text": "Watch"},
        "close": {"type": "plain_text", "text": "Cancel"},
        "blocks": [
            {"type": "section", "text": {"type": "mrkdwn", "text": intro}},
            {"type": "input", "block_id": TITLE_BLOCK, "optional": True,
             "label": {"type": "plain_text", "text": "Working title"},
             "element": {"type": "plain_text_input", "action_id": TITLE_INPUT, "max_length": TITLE_MOST}},
            {"type": "input", "block_id": TEXT_BLOCK,
             "label": {"type": "plain_text", "text": "Description or draft abstract"},
             "element": {"type": "plain_text_input", "action_id": TEXT_INPUT, "multiline": True,
                         "max_length": TEXT_MOST}},
        ],
    }


def submitted(view: dict) -> tuple[str, str | None, str]:
    """The owner, title and text of a submitted form."""
    values = (view.get("state") or {}).get("values") or {}

    def value(block: str, action: str) -> str:
        return ((values.get(block) or {}).get(action) or {}).get("value") or ""

    return (view.get("private_metadata") or "", value(TITLE_BLOCK, TITLE_INPUT) or None,
            value(TEXT_BLOCK, TEXT_INPUT))


def added(watch: Watch) -> str:
    """What adding a watch answers."""
    if watch.user_id[:1] in ("C", "G"):
        name = f"“{fit(watch.title, TITLE_MOST)}”" if watch.title else "this channel's project"
        return (f"Watching for papers close to {name}: one that comes too close is posted in this channel at "
                f"once (about one a week at most). `{COMMAND} watches` here lists the channel's watches.")
    name = f"“{fit(watch.title, TITLE_MOST)}”" if watch.title else "your project"
    return (f"Watching for papers close to {name}: a paper that comes too close brings you a message at once "
            f"(about one a week at most). `{COMMAND} watches` lists your watches.")


def listed(watches: list[Watch], owner: str) -> str:
    """The owner's watches, numbered as ``watch remove N`` counts them."""
    whose = "This channel's" if owner[:1] in ("C", "G") else "Your"
    if not watches:
        return f"No watches yet. {EXAMPLE} describes a project to watch for."
    lines = [f"*{whose} watches* ({len(watches)} of {MOST_WATCHES}):"]
    for n, watch in enumerate(watches, 1):
        name = f"*{fit(watch.title, TITLE_MOST)}*: " if watch.title else ""
        stricter = f" (stricter ×{watch.stricter})" if watch.stricter else ""
        lines.append(f"{n}. {name}{fit(watch.text, LISTED_TEXT)}{stricter}")
    lines.append(f"`{COMMAND} watch remove N` removes one.")
    return "\n".join(lines)


def removed(watch: Watch) -> str:
    name = f"“{fit(watch.title, TITLE_MOST)}”" if watch.title else f"“{fit(watch.text, 60)}”"
    return f"Removed the watch {name} and its alerts."


def refusal(exc: BadArgument | NotFound) -> str:
    """A refusal of :mod:`bot.usecases.watches` as one line saying what works."""
    if isinstance(exc, EmptyWatch):
        return (f"Describe your project to watch for: {EXAMPLE} opens a form for its title and description "
                "(or draft abstract).")
    if isinstance(exc, WatchTooLong):
        if exc.what == "title":
            return f"A watch's title can be at most {exc.most} characters, not {exc.length:,}; shorten it."
        return (f"A watch's description can be at most {exc.most:,} characters, not {exc.length:,}: keep the "
                "abstract-like part, which is what papers are compared with.")
    if isinstance(exc, TooManyWatches):
        return (f"You have {exc.most} watches, the most there can be: `{COMMAND} watch remove N` one first "
                f"(`{COMMAND} watches` lists them).")
    if isinstance(exc, NoSuchWatch):
        if exc.count == 0:
            return f"There is no watch {exc.number}: you have none. {EXAMPLE} describes a project."
        return (f"There is no watch {exc.number}: you have {exc.count} (1 to {exc.count}); "
                f"`{COMMAND} watches` lists them.")
    if isinstance(exc, NoSuchAlert):
        return f"That watch is gone (removed, or forgotten). `{COMMAND} watches` lists yours."
    return str(exc)


# -- an alert ------------------------------------------------------------------------------------------

def alert_text(news: WatchNews) -> str:
    """The notification's text: the paper's title."""
    return f"A new paper comes close to your project: {fit(title_of(news.paper), 200)}"


def alert_blocks(news: WatchNews) -> list[dict]:
    """An alert: which watch, the paper, the passages side by side, the two buttons."""
    project = f"“{fit(news.watch.title, TITLE_MOST)}”" if news.watch.title else "your project"
    title = link(title_url(news.paper), f"*{fit(title_of(news.paper), 250)}*")
    blocks: list[dict] = [
        {"type": "section", "text": {"type": "mrkdwn", "text": (
            f":eyes: A new paper comes close to {project} (closeness {news.score:.2f}):\n{title}"
            + (f"\n{byline(news.paper)}" if byline(news.paper) else ""))}},
    ]
    if news.passages:
        blocks.append({"type": "context", "elements": [
            {"type": "mrkdwn", "text": "Where they overlap most: the paper · your text"}]})
    for passage in news.passages:
        blocks.append({"type": "section", "fields": [
            {"type": "mrkdwn", "text": f"_Paper:_ {fit(passage.paper, PASSAGE_LIMIT)}"},
            {"type": "mrkdwn", "text": f"_Yours:_ {fit(passage.watch, PASSAGE_LIMIT)}"},
        ]})
    value = f"{news.alert.watch_id}:{news.alert.paper_id}"
    blocks.append({"type": "actions", "block_id": "watch_verdict", "elements": [
        {"type": "button", "action_id": CLOSE_ACTION, "value": value, "style": "primary",
         "text": {"type": "plain_text", "text": "Close: keep me posted"}},
        {"type": "button", "action_id": STRICTER_ACTION, "value": value,
         "text": {"type": "plain_text", "text": "Not close: be stricter"}},
    ]})
    return blocks


def alert_metadata(news: WatchNews) -> dict:
    """The metadata an alert's message carries (found again by a process taking its post over)."""
    return {"event_type": ALERT_EVENT, "event_payload": {
        "owner": news.alert.user_id, "watch_id": news.alert.watch_id, "paper_id": news.alert.paper_id}}


def kept_posted() -> str:
    return "Noted: this one was close. The watch stays as it is and keeps you posted."


def made_stricter(watch: Watch) -> str:
    return ("Noted: not close. The watch is stricter now"
            f" (×{watch.stricter}): only papers closer than this one will bring a message.")
