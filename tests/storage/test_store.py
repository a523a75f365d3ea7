"""The store contract: every test taking ``any_store`` runs on SQLite and on PostgreSQL (see conftest.py).

The tests at the end, under "SQLite only", check what only a SQLite file has: its migrations table and WAL,
the bytes left in the file and its log, dynamic column types, file damage and the in-process writer lock.
PostgreSQL's own (concurrency, errors, migrations) are in test_postgres.py.
"""

import threading
from datetime import timedelta

import pytest

import storage.sqlite
from storage import PERSONAL_TABLES, Paper, SqliteStore, StoreBusy, StoreUnavailable
from storage.migrations import migrations
from tests.storage.conftest import count_rows, dispose, tables_with_column

# -- the contract: both backends ----------------------------------------------------------------------


def test_upsert_adds_then_updates_by_id(any_store):
    assert any_store.upsert_papers([Paper(id="p1", abstract="first text")]).added == 1
    second = Paper(id="p1", abstract="second text")
    counts = any_store.upsert_papers([second, second])
    assert (counts.added, counts.updated, counts.unchanged) == (0, 1, 1)
    assert any_store.get_paper("p1").abstract == "second text"
    assert any_store.count_papers() == 1


def test_arxiv_versions_and_sources_are_one_paper_and_newest_wins(any_store):
    any_store.upsert_papers([Paper(id="arxiv:2401.00001", abstract="v2 text", arxiv_id="2401.00001",
                               arxiv_version=2)])
    counts = any_store.upsert_papers([
        Paper(id="feed-xyz", abstract="v1 text from a feed", arxiv_id="2401.00001", arxiv_version=1),
        Paper(id="other-source", abstract="v3 text", title="T", arxiv_id="2401.00001", arxiv_version=3),
    ])
    assert (counts.added, counts.updated, counts.unchanged) == (0, 1, 1)
    paper = any_store.find_paper_by_arxiv_id("2401.00001")
    assert paper.id == "arxiv:2401.00001"
    assert (paper.abstract, paper.arxiv_version, paper.title) == ("v3 text", 3, "T")
    assert any_store.count_papers() == 1


def test_changes_bump_the_sequence_so_new_papers_can_be_found(any_store):
    any_store.upsert_papers([Paper(id="a", abstract="x"), Paper(id="b", abstract="y")])
    seq = any_store.max_paper_seq()
    any_store.upsert_papers([Paper(id="a", abstract="x"), Paper(id="c", abstract="z"),
                         Paper(id="b", abstract="y2")])
    assert [p.id for _, p in any_store.papers_changed_since(seq)] == ["c", "b"]


def test_a_failing_use_case_writes_nothing(any_store):
    try:
        with any_store.transaction():
            any_store.set_feedback("U1", "p", 1)
            raise RuntimeError("boom")
    except RuntimeError:
        pass
    assert any_store.get_feedback("U1") == []


def test_topics_are_case_insensitive_and_ordered(any_store):
    assert any_store.add_topics("U1", ["GNNs", "diffusion"]) == ["GNNs", "diffusion"]
    assert any_store.add_topics("U1", ["gnns", "robots"]) == ["robots"]
    assert any_store.get_topics("U1") == ["GNNs", "diffusion", "robots"]
    assert any_store.remove_topic("U1", "DIFFUSION") == ["diffusion"]
    assert any_store.remove_all_topics("U1") == 2


def test_feedback_replaces_and_withdraws_only_the_matching_value(any_store):
    any_store.set_feedback("U1", "p", 1)
    any_store.set_feedback("U1", "p", -1)
    assert [(f.paper_id, f.value) for f in any_store.get_feedback("U1")] == [("p", -1)]
    assert not any_store.remove_feedback("U1", "p", 1)
    assert any_store.remove_feedback("U1", "p", -1)


def test_shown_papers_map_back_from_their_message(any_store):
    any_store.mark_shown("U1", "p1", "why", "D1", "123.456")
    assert any_store.shown_paper_ids("U1") == {"p1"}
    assert any_store.paper_for_message("D1", "123.456") == ("U1", "p1")
    assert any_store.paper_for_message("D1", "999") is None


def test_forget_leaves_no_row_in_any_personal_table(any_store):
    any_store.set_digest_schedule("U1", "09:00", True)
    any_store.add_topics("U1", ["x"])
    any_store.set_feedback("U1", "p", 1)
    any_store.mark_shown("U1", "p", "r")
    assert any_store.start_digest("U1", "2026-01-01", "a:1:1", "2026-01-01T09:10:00+00:00",
                                  "2026-01-01T09:00:00+00:00")
    any_store.set_feedback("U2", "p", 1)
    any_store.record_home_opened("U1")
    any_store.forget_person("U1")
    assert all(n == 0 for n in any_store.rows_about("U1").values())
    assert any_store.rows_about("U2")["feedback"] == 1
    # Every table with a user_id column is covered by forgetting.
    assert tables_with_column(any_store, "user_id") == set(PERSONAL_TABLES)


def test_artifacts_are_versioned(any_store):
    assert any_store.load_artifact("m") is None
    assert any_store.save_artifact("m", b"one") == 1
    assert any_store.save_artifact("m", b"two") == 2
    assert any_store.load_artifact("m") == (2, b"two")


def test_each_thread_gets_its_own_connection(any_store):
    store = any_store
    errors = []

    def work(n):
        try:
            for i in range(20):
                with store.transaction():
                    store.set_feedback(f"U{n}", f"p{i}", 1)
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)
        finally:
            store.close()

    threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert count_rows(store, "feedback") == 80


def test_digest_claim_rows_change_only_for_their_owner(any_store):
    any_store.start_digest("U1", "2026-07-15", "a:1:1", "2026-07-15T08:10:00+00:00",
                           "2026-07-15T08:00:00+00:00")
    assert any_store.digest_statuses("2026-07-14") == {("U1", "2026-07-15"): "sending"}
    assert any_store.digest_statuses("2026-07-16") == {}
    assert any_store.set_digest_papers("U1", "2026-07-15", "a:1:1", ["p1", "p2"], {"p1": "why"})
    assert not any_store.set_digest_papers("U1", "2026-07-15", "b:2:2", ["p3"], {})
    assert any_store.record_digest_failure("U1", "2026-07-15", "a:1:1", "p2") == 1
    assert any_store.record_digest_failure("U1", "2026-07-15", "a:1:1", "p2") == 2
    assert any_store.release_digest("U1", "2026-07-15", "a:1:1", "2026-07-15T08:12:00+00:00") == 1
    any_store.take_over_digest("U1", "2026-07-15", "b:2:2", "2026-07-15T08:30:00+00:00")
    assert not any_store.finish_digest("U1", "2026-07-15", "a:1:1", "sent", "2026-07-15T08:20:00+00:00")
    assert any_store.finish_digest("U1", "2026-07-15", "b:2:2", "sent", "2026-07-15T08:20:00+00:00")
    record = any_store.get_digest("U1", "2026-07-15")
    assert (record.status, record.owner, record.papers, record.reasons, record.failures, record.attempts) == (
        "sent", "b:2:2", ["p1", "p2"], {"p1": "why"}, {"p2": 2}, 1)
    assert not any_store.renew_digest_lease("U1", "2026-07-15", "b:2:2", "2026-07-15T09:00:00+00:00")  # ended


def test_recent_papers_and_which_were_shown(any_store):
    any_store.upsert_papers([Paper(id="old", abstract="a", published="2019-05-01"),
                         Paper(id="new", abstract="b", published="2026-07-14"),
                         Paper(id="undated", abstract="c")])  # counts from when it was added: now
    assert any_store.recent_paper_ids("2026-07-11") == {"new", "undated"}
    any_store.mark_shown("U1", "new")
    assert any_store.shown_among("U1", ["old", "new", "nope"]) == {"new"}
    assert any_store.shown_among("U2", ["new"]) == set()


def test_a_claimed_key_is_refused_until_it_expires(any_store):
    assert any_store.claim_once("trigger:a", timedelta(minutes=15))
    assert not any_store.claim_once("trigger:a", timedelta(minutes=15))
    assert any_store.claim_once("trigger:gone", timedelta(seconds=-5))  # kept until 5 s ago: expired
    assert any_store.claim_once("trigger:gone", timedelta(minutes=15))  # so it may run again
    assert count_rows(any_store, "once_keys") == 2


def test_a_timezone_from_slack_never_creates_a_person(any_store):
    assert not any_store.record_timezone("UNEW", "Europe/Paris")
    assert any_store.get_person("UNEW") is None
    any_store.ensure_person("UNEW")
    assert any_store.record_timezone("UNEW", "Europe/Paris")
    assert any_store.get_person("UNEW").tz == "Europe/Paris"


def test_a_digest_is_started_once_and_a_second_start_says_so(any_store):
    lease, at = "2026-07-15T08:10:00+00:00", "2026-07-15T08:00:00+00:00"
    assert any_store.start_digest("U1", "2026-07-15", "a:1:1", lease, at) is True
    assert any_store.start_digest("U1", "2026-07-15", "b:2:2", lease, at) is False  # no error either
    assert any_store.get_digest("U1", "2026-07-15").owner == "a:1:1"


def test_a_posted_paper_is_recorded_only_by_the_digests_owner(any_store):
    lease, at = "2026-07-15T08:10:00+00:00", "2026-07-15T08:00:00+00:00"
    later, ended = "2026-07-15T08:30:00+00:00", "2026-07-15T08:01:00+00:00"
    any_store.upsert_papers([Paper(id="p1", title="One", abstract="a"),
                             Paper(id="p2", title="Two", abstract="b")])
    any_store.start_digest("U1", "2026-07-15", "a:1:1", lease, at)
    assert any_store.record_digest_header("U1", "2026-07-15", "a:1:1", "171.0", later)
    assert any_store.get_digest("U1", "2026-07-15").lease_until == later
    assert not any_store.record_posted("U1", "2026-07-15", "b:2:2", "p1", "why", "D1", "171.1", later)
    assert any_store.shown_paper_ids("U1") == set()  # not the owner: nothing written
    assert any_store.record_posted("U1", "2026-07-15", "a:1:1", "p1", "why", "D1", "171.1", lease)
    record = any_store.get_digest("U1", "2026-07-15")
    assert (record.status, record.lease_until) == ("sending", lease)
    assert any_store.paper_for_message("D1", "171.1") == ("U1", "p1")
    assert any_store.record_posted("U1", "2026-07-15", "a:1:1", "p2", "", "D1", "171.2", later, ended)
    record = any_store.get_digest("U1", "2026-07-15")
    assert (record.status, record.finished_at) == ("sent", ended)
    assert any_store.shown_paper_ids("U1") == {"p1", "p2"}
    # Finished: no longer anyone's to write to.
    assert not any_store.record_posted("U1", "2026-07-15", "a:1:1", "p1", "", "D1", "171.3", later)
    # Another workspace's U1 is someone else, with a digest of their own.
    elsewhere = any_store.for_workspace("T2")
    assert not elsewhere.record_posted("U1", "2026-07-15", "a:1:1", "p1", "", "D9", "171.4", later)
    elsewhere.start_digest("U1", "2026-07-15", "a:1:1", lease, at)
    assert elsewhere.record_posted("U1", "2026-07-15", "a:1:1", "p2", "", "D9", "171.5", later)
    assert elsewhere.shown_paper_ids("U1") == {"p2"}
    assert any_store.get_digest("U1", "2026-07-15").status == "sent"
    assert elsewhere.get_digest("U1", "2026-07-15").status == "sending"
    assert any_store.paper_for_message("D1", "171.1") == ("U1", "p1")


def test_unfinished_postponed_and_dropped_digests(any_store):
    lease, at = "2026-07-15T08:10:00+00:00", "2026-07-15T08:00:00+00:00"
    any_store.start_digest("U1", "2026-07-15", "a:1:1", lease, at)
    any_store.start_digest("U2", "2026-07-14", "a:1:1", lease, at)
    assert any_store.record_digest_header("U1", "2026-07-15", "a:1:1", "171.1")
    assert not any_store.postpone_digest("U1", "2026-07-15", "b:2:2", lease, "down")
    assert any_store.postpone_digest("U1", "2026-07-15", "a:1:1", "2026-07-15T08:20:00+00:00", "down")
    record = any_store.get_digest("U1", "2026-07-15")
    assert (record.owner, record.lease_until, record.outages, record.error, record.header_ts) == (
        None, "2026-07-15T08:20:00+00:00", 1, "down", "171.1")
    assert [(r.user_id, r.local_date) for r in any_store.unfinished_digests("2026-07-14")] == [
        ("U2", "2026-07-14"), ("U1", "2026-07-15")]
    any_store.drop_digest("U2", "2026-07-14", "b:2:2")  # not theirs: stays
    any_store.drop_digest("U2", "2026-07-14", "a:1:1")
    assert any_store.get_digest("U2", "2026-07-14") is None
    assert any_store.record_digest_failure("U9", "2026-07-15", "a:1:1", "p") == 0  # no such digest


def test_people_schedules_timezones_and_dm_channels(any_store):
    assert any_store.get_person("U1") is None
    assert any_store.ensure_person("U1").digest_enabled is False
    any_store.set_digest_schedule("U1", "09:30", True, since="2026-07-01T00:00:00+00:00")
    any_store.set_digest_schedule("U2", None, False)
    any_store.set_timezone("U1", "Europe/Paris")
    person = any_store.get_person("U1")
    assert (person.digest_time, person.digest_enabled, person.digest_since, person.tz) == (
        "09:30", True, "2026-07-01T00:00:00+00:00", "Europe/Paris")
    assert [p.user_id for p in any_store.list_people()] == ["U1", "U2"]
    assert [p.user_id for p in any_store.people_with_digests()] == ["U1"]
    assert any_store.timezone_checked_at("U1") is None
    assert any_store.record_timezone("U1", "Asia/Tokyo") and any_store.timezone_checked_at("U1")
    any_store.remember_dm_channel("U1", "D1")
    assert any_store.dm_channel("U1") == "D1" and any_store.dm_channel("U404") is None
    any_store.forget_dm_channel("D1")
    assert any_store.dm_channel("U1") is None


def test_feedback_version_moves_with_every_feedback_write(any_store):
    seen = [any_store.feedback_version()]
    for write in (lambda: any_store.set_feedback("U1", "p", 1), lambda: any_store.set_feedback("U1", "p", -1),
                  lambda: any_store.remove_feedback("U1", "p")):
        write()
        seen.append(any_store.feedback_version())
    assert len(set(seen)) == 4
    any_store.set_feedback("U1", "a", 1)
    any_store.set_feedback("U1", "b", 1)
    any_store.set_feedback("U2", "a", 1)
    any_store.set_feedback("U3", "c", -1)
    assert sorted(any_store.likes_by_person()) == [["a"], ["a", "b"]]


def test_paper_lookups_dates_and_the_feed(any_store):
    assert any_store.max_paper_seq() == 0 and any_store.count_papers() == 0
    any_store.upsert_papers([
        Paper(id="a", abstract="x", title="A", authors=["Ada", "Émile"], url="https://e.org/a",
              published="2026-01-02", categories=["cs.LG"], arxiv_id="2601.00001", arxiv_version=1),
        Paper(id="b", abstract="y")])
    assert any_store.get_papers(["b", "a", "zz", "a"]).keys() == {"a", "b"}
    assert any_store.get_papers([]) == {}
    paper = any_store.get_paper("a")
    assert (paper.authors, paper.categories, paper.title) == (["Ada", "Émile"], ["cs.LG"], "A")
    assert any_store.find_paper_by_url("https://e.org/a").id == "a"
    assert any_store.find_paper_by_url("https://e.org/zz") is None
    assert any_store.find_paper_by_arxiv_id("2699.99999") is None
    dates = any_store.paper_dates()
    assert dates["a"] == "2026-01-02" and len(dates["b"]) == 10
    changes = list(any_store.papers_changed_since(0))
    assert [p.id for _, p in changes] == ["a", "b"] and changes[-1][0] == any_store.max_paper_seq()
    assert list(any_store.papers_changed_since(any_store.max_paper_seq())) == []


def test_a_nested_transaction_that_fails_undoes_only_its_own_writes(any_store):
    with any_store.transaction():
        any_store.set_feedback("U1", "kept", 1)
        with pytest.raises(RuntimeError), any_store.transaction():
            any_store.set_feedback("U1", "undone", 1)
            raise RuntimeError("inner")
        any_store.add_topics("U1", ["also kept"])
    assert [f.paper_id for f in any_store.get_feedback("U1")] == ["kept"]
    assert any_store.get_topics("U1") == ["also kept"]


def test_daily_jobs_are_claimed_and_finished_by_their_owner(any_store):
    assert any_store.get_job("feed") is None
    any_store.start_job("feed", "2026-07-15", "a:1:1", "2026-07-15T06:10:00+00:00",
                        "2026-07-15T06:00:00+00:00")
    any_store.finish_job("feed", "b:2:2", "done", "2026-07-15T06:05:00+00:00")  # not theirs
    assert any_store.get_job("feed").status == "running"
    any_store.finish_job("feed", "a:1:1", "failed", "2026-07-15T06:05:00+00:00", "boom")
    job = any_store.get_job("feed")
    assert (job.day, job.status, job.owner, job.lease_until, job.error) == (
        "2026-07-15", "failed", "a:1:1", None, "boom")
    any_store.start_job("feed", "2026-07-16", "b:2:2", "2026-07-16T06:10:00+00:00",
                        "2026-07-16T06:00:00+00:00")
    job = any_store.get_job("feed")
    assert (job.day, job.status, job.owner, job.finished_at, job.error) == (
        "2026-07-16", "running", "b:2:2", None, None)


def test_a_saved_blob_may_be_empty(any_store):
    assert any_store.save_artifact("m", b"") == 1
    assert any_store.load_artifact("m") == (1, b"")
    assert any_store.artifact_version("m") == 1 and any_store.artifact_version("other") == 0


def test_open_store_picks_the_backend_from_the_target(store_target, backend):
    from storage import is_postgres_url, open_store

    store = open_store(store_target)
    try:
        assert is_postgres_url(store_target) == (backend == "postgres")
        assert isinstance(store, SqliteStore) == (backend == "sqlite")
        assert "@" not in store.path or ":" not in store.path.split("@")[0].split("//")[-1]  # no password
    finally:
        dispose(store)

# -- SQLite only ------------------------------------------------------------------------------------

def test_migrations_are_recorded_and_safe_to_rerun(tmp_path):
    path = tmp_path / "m.db"
    SqliteStore(path)
    again = SqliteStore(path)
    names = [r["name"] for r in again.db.query("select name from _sqlite_migrations")]
    assert names == [m.name for m in migrations._migrations] and names[0] == "m001_core"
    assert len(set(names)) == len(names)
    assert again.db.execute("pragma journal_mode").fetchone()[0] == "wal"


def test_a_write_waits_for_another_thread_s_then_gives_up_as_sqlite_would(tmp_path, monkeypatch):
    monkeypatch.setattr(storage.sqlite, "BUSY_SECONDS", 0.2)
    store = SqliteStore(tmp_path / "t.db")
    inside, release = threading.Event(), threading.Event()

    def hold():
        with store.transaction():
            store.set_feedback("U1", "p1", 1)
            inside.set()
            release.wait(5)
        store.close()

    holder = threading.Thread(target=hold)
    holder.start()
    inside.wait(5)
    with pytest.raises(StoreBusy, match="busy"):
        with store.transaction():
            store.set_feedback("U2", "p2", 1)
    release.set()
    holder.join()
    with store.transaction():  # free again
        store.set_feedback("U2", "p2", 1)
    assert store.db.execute("select count(*) from feedback").fetchone()[0] == 2


def test_a_forgotten_person_leaves_no_bytes_in_the_file_or_its_log(tmp_path):
    store = SqliteStore(tmp_path / "scrub.db")
    user = "UFORGOTTEN7Q"
    with store.transaction():
        store.ensure_person(user)
        store.add_topics(user, [f"topic {i}" for i in range(50)])
        for i in range(50):
            store.set_feedback(user, f"paper-{i}", 1)
            store.mark_shown(user, f"paper-{i}", "a reason", "D1", f"1.{i}")
    raw = b"".join(p.read_bytes() for p in tmp_path.glob("scrub.db*"))
    assert raw.count(user.encode()) > 100  # it was there, in the file or the log
    store.forget_person(user)
    raw = b"".join(p.read_bytes() for p in tmp_path.glob("scrub.db*"))
    assert raw.count(user.encode()) == 0
    store.close()


@pytest.mark.parametrize(("stored", "loaded"),
                         [(None, None), ("some text", b"some text"), (b"", b""), (42, b"42")])
def test_a_saved_blob_comes_back_as_bytes_or_none_whatever_the_row_holds(store, stored, loaded):
    store.save_artifact("m", b"one")
    with store.db.conn:
        store.db.execute("update artifacts set data = ? where name = 'm'", [stored])
    assert store.load_artifact("m") == (1, loaded)


def test_a_missing_folder_is_one_line_naming_the_database(tmp_path):
    path = tmp_path / "no" / "such" / "folder" / "x.db"
    with pytest.raises(StoreUnavailable) as caught:
        SqliteStore(path)
    assert str(path) in str(caught.value) and "\n" not in str(caught.value)


def test_a_file_that_is_not_a_database_is_one_line_naming_it(tmp_path):
    path = tmp_path / "bad.db"
    path.write_text("garbage\n" * 200)
    with pytest.raises(StoreUnavailable) as caught:
        SqliteStore(path)
    assert str(path) in str(caught.value) and "not a usable database" in str(caught.value)


def test_a_value_the_database_cant_hold_is_a_storage_error_not_the_drivers(any_store):
    from storage import StorageError

    try:  # SQLite holds a NUL in text; PostgreSQL can't, and says so as storage's own error
        any_store.add_topics("U1", ["bad\x00topic"])
    except StorageError as exc:
        assert "can't store that value" in str(exc)
    any_store.add_topics("U1", ["fine"])  # and the store carries on
    assert "fine" in any_store.get_topics("U1")


def test_newest_paper_added_is_when_the_last_new_paper_was_stored_not_updated(any_store, monkeypatch):
    import storage.postgres

    assert any_store.newest_paper_added() is None
    clock = iter(["2026-01-01T00:00:00+00:00", "2026-01-02T00:00:00+00:00", "2026-01-03T00:00:00+00:00"])
    for module in (storage.sqlite, storage.postgres):
        monkeypatch.setattr(module, "utcnow", lambda: next(clock))
    any_store.upsert_papers([Paper(id="a", abstract="x"), Paper(id="b", abstract="y")])
    assert any_store.newest_paper_added() == "2026-01-01T00:00:00+00:00"
    any_store.upsert_papers([Paper(id="c", abstract="z")])
    assert any_store.newest_paper_added() == "2026-01-02T00:00:00+00:00"
    any_store.upsert_papers([Paper(id="a", abstract="x, revised")])  # an update brings no new paper
    assert any_store.newest_paper_added() == "2026-01-02T00:00:00+00:00"
