import threading
from datetime import UTC, datetime, timedelta

from slack_sdk import WebClient

from bot.slack.delivery.digests import JOB_ID, TICK_SECONDS, DigestScheduler, Served, tick_trigger
from bot.state.context import Context
from stand_ins.waiting import wait_until


def test_ticks_fall_on_the_minute_and_half_minute_so_digests_are_not_late():
    now = datetime(2026, 3, 29, 0, 59, 47, 123456, tzinfo=UTC)
    trigger = tick_trigger(TICK_SECONDS, now)
    first = trigger.get_next_fire_time(None, now)
    assert first == datetime(2026, 3, 29, 1, 0, tzinfo=UTC)  # a digest due at 01:00 goes at 01:00:00
    second = trigger.get_next_fire_time(first, first + timedelta(microseconds=1))
    assert second == datetime(2026, 3, 29, 1, 0, 30, tzinfo=UTC)


def test_a_started_scheduler_catches_up_at_once_and_stays_on_the_grid(tmp_path):
    ctx = Context.open(str(tmp_path / "p.db"))
    client = WebClient(token="xoxb-unused", base_url="http://127.0.0.1:9/")
    scheduler = DigestScheduler(ctx, lambda: [Served(ctx.workspace, client)])
    try:
        scheduler.start()
        wait_until(lambda: scheduler.runs >= 1, 10, "the catch-up run, with nobody due", pause=0.01)
        assert scheduler.runs == 1
        upcoming = scheduler._scheduler.get_job(JOB_ID).next_run_time
        assert upcoming.second in (0, 30) and upcoming.microsecond == 0
        assert upcoming - datetime.now(UTC) <= timedelta(seconds=TICK_SECONDS)
    finally:
        scheduler.shutdown()
        ctx.store.close()


def test_a_tick_serves_only_workspaces_no_other_tick_is_serving(tmp_path, monkeypatch):
    """Tick 1 takes A and B; B's run ends while A's goes on; tick 2 takes B (not A); when tick 1 ends,
    B stays taken by tick 2, and a third tick finds nothing to take."""
    ctx = Context.open(str(tmp_path / "p.db"))
    client = WebClient(token="xoxb-unused", base_url="http://127.0.0.1:9/")
    served: list[list[str]] = []
    a_waits, b_done, second_running, second_may_end = (threading.Event() for _ in range(4))

    def serve(ctx, workspaces, feeds, *, finished, **options):
        names = [w.ws for w in workspaces]
        served.append(names)
        if "A" in names:  # tick 1: B ends at once, A waits until tick 2 has taken B
            finished("B")
            b_done.set()
            a_waits.wait(10)
            finished("A")
        elif names:  # tick 2
            second_running.set()
            second_may_end.wait(10)
            for name in names:
                finished(name)
        return None

    monkeypatch.setattr("bot.slack.delivery.digests.serve_workspaces", serve)
    scheduler = DigestScheduler(ctx, lambda: [Served("A", client), Served("B", client)])
    try:
        first = threading.Thread(target=scheduler.tick)
        first.start()
        assert b_done.wait(10)
        second = threading.Thread(target=scheduler.tick)
        second.start()
        assert second_running.wait(10)
        a_waits.set()
        first.join(10)
        scheduler.tick()  # A is free again, B is still tick 2's
        second_may_end.set()
        second.join(10)
        assert served == [["A", "B"], ["B"], ["A"]]
    finally:
        a_waits.set()
        second_may_end.set()
        scheduler.shutdown()
        ctx.store.close()
