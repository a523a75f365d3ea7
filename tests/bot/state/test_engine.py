import contextlib
import logging
import pickle
import sqlite3

import pytest

from bot.state.engine import ARTIFACT, Colleagues, Engine
from recommender import Profile, rank
from stand_ins.corpus import make_corpus
from stand_ins.waiting import wait_until
from storage import Paper, SqliteStore, StoreBusy, StoreFull


def ranked_ids(engine, topics):
    with engine.index() as index:
        return [p.paper_id for p in rank(index, Profile(topics=topics), 50)]


def test_model_is_fitted_once_saved_and_reused(tmp_path):
    store = SqliteStore(tmp_path / "e.db")
    store.upsert_papers(make_corpus())
    engine = Engine(store, refresh_every=0)
    ranked_ids(engine, ["cats"])
    assert store.artifact_version(ARTIFACT) == 1
    for _ in range(5):
        ranked_ids(engine, ["cats"])
    assert store.artifact_version(ARTIFACT) == 1, "a request must never refit"
    # A new process loads the saved model instead of fitting.
    fresh = Engine(SqliteStore(tmp_path / "e.db"), refresh_every=0)
    assert ranked_ids(fresh, ["cats"]) == ranked_ids(engine, ["cats"])
    assert store.artifact_version(ARTIFACT) == 1


def test_new_papers_are_seen_after_the_refresh_interval(tmp_path):
    store = SqliteStore(tmp_path / "e.db")
    store.upsert_papers(make_corpus())
    now = [1000.0]
    engine = Engine(store, refresh_every=0.2, clock=lambda: now[0])
    assert "cats-new" not in ranked_ids(engine, ["feline cats"])
    # Another process (an ingest) adds a paper.
    elsewhere = SqliteStore(tmp_path / "e.db")
    elsewhere.upsert_papers([Paper(id="cats-new", abstract="feline cats whiskers kittens")])
    now[0] += 0.1
    assert "cats-new" not in ranked_ids(engine, ["feline cats"])  # within the interval: not looked for
    now[0] += 0.15
    assert "cats-new" in ranked_ids(engine, ["feline cats"])
    assert store.artifact_version(ARTIFACT) == 1


def test_updated_text_replaces_the_old_row(tmp_path):
    store = SqliteStore(tmp_path / "e.db")
    store.upsert_papers(make_corpus())
    engine = Engine(store, refresh_every=0)
    assert "cats-0" in ranked_ids(engine, ["feline"])
    store.upsert_papers([Paper(id="cats-0", abstract="quantum qubits entanglement circuits")])
    assert "cats-0" not in ranked_ids(engine, ["feline"])
    assert ranked_ids(engine, ["qubits"]).count("cats-0") == 1


def test_large_growth_refits_and_other_processes_pick_up_the_new_model(tmp_path):
    store = SqliteStore(tmp_path / "e.db")
    store.upsert_papers(make_corpus(per_topic=2))
    bot_engine = Engine(store, refresh_every=0)
    ranked_ids(bot_engine, ["cats"])
    cli_engine = Engine(SqliteStore(tmp_path / "e.db"), refresh_every=0)
    cli_engine.store.upsert_papers(make_corpus(per_topic=8))
    cli_engine.refresh()
    assert store.artifact_version(ARTIFACT) == 2
    assert len(ranked_ids(bot_engine, ["feline cats"])) == 8
    with bot_engine.index() as index:
        assert index.fitted_on == 40


def test_background_refit_keeps_serving(tmp_path):
    store = SqliteStore(tmp_path / "e.db")
    store.upsert_papers(make_corpus(per_topic=2))
    engine = Engine(store, refresh_every=0, background_refit=True)
    ranked_ids(engine, ["cats"])
    store.upsert_papers(make_corpus(per_topic=8))
    assert len(ranked_ids(engine, ["feline cats"])) == 8  # served from transformed rows at once
    wait_until(lambda: store.artifact_version(ARTIFACT) >= 2, 10, "the background refit to be saved")
    assert store.artifact_version(ARTIFACT) == 2
    with engine.index() as index:
        assert index.fitted_on == 40


def test_a_corrupt_saved_model_is_refitted_not_fatal(tmp_path):
    store = SqliteStore(tmp_path / "e.db")
    store.upsert_papers(make_corpus())
    store.save_artifact(ARTIFACT, b"not a pickle")
    engine = Engine(store, refresh_every=0)
    assert ranked_ids(engine, ["cats"])


def test_colleagues_likes_are_rebuilt_only_when_someone_s_feedback_changed(tmp_path):
    path = tmp_path / "p.db"
    store, elsewhere = SqliteStore(path), SqliteStore(path)  # elsewhere: another process's connection
    colleagues = Colleagues(store)
    store.set_feedback("U1", "a", 1)
    store.set_feedback("U1", "b", 1)
    first = colleagues.community()
    assert colleagues.community() is first  # nothing changed: the same one, not rebuilt
    assert set(first.papers) == {"a", "b"}
    elsewhere.set_feedback("U2", "c", 1)
    second = colleagues.community()
    assert second is not first and "c" in second.papers
    elsewhere.set_feedback("U2", "c", -1)  # a like turned dislike
    assert "c" not in colleagues.community().papers
    before = colleagues.community()
    elsewhere.remove_feedback("U1", "b")
    assert colleagues.community().papers == ["a"] and before.papers != ["a"]
    store.close()
    elsewhere.close()


def _model_warnings(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records
            if r.name == "bot.state.engine" and r.levelno == logging.WARNING]


def _overwrite_model(path, value) -> None:
    conn = sqlite3.connect(path)
    with conn:
        conn.execute("update artifacts set data = ?, version = version + 1 where name = ?", [value, ARTIFACT])
    conn.close()


@pytest.mark.parametrize("value", [pickle.dumps(42), pickle.dumps([1, 2]), b"", None, "text, not a blob",
                                   pickle.dumps({"seq": 1}), pickle.dumps({"seq": "1", "index": b"x"})],
                         ids=["int", "list", "empty", "NULL", "TEXT", "no index", "seq a string"])
def test_an_unusable_saved_model_is_refitted_and_rewritten_with_one_warning(tmp_path, caplog, value):
    path = tmp_path / "e.db"
    store = SqliteStore(path)
    store.upsert_papers(make_corpus())
    Engine(store).rebuild()
    _overwrite_model(path, value)
    with caplog.at_level(logging.WARNING):
        assert ranked_ids(Engine(store, refresh_every=0), ["cats"])
    warnings = _model_warnings(caplog)
    assert len(warnings) == 1 and "unusable" in warnings[0] and str(path) in warnings[0], warnings
    assert store.artifact_version(ARTIFACT) == 3
    caplog.clear()
    # The next process loads the rewritten model: no warning, no refit.
    assert ranked_ids(Engine(SqliteStore(path), refresh_every=0), ["cats"])
    assert store.artifact_version(ARTIFACT) == 3 and not _model_warnings(caplog)


def _full(name, data):
    raise StoreFull("e.db: the disk is full, so nothing more could be saved")


def test_a_refit_that_cannot_be_saved_is_served_from_memory_with_one_line(tmp_path, caplog, monkeypatch):
    store = SqliteStore(tmp_path / "e.db")
    store.upsert_papers(make_corpus())
    monkeypatch.setattr(store, "save_artifact", _full)
    engine = Engine(store, refresh_every=0)
    with caplog.at_level(logging.WARNING):
        assert ranked_ids(engine, ["cats"])
        assert ranked_ids(engine, ["cats"])  # not refitted again per request
    warnings = _model_warnings(caplog)
    assert len(warnings) == 1 and "disk is full" in warnings[0] and "\n" not in warnings[0], warnings
    monkeypatch.undo()
    assert store.artifact_version(ARTIFACT) == 0
    # Space again: the next process finds no saved model, refits and saves it.
    assert ranked_ids(Engine(SqliteStore(tmp_path / "e.db"), refresh_every=0), ["cats"])
    assert store.artifact_version(ARTIFACT) == 1


def test_must_save_raises_the_store_s_error_once_the_index_is_in_place(tmp_path, monkeypatch):
    store = SqliteStore(tmp_path / "e.db")
    store.upsert_papers(make_corpus())
    monkeypatch.setattr(store, "save_artifact", _full)
    engine = Engine(store, refresh_every=3600)
    with pytest.raises(StoreFull, match="disk is full"):
        engine.refresh(must_save=True)
    assert ranked_ids(engine, ["cats"])  # the refit is still served


def test_the_background_refit_logs_one_line_when_it_cannot_save(tmp_path, caplog, monkeypatch):
    store = SqliteStore(tmp_path / "e.db")
    store.upsert_papers(make_corpus(per_topic=2))
    engine = Engine(store, refresh_every=0, background_refit=True)
    ranked_ids(engine, ["cats"])
    store.upsert_papers(make_corpus(per_topic=8))
    monkeypatch.setattr(SqliteStore, "save_artifact", lambda self, name, data: _full(name, data))
    with caplog.at_level(logging.WARNING):
        ranked_ids(engine, ["cats"])
        wait_until(lambda: _model_warnings(caplog) and not engine._refitting, 10, "the refit's one warning")
    assert len(_model_warnings(caplog)) == 1
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
    with engine.index() as index:
        assert index.fitted_on == 40  # the refit serves from memory


def test_a_model_damaged_by_another_process_while_serving_is_refitted_and_rewritten(tmp_path, caplog):
    path = tmp_path / "e.db"
    store = SqliteStore(path)
    store.upsert_papers(make_corpus())
    engine = Engine(store, refresh_every=0)
    before = ranked_ids(engine, ["cats"])
    _overwrite_model(path, pickle.dumps(42))  # version 2, newer than the one being served
    with caplog.at_level(logging.WARNING):
        assert ranked_ids(engine, ["cats"]) == before
    assert len(_model_warnings(caplog)) == 1
    assert store.artifact_version(ARTIFACT) == 3
    assert ranked_ids(Engine(SqliteStore(path), refresh_every=0), ["cats"]) == before
    assert store.artifact_version(ARTIFACT) == 3


def test_a_background_refit_the_database_refuses_is_one_line_not_a_traceback(tmp_path, caplog, monkeypatch):
    store = SqliteStore(tmp_path / "e.db")
    store.upsert_papers(make_corpus(per_topic=2))
    engine = Engine(store, refresh_every=0, background_refit=True)
    ranked_ids(engine, ["cats"])
    store.upsert_papers(make_corpus(per_topic=8))

    def busy(self):
        raise StoreBusy(f"{self.store.path} is busy: another process has held its write lock too long")

    monkeypatch.setattr(Engine, "_fit_from_store", busy)
    with caplog.at_level(logging.WARNING):
        assert len(ranked_ids(engine, ["feline cats"])) == 8
        wait_until(lambda: caplog.records and not engine._refitting, 10, "the refused refit's line")
    lines = [r for r in caplog.records if r.name == "bot.state.engine"]
    assert len(lines) == 1 and lines[0].levelno == logging.WARNING and "busy" in lines[0].getMessage()
    assert lines[0].exc_info is None


# -- the background refit is claimed work ----------------------------------------------------------

def _grown(tmp_path):
    """A store whose engine serves a model fitted on 10 papers, then 40 more arrive (a refit is due)."""
    store = SqliteStore(tmp_path / "e.db")
    store.upsert_papers(make_corpus(per_topic=2))
    engine = Engine(store, refresh_every=0, background_refit=True)
    ranked_ids(engine, ["cats"])
    store.upsert_papers(make_corpus(per_topic=8))
    return store, engine


def _refit_settled(engine, store, version):
    """Until the engine's refit is done and the saved model is at ``version`` (at most 10 s: the callers
    then check what was saved, so a refit that never saves fails there)."""
    with contextlib.suppress(AssertionError):
        wait_until(lambda: not engine._refitting and store.artifact_version(ARTIFACT) >= version, 10,
                   "the refit to settle")


def test_a_refit_another_process_is_doing_is_not_repeated_and_its_model_is_loaded(tmp_path):
    from datetime import UTC, datetime, timedelta

    from bot.state.engine import REFIT_JOB
    from storage.leases import JOB

    store, engine = _grown(tmp_path)
    now = datetime.now(UTC)
    # A process on another host holds the refit (only its lease could tell if it died).
    assert store.take_lease(JOB, (REFIT_JOB,), "elsewhere:7:7", (now + timedelta(hours=1)).isoformat(),
                            now.isoformat())
    assert len(ranked_ids(engine, ["feline cats"])) == 8  # the new papers are served meanwhile
    _refit_settled(engine, store, 1)
    assert store.artifact_version(ARTIFACT) == 1, "this process refitted though another had claimed it"
    elsewhere = Engine(SqliteStore(tmp_path / "e.db"), refresh_every=0)
    elsewhere.rebuild()  # the other process's refit, saved
    assert store.artifact_version(ARTIFACT) == 2
    ranked_ids(engine, ["cats"])
    with engine.index() as index:
        assert index.fitted_on == 40  # loaded, not fitted here
    assert store.artifact_version(ARTIFACT) == 2


def test_a_refit_whose_claimer_died_is_taken_over_at_once(tmp_path):
    import subprocess
    import sys
    from datetime import UTC, datetime, timedelta

    from bot.state.engine import REFIT_JOB
    from storage.leases import JOB

    store, engine = _grown(tmp_path)
    gone = subprocess.run([sys.executable, "-c", "from bot.state.owner import owner_id; print(owner_id())"],
                          capture_output=True, text=True, check=True).stdout.strip()  # a process now ended
    now = datetime.now(UTC)
    assert store.take_lease(JOB, (REFIT_JOB,), gone, (now + timedelta(hours=1)).isoformat(), now.isoformat())
    ranked_ids(engine, ["cats"])
    _refit_settled(engine, store, 2)
    assert store.artifact_version(ARTIFACT) == 2
    job = store.get_job(REFIT_JOB)
    assert (job.status, job.owner != gone) == ("done", True)  # and given back for the next one


def test_engines_of_two_processes_due_a_refit_together_refit_once(tmp_path, monkeypatch):
    import threading

    store, engine = _grown(tmp_path)
    other = Engine(SqliteStore(tmp_path / "e.db"), refresh_every=0, background_refit=True)
    fitting, release = [], threading.Event()
    fit = Engine._fit_from_store

    def slow_fit(self):  # the first refit is still fitting when the second process finds one due
        fitting.append(self)
        release.wait(10)
        return fit(self)

    monkeypatch.setattr(Engine, "_fit_from_store", slow_fit)
    ranked_ids(engine, ["cats"])
    ranked_ids(other, ["cats"])
    wait_until(lambda: len(fitting) == 2 or (fitting and not (engine._refitting and other._refitting)), 10,
               "both engines to have claimed or given up the refit")
    release.set()
    _refit_settled(engine, store, 2)
    _refit_settled(other, store, 2)
    assert len(fitting) == 1
    assert store.artifact_version(ARTIFACT) == 2
    for e in (engine, other):
        ranked_ids(e, ["cats"])
        with e.index() as index:
            assert index.fitted_on == 40  # one fitted it, the other loaded it
    assert store.artifact_version(ARTIFACT) == 2


def test_a_saved_model_the_database_fails_to_give_is_asked_for_again_not_taken_for_no_papers(tmp_path,
                                                                                             monkeypatch):
    store = SqliteStore(tmp_path / "e.db")
    store.upsert_papers(make_corpus())
    Engine(store, refresh_every=0).refresh()  # another process fitted and saved it
    engine = Engine(SqliteStore(tmp_path / "e.db"), refresh_every=3600)
    load, failures = engine.store.load_artifact, [StoreBusy("e.db: a statement ran past statement_timeout")]

    def timing_out(name):
        if failures:
            raise failures.pop()
        return load(name)

    monkeypatch.setattr(engine.store, "load_artifact", timing_out)
    with pytest.raises(StoreBusy, match="^the saved model could not be loaded: e.db: a statement ran past"), \
            engine.index():
        pass
    with engine.index() as index:  # at once, not an hour later: no index would read as "no papers yet"
        assert index is not None and len(index.ids) == len(make_corpus())
