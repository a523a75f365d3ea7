"""Issue 23's Slack-facing use cases: a paper message rewritten after feedback keeps its feed, a compact
digest's click names its own paper, and forget's counts; on both backends (``any_store``)."""

from __future__ import annotations

from bot.usecases.feeds import add_feed, remember_feeds
from bot.usecases.saved import paper_message, saved_on_message
from tests.storage.conftest import any_store, backend, pg_database, pg_url, store_target  # noqa: F401


def show(ctx, user, paper_id, ts, channel="D1"):
    ctx.store.ensure_person(user)
    ctx.store.mark_shown(user, paper_id, "Matches your interest “cats”", channel, ts)


def test_a_paper_message_rewritten_after_feedback_keeps_the_feed_it_was_sent_for(app):
    add_feed(app, "U1", "pets: cats, whiskers")
    show(app, "U1", "cats-1", "1.1")
    show(app, "U1", "graphs-2", "1.2")
    remember_feeds(app, "U1", {"cats-1": "pets", "graphs-2": "main"})
    saved_on_message(app, "U1", "D1", "1.1")
    found = paper_message(app, "U1", "D1", "1.1")
    assert found.rec.feed == "pets" and found.marks.saved
    assert found.rec.reason == "Matches your interest “cats”"
    assert paper_message(app, "U1", "D1", "1.2").rec.feed == "main"


def test_without_named_feeds_a_rewritten_message_names_no_feed(app):
    show(app, "U1", "cats-1", "1.1")
    assert paper_message(app, "U1", "D1", "1.1").rec.feed is None


# -- forget, with a second thought -----------------------------------------------------------------

def test_forget_counts_what_it_would_delete_and_deletes_nothing(app):
    from bot.usecases import follow, record_feedback
    from bot.usecases.forget import stored_about
    from bot.usecases.mutes import mute

    follow(app, "U1", "cats, whiskers")
    add_feed(app, "U1", "pets: dogs")
    mute(app, "U1", "blockchain")
    record_feedback(app, "U1", "cats-1", 1)
    record_feedback(app, "U1", "cats-2", -1)
    show(app, "U1", "cats-3", "1.1")
    saved_on_message(app, "U1", "D1", "1.1")
    before = app.store.rows_about("U1")
    stored = stored_about(app, "U1")
    assert (stored.topics, stored.feeds, stored.muted, stored.liked, stored.disliked, stored.saved,
            stored.shown) == (2, 1, 1, 1, 1, 1, 1)  # a save is no like
    assert stored.rows == sum(before.values()) and not stored.nothing
    assert app.store.rows_about("U1") == before
    assert stored_about(app, "U2").nothing


def test_a_ticket_forgets_only_its_holder_only_while_fresh_and_only_once(app):
    from datetime import UTC, datetime, timedelta

    from bot.usecases import follow
    from bot.usecases.forget import TICKET_LIFETIME, forget_ticket, forget_with_ticket

    now = datetime(2030, 1, 1, 12, tzinfo=UTC)
    for user in ("U1", "U2"):
        follow(app, user, "cats")
    ticket = forget_ticket("U1", now)
    assert forget_with_ticket(app, "U2", ticket, now) is None  # someone else's
    assert forget_with_ticket(app, "U1", ticket, now + TICKET_LIFETIME + timedelta(seconds=1)) is None
    for forged in ("", "U1", "U1:x:y", f"U1:{'9' * 30}:n", "U1:1:2:3"):
        assert forget_with_ticket(app, "U1", forged, now) is None
    assert any(app.store.rows_about("U1").values())
    assert forget_with_ticket(app, "U1", ticket, now + timedelta(minutes=14)) > 0
    assert not any(app.store.rows_about("U1").values())
    follow(app, "U1", "dogs")  # back again: the same ticket pressed again deletes nothing
    assert forget_with_ticket(app, "U1", ticket, now + timedelta(minutes=14)) is None
    assert app.store.get_topics("U1") == ["dogs"] and app.store.get_topics("U2") == ["cats"]
    assert forget_with_ticket(app, "U1", forget_ticket("U1", now), now) > 0  # a new one works


# -- a compact digest: one message, several papers --------------------------------------------------

def test_a_click_naming_its_paper_acts_on_that_paper_of_a_compact_message_only(app):
    from bot.usecases.reactions import Named, rate_message, reaction_added
    from bot.usecases.saved import toggle_saved_on_message

    for pid in ("cats-1", "cats-2", "graphs-2"):
        show(app, "U1", pid, "5.5")  # one compact message holding three papers
    assert rate_message(app, "U1", "D1", "5.5", 1, Named("cats-2")).id == "cats-2"
    assert toggle_saved_on_message(app, "U1", "D1", "5.5", Named("graphs-2")).paper.id == "graphs-2"
    found = paper_message(app, "U1", "D1", "5.5", Named("graphs-2"))
    assert found.rec.paper.id == "graphs-2" and found.marks.saved
    assert {f.paper_id: f.value for f in app.store.get_feedback("U1")} == {"cats-2": 1}  # a save is no like
    # A paper not on this message, or someone else's click, names nothing.
    show(app, "U1", "robots-3", "6.6")
    assert rate_message(app, "U1", "D1", "5.5", 1, Named("robots-3")) is None
    assert rate_message(app, "U2", "D1", "5.5", 1, Named("cats-1")) is None
    # A reaction can't say which of its papers it means: ignored; on a message of one paper it counts.
    assert reaction_added(app, "U1", "D1", "5.5", "-1") is None
    assert reaction_added(app, "U1", "D1", "6.6", "-1") == "robots-3"
    assert {f.paper_id: f.value for f in app.store.get_feedback("U1")} == {
        "cats-2": 1, "robots-3": -1}
