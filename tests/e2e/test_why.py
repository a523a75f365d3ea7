"""`/papers why` end to end, on both backends, through signed requests against the real bot and the Slack
stand-in: after a recommendation and a digest, `why` says of the paper recommended that it was shown
before, of a digest's paper that it was sent in that day's digest, and of another its rank below the cut;
a name of no paper gets one line saying what works."""

from __future__ import annotations

import re
from datetime import date

import pytest

from tests.e2e.digests_support import local_day
from tests.e2e.harness import query, user_ids

new_user = user_ids("UWHY")

ARXIV = {"id": "2412.01234", "title": "Qubits entanglement circuits at scale",
         "abstract": "Quantum circuits qubits entanglement error correction measured on a chip.",
         "authors": ["Ada Qubit"], "categories": ["quant-ph"]}


@pytest.fixture(scope="module")
def extra_papers():
    return [ARXIV]


def shown(store, user: str) -> list[str]:
    return [r["paper_id"] for r in query(store, "select paper_id from shown where user_id = ?", [user])]


def day_text(iso: str) -> str:
    when = date.fromisoformat(iso)
    return f"{when.day} {when.strftime('%b')} {when.year}"


def test_why_tells_shown_before_sent_and_below_the_cut(slack, store):
    user = new_user()
    slack.ask(user, "follow quantum circuits qubits entanglement")
    assert "I sent you 1 paper" in slack.ask(user, "recommend 1").text
    (recommended,) = shown(store, user)
    assert "I sent you 3 papers" in slack.ask(user, "digest now").text  # PAPERBOT_DIGEST_SIZE=3
    digest = [pid for pid in shown(store, user) if pid != recommended]
    assert len(digest) == 3
    today = day_text(local_day("Europe/Berlin"))  # the stand-in's timezone for everyone

    before = slack.ask(user, f"why {recommended}")
    assert before.text.endswith(f"It was already shown to you on {today}, so digests don't send it again.")
    sent = slack.ask(user, f"why {digest[0]}")
    assert sent.text.endswith(f"It was sent to you in your digest of {today}.")
    assert "I hold it since " in sent.text

    others = [f"quantum-{i}" for i in range(8) if f"quantum-{i}" not in shown(store, user)]
    answers = {pid: slack.ask(user, f"why {pid}").text for pid in others}
    below = {pid: text for pid, text in answers.items() if "below the cut" in text}
    assert below, answers
    for text in below.values():
        rank = int(re.search(r"Today it ranks (\d+)\w\w of your (\d+) candidates", text).group(1))
        assert rank > 3 and text.endswith("below the cut, your digest takes the top 3.")

    arxiv = slack.ask(user, "why https://arxiv.org/abs/2412.01234v2").text
    held = arxiv.split("\n")[1]
    assert held.startswith("I hold it since ") and held.endswith("from arXiv.")

    print("WHY ANSWERS:", before.text, sent.text, next(iter(below.values())), sep="\n---\n")


def test_a_name_of_no_paper_gets_one_line_saying_what_works(slack):
    user = new_user()
    nothing = slack.ask(user, "why")
    assert nothing.via == "ack"
    assert nothing.text.startswith("Say which paper: `/papers why` with its link or id")
    for text, says in (("why banana split", "“banana split” names no paper: `/papers why` takes"),
                       ("why https://example.com/blog", "is no paper's page I can read"),
                       ("why 2501.99999", "I don't hold arXiv:2501.99999")):
        reply = slack.ask(user, text)
        assert says in reply.text and "\n" not in reply.text.split(" See ")[0], reply.text
