"""Paper vectors (``paper_vectors``, the embedding option): stored once per paper, found missing again when
the paper changes or another model asks, given to the paper kept by a merge, copied by ``db copy``. Both
backends."""

import numpy as np

from storage import Paper
from storage.tables import COPIED_TABLES

MODEL = "test-model/8"


def _vector(value: float) -> bytes:
    return np.full(8, value, dtype=np.float32).tobytes()


def _missing(store, model=MODEL):
    return [(pid, text) for pid, _, text in store.papers_without_vectors(model, 100)]


def _save_missing(store, value=1.0, model=MODEL):
    return store.save_paper_vectors(model, [(pid, seq, _vector(value))
                                            for pid, seq, _ in store.papers_without_vectors(model, 100)])


def test_every_paper_lacks_a_vector_until_one_is_saved_and_then_never_again(any_store):
    any_store.upsert_papers([Paper(id="a", title="Graph nets", abstract="On graphs."),
                             Paper(id="b", title="", abstract="Only an abstract.")])
    assert _missing(any_store) == [("a", "Graph nets. On graphs."), ("b", "Only an abstract.")]
    assert any_store.papers_without_vectors(MODEL, 1)[0][0] == "a"  # oldest change first, at most limit
    assert _save_missing(any_store) == 2
    assert _missing(any_store) == []
    assert any_store.count_paper_vectors(MODEL) == 2
    found = any_store.paper_vectors(MODEL, ["a", "b", "nope"])
    assert set(found) == {"a", "b"}
    assert np.frombuffer(found["a"], dtype=np.float32).tolist() == [1.0] * 8
    # Another model's vectors are other vectors: all missing for it, and none found.
    assert [pid for pid, _ in _missing(any_store, "other/8")] == ["a", "b"]
    assert any_store.paper_vectors("other/8", ["a"]) == {}


def test_a_changed_paper_needs_its_vector_again_and_a_stale_one_is_not_saved(any_store):
    any_store.upsert_papers([Paper(id="a", title="Graph nets", abstract="On graphs.")])
    (_, old_seq, _), = any_store.papers_without_vectors(MODEL)
    _save_missing(any_store)
    any_store.upsert_papers([Paper(id="a", title="Graph nets", abstract="On graphs, at length.")])
    assert _missing(any_store) == [("a", "Graph nets. On graphs, at length.")]
    # A vector of the text as it was (computed before the change) is not kept.
    assert any_store.save_paper_vectors(MODEL, [("a", old_seq, _vector(5.0))]) == 0
    assert any_store.save_paper_vectors(MODEL, [("gone", 1, _vector(5.0))]) == 0  # no such paper
    assert _save_missing(any_store, 2.0) == 1
    assert np.frombuffer(any_store.paper_vectors(MODEL, ["a"])["a"], np.float32)[0] == 2.0
    assert _missing(any_store) == []


def test_a_merge_leaves_one_vector_with_the_paper_kept(any_store):
    any_store.upsert_papers([Paper(id="a", title="Graph things", abstract="x", arxiv_id="2401.00001")])
    any_store.upsert_papers([Paper(id="b", title="Quite another title", abstract="y", doi="10.1/b")])
    any_store.save_paper_vectors(MODEL, [(pid, seq, _vector(3.0 if pid == "b" else 1.0))
                                         for pid, seq, _ in any_store.papers_without_vectors(MODEL)])
    # A record tying both merges them into the older, "a".
    any_store.upsert_papers([Paper(id="c", title="Graph things", abstract="x", arxiv_id="2401.00001",
                                   doi="10.1/b")])
    assert any_store.count_papers() == 1
    assert any_store.count_paper_vectors(MODEL) == 1
    assert set(any_store.paper_vectors(MODEL, ["a", "b"])) == {"a"}
    assert np.frombuffer(any_store.paper_vectors(MODEL, ["a"])["a"], np.float32)[0] == 1.0  # its own
    assert [pid for pid, _ in _missing(any_store)] == ["a"]  # merged text: computed again


def test_a_merged_paper_without_a_vector_gets_the_dropped_ones(any_store):
    any_store.upsert_papers([Paper(id="a", title="Graph things", abstract="x", arxiv_id="2401.00001")])
    any_store.upsert_papers([Paper(id="b", title="Quite another title", abstract="y", doi="10.1/b")])
    (_, seq_b, _), = [m for m in any_store.papers_without_vectors(MODEL) if m[0] == "b"]
    any_store.save_paper_vectors(MODEL, [("b", seq_b, _vector(3.0))])
    any_store.upsert_papers([Paper(id="c", title="Graph things", abstract="x", arxiv_id="2401.00001",
                                   doi="10.1/b")])
    assert list(any_store.paper_vectors(MODEL, ["a", "b"])) == ["a"]
    assert np.frombuffer(any_store.paper_vectors(MODEL, ["a"])["a"], np.float32)[0] == 3.0
    assert [pid for pid, _ in _missing(any_store)] == ["a"]


def test_vectors_are_copied_with_the_papers(any_store, tmp_path):
    from storage import open_store
    from storage.copy import copy_database

    assert "paper_vectors" in COPIED_TABLES
    any_store.upsert_papers([Paper(id="a", title="Graph nets", abstract="On graphs.")])
    _save_missing(any_store, 4.0)
    target = open_store(str(tmp_path / "copy.db"))
    try:
        copy_database(any_store, target)
        assert np.frombuffer(target.paper_vectors(MODEL, ["a"])["a"], np.float32)[0] == 4.0
        assert _missing(target) == []
    finally:
        target.close()
