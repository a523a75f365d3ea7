"""Paper links people posted (the ``shares`` table), on both backends: once per person and paper, newest
first, moved with a merged paper, forgotten and handed over with the person."""

from storage import Paper


def test_a_share_counts_once_per_person_and_paper_newest_first(any_store):
    assert any_store.add_share("U1", "a", "C1") is True
    assert any_store.add_share("U1", "a", "C2") is False  # posted again, elsewhere: still one
    assert any_store.add_share("U1", "b", None) is True
    assert any_store.add_share("U2", "a", "C1") is True
    assert [s.paper_id for s in any_store.shared_papers("U1")] == ["b", "a"]
    assert [s.paper_id for s in any_store.shared_papers("U2")] == ["a"]
    assert any_store.shared_papers("U3") == []


def test_shares_go_with_the_person_forgotten_and_with_their_data(any_store):
    any_store.add_share("U1", "a", "C1")
    any_store.add_share("U2", "a", "C1")
    assert any_store.rows_about("U1").get("shares") == 1
    [row] = any_store.person_rows("U1")["shares"]
    assert (row["paper_id"], row["channel_id"]) == ("a", "C1")
    assert any_store.forget_person("U1").get("shares") == 1
    assert any_store.shared_papers("U1") == [] and len(any_store.shared_papers("U2")) == 1


def test_a_share_of_a_paper_merged_into_another_counts_for_the_kept_one(any_store):
    any_store.upsert_papers([Paper(id="arxiv:2401.00001", title="Reef heat waves", abstract="x",
                                   authors=["Rae Coral"], arxiv_id="2401.00001", arxiv_version=1)])
    any_store.upsert_papers([Paper(id="journal:9", title="Reefs in heat, the journal version", abstract="y",
                                   authors=["Rae Coral"], doi="10.1/reef.9")])
    any_store.add_share("U1", "journal:9", "C1")
    any_store.add_share("U1", "arxiv:2401.00001", "C2")  # both copies shared: one share stays
    bridge = Paper(id="feed:77", abstract="z", arxiv_id="2401.00001", arxiv_version=2, doi="10.1/reef.9",
                   title="whatever", authors=["Rae Coral"])
    any_store.upsert_papers([bridge])
    assert any_store.count_papers() == 1
    assert [s.paper_id for s in any_store.shared_papers("U1")] == ["arxiv:2401.00001"]
