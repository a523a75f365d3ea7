"""What the admin channel reads (issue 26): the digests that failed lately; and a person's wish for quiet on
days nothing matched. Each on both backends (the newest paper's arrival: tests/storage/test_store.py)."""

from __future__ import annotations


def _end(store, user: str, day: str, status: str, at: str) -> None:
    owner = "host:1:1"
    store.start_digest(user, day, owner, "2026-07-15T09:00:00+00:00", "2026-07-15T08:00:00+00:00")
    assert store.finish_digest(user, day, owner, status, at, "no DM" if status == "failed" else None)


def test_failed_digests_are_this_workspace_s_failed_ones_of_recent_days_ended_since_a_moment(any_store):
    _end(any_store, "U1", "2026-07-15", "failed", "2026-07-15T08:30:00+00:00")
    _end(any_store, "U2", "2026-07-15", "sent", "2026-07-15T08:31:00+00:00")
    _end(any_store, "U3", "2026-07-14", "failed", "2026-07-14T08:30:00+00:00")  # ended the day before
    _end(any_store, "U4", "2026-07-16", "failed", "2026-07-15T23:30:00+00:00")  # a day ahead of UTC
    other = any_store.for_workspace("T0OTHER")
    _end(other, "U5", "2026-07-15", "failed", "2026-07-15T08:30:00+00:00")
    failed = any_store.failed_digests("2026-07-14", "2026-07-15T00:00:00+00:00")
    assert sorted((d.user_id, d.local_date, d.error) for d in failed) == [
        ("U1", "2026-07-15", "no DM"), ("U4", "2026-07-16", "no DM")]
    assert any_store.failed_digests("2026-07-16", "2026-07-15T00:00:00+00:00")[0].user_id == "U4"


def test_quiet_days_are_a_person_s_setting_off_by_default(any_store):
    any_store.ensure_person("U1")
    assert any_store.get_person("U1").digest_quiet is False
    any_store.set_person_settings("U1", digest_quiet=True)
    assert any_store.get_person("U1").digest_quiet is True
