"""Scoop watches (``watches``, ``watch_alerts``) on both backends: a person's own, an alert once per watch and
paper, one a day unless closer, a lease to post it that a dead process gives up, forgotten first."""

from storage.models import WatchAlert

DAY1 = "2026-03-02T00:00:00+00:00"
DAY2 = "2026-03-03T00:00:00+00:00"


def _alert(store, paper_id: str) -> WatchAlert:
    found = store.get_watch_alert("U1", "w1", paper_id)
    assert found is not None
    return found


def test_watches_are_each_persons_oldest_first(any_store):
    assert any_store.add_watch("U1", "w1", "Reefs", "coral reef heat", 5, "2026-03-01T10:00:00+00:00")
    assert not any_store.add_watch("U1", "w1", "again", "x", 5, "2026-03-01T10:00:00+00:00")
    any_store.add_watch("U1", "w2", None, "glacier melt", 5, "2026-03-01T11:00:00+00:00")
    any_store.add_watch("U2", "w3", None, "other", 5, "2026-03-01T09:00:00+00:00")
    assert [w.watch_id for w in any_store.get_watches("U1")] == ["w1", "w2"]
    assert [w.user_id for w in any_store.watches_everywhere()] == ["U1", "U1", "U2"]
    any_store.set_watch_seen("U1", "w1", 9)
    any_store.set_watch_seen("U1", "w1", 7)  # never goes back
    assert any_store.get_watches("U1")[0].seen_seq == 9
    assert any_store.remove_watch("U1", "w2") and not any_store.remove_watch("U1", "w2")
    assert [w.watch_id for w in any_store.get_watches("U1")] == ["w1"]


def test_an_alert_is_once_per_paper_and_one_a_day_unless_closer(any_store):
    any_store.add_watch("U1", "w1", None, "coral reef heat", 0, DAY1)
    at = "2026-03-02T08:00:00+00:00"
    assert any_store.record_watch_alert("U1", "w1", "p1", 400_000, at, DAY1)
    assert not any_store.record_watch_alert("U1", "w1", "p1", 900_000, at, DAY1)  # that paper: told
    assert not any_store.record_watch_alert("U1", "w1", "p2", 300_000, at, DAY1)  # today's taken
    assert any_store.record_watch_alert("U1", "w1", "p3", 500_000, at, DAY1)  # closer than any before
    assert any_store.record_watch_alert("U1", "w1", "p4", 200_000, "2026-03-03T08:00:00+00:00", DAY2)
    assert any_store.get_watches("U1")[0].best == 500_000
    assert [a.paper_id for a in any_store.due_watch_alerts(at)] == ["p1", "p3", "p4"]


def test_posting_an_alert_is_a_lease_a_dead_process_gives_up(any_store):
    any_store.add_watch("U1", "w1", None, "coral reef heat", 0, DAY1)
    any_store.record_watch_alert("U1", "w1", "p1", 400_000, "2026-03-02T08:00:00+00:00", DAY1)
    alert = _alert(any_store, "p1")
    now, later = "2026-03-02T08:00:10+00:00", "2026-03-02T08:10:00+00:00"
    assert any_store.take_watch_alert(alert, "A", "2026-03-02T08:05:00+00:00", now)
    assert not any_store.take_watch_alert(alert, "B", "2026-03-02T08:05:00+00:00", now)  # A holds it
    assert any_store.due_watch_alerts(now) == []
    # A died mid-send: once its lease ran out, B takes it over (and knows it was begun before).
    [again] = any_store.due_watch_alerts(later)
    assert any_store.take_watch_alert(again, "B", "2026-03-02T08:15:00+00:00", later)
    assert _alert(any_store, "p1").attempts == 2
    assert not any_store.finish_watch_alert(alert, "A", "D1", "1.1", later)  # A lost it
    assert any_store.finish_watch_alert(alert, "B", "D1", "1.2", later)
    sent = _alert(any_store, "p1")
    assert (sent.status, sent.channel, sent.message_ts) == ("sent", "D1", "1.2")
    assert any_store.due_watch_alerts("2026-03-09T00:00:00+00:00") == []


def test_a_released_alert_is_due_again_and_a_failed_one_never(any_store):
    any_store.add_watch("U1", "w1", None, "coral", 0, DAY1)
    any_store.record_watch_alert("U1", "w1", "p1", 1, "2026-03-02T08:00:00+00:00", DAY1)
    alert = _alert(any_store, "p1")
    any_store.take_watch_alert(alert, "A", "2026-03-02T08:05:00+00:00", DAY1)
    assert any_store.release_watch_alert(alert, "A")
    assert [a.status for a in any_store.due_watch_alerts(DAY1)] == ["due"]
    any_store.take_watch_alert(alert, "A", "2026-03-02T08:05:00+00:00", DAY1)
    assert any_store.release_watch_alert(alert, "A", failed=True)
    assert any_store.due_watch_alerts("2026-03-09T00:00:00+00:00") == []


def test_verdicts_and_stricter(any_store):
    any_store.add_watch("U1", "w1", None, "coral", 0, DAY1)
    any_store.record_watch_alert("U1", "w1", "p1", 420_000, "2026-03-02T08:00:00+00:00", DAY1)
    assert any_store.set_watch_verdict("U1", "w1", "p1", "not_close")
    assert not any_store.set_watch_verdict("U1", "w1", "p9", "close")
    assert any_store.make_watch_stricter("U1", "w1", 420_000)
    assert any_store.make_watch_stricter("U1", "w1", 100_000)  # the floor stays the highest
    watch = any_store.get_watches("U1")[0]
    assert (watch.stricter, watch.floor) == (2, 420_000)
    assert _alert(any_store, "p1").verdict == "not_close"
    assert not any_store.make_watch_stricter("U1", "nope", 1)


def test_watches_are_per_workspace_and_forgotten_first(any_store):
    other = any_store.for_workspace("T2")
    any_store.add_watch("U1", "w1", "Reefs", "coral reef heat", 0, DAY1)
    other.add_watch("U1", "w1", None, "theirs", 0, DAY1)
    any_store.record_watch_alert("U1", "w1", "p1", 1, DAY1, DAY1)
    assert [w.text for w in other.get_watches("U1")] == ["theirs"]
    assert any_store.rows_about("U1").get("watches") == 1
    assert any_store.person_rows("U1")["watches"][0]["text"] == "coral reef heat"
    deleted = any_store.forget_person("U1")
    assert list(deleted)[:2] == ["watches", "watch_alerts"]
    assert (deleted["watches"], deleted["watch_alerts"]) == (1, 1)
    assert any_store.get_watches("U1") == [] and len(other.get_watches("U1")) == 1
