import time

from bot.engine import ARTIFACT, Colleagues, Engine
from recommender import Profile, rank
from storage import Paper, Store
from tests.conftest import make_corpus


def ranked_ids(engine, topics):
    with engine.index() as index:
        return [p.paper_id for p in rank(index, Profile(topics=topics), 50)]


def test_model_is_fitted_once_saved_and_reused(tmp_path):
    store = Store(tmp_path / "e.db")
    store.upsert_papers(make_corpus())
    engine = Engine(store, refresh_every=0)
    ranked_ids(engine, ["cats"])
    assert store.artifact_version(ARTIFACT) == 1
    for _ in range(5):
        ranked_ids(engine, ["cats"])
    assert store.artifact_version(ARTIFACT) == 1, "a request must never refit"
    # A new process loads the saved model instead of fitting.
    fresh = Engine(Store(tmp_path / "e.db"), refresh_every=0)
    assert ranked_ids(fresh, ["cats"]) == ranked_ids(engine, ["cats"])
    assert store.artifact_version(ARTIFACT) == 1


def test_new_papers_are_seen_after_the_refresh_interval(tmp_path):
    store = Store(tmp_path / "e.db")
    store.upsert_papers(make_corpus())
    engine = Engine(store, refresh_every=0.2)
    assert "cats-new" not in ranked_ids(engine, ["feline cats"])
    # Another process (an ingest) adds a paper.
    Store(tmp_path / "e.db").upsert_papers([Paper(id="cats-new", abstract="feline cats whiskers kittens")])
    time.sleep(0.25)
    assert "cats-new" in ranked_ids(engine, ["feline cats"])
    assert store.artifact_version(ARTIFACT) == 1


def test_updated_text_replaces_the_old_row(tmp_path):
    store = Store(tmp_path / "e.db")
    store.upsert_papers(make_corpus())
    engine = Engine(store, refresh_every=0)
    assert "cats-0" in ranked_ids(engine, ["feline"])
    store.upsert_papers([Paper(id="cats-0", abstract="quantum qubits entanglement circuits")])
    assert "cats-0" not in ranked_ids(engine, ["feline"])
    assert ranked_ids(engine, ["qubits"]).count("cats-0") == 1


def test_large_growth_refits_and_other_processes_pick_up_the_new_model(tmp_path):
    store = Store(tmp_path / "e.db")
    store.upsert_papers(make_corpus(per_topic=2))
    bot_engine = Engine(store, refresh_every=0)
    ranked_ids(bot_engine, ["cats"])
    cli_engine = Engine(Store(tmp_path / "e.db"), refresh_every=0)
    cli_engine.store.upsert_papers(make_corpus(per_topic=8))
    cli_engine.refresh()
    assert store.artifact_version(ARTIFACT) == 2
    assert len(ranked_ids(bot_engine, ["feline cats"])) == 8
    with bot_engine.index() as index:
        assert index.fitted_on == 40


def test_background_refit_keeps_serving(tmp_path):
    store = Store(tmp_path / "e.db")
    store.upsert_papers(make_corpus(per_topic=2))
    engine = Engine(store, refresh_every=0, background_refit=True)
    ranked_ids(engine, ["cats"])
    store.upsert_papers(make_corpus(per_topic=8))
    assert len(ranked_ids(engine, ["feline cats"])) == 8  # served from transformed rows at once
    deadline = time.time() + 10
    while store.artifact_version(ARTIFACT) < 2 and time.time() < deadline:
        time.sleep(0.05)
    assert store.artifact_version(ARTIFACT) == 2
    with engine.index() as index:
        assert index.fitted_on == 40


def test_a_corrupt_saved_model_is_refitted_not_fatal(tmp_path):
    store = Store(tmp_path / "e.db")
    store.upsert_papers(make_corpus())
    store.save_artifact(ARTIFACT, b"not a pickle")
    engine = Engine(store, refresh_every=0)
    assert ranked_ids(engine, ["cats"])


def test_colleagues_likes_are_rebuilt_only_when_someone_s_feedback_changed(tmp_path):
    path = tmp_path / "p.db"
    store, elsewhere = Store(path), Store(path)  # elsewhere: another process's connection
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
