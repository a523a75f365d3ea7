import threading
from datetime import timedelta

import pytest

import storage.sqlite
from storage import PERSONAL_TABLES, Paper, Store, StoreBusy, StoreUnavailable
from storage.migrations import migrations


def test_migrations_are_recorded_and_safe_to_rerun(tmp_path):
    path = tmp_path / "m.db"
    Store(path)
    again = Store(path)
    names = [r["name"] for r in again.db.query("select name from _sqlite_migrations")]
    assert names == [m.name for m in migrations._migrations] and names[0] == "m001_core"
    assert len(set(names)) == len(names)
    assert again.db.execute("pragma journal_mode").fetchone()[0] == "wal"


def test_upsert_adds_then_updates_by_id(store):
    assert store.upsert_papers([Paper(id="p1", abstract="first text")]).added == 1
    second = Paper(id="p1", abstract="second text")
    counts = store.upsert_papers([second, second])
    assert (counts.added, counts.updated, counts.unchanged) == (0, 1, 1)
    assert store.get_paper("p1").abstract == "second text"
    assert store.count_papers() == 1


def test_arxiv_versions_and_sources_are_one_paper_and_newest_wins(store):
    store.upsert_papers([Paper(id="arxiv:2401.00001", abstract="v2 text", arxiv_id="2401.00001",
                               arxiv_version=2)])
    counts = store.upsert_papers([
        Paper(id="feed-xyz", abstract="v1 text from a feed", arxiv_id="2401.00001", arxiv_version=1),
        Paper(id="other-source", abstract="v3 text", title="T", arxiv_id="2401.00001", arxiv_version=3),
    ])
    assert (counts.added, counts.updated, counts.unchanged) == (0, 1, 1)
    paper = store.find_paper_by_arxiv_id("2401.00001")
    assert paper.id == "arxiv:2401.00001"
    assert (paper.abstract, paper.arxiv_version, paper.title) == ("v3 text", 3, "T")
    assert store.count_papers() == 1


def test_changes_bump_the_sequence_so_new_papers_can_be_found(store):
    store.upsert_papers([Paper(id="a", abstract="x"), Paper(id="b", abstract="y")])
    seq = store.max_paper_seq()
    store.upsert_papers([Paper(id="a", abstract="x"), Paper(id="c", abstract="z"),
                         Paper(id="b", abstract="y2")])
    assert [p.id for _, p in store.papers_changed_since(seq)] == ["c", "b"]


def test_a_failing_use_case_writes_nothing(store):
    try:
        with store.transaction():
            store.set_feedback("U1", "p", 1)
            raise RuntimeError("boom")
    except RuntimeError:
        pass
    assert store.get_feedback("U1") == []


def test_topics_are_case_insensitive_and_ordered(store):
    assert store.add_topics("U1", ["GNNs", "diffusion"]) == ["GNNs", "diffusion"]
    assert store.add_topics("U1", ["gnns", "robots"]) == ["robots"]
    assert store.get_topics("U1") == ["GNNs", "diffusion", "robots"]
    assert store.remove_topic("U1", "DIFFUSION") == ["diffusion"]
    assert store.remove_all_topics("U1") == 2


def test_feedback_replaces_and_withdraws_only_the_matching_value(store):
    store.set_feedback("U1", "p", 1)
    store.set_feedback("U1", "p", -1)
    assert [(f.paper_id, f.value) for f in store.get_feedback("U1")] == [("p", -1)]
    assert not store.remove_feedback("U1", "p", 1)
    assert store.remove_feedback("U1", "p", -1)


def test_shown_papers_map_back_from_their_message(store):
    store.mark_shown("U1", "p1", "why", "D1", "123.456")
    assert store.shown_paper_ids("U1") == {"p1"}
    assert store.paper_for_message("D1", "123.456") == ("U1", "p1")
    assert store.paper_for_message("D1", "999") is None


def test_forget_leaves_no_row_in_any_personal_table(store):
    store.set_digest_schedule("U1", "09:00", True)
    store.add_topics("U1", ["x"])
    store.set_feedback("U1", "p", 1)
    store.mark_shown("U1", "p", "r")
    store.db["digests"].insert({"user_id": "U1", "local_date": "2026-01-01", "status": "sent"})
    store.set_feedback("U2", "p", 1)
    store.forget_person("U1")
    assert all(n == 0 for n in store.rows_about("U1").values())
    assert store.rows_about("U2")["feedback"] == 1
    # Every table with a user_id column is covered by forgetting.
    with_user = {t for t in store.db.table_names() if "user_id" in store.db[t].columns_dict}
    assert with_user == set(PERSONAL_TABLES)


def test_artifacts_are_versioned(store):
    assert store.load_artifact("m") is None
    assert store.save_artifact("m", b"one") == 1
    assert store.save_artifact("m", b"two") == 2
    assert store.load_artifact("m") == (2, b"two")


def test_each_thread_gets_its_own_connection(tmp_path):
    store = Store(tmp_path / "t.db")
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
    assert store.db.execute("select count(*) from feedback").fetchone()[0] == 80


def test_digest_claim_rows_change_only_for_their_owner(store):
    store.start_digest("U1", "2026-07-15", "a:1:1", "2026-07-15T08:10:00+00:00", "2026-07-15T08:00:00+00:00")
    assert store.digest_statuses("2026-07-14") == {("U1", "2026-07-15"): "sending"}
    assert store.digest_statuses("2026-07-16") == {}
    assert store.set_digest_papers("U1", "2026-07-15", "a:1:1", ["p1", "p2"], {"p1": "why"})
    assert not store.set_digest_papers("U1", "2026-07-15", "b:2:2", ["p3"], {})
    assert store.record_digest_failure("U1", "2026-07-15", "a:1:1", "p2") == 1
    assert store.record_digest_failure("U1", "2026-07-15", "a:1:1", "p2") == 2
    assert store.release_digest("U1", "2026-07-15", "a:1:1", "2026-07-15T08:12:00+00:00") == 1
    store.take_over_digest("U1", "2026-07-15", "b:2:2", "2026-07-15T08:30:00+00:00")
    assert not store.finish_digest("U1", "2026-07-15", "a:1:1", "sent", "2026-07-15T08:20:00+00:00")
    assert store.finish_digest("U1", "2026-07-15", "b:2:2", "sent", "2026-07-15T08:20:00+00:00")
    record = store.get_digest("U1", "2026-07-15")
    assert (record.status, record.owner, record.papers, record.reasons, record.failures, record.attempts) == (
        "sent", "b:2:2", ["p1", "p2"], {"p1": "why"}, {"p2": 2}, 1)
    assert not store.renew_digest_lease("U1", "2026-07-15", "b:2:2", "2026-07-15T09:00:00+00:00")  # ended


def test_recent_papers_and_which_were_shown(store):
    store.upsert_papers([Paper(id="old", abstract="a", published="2019-05-01"),
                         Paper(id="new", abstract="b", published="2026-07-14"),
                         Paper(id="undated", abstract="c")])  # counts from when it was added: now
    assert store.recent_paper_ids("2026-07-11") == {"new", "undated"}
    store.mark_shown("U1", "new")
    assert store.shown_among("U1", ["old", "new", "nope"]) == {"new"}
    assert store.shown_among("U2", ["new"]) == set()


def test_a_write_waits_for_another_thread_s_then_gives_up_as_sqlite_would(tmp_path, monkeypatch):
    monkeypatch.setattr(storage.sqlite, "BUSY_SECONDS", 0.2)
    store = Store(tmp_path / "t.db")
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


def test_a_claimed_key_is_refused_until_it_expires(store):
    assert store.claim_once("trigger:a", timedelta(minutes=15))
    assert not store.claim_once("trigger:a", timedelta(minutes=15))
    assert store.claim_once("trigger:gone", timedelta(seconds=-5))  # kept until 5 s ago: expired
    assert store.claim_once("trigger:gone", timedelta(minutes=15))  # so it may run again
    assert store.db.execute("select count(*) from once_keys").fetchone()[0] == 2


def test_a_timezone_from_slack_never_creates_a_person(store):
    assert not store.record_timezone("UNEW", "Europe/Paris")
    assert store.get_person("UNEW") is None
    store.ensure_person("UNEW")
    assert store.record_timezone("UNEW", "Europe/Paris") and store.get_person("UNEW").tz == "Europe/Paris"


def test_a_forgotten_person_leaves_no_bytes_in_the_file_or_its_log(tmp_path):
    store = Store(tmp_path / "scrub.db")
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
        Store(path)
    assert str(path) in str(caught.value) and "\n" not in str(caught.value)


def test_a_file_that_is_not_a_database_is_one_line_naming_it(tmp_path):
    path = tmp_path / "bad.db"
    path.write_text("garbage\n" * 200)
    with pytest.raises(StoreUnavailable) as caught:
        Store(path)
    assert str(path) in str(caught.value) and "not a usable database" in str(caught.value)
