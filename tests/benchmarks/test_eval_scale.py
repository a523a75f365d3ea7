"""The larger eval set is drawn the same way every time, and only names papers it holds."""

from __future__ import annotations

from benchmarks import eval_scale
from tests.conftest import shared_data


def test_the_larger_set_is_deterministic_and_names_only_its_papers():
    shared_data("citeulike-a/papers.jsonl")
    records, copies = eval_scale.papers(19_000)
    assert len(records) == 19_000 and sum(map(len, copies.values())) == 19_000 - 18_761
    assert eval_scale.papers(19_000) == (records, copies)
    ids = {str(r["id"]) for r in records}
    libraries = eval_scale.users(5_600, copies)
    for split in ("P10", "P1"):
        given, held = libraries[split]
        assert len(given) == len(held) == 5_600
        assert [u.user for u in given] == [u.user for u in held]
        assert all(p in ids for u in given + held for p in u.liked)
    synthetic = libraries["P10"][0][5_551:]
    assert all(u.user.startswith("synthetic") for u in synthetic)
    assert any(p.startswith("copy") for u in synthetic for p in u.liked)
    again = eval_scale.users(5_600, copies)["P1"][0]
    assert [u.liked for u in again] == [u.liked for u in libraries["P1"][0]]
