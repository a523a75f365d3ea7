"""The App Home tab end to end: app_home_opened publishes it, its buttons open modals (views.open), the
modals' submissions save or answer errors, and the first round of papers to rate, through signed
requests against the real bot and the Slack stand-in, on both backends."""

from __future__ import annotations

import json
import time

from bot.slack.views.home_view import (
    ALERTS_ACTION,
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
)
from bot.slack.views.messages import SAVE_ACTION
from bot.usecases.onboarding import REASON
from tests.bot.slack.views.test_home_view import check_view
from tests.e2e.harness import TEAM_ID, posts_to, query, user_ids

new_user = user_ids("UHOME")


def dm(user: str) -> str:
    return "D" + user


def parsed(view) -> dict:
    return json.loads(view) if isinstance(view, str) else view


def homes(standin, user) -> list[dict]:
    """Every Home view published for ``user``, oldest first."""
    return [parsed(c.params["view"]) for c in standin.calls("views.publish", user_id=user) if c.status == 200]


def next_home(standin, user, before: int) -> dict:
    """The Home view published after the first ``before`` ones (waiting for it), checked as Block Kit."""
    standin.wait_for(lambda: len(homes(standin, user)) > before, what=f"Home published for {user}")
    view = homes(standin, user)[-1]
    check_view(view)
    return view


def open_home(slack, standin, user: str) -> dict:
    """Open the Home tab (``app_home_opened``); the view published for it. From then on, subcommands that
    change Home publish it again too."""
    before = len(homes(standin, user))
    slack.event({"type": "app_home_opened", "user": user, "tab": "home", "channel": dm(user)})
    return next_home(standin, user, before)


def opened_views(standin, trigger: str) -> list[dict]:
    """The modals views.open opened with ``trigger``, each with the id the stand-in gave it."""
    return [{**parsed(c.params["view"]), "id": c.response["view"]["id"]}
            for c in standin.calls("views.open", trigger_id=trigger) if c.status == 200]


def click_home(slack, standin, user: str, action_id: str, value: str) -> dict:
    """Click a button on Home; returns the modal it opened (checked as Block Kit), with its id."""
    key = f"home{time.monotonic_ns()}"
    payload = {
        "type": "block_actions", "team": {"id": TEAM_ID, "domain": "standin"},
        "user": {"id": user, "username": user.lower(), "team_id": TEAM_ID}, "api_app_id": "A0PAPERBOT",
        "token": "legacy-verification-token", "trigger_id": f"{key}.trigger",
        "container": {"type": "view", "view_id": "VHOME"},
        "view": {"id": "VHOME", "type": "home", "team_id": TEAM_ID},
        "actions": [{"action_id": action_id, "block_id": "b1", "type": "button", "value": value,
                     "action_ts": f"{time.time():.6f}"}],
    }
    assert slack.interaction(payload)[0] == 200
    views = standin.wait_for(lambda: opened_views(standin, f"{key}.trigger"), what=f"a modal for {action_id}")
    check_view(views[0])
    return views[0]


def submit(slack, user: str, callback_id: str, values: dict, metadata: str = "") -> dict | None:
    """Submit a modal with these input values ({block: element state}); the ack's JSON, if any."""
    payload = {
        "type": "view_submission", "team": {"id": TEAM_ID, "domain": "standin"},
        "user": {"id": user, "username": user.lower(), "team_id": TEAM_ID}, "api_app_id": "A0PAPERBOT",
        "token": "legacy-verification-token", "trigger_id": f"sub{time.monotonic_ns()}.trigger",
        "view": {"id": "VMODAL", "type": "modal", "team_id": TEAM_ID, "callback_id": callback_id,
                 "private_metadata": metadata, "state": {"values": {
                     block: {INPUT: state} for block, state in values.items()}}},
    }
    status, body, _ = slack.interaction(payload)
    assert status == 200
    return json.loads(body) if body.startswith(b"{") else None


def text(value: str | None) -> dict:
    return {"type": "plain_text_input", "value": value}


def choice(value: str | None) -> dict:
    return {"type": "radio_buttons", "selected_option": {"value": value} if value else None}


def settings_rows(store, user: str) -> dict:
    tables = ("topics", "feed_topics", "followed_authors", "mutes", "people", "feedback", "shown")
    return {t: query(store, f"select * from {t} where ws = ? and user_id = ?", [TEAM_ID, user])
            for t in tables}


def field(view: dict, block: str) -> dict:
    return next(b for b in view["blocks"] if b.get("block_id") == block)


def test_opening_home_publishes_the_whole_view(slack, standin, store):
    user = new_user()
    slack.ask(user, "follow feline cats")
    open_home(slack, standin, user)  # a person's work runs in order: the follow's is done by then
    assert len(homes(standin, user)) == 1  # never opened before it: no Home published after the follow
    slack.ask(user, "follow <b>bold</b>")
    slack.ask(user, "feed add robotics: robot grasping")
    slack.ask(user, "follow author: Andrea Bajcsy")
    slack.ask(user, "mute blockchain")
    slack.ask(user, "recommend 1")
    post = standin.wait_for(lambda: [p for p in posts_to(standin, dm(user)) if p.params.get("blocks")])[0]
    status, key = slack.click(user, SAVE_ACTION, dm(user), post.response["ts"])
    assert status == 200
    standin.wait_for(lambda: standin.responses(key), what="the save")
    # Opened, then republished after each command that changed it (not recommend), and after the save.
    before = len(standin.wait_for(lambda: homes(standin, user)[5:] and homes(standin, user), what="6 Homes"))
    slack.event({"type": "app_home_opened", "user": user, "tab": "home", "channel": dm(user)})
    view = next_home(standin, user, before)
    shown = json.dumps(view, ensure_ascii=False)
    for seen in ("feline cats", "&lt;b&gt;bold&lt;/b&gt;", "robotics", "robot grasping", "Andrea Bajcsy",
                 "blockchain", "daily at 09:00 (Europe/Berlin time)", "Latest saved papers",
                 post.params["text"][:30]):
        assert seen in shown, seen
    assert "<b>" not in shown
    actions = {e["action_id"] for b in view["blocks"]
               for e in [b.get("accessory") or {}, *b.get("elements", [])]
               if e.get("type") == "button"}
    assert actions == {TOPICS_ACTION, NEW_FEED_ACTION, AUTHORS_ACTION, MUTES_ACTION, SCHEDULE_ACTION,
                       SUGGEST_ACTION, ALERTS_ACTION, FOLLOWUPS_ACTION}
    assert ROUND_ACTION not in actions  # they saved a paper: not new any more


def test_each_home_button_opens_its_form_with_what_is_stored(slack, standin):
    user = new_user()
    slack.ask(user, "follow graph neural networks, message passing")
    slack.ask(user, "feed add theory: bandits")
    slack.ask(user, "follow author: Yann LeCun")
    slack.ask(user, "mute blockchain, crypto")
    slack.ask(user, "digest weekly friday 16:00")
    topics = click_home(slack, standin, user, TOPICS_ACTION, "main")
    assert topics["callback_id"] == TOPICS_VIEW
    assert field(topics, TOPICS_BLOCK)["element"]["initial_value"] == "graph neural networks, message passing"
    theory = click_home(slack, standin, user, TOPICS_ACTION, "theory")
    assert field(theory, TOPICS_BLOCK)["element"]["initial_value"] == "bandits"
    assert json.loads(theory["private_metadata"]) == {"feed": "theory"}
    assert click_home(slack, standin, user, NEW_FEED_ACTION, "new")["callback_id"] == NEW_FEED_VIEW
    authors = click_home(slack, standin, user, AUTHORS_ACTION, "edit")
    assert field(authors, AUTHORS_BLOCK)["element"]["initial_value"] == "Yann LeCun"
    mutes = click_home(slack, standin, user, MUTES_ACTION, "edit")
    assert field(mutes, MUTES_BLOCK)["element"]["initial_value"] == "blockchain, crypto"
    schedule = click_home(slack, standin, user, SCHEDULE_ACTION, "edit")
    assert field(schedule, KIND_BLOCK)["element"]["initial_option"]["value"] == "weekly"
    assert field(schedule, TIME_BLOCK)["element"]["initial_time"] == "16:00"
    assert field(schedule, DAY_BLOCK)["element"]["initial_option"]["value"] == "4"


def test_valid_forms_save_through_the_use_cases_and_republish_home(slack, standin, store):
    user = new_user()
    open_home(slack, standin, user)
    slack.ask(user, "follow graph neural networks, message passing")
    slack.ask(user, "feed add theory: bandits, regret")
    before = len(standin.wait_for(lambda: homes(standin, user)[2:] and homes(standin, user)))
    assert submit(slack, user, TOPICS_VIEW, {TOPICS_BLOCK: text("Message passing, robot grasping")},
                  json.dumps({"feed": "main"})) is None
    view = next_home(standin, user, before)
    assert store.get_topics(user) == ["message passing", "robot grasping"]
    assert "robot grasping" in json.dumps(view)
    before = len(homes(standin, user))
    submit(slack, user, TOPICS_VIEW, {TOPICS_BLOCK: text("regret, online learning")},
           json.dumps({"feed": "theory"}))
    next_home(standin, user, before)
    assert sorted(store.get_feeds(user)["theory"]) == ["online learning", "regret"]
    before = len(homes(standin, user))
    submit(slack, user, NEW_FEED_VIEW, {FEED_NAME_BLOCK: text("robotics"), TOPICS_BLOCK: text("sim2real")})
    next_home(standin, user, before)
    assert store.get_feeds(user)["robotics"] == ["sim2real"]
    before = len(homes(standin, user))
    submit(slack, user, AUTHORS_VIEW, {AUTHORS_BLOCK: text("Andrea Bajcsy\nBajcsy, Andrea\nYann LeCun")})
    next_home(standin, user, before)
    assert [n for _, n in store.get_followed_authors(user)] == ["Andrea Bajcsy", "Yann LeCun"]
    before = len(homes(standin, user))
    submit(slack, user, MUTES_VIEW, {MUTES_BLOCK: text("Blockchain, large language model")})
    next_home(standin, user, before)
    assert store.get_mutes(user) == ["blockchain", "large language model"]
    before = len(homes(standin, user))
    friday = {"type": "static_select", "selected_option": {"value": "4"}}
    submit(slack, user, SCHEDULE_VIEW, {KIND_BLOCK: choice("weekly"),
                                        TIME_BLOCK: {"type": "timepicker", "selected_time": "16:30"},
                                        DAY_BLOCK: friday})
    view = next_home(standin, user, before)
    person = store.get_person(user)
    assert (person.digest_time, person.digest_weekday, person.digest_enabled) == ("16:30", 4, True)
    assert "weekly on Fridays at 16:30" in json.dumps(view)
    before = len(homes(standin, user))
    submit(slack, user, SCHEDULE_VIEW, {KIND_BLOCK: choice("off"),
                                        TIME_BLOCK: {"type": "timepicker", "selected_time": "16:30"}})
    next_home(standin, user, before)
    assert not store.get_person(user).digest_enabled
    before = len(homes(standin, user))
    submit(slack, user, AUTHORS_VIEW, {AUTHORS_BLOCK: text(None)})  # emptied: follows nobody
    submit(slack, user, MUTES_VIEW, {MUTES_BLOCK: text("")})
    standin.wait_for(lambda: len(homes(standin, user)) >= before + 2)
    assert store.get_followed_authors(user) == [] and store.get_mutes(user) == []


def test_invalid_forms_answer_errors_and_write_nothing(slack, standin, store, running):
    user = new_user()
    open_home(slack, standin, user)
    slack.ask(user, "follow graph neural networks")
    slack.ask(user, "feed add theory: bandits")
    standin.wait_for(lambda: len(homes(standin, user)) >= 3)
    rows, before = settings_rows(store, user), len(homes(standin, user))
    schedule = {KIND_BLOCK: choice("daily"), TIME_BLOCK: {"type": "timepicker", "selected_time": "25:99"}}
    cases = [
        (SCHEDULE_VIEW, schedule, "", TIME_BLOCK),
        (SCHEDULE_VIEW, {**schedule, KIND_BLOCK: choice("weekly"),
                         TIME_BLOCK: {"type": "timepicker", "selected_time": "09:00"}}, "", DAY_BLOCK),
        (SCHEDULE_VIEW, {**schedule, KIND_BLOCK: choice("hourly")}, "", KIND_BLOCK),
        (TOPICS_VIEW, {TOPICS_BLOCK: text(" , ,")}, json.dumps({"feed": "theory"}), TOPICS_BLOCK),
        (TOPICS_VIEW, {TOPICS_BLOCK: text("fine, " + "x" * 150)}, json.dumps({"feed": "main"}), TOPICS_BLOCK),
        (TOPICS_VIEW, {TOPICS_BLOCK: text(", ".join(f"t{i}" for i in range(60)))},
         json.dumps({"feed": "main"}), TOPICS_BLOCK),
        (TOPICS_VIEW, {TOPICS_BLOCK: text("cats")}, "not json", TOPICS_BLOCK),
        (NEW_FEED_VIEW, {FEED_NAME_BLOCK: text("far too many words"), TOPICS_BLOCK: text("x")}, "",
         FEED_NAME_BLOCK),
        (NEW_FEED_VIEW, {FEED_NAME_BLOCK: text("robotics"), TOPICS_BLOCK: text("")}, "", TOPICS_BLOCK),
        (AUTHORS_VIEW, {AUTHORS_BLOCK: text("Andrea Bajcsy\n" + "y" * 120)}, "", AUTHORS_BLOCK),
        (MUTES_VIEW, {MUTES_BLOCK: text("crypto, " + "z" * 70)}, "", MUTES_BLOCK),
        (MUTES_VIEW, {MUTES_BLOCK: text("!!!")}, "", MUTES_BLOCK),
    ]
    for callback_id, values, metadata, block in cases:
        ack = submit(slack, user, callback_id, values, metadata)
        assert ack is not None and ack["response_action"] == "errors", (callback_id, values)
        assert list(ack["errors"]) == [block], (callback_id, ack)
        assert ack["errors"][block] and len(ack["errors"][block]) <= 300
    running.settle()  # a write or a publish would be work after the ack: it has had its chance
    assert settings_rows(store, user) == rows  # nothing written
    assert len(homes(standin, user)) == before  # nor republished


def test_the_first_round_is_rated_in_place_and_never_recommended_again(slack, standin, store):
    user = new_user()
    slack.ask(user, "follow feline cats, robot manipulation")
    before = len(homes(standin, user))
    slack.event({"type": "app_home_opened", "user": user, "tab": "home"})
    home = next_home(standin, user, before)
    assert ROUND_ACTION in json.dumps(home)  # new: no feedback yet
    wait = click_home(slack, standin, user, ROUND_ACTION, "start")
    assert "Picking papers" in json.dumps(wait)
    view_id = wait["id"]
    standin.wait_for(lambda: standin.views[view_id]["callback_id"] == ROUND_VIEW, what="the round")
    round_view = standin.views[view_id]
    check_view(round_view)
    ids = json.loads(round_view["private_metadata"])
    assert len(ids) == 8 and {pid.split("-")[0] for pid in ids} == {"cats", "robots"}
    shown = {r["paper_id"]: r["reason"]
             for r in query(store, "select * from shown where ws = ? and user_id = ?", [TEAM_ID, user])}
    assert shown == dict.fromkeys(ids, REASON)
    for n, pid in enumerate(ids, 1):
        action = ROUND_LIKE if pid.startswith("robots") else ROUND_DISLIKE
        rate_in_round(slack, user, view_id, round_view, action, pid)
        standin.wait_for(lambda n=n: f"{n} of 8 rated" in json.dumps(standin.views[view_id]),
                         what=f"{n} rated")
    feedback = {f.paper_id: f.value for f in store.get_feedback(user)}
    assert feedback == {pid: 1 if pid.startswith("robots") else -1 for pid in ids}
    # A second click on the same rating takes it back; the modal says so.
    a_cat = next(p for p in ids if p.startswith("cats"))
    rate_in_round(slack, user, view_id, round_view, ROUND_DISLIKE, a_cat)
    standin.wait_for(lambda: "7 of 8 rated" in json.dumps(standin.views[view_id]), what="taken back")
    assert len(store.get_feedback(user)) == 7
    assert "👍 Liked" in json.dumps(standin.views[view_id], ensure_ascii=False)
    # A paper not in the round can't be rated through it.
    rate_in_round(slack, user, view_id, round_view, ROUND_LIKE, "graphs-1")
    before = len(homes(standin, user))
    assert submit(slack, user, ROUND_VIEW, {}, json.dumps(ids)) is None  # Done
    home = next_home(standin, user, before)
    assert ROUND_ACTION not in json.dumps(home)
    assert "graphs-1" not in {f.paper_id for f in store.get_feedback(user)}
    # The ratings teach the next recommendation, and the round's papers never come again.
    slack.ask(user, "recommend 3")
    standin.wait_for(lambda: len(recommended(store, user)) == 3, what="3 recommended")
    picks = recommended(store, user)
    assert not set(picks) & set(ids)
    assert all(pid.startswith("robots") for pid in picks), picks


def recommended(store, user) -> list[str]:
    rows = query(store, "select * from shown where ws = ? and user_id = ? and reason != ?",
                 [TEAM_ID, user, REASON])
    return [r["paper_id"] for r in rows]


def rate_in_round(slack, user: str, view_id: str, view: dict, action_id: str, paper_id: str) -> None:
    payload = {
        "type": "block_actions", "team": {"id": TEAM_ID, "domain": "standin"},
        "user": {"id": user, "username": user.lower(), "team_id": TEAM_ID}, "api_app_id": "A0PAPERBOT",
        "token": "legacy-verification-token", "trigger_id": f"rate{time.monotonic_ns()}.trigger",
        "container": {"type": "view", "view_id": view_id},
        "view": {**view, "id": view_id, "hash": "h1"},
        "actions": [{"action_id": action_id, "block_id": "round_0", "type": "button", "value": paper_id,
                     "action_ts": f"{time.time():.6f}"}],
    }
    assert slack.interaction(payload)[0] == 200
