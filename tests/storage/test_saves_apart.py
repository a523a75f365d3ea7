"""m020_saves_apart on both backends: the likes a save made go, every other row stays."""

from __future__ import annotations

from storage.schema_steps import STEPS
from tests.storage.test_schema_steps import migrate, rows

BEFORE = STEPS[:[step.name for step in STEPS].index("m020_saves_apart")]
AT = "2026-07-01T09:00:00+00:00"


def test_likes_that_only_a_save_made_stop_counting_and_the_rest_stays(backend, store_target):
    migrate(backend, store_target, BEFORE)
    feedback = [("T1", "U1", "p1", 1), ("T1", "U1", "p2", 1), ("T1", "U1", "p3", -1), ("T1", "U1", "p4", 1),
                ("T2", "U1", "p1", 1), ("T1", "U2", "p1", 1)]
    # p1: the save made the like (T1's U1 only); p2: liked on its own (the flag was cleared); p3: disliked
    # since the save made a like; p4: liked, never saved.
    saved = [("T1", "U1", "p1", 1), ("T1", "U1", "p2", 0), ("T1", "U1", "p3", 1), ("T2", "U1", "p1", 0)]
    for ws, user, paper, value in feedback:
        rows(backend, store_target, "insert into feedback (ws, user_id, paper_id, value, created_at)"
             f" values ('{ws}', '{user}', '{paper}', {value}, '{AT}')")
    for ws, user, paper, flag in saved:
        rows(backend, store_target, "insert into saved (ws, user_id, paper_id, saved_at, like_from_save)"
             f" values ('{ws}', '{user}', '{paper}', '{AT}', {flag})")
    assert "m020_saves_apart" in migrate(backend, store_target, STEPS)
    left = rows(backend, store_target, "select ws, user_id, paper_id, value from feedback")
    assert sorted(left) == sorted(f for f in feedback if f != ("T1", "U1", "p1", 1))
    assert sorted(rows(backend, store_target, "select ws, user_id, paper_id, like_from_save from saved")) == [
        (ws, user, paper, 0) for ws, user, paper, _ in sorted(saved)]
