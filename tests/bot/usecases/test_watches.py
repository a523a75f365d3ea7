"""Scoop watch (bot/usecases/watches.py): a watch's bar set from how close recent papers came, an alert
once per watch and paper, one a day unless closer, "be stricter" raising the bar, a channel's watch, and
posting that neither loses nor repeats an alert when a process dies mid-send."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from bot.usecases import watches as w
from storage import Paper
from tests.bot.usecases.conftest import workspace_context

NOW = datetime.now(UTC).replace(microsecond=0)  # the papers' window is counted from their day added
REEF = ("Coral reef bleaching under marine heat waves. We measure how reef corals lose their algae when the "
        "sea warms, with thermal stress counted in degree heating weeks across reef sites.")


def reef(i: int) -> Paper:
    """A paper of the same field, each touching the project a little."""
    extra = ["fish", "kelp", "seagrass", "plankton", "turtles", "sharks", "mangroves", "sponges"][i % 8]
    return Paper(id=f"reef-{i}", title=f"Coral reefs and {extra} ({i})",
                 abstract=f"Coral reef {extra} survey number {i}. We count {extra} near reef corals.")


def other(i: int) -> Paper:
    return Paper(id=f"other-{i}", title=f"Graph networks ({i})",
                 abstract=f"Graph neural networks pass messages between nodes, setting {i}.")


@pytest.fixture
def app(any_store):
    return workspace_context(any_store, [reef(i) for i in range(30)] + [other(i) for i in range(30)])


def arrive(ctx, *papers: Paper, at: datetime = NOW) -> int:
    """Papers stored by an ingest, then compared with every watch as the ingest ends."""
    ctx.store.upsert_papers(list(papers))
    ctx.engine.refresh()
    return w.compare_new_papers(ctx, at)


CLOSE = Paper(id="scoop-1", title="Coral bleaching in marine heat waves",
              abstract="Reef corals lose their algae when the sea warms. Thermal stress in degree heating "
                       "weeks predicts bleaching across reef sites.")
CLOSER = Paper(id="scoop-2", title="Coral reef bleaching under marine heat waves",
               abstract="We measure how reef corals lose their algae when the sea warms. Thermal stress is "
                        "counted in degree heating weeks across reef sites.")


class Posts:
    """A stand-in for Slack: what was posted, and where."""

    def __init__(self):
        self.posted: list[w.WatchNews] = []

    def __call__(self, news: w.WatchNews) -> tuple[str, str]:
        self.posted.append(news)
        return ("D" + news.alert.user_id, f"{len(self.posted)}.0")


def nothing_landed(alert):
    return None


def test_bad_watches_say_what_was_wrong(app):
    with pytest.raises(w.EmptyWatch):
        w.add_watch(app, "U1", "Title", "   ", NOW)
    with pytest.raises(w.WatchTooLong) as caught:
        w.add_watch(app, "U1", None, "x" * 3001, NOW)
    assert (caught.value.most, caught.value.length) == (3000, 3001)
    assert w.add_watch(app, "U1", None, "x" * 3000, NOW).text == "x" * 3000
    with pytest.raises(w.NoSuchWatch) as gone:
        w.remove_watch(app, "U1", 9)
    assert (gone.value.number, gone.value.count) == (9, 1)
    for _ in range(w.MOST_WATCHES - 1):
        w.add_watch(app, "U1", None, "more", NOW)
    with pytest.raises(w.TooManyWatches):
        w.add_watch(app, "U1", None, "one too many", NOW)
    assert w.remove_watch(app, "U1", 1).text == "x" * 3000
    assert len(w.watches(app, "U1")) == w.MOST_WATCHES - 1


def test_the_bar_comes_from_how_close_recent_papers_came(app):
    watch = w.add_watch(app, "U1", "Reef bleaching", REEF, NOW)
    bar = w.watch_bar(app, watch, NOW)
    assert bar is not None and bar > w.LEAST  # thirty reef papers came somewhat close: the bar is above them
    # A paper of the field, as close as the usual ones, brings nothing; the project's own scoop does.
    assert arrive(app, reef(31)) == 0
    assert arrive(app, CLOSE) == 1
    [alert] = app.store.due_watch_alerts(w.iso_utc(NOW))
    assert alert.paper_id == "scoop-1" and alert.score / w.SCALE >= bar


def test_papers_stored_before_the_watch_never_alert(app):
    app.store.upsert_papers([CLOSE])
    app.engine.refresh()
    w.add_watch(app, "U1", "Reef bleaching", REEF, NOW)
    assert w.compare_new_papers(app, NOW) == 0


def test_an_alert_is_posted_once_with_the_overlapping_passages(app):
    w.add_watch(app, "U1", "Reef bleaching", REEF, NOW)
    arrive(app, CLOSE)
    assert w.compare_new_papers(app, NOW) == 0  # compared again: nothing new
    post = Posts()
    assert w.send_watch_alerts(app, NOW, post, nothing_landed, "P1") == 1
    assert w.send_watch_alerts(app, NOW, post, nothing_landed, "P2") == 0
    [news] = post.posted
    assert news.paper.id == "scoop-1" and 2 <= len(news.passages) <= 3
    assert news.passages[0].paper in CLOSE.abstract and news.passages[0].watch in REEF
    assert app.store.get_watch_alert("U1", news.watch.watch_id, "scoop-1").status == "sent"


def test_a_process_dead_mid_send_neither_loses_nor_repeats_its_alert(app):
    watch = w.add_watch(app, "U1", "Reef bleaching", REEF, NOW)
    arrive(app, CLOSE)
    [alert] = app.store.due_watch_alerts(w.iso_utc(NOW))
    assert app.store.take_watch_alert(alert, "dead", w.iso_utc(NOW + w.LEASE), w.iso_utc(NOW))
    post = Posts()
    assert w.send_watch_alerts(app, NOW, post, nothing_landed, "P2") == 0  # its lease still runs
    later = NOW + w.LEASE + timedelta(seconds=1)
    # It had posted before dying: the next process finds its message and only records it.
    assert w.send_watch_alerts(app, later, post, lambda a: ("DU1", "9.9"), "P2") == 0
    assert post.posted == []
    assert app.store.get_watch_alert("U1", watch.watch_id, "scoop-1").message_ts == "9.9"


def test_a_process_dead_before_posting_leaves_it_to_the_next(app):
    w.add_watch(app, "U1", "Reef bleaching", REEF, NOW)
    arrive(app, CLOSE)
    [alert] = app.store.due_watch_alerts(w.iso_utc(NOW))
    app.store.take_watch_alert(alert, "dead", w.iso_utc(NOW + w.LEASE), w.iso_utc(NOW))
    post = Posts()
    later = NOW + w.LEASE + timedelta(seconds=1)
    assert w.send_watch_alerts(app, later, post, nothing_landed, "P2") == 1
    assert w.send_watch_alerts(app, later, post, nothing_landed, "P3") == 0
    assert len(post.posted) == 1


def test_a_failed_post_is_tried_again(app):
    w.add_watch(app, "U1", "Reef bleaching", REEF, NOW)
    arrive(app, CLOSE)

    def refuse(news):
        raise OSError("Slack is away")

    assert w.send_watch_alerts(app, NOW, refuse, nothing_landed, "P1") == 0
    post = Posts()
    assert w.send_watch_alerts(app, NOW, post, nothing_landed, "P1") == 1


def test_one_alert_a_day_unless_closer_than_any_before(app):
    watch = w.add_watch(app, "U1", "Reef bleaching", REEF, NOW)
    assert arrive(app, CLOSE) == 1
    same_again = Paper(id="scoop-3", title=CLOSE.title + " again", abstract=CLOSE.abstract)
    assert arrive(app, same_again, at=NOW + timedelta(hours=2)) == 0  # as close, the same day: wait
    assert arrive(app, CLOSER, at=NOW + timedelta(hours=3)) == 1  # closer than any before: at once
    day_after = Paper(id="scoop-4", title=CLOSE.title + " revisited", abstract=CLOSE.abstract)
    assert arrive(app, day_after, at=NOW + timedelta(days=1, hours=4)) == 1
    alerts = app.store.due_watch_alerts(w.iso_utc(NOW + timedelta(days=2)))
    assert [a.paper_id for a in alerts] == ["scoop-1", "scoop-2", "scoop-4"]
    assert app.store.get_watches("U1")[0].watch_id == watch.watch_id


def test_be_stricter_raises_the_bar(app):
    watch = w.add_watch(app, "U1", "Reef bleaching", REEF, NOW)
    arrive(app, CLOSE)
    before = w.watch_bar(app, watch, NOW)
    stricter = w.be_stricter(app, "U1", watch.watch_id, "scoop-1")
    assert stricter.stricter == 1
    after = w.watch_bar(app, stricter, NOW)
    assert after is not None and before is not None and after > before
    assert after >= app.store.get_watch_alert("U1", watch.watch_id, "scoop-1").score / w.SCALE
    assert w.be_stricter(app, "U1", watch.watch_id, "scoop-1").stricter == 1  # a second click: no more
    # A paper as close as the one called not close no longer alerts, the next day either.
    as_close = Paper(id="scoop-5", title=CLOSE.title, abstract=CLOSE.abstract)
    assert arrive(app, as_close, at=NOW + timedelta(days=2)) == 0
    assert w.keep_posted(app, "U1", watch.watch_id, "scoop-1").verdict == "close"
    with pytest.raises(w.NoSuchAlert):
        w.be_stricter(app, "U1", watch.watch_id, "nope")


def test_a_channels_watch_alerts_the_channel(app):
    w.add_watch(app, "C42", "Reef bleaching", REEF, NOW)
    arrive(app, CLOSE)
    post = Posts()
    w.send_watch_alerts(app, NOW, post, nothing_landed, "P1")
    assert [n.alert.user_id for n in post.posted] == ["C42"]
    assert w.watches(app, "U1") == []


def test_every_workspaces_watches_are_compared(app):
    other = app.for_workspace("T2")
    w.add_watch(other, "U9", None, REEF, NOW)
    assert arrive(app, CLOSE) == 1
    assert [a.user_id for a in other.store.due_watch_alerts(w.iso_utc(NOW))] == ["U9"]
    assert app.store.due_watch_alerts(w.iso_utc(NOW)) == []


def test_forgetting_deletes_the_watches_first_and_says_so(app):
    from bot.slack.views.forget import what_goes
    from bot.usecases.forget import forget, stored_about

    w.add_watch(app, "U1", "Reef bleaching", REEF, NOW)
    arrive(app, CLOSE)
    stored = stored_about(app, "U1")
    assert stored.watches == 1 and what_goes(stored).startswith("1 project watch, ")
    deleted = app.store.forget_person("U1")
    assert list(deleted)[:2] == ["watches", "watch_alerts"] and deleted["watch_alerts"] == 1
    assert w.watches(app, "U1") == [] and forget(app, "U1") == 0


def test_an_ingest_compares_its_papers_with_the_watches_as_it_ends(app, tmp_path):
    import json

    from bot.usecases.ingest import ingest

    w.add_watch(app, "U1", "Reef bleaching", REEF, NOW)
    feed = tmp_path / "scoop.jsonl"
    feed.write_text(json.dumps({"id": CLOSE.id, "title": CLOSE.title, "abstract": CLOSE.abstract}) + "\n",
                    encoding="utf-8")
    [report] = ingest(app, [str(feed)], clock=lambda: NOW)
    assert report.added == 1
    assert [a.paper_id for a in app.store.due_watch_alerts(w.iso_utc(NOW))] == [CLOSE.id]
