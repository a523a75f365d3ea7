"""``/papers recommend``'s posting: the digests' courier and the shared use case, answered in Slack terms."""

import pytest

from bot.slack.delivery.digests import PAPER_EVENT
from bot.slack.dm import SlackUnavailable, send_papers
from bot.usecases import follow, recommend
from tests.fakes import FakeWebClient


@pytest.fixture
def recs(ctx):
    follow(ctx, "U1", "feline cats")
    return recommend(ctx, "U1", 2, remember=False)


def test_a_header_without_digest_metadata_then_papers_that_carry_their_id(ctx, recs):
    client = FakeWebClient()
    delivery = send_papers(ctx, client, "U1", recs, "*2 papers*")
    header, *papers = client.posts()
    assert header["text"] == "*2 papers*" and "metadata" not in header
    assert [p["metadata"]["event_payload"]["paper_id"] for p in papers] == [r.paper.id for r in recs]
    assert {p["metadata"]["event_type"] for p in papers} == {PAPER_EVENT}
    assert delivery.delivered == recs
    assert ctx.store.dm_channel("U1") == "D1"  # kept, as for digests: the next one opens nothing
    send_papers(ctx, client, "U1", recommend(ctx, "U1", 1, remember=False), "*1 paper*")
    assert [m for m, _ in client.calls].count("conversations.open") == 1


@pytest.mark.parametrize("error, said", [
    ("cannot_dm_bot", "I couldn't open a DM with you: Slack refused direct messages (cannot_dm_bot)."),
    ("missing_scope", "I couldn't open a DM with you (Slack said: missing_scope). Try again in a minute."),
])
def test_a_dm_slack_will_not_open_is_said_plainly(ctx, recs, error, said):
    client = FakeWebClient({"conversations.open": {"ok": False, "error": error}})
    with pytest.raises(SlackUnavailable) as raised:
        send_papers(ctx, client, "U1", recs, "*2 papers*")
    assert str(raised.value) == said and client.posts() == []
    assert ctx.store.shown_among("U1", [r.paper.id for r in recs]) == set()


def test_a_kept_dm_channel_slack_no_longer_accepts_is_opened_afresh(ctx, recs):
    ctx.store.remember_dm_channel("U1", "DGONE")  # kept from an earlier digest; archived since
    client = FakeWebClient({"chat.postMessage": lambda args: (
        {"ok": False, "error": "channel_not_found"} if args.get("channel") == "DGONE" else None)})
    delivery = send_papers(ctx, client, "U1", recs, "*2 papers*")
    assert delivery.delivered == recs
    assert [p["channel"] for p in client.posts()] == ["DGONE", "D1", "D1", "D1"]  # header again
    assert ctx.store.dm_channel("U1") == "D1"
