"""`/papers forget` with a second thought, end to end on both backends: the reply counts what would go and
deletes nothing; Forget me deletes everything and says so in place of the question; a press by someone
else, a second press, an expired button or Cancel deletes nothing."""

from __future__ import annotations

import json
import time

from bot.slack.views.forget import CANCEL_ACTION, FORGET_ACTION
from tests.e2e.forgetting import press, pressed, ticket_of
from tests.e2e.harness import user_ids

new_user = user_ids("UFGT")


def rows(store, user) -> int:
    return sum(store.rows_about(user).values())


def test_forget_shows_what_goes_and_deletes_only_once_forget_me_is_pressed(slack, standin, store):
    user = new_user()
    slack.ask(user, "follow feline cats, graph neural networks")
    slack.ask(user, "mute blockchain")
    before = rows(store, user)
    question = slack.ask(user, "forget")
    assert question.response_type == "ephemeral"
    assert "2 topics" in question.text and "1 muted word" in question.text
    button = next(e for b in question.blocks if b["type"] == "actions" for e in b["elements"]
                  if e["action_id"] == FORGET_ACTION)
    assert button["style"] == "danger" and button["confirm"]["confirm"]["text"] == "Forget me"
    assert rows(store, user) == before > 0  # nothing went yet

    answer = pressed(slack, press(slack, user, ticket_of(question)))
    assert answer.text.startswith("Done: I deleted everything") and answer.raw["replace_original"] is True
    assert rows(store, user) == 0
    # Home was published again without them (one views.publish after the press).
    standin.wait_for(lambda: standin.calls("views.publish", user_id=user), what="Home")


def test_another_person_a_second_press_or_cancel_deletes_nothing(slack, standin, store):
    user, other = new_user(), new_user()
    slack.ask(user, "follow quantum qubits entanglement")
    ticket = ticket_of(slack.ask(user, "forget"))
    before = rows(store, user)

    assert "someone else's" in pressed(slack, press(slack, other, ticket)).text
    cancelled = pressed(slack, press(slack, user, "cancel", action_id=CANCEL_ACTION))
    assert cancelled.text == "Cancelled: nothing was deleted." and cancelled.raw["replace_original"] is True
    assert rows(store, user) == before

    assert "Done" in pressed(slack, press(slack, user, ticket)).text
    slack.ask(user, "follow quantum circuits")  # back again; the old button pressed again: nothing goes
    again = pressed(slack, press(slack, user, ticket))
    assert "run `/papers forget` again" in again.text and "nothing was deleted" in again.text
    assert store.get_topics(user) == ["quantum circuits"]


def test_an_expired_button_deletes_nothing(slack, standin, store):
    user = new_user()
    slack.ask(user, "follow robot grasping")
    _, _, nonce = ticket_of(slack.ask(user, "forget")).split(":")
    old = f"{user}:{int(time.time()) - 16 * 60}:{nonce}"  # issued 16 minutes ago
    answer = pressed(slack, press(slack, user, old))
    assert "run `/papers forget` again" in answer.text
    assert store.get_topics(user) == ["robot grasping"]
    assert json.dumps(answer.raw).count("Done") == 0
