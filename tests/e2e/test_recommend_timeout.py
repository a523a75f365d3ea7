"""A slow Slack answer must not send a paper twice: `/papers recommend` over HTTP against the stand-in,
whose post lands at once but answers after the client's timeout (or never: the connection dropped).
The client timeout is shortened so the tests stay quick."""

from __future__ import annotations

import pytest

from bot.slack import client as slack_client
from stand_ins.slack import SlackStandIn
from tests.e2e.harness import opened, query, serving, user_ids

TIMEOUT = 0.5  # the client's timeout in these tests (seconds)
LATE = 1.2  # how late the stand-in answers a post that landed

new_user = user_ids("UTMO")


@pytest.fixture(scope="module")
def running(standin, db_path):
    """The bot, with the Slack client's timeout shortened."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(slack_client, "API_TIMEOUT", TIMEOUT)
        with serving(standin, db_path) as bot:
            yield bot


def paper_titles(standin: SlackStandIn, user: str) -> list[str]:
    """Every paper message that landed in the DM (what the person sees), answered late or never."""
    return [m["text"] for m in standin.history.get("D" + user, []) if not m["text"].startswith(":books:")]


def shown(db_path, user: str) -> dict[str, tuple[str | None, str | None]]:
    with opened(db_path) as store:
        return {r["paper_id"]: (r["channel"], r["message_ts"])
                for r in query(store, "select * from shown where user_id = ?", [user])}


def test_a_post_that_timed_out_but_landed_is_found_and_never_sent_again(slack, standin, db_path):
    user = new_user()
    slack.ask(user, "follow feline cats whiskers")
    standin.land_late("chat.postMessage", LATE, after=1)  # the first paper (after the header)
    first = slack.ask(user, "recommend 2", timeout=30)
    assert first.text == "I sent you 2 papers in our direct messages."  # not "couldn't be delivered"
    assert standin.calls("conversations.history", channel="D" + user)  # it looked
    assert len(shown(db_path, user)) == 2 and all(ts for _, ts in shown(db_path, user).values())
    again = slack.ask(user, "recommend 3", timeout=30)
    assert again.text == "I sent you 3 papers in our direct messages."
    titles = paper_titles(standin, user)
    assert len(titles) == 5 == len(set(titles))


def test_a_post_whose_connection_dropped_after_it_landed_is_not_re_sent_by_the_client(slack, standin,
                                                                                       db_path):
    user = new_user()
    slack.ask(user, "follow graph neural networks")
    standin.land_late("chat.postMessage", 0.05, after=1, drop=True)
    first = slack.ask(user, "recommend 2", timeout=30)
    assert first.text == "I sent you 2 papers in our direct messages."
    titles = paper_titles(standin, user)
    assert len(titles) == 2 == len(set(titles))  # slack_sdk's connection retry did not post it again
    slack.ask(user, "recommend 2", timeout=30)
    titles = paper_titles(standin, user)
    assert len(titles) == 4 == len(set(titles))


def test_when_slack_cant_say_whether_a_post_landed_it_is_never_repeated_and_the_reply_says_so(
        slack, standin, db_path):
    user = new_user()
    slack.ask(user, "follow quantum qubits entanglement")
    standin.land_late("chat.postMessage", LATE, after=1)
    standin.fail("conversations.history", status=500, times=3)  # the look fails too (with retries)
    first = slack.ask(user, "recommend 2", timeout=30)
    assert "didn't confirm 1 paper" in first.text and "won't send it again" in first.text
    assert "I sent you" not in first.text  # nothing claimed that Slack never confirmed
    assert "1 paper couldn't be delivered" in first.text  # the second: not tried while Slack can't answer
    standin.reset()
    slack.ask(user, "recommend 3", timeout=30)
    titles = paper_titles(standin, user)
    assert len(titles) == len(set(titles))  # the unconfirmed paper did not come again


def test_digest_now_while_slack_is_down_says_so_and_asking_again_once_it_is_back_sends_it(slack, standin):
    user = new_user()
    slack.ask(user, "follow robot grasping")
    standin.fail("chat.postMessage", status=500, times=1_000)
    down = slack.ask(user, "digest now", timeout=30)
    assert "Slack isn't answering right now" in down.text and "I sent you" not in down.text
    standin.reset()
    back = slack.ask(user, "digest now", timeout=30)  # no need to wait out the retry pause
    assert back.text == "I sent you 3 papers in our direct messages."
    messages = standin.history["D" + user]
    assert len(messages) == 4 == len({m["text"] for m in messages})
    assert "Your digest" in messages[0]["text"]
