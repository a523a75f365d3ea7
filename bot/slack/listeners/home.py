"""The App Home tab and its modals: publishing Home, its buttons (each opens a form, or the first round
of papers to rate), and the forms' submissions.

A form's input is checked inside the ack, without the database (:mod:`bot.usecases.settings`'s
``check_*``): a wrong value is shown under its field (``response_action: errors``) and nothing is
saved. A right one closes the form; it is then saved after the ack and Home is published again, with
a line saying what could not be saved when only the database could tell (one feed too many).

Home is published whenever the person opens it, and again after anything that changes what it shows
(:func:`bot.slack.views.home_tab.refresh_home`: the forms, the round, ``/papers`` subcommands, Save clicks).
Opening it is remembered in the database (:func:`bot.usecases.home.home_opened`): subcommands and Save
clicks publish it again only for people who opened it once.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable

from slack_bolt import App
from slack_sdk import WebClient

from bot.errors import BadArgument, NoPapers, NotFound, Unchosen
from bot.slack.runtime import Runtime
from bot.slack.timezones import refresh_timezone
from bot.slack.views.home_tab import SLACK_FAILURES, refresh_home
from bot.slack.views.home_view import (
    ALERTS_ACTION,
    ALERTS_BLOCK,
    ALERTS_VIEW,
    AUTHORS_ACTION,
    AUTHORS_BLOCK,
    AUTHORS_VIEW,
    DAY_BLOCK,
    FEED_NAME_BLOCK,
    FOLLOWUPS_ACTION,
    INPUT,
    KIND_BLOCK,
    MUTES_ACTION,
    MUTES_BLOCK,
    MUTES_VIEW,
    NEW_FEED_ACTION,
    NEW_FEED_VIEW,
    ROUND_ACTION,
    ROUND_DISLIKE,
    ROUND_LIKE,
    ROUND_VIEW,
    SCHEDULE_ACTION,
    SCHEDULE_VIEW,
    SUGGEST_ACTION,
    TIME_BLOCK,
    TOPICS_ACTION,
    TOPICS_BLOCK,
    TOPICS_VIEW,
    alerts_modal,
    authors_modal,
    mutes_modal,
    new_feed_modal,
    round_modal,
    schedule_modal,
    topics_modal,
    wait_modal,
)
from bot.slack.views.refusals import say
from bot.state.context import Context
from bot.usecases.alerts import alerts, check_alerts, save_alerts
from bot.usecases.feedback import DISLIKE, LIKE
from bot.usecases.feeds import MAIN, MAX_FEED_NAME
from bot.usecases.home import home_opened
from bot.usecases.interests import Interests, interests
from bot.usecases.onboarding import rate, ratings, round_papers, start_round
from bot.usecases.settings import (
    SCHEDULES,
    check_authors,
    check_feed_name,
    check_mutes,
    check_schedule,
    check_time,
    check_topics,
    save_authors,
    save_mutes,
    save_new_feed,
    save_schedule,
    save_topics,
    set_followups,
    set_suggest,
)

log = logging.getLogger(__name__)

def _value(view: dict, block: str, key: str = "value"):
    """An input's value in a submitted view (None when left empty or missing)."""
    field: object = view
    for step in ("state", "values", block, INPUT):
        field = field.get(step) if isinstance(field, dict) else None
    if not isinstance(field, dict):
        return None
    if key == "selected_option":
        option = field.get("selected_option")
        return option.get("value") if isinstance(option, dict) else None
    value = field.get(key)
    return value if isinstance(value, str) else None


def _metadata(view: dict) -> str:
    metadata = view.get("private_metadata")
    return metadata if isinstance(metadata, str) else ""


def _feed_of(view: dict) -> str | None:
    """The feed a topics form edits (from its private metadata), or None when that is unreadable."""
    try:
        feed = json.loads(_metadata(view) or "").get("feed")
    except (ValueError, AttributeError):
        return None
    return feed if isinstance(feed, str) and 0 < len(feed) <= MAX_FEED_NAME else None


def _round_ids(view: dict) -> list[str]:
    """The paper ids of a round's modal (its private metadata)."""
    try:
        ids = json.loads(_metadata(view) or "[]")
    except ValueError:
        return []
    return [i for i in ids if isinstance(i, str)] if isinstance(ids, list) else []


def _topics_of(info: Interests, feed: str) -> list[str]:
    return info.topics if feed == MAIN else info.feeds.get(feed, [])


#: What each Home button opens: the form, from what is stored now.
FORMS: dict[str, Callable[[Context, str, str], dict]] = {
    TOPICS_ACTION: lambda ctx, user, feed: topics_modal(feed, _topics_of(interests(ctx, user), feed)),
    NEW_FEED_ACTION: lambda ctx, user, _: new_feed_modal(),
    AUTHORS_ACTION: lambda ctx, user, _: authors_modal(interests(ctx, user).authors),
    MUTES_ACTION: lambda ctx, user, _: mutes_modal(interests(ctx, user).muted),
    SCHEDULE_ACTION: lambda ctx, user, _: schedule_modal(interests(ctx, user)),
    ALERTS_ACTION: lambda ctx, user, _: alerts_modal(alerts(ctx, user)),
}


def register(app: App, runtime: Runtime) -> None:
    """Publish Home when it is opened; its buttons, forms and the round of papers to rate."""
    _register_opened(app, runtime)
    _register_buttons(app, runtime)
    _register_forms(app, runtime)
    _register_round(app, runtime)
    _register_switch(app, runtime, SUGGEST_ACTION, set_suggest)
    _register_switch(app, runtime, FOLLOWUPS_ACTION, set_followups)


def _register_opened(app: App, runtime: Runtime) -> None:
    @app.event("app_home_opened")
    def on_home_opened(event: dict, body: dict, client: WebClient, context) -> None:
        if event.get("tab") != "home" or not event.get("user"):
            return
        user = event["user"]

        def work(rt: Runtime) -> None:
            home_opened(rt.ctx, user)  # so a later subcommand publishes it again, whichever process serves it
            refresh_home(rt.ctx, client, user)

        runtime.after_ack(context, body, work)


def _register_buttons(app: App, runtime: Runtime) -> None:
    """Each Home button opens its form (:data:`FORMS`)."""

    def on_button(ack, body: dict, action: dict, client: WebClient, context) -> None:
        ack()
        user, trigger = body["user"]["id"], body.get("trigger_id")
        form, value = FORMS[action["action_id"]], str(action.get("value") or "")

        def work(rt: Runtime) -> None:
            feed_gone = value != MAIN and value not in interests(rt.ctx, user).feeds
            if action["action_id"] == TOPICS_ACTION and feed_gone:  # deleted meanwhile, by a command
                refresh_home(rt.ctx, client, user, f"You have no feed “{value[:MAX_FEED_NAME]}” any more.")
                return
            client.views_open(trigger_id=trigger, view=form(rt.ctx, user, value))

        runtime.after_ack(context, body, work)

    for action_id in FORMS:
        app.action(action_id)(on_button)


#: What saves a form: ``check(view)`` (no database) returns the saving to do, or raises BadArgument.
Check = Callable[[dict], Callable[[Context, str], object]]


def _submitted(runtime: Runtime, check: Check, block: str) -> Callable:
    """A form's view_submission listener: ``check(view)`` runs in the ack (a BadArgument is shown under
    ``block``, or the field it names), the saving after it, then Home is published again."""

    def on_submit(ack, body: dict, view: dict, client: WebClient, context) -> None:
        try:
            save = check(view)
        except BadArgument as exc:
            ack(response_action="errors", errors={getattr(exc, "block", block): say(exc)[:300]})
            return
        ack()
        user = body["user"]["id"]

        def work(rt: Runtime) -> None:
            notice = None
            try:
                save(rt.ctx, user)
                if block == KIND_BLOCK:  # the time is meant in their timezone of now
                    refresh_timezone(rt.ctx, client, user, fresh=True)
            except BadArgument as exc:
                notice = f"Not saved: {say(exc)}"
            refresh_home(rt.ctx, client, user, notice)

        runtime.after_ack(context, body, work)

    return on_submit


def _topics_form(view: dict):
    feed = _feed_of(view)
    if feed is None:
        raise BadArgument("This form is out of date; open it again from Home")
    topics = check_topics(_value(view, TOPICS_BLOCK) or "", required=feed != MAIN)
    return lambda ctx, user: save_topics(ctx, user, feed, topics)


def _new_feed_form(view: dict):
    try:
        name = check_feed_name(_value(view, FEED_NAME_BLOCK) or "")
    except BadArgument as exc:
        raise _Field(FEED_NAME_BLOCK, exc) from None
    topics = check_topics(_value(view, TOPICS_BLOCK) or "", required=True)
    return lambda ctx, user: save_new_feed(ctx, user, name, topics)


def _authors_form(view: dict):
    names = check_authors(_value(view, AUTHORS_BLOCK) or "")
    return lambda ctx, user: save_authors(ctx, user, names)


def _mutes_form(view: dict):
    words = check_mutes(_value(view, MUTES_BLOCK) or "")
    return lambda ctx, user: save_mutes(ctx, user, words)


def _alerts_form(view: dict):
    phrases = check_alerts(_value(view, ALERTS_BLOCK) or "")
    return lambda ctx, user: save_alerts(ctx, user, phrases)


def _schedule_form(view: dict):
    kind = _value(view, KIND_BLOCK, "selected_option")
    time = _value(view, TIME_BLOCK, "selected_time")
    day = _value(view, DAY_BLOCK, "selected_option")
    if kind not in SCHEDULES:
        raise _Field(KIND_BLOCK, Unchosen("schedule"))
    if kind != "off" or time:
        try:
            check_time(time)
        except BadArgument as exc:
            raise _Field(TIME_BLOCK, exc) from None
    try:
        schedule = check_schedule(kind, time, day)
    except BadArgument as exc:  # what is left to be wrong: the weekday
        raise _Field(DAY_BLOCK, exc) from None
    return lambda ctx, user: save_schedule(ctx, user, schedule)


#: Each form's view: how it is checked, and the field its errors are shown under by default.
SUBMISSIONS: dict[str, tuple[Check, str]] = {
    TOPICS_VIEW: (_topics_form, TOPICS_BLOCK),
    NEW_FEED_VIEW: (_new_feed_form, TOPICS_BLOCK),
    AUTHORS_VIEW: (_authors_form, AUTHORS_BLOCK),
    MUTES_VIEW: (_mutes_form, MUTES_BLOCK),
    SCHEDULE_VIEW: (_schedule_form, KIND_BLOCK),
    ALERTS_VIEW: (_alerts_form, ALERTS_BLOCK),
}


def _register_forms(app: App, runtime: Runtime) -> None:
    for view_id, (check, block) in SUBMISSIONS.items():
        app.view(view_id)(_submitted(runtime, check, block))


def _register_round(app: App, runtime: Runtime) -> None:
    """The first round of papers to rate: opening it, each rating, closing it."""

    @app.action(ROUND_ACTION)
    def on_round(ack, body: dict, client: WebClient, context) -> None:
        ack()
        user, trigger = body["user"]["id"], body.get("trigger_id")

        def work(rt: Runtime) -> None:
            # The trigger is good for 3 seconds: open the modal first, then pick its papers.
            view_id = client.views_open(trigger_id=trigger, view=wait_modal())["view"]["id"]
            try:
                with rt.locks.hold(user):  # never the papers a digest under way is sending them
                    papers = start_round(rt.ctx, user)
            except NoPapers:
                papers = []
            client.views_update(view_id=view_id, view=round_modal(papers, {}))

        runtime.after_ack(context, body, work)

    def on_rate(ack, body: dict, action: dict, client: WebClient, context) -> None:
        ack()
        view = body.get("view") or {}
        ids, paper_id = _round_ids(view), action.get("value")
        if paper_id not in ids or not view.get("id"):
            log.info("ignored a rating of a paper that is not in the round: %r", paper_id)
            return
        user = body["user"]["id"]
        value = LIKE if action.get("action_id") == ROUND_LIKE else DISLIKE

        def work(rt: Runtime) -> None:
            try:
                with rt.locks.hold(user):
                    rate(rt.ctx, user, paper_id, value)
            except NotFound:
                log.info("a round's paper %s is gone", paper_id)
            # Each update is built from what is stored once this rating is, so the last one shown is right.
            view_now = round_modal(round_papers(rt.ctx, ids), ratings(rt.ctx, user, ids))
            try:
                client.views_update(view_id=view["id"], view=view_now)
            except SLACK_FAILURES as exc:
                log.warning("could not show the rating in the round's modal: %s", exc)
            refresh_home(rt.ctx, client, user)  # under the modal: feedback counts, no longer new

        runtime.after_ack(context, body, work)

    app.action(ROUND_LIKE)(on_rate)
    app.action(ROUND_DISLIKE)(on_rate)

    @app.view(ROUND_VIEW)
    def on_round_done(ack, body: dict, client: WebClient, context) -> None:
        ack()
        user = body["user"]["id"]
        runtime.after_ack(context, body, lambda rt: refresh_home(rt.ctx, client, user))


class _Field(BadArgument):
    """A BadArgument to show under a given field of a form, not the form's usual one."""

    def __init__(self, block: str, error: Exception):
        super().__init__(say(error))
        self.block = block


def _register_switch(app: App, runtime: Runtime, action_id: str,
                     save: Callable[[Context, str, bool], bool]) -> None:
    """A Home button turning a setting on or off (its value: "on" or "off"), then Home again: the
    suggestions' (``/papers suggest``) and the follow-ups' (``/papers followups``)."""

    @app.action(action_id)
    def on_switch(ack, body: dict, action: dict, client: WebClient, context) -> None:
        ack()
        user, on = body["user"]["id"], action.get("value") == "on"

        def work(rt: Runtime) -> None:
            save(rt.ctx, user, on)
            refresh_home(rt.ctx, client, user)

        runtime.after_ack(context, body, work)
