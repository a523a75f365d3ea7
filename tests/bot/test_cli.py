import json

import pytest
from click.testing import CliRunner

from bot.cli import cli


def run(*args, env=None):
    return CliRunner().invoke(cli, list(args), obj={}, env=env or {}, catch_exceptions=False)


def test_demo_shows_two_digests_without_repeats(tmp_path):
    result = run("demo", "--keep", str(tmp_path / "demo.db"))
    assert result.exit_code == 0, result.output
    assert "Today's digest" in result.output and "after that feedback" in result.output
    assert "No repeats: 0 of tomorrow's papers" in result.output
    assert "Why:" in result.output


def test_ingest_reports_counts_and_skips_bad_records(tmp_path):
    good = tmp_path / "papers.jsonl"
    good.write_text(
        json.dumps({"id": "a", "title": "Cats", "abstract": "Feline cats purr a lot in this study."}) + "\n"
        + "{not json\n"
        + json.dumps({"id": "b", "title": "No abstract"}) + "\n"
        + json.dumps({"id": "c", "abstract": "Graph neural networks pass messages between nodes."}) + "\n"
    )
    db = str(tmp_path / "x.db")
    result = run("--db", db, "ingest", str(good))
    assert result.exit_code == 0, result.output
    assert "line 2" in result.output and "line 3" in result.output
    again = run("--db", db, "ingest", str(good))
    assert again.exit_code == 0
    from storage import Store

    assert Store(db).count_papers() == 2


def test_ingest_exits_non_zero_only_for_an_unreadable_source(tmp_path):
    good = tmp_path / "p.jsonl"
    good.write_text(json.dumps({"abstract": "Quantum circuits with many qubits and entanglement."}) + "\n")
    result = run("--db", str(tmp_path / "x.db"), "ingest", str(tmp_path / "missing.jsonl"), str(good))
    assert result.exit_code == 1
    assert "missing.jsonl" in result.output
    assert "Traceback" not in result.output
    from storage import Store

    assert Store(tmp_path / "x.db").count_papers() == 1


def test_search_on_an_empty_database_says_so(tmp_path):
    result = run("--db", str(tmp_path / "x.db"), "search", "cats")
    assert result.exit_code == 1
    assert "no papers yet" in result.output.lower()


def test_eval_writes_rankings_and_metrics(tmp_path):
    from tests.conftest import make_corpus

    papers = tmp_path / "papers.jsonl"
    papers.write_text("".join(json.dumps({"id": p.id, "title": p.title, "abstract": p.abstract}) + "\n"
                              for p in make_corpus()))
    users = tmp_path / "users.jsonl"
    users.write_text(json.dumps({"user": "u1", "liked": ["cats-0", "cats-1"]}) + "\n"
                     + json.dumps({"user": "u2", "liked": ["quantum-0"], "disliked": ["quantum-1"]}) + "\n")
    truth = tmp_path / "truth.jsonl"
    truth.write_text(json.dumps({"user": "u1", "liked": ["cats-2", "cats-3"]}) + "\n"
                     + json.dumps({"user": "u2", "liked": ["quantum-2"]}) + "\n")
    out = tmp_path / "out.jsonl"
    result = run("eval", "--papers", str(papers), "--users", str(users), "--k", "5", "--out", str(out),
                 "--truth", str(truth))
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["user"] for r in rows] == ["u1", "u2"]
    assert all(len(r["ranked"]) == 5 for r in rows)
    assert not {"cats-0", "cats-1"} & set(rows[0]["ranked"])
    assert not {"quantum-0", "quantum-1"} & set(rows[1]["ranked"])
    assert "recall@5" in result.output


def _unopenable(tmp_path, kind: str) -> str:
    if kind == "missing folder":
        return str(tmp_path / "no" / "such" / "folder" / "x.db")
    bad = tmp_path / "bad.db"
    bad.write_text("garbage\n")
    return str(bad)


SLACK_ENV = {"SLACK_BOT_TOKEN": "xoxb-test", "SLACK_SIGNING_SECRET": "secret", "SLACK_APP_TOKEN": None,
             "PAPERBOT_DB": None, "PAPERBOT_FEEDS": None}


@pytest.mark.parametrize("kind", ["missing folder", "not a database"])
@pytest.mark.parametrize("command", [["ingest", "papers.jsonl"], ["search", "cats"], ["digest", "--dry-run"],
                                     ["digest"], ["run", "--port", "0"], ["demo"]], ids=" ".join)
def test_a_database_that_cannot_be_opened_is_one_line_naming_it_in_every_command(tmp_path, kind, command):
    db = _unopenable(tmp_path, kind)
    (tmp_path / "papers.jsonl").write_text(json.dumps({"abstract": "Feline cats purr in this study."}) + "\n")
    command = [str(tmp_path / c) if c.endswith(".jsonl") else c for c in command]
    args = ["demo", "--keep", db] if command == ["demo"] else ["--db", db, *command]
    result = run(*args, env=SLACK_ENV)
    assert result.exit_code == 1, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: ") and db in lines[0], result.output


def test_disk_full_while_saving_the_model_is_one_line_and_keeps_the_papers(tmp_path, monkeypatch):
    from storage import Store, StoreFull
    from storage.sqlite import Store as SqliteStore

    db = str(tmp_path / "x.db")
    papers = tmp_path / "p.jsonl"
    papers.write_text("".join(json.dumps({"id": f"p{i}", "abstract": f"Feline cats purr, study {i}."}) + "\n"
                              for i in range(5)))

    def full(self, name, data):
        raise StoreFull(f"{self.path}: the disk is full, so nothing more could be saved")

    with monkeypatch.context() as patch:
        patch.setattr(SqliteStore, "save_artifact", full)
        result = run("--db", db, "ingest", str(papers))
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and db in lines[0] and "disk is full" in lines[0], result.output
    store = Store(db)
    assert store.count_papers() == 5 and store.artifact_version("paper-index") == 0
    # Space again: the next run refits and saves the model.
    again = run("--db", db, "search", "cats")
    assert again.exit_code == 0, again.output
    assert store.artifact_version("paper-index") == 1


def test_disk_full_while_storing_papers_is_one_line_and_keeps_the_batches_before(tmp_path, monkeypatch):
    import importlib

    from storage import Store, StoreFull
    from storage.sqlite import Store as SqliteStore

    db = str(tmp_path / "x.db")
    papers = tmp_path / "p.jsonl"
    papers.write_text("".join(json.dumps({"id": f"p{i}", "abstract": f"Feline cats purr, study {i}."}) + "\n"
                              for i in range(5)))
    real = SqliteStore.upsert_papers
    batches = []

    def full_on_the_second_batch(self, batch):
        batches.append(batch)
        if len(batches) > 1:
            raise StoreFull(f"{self.path}: the disk is full, so nothing more could be saved")
        return real(self, batch)

    monkeypatch.setattr(importlib.import_module("bot.usecases.ingest"), "BATCH", 2)
    monkeypatch.setattr(SqliteStore, "upsert_papers", full_on_the_second_batch)
    result = run("--db", db, "ingest", str(papers))
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and db in lines[0] and "disk is full" in lines[0], result.output
    assert Store(db).count_papers() == 2
