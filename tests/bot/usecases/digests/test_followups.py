"""Follow-ups in the digest (issue 42): what became of the papers a person saved or liked, said once in the
next digest's header, claimed before the header goes out, so a retry says the same and nothing repeats."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, date, datetime, timedelta

from bot.errors import Outage
from bot.text.paper_events import events
from bot.usecases import follow
from bot.usecases.digests.send import send_digest
from bot.usecases.followups import claim_followups
from bot.usecases.settings import set_followups
from storage import Paper
from tests.fakes import Clock, FakeCourier

DAY = date(2026, 7, 15)
V1 = Paper(id="arxiv:2507.00001", arxiv_id="2507.00001", arxiv_version=1, title="Graph kittens at scale",
           abstract="We count kittens on graphs.", authors=["Ana Duarte"])
V2 = replace(V1, id="arxiv:2507.00001v2", arxiv_version=2, venue="ICML 2025",
             abstract="We count kittens on large graphs. Code: https://github.com/lab/kittens.")


def saved_then_moved_on(ctx, user="U1"):
    follow(ctx, user, "feline cats whiskers")
    ctx.store.set_timezone(user, "UTC")
    ctx.store.upsert_papers([V1])
    ctx.store.save_paper(user, V1.id)
    ctx.store.upsert_papers([V2], events=events)


def test_the_next_digest_says_what_became_of_a_saved_paper_once(ctx):
    saved_then_moved_on(ctx)
    dm = FakeCourier(find_posted=False)
    assert send_digest(ctx, "U1", DAY, dm.courier(), "me:1:1").status == "sent"
    header = dm.headers("DU1")[0]
    assert "*1 paper you saved moved on:*" in header
    assert "• <https://arxiv.org/abs/2507.00001|Graph kittens at scale>: " in header
    assert "accepted at ICML 2025" in header and "new version (v2): the abstract changed" in header
    assert "code: <https://github.com/lab/kittens|github.com/lab/kittens>" in header
    # The next day's digest: nothing new became of it, so no block.
    nxt = FakeCourier(find_posted=False)
    send_digest(ctx, "U1", DAY + timedelta(days=1), nxt.courier(), "me:1:1")
    assert nxt.headers("DU1") and "moved on" not in nxt.headers("DU1")[0]


def test_a_header_retried_after_an_outage_says_the_same_follow_ups_once(ctx):
    saved_then_moved_on(ctx)
    clock = Clock(datetime(2026, 7, 15, 9, 0, tzinfo=UTC))
    down = FakeCourier(find_posted=False, fail={"header": Outage("Slack answered 503")})
    assert send_digest(ctx, "U1", DAY, down.courier(), "me:1:1", clock=clock).status == "incomplete"
    assert down.headers("DU1") == []
    clock.advance(timedelta(hours=1))
    back = FakeCourier(find_posted=False)
    assert send_digest(ctx, "U1", DAY, back.courier(), "me:1:1", clock=clock).status == "sent"
    assert [h.count("accepted at ICML 2025") for h in back.headers("DU1")] == [1]
    assert claim_followups(ctx, "U1", "2026-07-16", clock()) == ()  # told: not again


def test_a_header_that_failed_gives_its_follow_ups_back(ctx):
    saved_then_moved_on(ctx)
    broken = FakeCourier(find_posted=False, fail={"header": RuntimeError("refused")})
    send_digest(ctx, "U1", DAY, broken.courier(), "me:1:1")
    later = claim_followups(ctx, "U1", "2026-07-16", datetime.now(UTC))
    assert [f.paper.id for f in later] == [V1.id]


def test_someone_who_turned_follow_ups_off_hears_none(ctx):
    saved_then_moved_on(ctx)
    set_followups(ctx, "U1", False)
    dm = FakeCourier(find_posted=False)
    send_digest(ctx, "U1", DAY, dm.courier(), "me:1:1")
    assert "moved on" not in dm.headers("DU1")[0]


def test_a_liked_paper_counts_and_someone_else_hears_nothing_of_it(ctx):
    follow(ctx, "U2", "feline cats whiskers")
    ctx.store.set_timezone("U2", "UTC")
    saved_then_moved_on(ctx)
    dm = FakeCourier(find_posted=False)
    send_digest(ctx, "U2", DAY, dm.courier(), "me:1:1")
    assert "moved on" not in dm.headers("DU2")[0]


def test_export_data_holds_what_was_told_and_forget_deletes_it(ctx):
    import json

    from bot.slack.views.forget import what_goes
    from bot.usecases.export import data_export
    from bot.usecases.forget import forget, stored_about

    saved_then_moved_on(ctx)
    dm = FakeCourier(find_posted=False)
    send_digest(ctx, "U1", DAY, dm.courier(), "me:1:1")
    told = json.loads(data_export(ctx, "U1").content)["tables"]["followups_told"]
    assert {(r["paper_id"], r["kind"], r["via"]) for r in told} == {
        (V1.id, "version", "2026-07-15"), (V1.id, "accepted", "2026-07-15"), (V1.id, "code", "2026-07-15")}
    stored = stored_about(ctx, "U1")
    assert stored.followups == 3 and "3 follow-ups told you" in what_goes(stored)
    forget(ctx, "U1")
    assert ctx.store.person_rows("U1")["followups_told"] == []


# -- a message of its own on a day without a digest -----------------------------------------------------

def utc(*args) -> datetime:
    return datetime(*args, tzinfo=UTC)


def poster():
    sent: list[tuple[str, list[str]]] = []

    def post(user_id, followups):
        sent.append((user_id, [f.paper.id for f in followups]))

    return sent, post


def test_on_a_day_without_a_digest_one_message_of_its_own_at_most_once_a_day(ctx):
    from bot.usecases.followups import send_followup_messages

    saved_then_moved_on(ctx)
    ctx.store.set_digest_schedule("U1", "09:00", False)  # digests off: no digest any day
    sent, post = poster()
    assert send_followup_messages(ctx, utc(2026, 7, 15, 8, 59), post) == 0  # before 09:00 where they are
    assert send_followup_messages(ctx, utc(2026, 7, 15, 9, 0), post) == 1
    assert sent == [("U1", [V1.id])]
    # Something more the same day waits for the next day.
    ctx.store.upsert_papers([replace(V2, arxiv_version=3, abstract="Kittens, v3.")], events=events)
    assert send_followup_messages(ctx, utc(2026, 7, 15, 18, 0), post) == 0
    assert send_followup_messages(ctx, utc(2026, 7, 16, 9, 30), post) == 1
    assert sent[1] == ("U1", [V1.id]) and len(sent) == 2
    assert send_followup_messages(ctx, utc(2026, 7, 17, 9, 30), post) == 0  # nothing left to tell


def test_a_day_with_a_digest_to_come_leaves_them_to_it_and_a_failed_message_gives_them_back(ctx):
    from bot.usecases.followups import send_followup_messages

    saved_then_moved_on(ctx)
    ctx.store.set_digest_schedule("U1", "10:00", True, since=utc(2026, 1, 1).isoformat())
    sent, post = poster()
    assert send_followup_messages(ctx, utc(2026, 7, 15, 11, 0), post) == 0  # today's digest tells them
    ctx.store.set_digest_schedule("U1", "10:00", False, since=utc(2026, 1, 1).isoformat())

    def broken(user_id, followups):
        raise RuntimeError("channel_not_found")

    assert send_followup_messages(ctx, utc(2026, 7, 15, 11, 0), broken) == 0
    assert send_followup_messages(ctx, utc(2026, 7, 16, 11, 0), post) == 1 and sent == [("U1", [V1.id])]


def test_a_channel_s_digest_says_what_became_of_the_papers_it_liked(ctx):
    channel = "CROOM1"
    follow(ctx, channel, "feline cats whiskers")
    ctx.store.upsert_papers([V1])
    ctx.store.set_feedback(channel, V1.id, 1)  # a 👍 on the channel's paper is the channel's like
    ctx.store.upsert_papers([V2], events=events)
    dm = FakeCourier(find_posted=False)
    assert send_digest(ctx, channel, DAY, dm.courier(), "me:1:1").status == "sent"
    [header] = dm.headers()
    assert "*1 paper this channel liked moved on:*" in header and "accepted at ICML 2025" in header


def test_someone_slack_cant_reach_has_their_follow_ups_given_back(ctx):
    from bot.errors import Unreachable

    saved_then_moved_on(ctx)
    gone = FakeCourier(find_posted=False, fail={"header": Unreachable("user_not_found")})
    assert send_digest(ctx, "U1", DAY, gone.courier(), "me:1:1").status == "failed"
    assert [f.paper.id for f in claim_followups(ctx, "U1", "2026-07-16", datetime.now(UTC))] == [V1.id]


def test_a_compact_digest_says_them_in_its_one_message_and_again_only_on_its_retry(ctx):
    from bot.usecases.digests.send import RETRY_AFTER
    from bot.usecases.settings import set_compact_digest
    from tests.bot.usecases.digests.test_compact import CompactDM

    saved_then_moved_on(ctx)
    set_compact_digest(ctx, "U1", True)
    clock = Clock(datetime(2026, 7, 15, 9, 0, tzinfo=UTC))
    dm = CompactDM(fail=RuntimeError("refused"))
    assert send_digest(ctx, "U1", DAY, dm.courier(), "me:1:1", clock=clock).status == "incomplete"
    clock.advance(RETRY_AFTER + timedelta(seconds=1))
    assert send_digest(ctx, "U1", DAY, dm.courier(), "me:1:1", clock=clock).status == "sent"
    [(kind, text, _, _)] = dm.messages
    assert kind == "compact" and "*1 paper you saved moved on:*" in text and "accepted at ICML 2025" in text


def test_a_digest_whose_sender_died_after_its_header_tells_them_once_and_the_next_day_none(ctx):
    import pytest

    from tests.fakes import Death

    saved_then_moved_on(ctx)
    dying = FakeCourier(die_after=0)  # the header went out with its block, then the process died
    with pytest.raises(Death):
        send_digest(ctx, "U1", DAY, dying.courier(), "host:100:1")
    restarted = FakeCourier(history=dying)
    outcome = send_digest(ctx, "U1", DAY, restarted.courier(), "host:200:2", alive=lambda owner: False)
    assert outcome.status == "sent" and restarted.headers("DU1") == []  # found in the DM: not again
    assert sum("moved on" in h for h in dying.headers("DU1")) == 1
    assert claim_followups(ctx, "U1", "2026-07-16", datetime.now(UTC)) == ()
