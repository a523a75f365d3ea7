import json

import pytest
from click.testing import CliRunner

from bot.cli.main import cli
from stand_ins.waiting import wait_until
from storage import Paper
from tests.storage.conftest import (  # noqa: F401 (fixtures, used by name)
    backend,
    pg_database,
    pg_url,
    reset_schema,
    store_target,
)


def run(*args, env=None):
    return CliRunner().invoke(cli, list(args), obj={}, env=env or {}, catch_exceptions=False)


def test_demo_shows_two_digests_without_repeats(tmp_path):
    result = run("demo", "--keep", str(tmp_path / "demo.db"))
    assert result.exit_code == 0, result.output
    assert "Today's digest" in result.output and "after that feedback" in result.output
    assert "No repeats: 0 of tomorrow's papers" in result.output
    assert "Why:" in result.output


def test_demo_shows_the_sample_reader_s_conference_plan(tmp_path):
    result = run("demo", "--keep", str(tmp_path / "demo.db"))
    assert result.exit_code == 0, result.output
    assert "Conference plan for ICML 2025" in result.output and result.output.count("Going") >= 2
    assert "undecided" in result.output


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
    from storage import SqliteStore

    assert SqliteStore(db).count_papers() == 2


def test_ingest_exits_non_zero_only_for_an_unreadable_source(tmp_path):
    good = tmp_path / "p.jsonl"
    good.write_text(json.dumps({"abstract": "Quantum circuits with many qubits and entanglement."}) + "\n")
    result = run("--db", str(tmp_path / "x.db"), "ingest", str(tmp_path / "missing.jsonl"), str(good))
    assert result.exit_code == 1
    assert "missing.jsonl" in result.output
    assert "Traceback" not in result.output
    from storage import SqliteStore

    assert SqliteStore(tmp_path / "x.db").count_papers() == 1


def test_search_on_an_empty_database_says_so(tmp_path):
    from storage import SqliteStore

    SqliteStore(tmp_path / "x.db").dispose()
    result = run("--db", str(tmp_path / "x.db"), "search", "cats")
    assert result.exit_code == 1
    assert "no papers yet" in result.output.lower()


@pytest.mark.parametrize("command", [["search", "cats"], ["digest", "--dry-run"], ["export", "--user", "U1"],
                                     ["workspaces"], ["workspaces", "remove", "T1", "--yes"],
                                     ["workspaces", "adopt", "T1"], ["workspaces", "rekey"],
                                     ["workspaces", "set", "T1", "social", "off"]])
def test_a_sqlite_path_that_is_not_there_is_refused_in_one_line_and_nothing_is_made(tmp_path, command):
    typo = tmp_path / "paperbto.db"
    result = run("--db", str(typo), *command)
    assert result.exit_code == 1 and "Traceback" not in result.output
    said = f"Error: --db: there is no database at {typo} (`paperbot ingest` makes one)"
    assert result.output.strip() == said
    assert list(tmp_path.iterdir()) == []
    from_env = run(*command, env={"PAPERBOT_DB": str(typo)})
    assert from_env.exit_code == 1 and f"PAPERBOT_DB: there is no database at {typo}" in from_env.output


def test_eval_writes_rankings_and_metrics(tmp_path):
    from stand_ins.corpus import make_corpus

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
    assert "recall@5" in result.output and "warning" not in result.output


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
    from storage import StoreFull
    from storage.sqlite import SqliteStore

    db = str(tmp_path / "x.db")
    papers = tmp_path / "p.jsonl"
    papers.write_text("".join(json.dumps({"id": f"p{i}", "abstract": f"Feline cats purr, study {i}."}) + "\n"
                              for i in range(5)))

    real = SqliteStore.save_artifact

    def full(self, name, data):
        if self.path != db:  # another test's store (a refit thread still running): not this disk
            return real(self, name, data)
        raise StoreFull(f"{self.path}: the disk is full, so nothing more could be saved")

    with monkeypatch.context() as patch:
        patch.setattr(SqliteStore, "save_artifact", full)
        result = run("--db", db, "ingest", str(papers))
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and db in lines[0] and "disk is full" in lines[0], result.output
    store = SqliteStore(db)
    assert store.count_papers() == 5 and store.artifact_version("paper-index") == 0
    # Space again: the next run refits and saves the model.
    again = run("--db", db, "search", "cats")
    assert again.exit_code == 0, again.output
    assert store.artifact_version("paper-index") == 1


def test_disk_full_while_storing_papers_is_one_line_and_keeps_the_batches_before(tmp_path, monkeypatch):
    import importlib

    from storage import StoreFull
    from storage.sqlite import SqliteStore

    db = str(tmp_path / "x.db")
    papers = tmp_path / "p.jsonl"
    papers.write_text("".join(json.dumps({"id": f"p{i}", "abstract": f"Feline cats purr, study {i}."}) + "\n"
                              for i in range(5)))
    real = SqliteStore.upsert_papers
    batches = []

    def full_on_the_second_batch(self, batch, events=None):
        if self.path != db:  # another test's store (a thread still running): not this disk
            return real(self, batch, events)
        batches.append(batch)
        if len(batches) > 1:
            raise StoreFull(f"{self.path}: the disk is full, so nothing more could be saved")
        return real(self, batch, events)

    monkeypatch.setattr(importlib.import_module("bot.usecases.ingest"), "BATCH", 2)
    monkeypatch.setattr(SqliteStore, "upsert_papers", full_on_the_second_batch)
    result = run("--db", db, "ingest", str(papers))
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and db in lines[0] and "disk is full" in lines[0], result.output
    assert SqliteStore(db).count_papers() == 2


# -- --db after the command, and databases that can't be opened ------------------------------------

def _papers_file(tmp_path) -> str:
    papers = tmp_path / "papers.jsonl"
    papers.write_text("".join(json.dumps({"id": f"p{i}", "abstract": f"Feline cats purr, study {i}."}) + "\n"
                              for i in range(3)))
    return str(papers)


def _one_error_line(result) -> str:
    assert result.exit_code != 0, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.output
    return lines[0]


def test_db_works_after_the_command_as_well_as_before_it(tmp_path):
    before, after = str(tmp_path / "before.db"), str(tmp_path / "after.db")
    assert run("--db", before, "ingest", _papers_file(tmp_path)).exit_code == 0
    assert run("ingest", "--db", after, _papers_file(tmp_path)).exit_code == 0
    from storage import SqliteStore

    assert SqliteStore(before).count_papers() == SqliteStore(after).count_papers() == 3
    found = run("search", "--db", after, "cats", env={"PAPERBOT_DB": str(tmp_path / "elsewhere.db")})
    assert found.exit_code == 0 and "Feline cats" in found.output
    # After the command wins over before it.
    assert run("--db", str(tmp_path / "empty.db"), "search", "--db", after, "cats").exit_code == 0
    dry = run("digest", "--dry-run", "--db", after, env=SLACK_ENV)
    assert dry.exit_code == 0 and "Dry run" in dry.output


@pytest.mark.parametrize("command", [["ingest"], ["search"], ["run"], ["digest"], ["db", "copy"]],
                         ids=" ".join)
def test_help_says_db_may_come_after_the_command(command):
    result = run(*command, "--help")
    assert "--db" in result.output and "also accepted before the command" in " ".join(result.output.split())
    assert "also accepted after the command" in " ".join(run("--help").output.split())


@pytest.mark.parametrize("how", ["--db before", "--db after", "PAPERBOT_DB"])
def test_a_database_that_is_a_folder_is_one_line_naming_the_setting_and_why(tmp_path, how):
    folder = tmp_path / "papers.db"
    folder.mkdir()
    args = {"--db before": ["--db", str(folder), "search", "cats"],
            "--db after": ["search", "--db", str(folder), "cats"], "PAPERBOT_DB": ["search", "cats"]}[how]
    result = run(*args, env={"PAPERBOT_DB": str(folder)} if how == "PAPERBOT_DB" else None)
    line = _one_error_line(result)
    setting = "PAPERBOT_DB" if how == "PAPERBOT_DB" else "--db"
    assert line == f"Error: {setting}: can't open the database {folder} (it is a folder, not a database file)"


def test_a_database_in_a_missing_folder_says_which_folder(tmp_path):
    db = tmp_path / "no" / "such" / "x.db"
    line = _one_error_line(run("--db", str(db), "ingest", str(tmp_path / "any.jsonl")))
    assert line == f"Error: --db: can't open the database {db} (its folder {db.parent} does not exist)"


def test_demo_keep_into_a_missing_folder_is_one_line(tmp_path):
    db = tmp_path / "missing" / "demo.db"
    line = _one_error_line(run("demo", "--keep", str(db)))
    assert line == f"Error: --keep: can't open the database {db} (its folder {db.parent} does not exist)"


def test_demo_without_a_writable_temporary_folder_is_one_line(tmp_path, monkeypatch):
    # A container run read-only, without a tmpfs at /tmp: the demo says what to do, no traceback.
    monkeypatch.setenv("TMPDIR", str(tmp_path / "no-such-folder"))
    monkeypatch.setattr("tempfile.tempdir", None)  # read TMPDIR again (and find no folder there)
    monkeypatch.setattr("tempfile._candidate_tempdir_list", lambda: [str(tmp_path / "no-such-folder")])
    line = _one_error_line(run("demo"))
    assert line.startswith("Error: paperbot demo needs a writable temporary folder") and "TMPDIR" in line


def test_eval_out_into_a_missing_folder_is_one_line(tmp_path):
    from stand_ins.corpus import make_corpus

    papers = tmp_path / "papers.jsonl"
    papers.write_text("".join(json.dumps({"id": p.id, "abstract": p.abstract}) + "\n" for p in make_corpus()))
    users = tmp_path / "users.jsonl"
    users.write_text(json.dumps({"user": "u1", "liked": ["cats-0"]}) + "\n")
    out = tmp_path / "missing" / "out.jsonl"
    result = run("eval", "--papers", str(papers), "--users", str(users), "--out", str(out))
    line = _one_error_line(result)
    assert line == f"Error: --out: can't write {out} (No such file or directory)"


# -- paperbot db copy -------------------------------------------------------------------------------

def _populated(tmp_path) -> str:
    db = str(tmp_path / "source.db")
    assert run("--db", db, "ingest", _papers_file(tmp_path)).exit_code == 0
    from storage import SqliteStore

    store = SqliteStore(db)
    store.add_topics("U1", ["cats"])
    store.set_feedback("U1", "p1", 1)
    store.close()
    return db


def test_db_copy_into_a_sqlite_file_prints_one_line_per_table(tmp_path):
    from storage import SqliteStore
    from storage.tables import COPIED_TABLES

    source, target = _populated(tmp_path), str(tmp_path / "copy.db")
    result = run("db", "copy", "--to", target, env={"PAPERBOT_DB": source})
    assert result.exit_code == 0, result.output
    lines = result.output.strip().splitlines()
    assert [line.split()[0] for line in lines[:-1]] == list(COPIED_TABLES)
    assert lines[0].split() == ["papers", "3"] and "topics 1" in " ".join(" ".join(lines).split())
    assert lines[-1] == f"Copied into {target}; every count matches the source."
    assert SqliteStore(target).get_topics("U1") == ["cats"] and SqliteStore(target).count_papers() == 3


def test_db_copy_refuses_a_target_that_holds_data_in_one_line(tmp_path):
    source, target = _populated(tmp_path), str(tmp_path / "copy.db")
    assert run("db", "copy", "--db", source, "--to", target).exit_code == 0
    line = _one_error_line(run("db", "copy", "--db", source, "--to", target))
    assert line == (f"Error: {target} already holds data (3 papers, 1 topics, 1 feedback, 1 artifacts):"
                    " paperbot db copy only copies into an empty database")


def test_db_copy_of_a_database_that_does_not_exist_is_one_line_and_creates_nothing(tmp_path):
    missing = tmp_path / "missing.db"
    line = _one_error_line(run("db", "copy", "--db", str(missing), "--to", str(tmp_path / "copy.db")))
    assert line == f"Error: --db: there is no database at {missing} to copy"
    assert not missing.exists() and not (tmp_path / "copy.db").exists()


def test_db_copy_into_itself_is_refused(tmp_path):
    source = _populated(tmp_path)
    line = _one_error_line(run("db", "copy", "--db", source, "--to", source))
    assert "names the database being copied" in line


def test_db_copy_to_an_unreachable_server_is_one_line_without_the_password(tmp_path):
    source = _populated(tmp_path)
    result = run("db", "copy", "--db", source, "--to", "postgresql://paperbot:s3cret-pw@127.0.0.1:1/paperbot")
    line = _one_error_line(result)
    assert line == ("Error: --to: can't open the database postgresql://paperbot@127.0.0.1:1/paperbot"
                    " (connection refused)")


def test_db_copy_into_a_missing_folder_is_one_line(tmp_path):
    target = tmp_path / "missing" / "copy.db"
    line = _one_error_line(run("db", "copy", "--db", _populated(tmp_path), "--to", str(target)))
    assert line == (f"Error: --to: can't open the database {target} (its folder {target.parent} does not"
                    " exist)")


# -- paperbot db copy with PostgreSQL (skipped, as tests/storage's, without a server) -----------------

@pytest.fixture
def pg_target(pg_database):  # noqa: F811 (the imported fixture, by name)
    """An emptied throwaway PostgreSQL database (tests/storage/conftest.py makes and drops it)."""
    reset_schema(pg_database)
    return pg_database


def test_db_copy_from_sqlite_to_postgres_and_back(tmp_path, pg_target):
    from storage import SqliteStore, open_store
    from tests.storage.conftest import dispose
    from tests.storage.test_copy import contents

    source = _populated(tmp_path)
    result = run("db", "copy", "--to", pg_target, env={"PAPERBOT_DB": source})
    assert result.exit_code == 0, result.output
    assert result.output.strip().splitlines()[-1].startswith("Copied into postgresql://")
    back = str(tmp_path / "back.db")
    result = run("db", "copy", "--db", pg_target, "--to", back)
    assert result.exit_code == 0, result.output
    postgres = open_store(pg_target)
    try:
        assert contents(SqliteStore(source)) == contents(postgres) == contents(SqliteStore(back))
    finally:
        dispose(postgres)
    again = _one_error_line(run("db", "copy", "--db", source, "--to", pg_target))
    assert "already holds data (3 papers, 1 topics, 1 feedback, 1 artifacts)" in again


def test_db_copy_to_an_unknown_database_or_a_refused_login_is_one_line_without_the_password(tmp_path,
                                                                                           pg_target):
    from tests.storage.conftest import with_database

    source = _populated(tmp_path)
    unknown = with_database(pg_target, "paperbot_no_such_db")
    line = _one_error_line(run("db", "copy", "--db", source, "--to", unknown))
    assert line == (f"Error: --to: can't open the database {unknown}"
                    ' (database "paperbot_no_such_db" does not exist)')
    stranger = pg_target.replace("//postgres@", "//paperbot_no_such_role:s3cret-pw@", 1)
    if stranger == pg_target:
        pytest.skip("PAPERBOT_TEST_POSTGRES names no user postgres to swap for an unknown one")
    for args in (["--db", source, "--to", stranger], ["--db", stranger, "--to", str(tmp_path / "copy.db")]):
        line = _one_error_line(run("db", "copy", *args))
        setting = "--to" if args[-1] == stranger else "--db"
        assert line.startswith(f"Error: {setting}: can't open the database postgresql://paperbot_no_such_role@")
        assert 'role "paperbot_no_such_role" does not exist' in line and "s3cret-pw" not in line
    assert not (tmp_path / "copy.db").exists()


def _connections_to(url: str) -> int:
    import psycopg

    name = url.rsplit("/", 1)[-1]
    with psycopg.connect(url, autocommit=True) as conn:
        return conn.execute("select count(*) from pg_stat_activity where datname = %s"
                            " and pid <> pg_backend_pid()", [name]).fetchone()[0]


def test_ingest_and_search_work_on_a_postgresql_url_and_leave_no_connection_open(
        tmp_path, pg_database):  # noqa: F811 (the imported fixture, by name)
    # A database of its own: the worker's shared one may hold another test's connections, which would
    # be counted against these commands.
    from stand_ins.postgres_servers import throwaway_database, with_database

    with throwaway_database(with_database(pg_database, "postgres")) as target:
        ingested = run("--db", target, "ingest", _papers_file(tmp_path))
        assert ingested.exit_code == 0, ingested.output
        found = run("search", "feline cats", "--db", target)  # --db after the subcommand too
        assert found.exit_code == 0, found.output
        assert all(f"study {i}" in found.output for i in range(3)), found.output
        from storage import open_store
        from tests.storage.conftest import dispose

        store = open_store(target)
        try:
            assert store.count_papers() == 3
        finally:
            dispose(store)
        # No command left a connection open. A closed one leaves pg_stat_activity when its server process
        # has ended, which a busy machine may take a moment to get to.
        wait_until(lambda: _connections_to(target) == 0, timeout=10,
                   what="the commands' connections to close",
                   detail=lambda: f"{_connections_to(target)} open")


def test_a_postgresql_server_that_does_not_answer_is_one_line(tmp_path):
    result = CliRunner().invoke(cli, ["--db", "postgresql://u:secret@127.0.0.1:1/x", "search", "cats"],
                                obj={})
    assert result.exit_code == 1, result.output
    assert result.output.startswith("Error: --db: can't open the database"), result.output
    assert "secret" not in result.output and "Traceback" not in result.output


def _workspace_with_people(db: str, ws: str = "T0REMOVE", people: int = 2) -> None:
    from storage import SqliteStore

    store = SqliteStore(db).for_workspace(ws)
    for i in range(people):
        store.ensure_person(f"U{i}")
    store.dispose()


def _workspace_keys(db: str) -> set[str]:
    from storage import SqliteStore

    store = SqliteStore(db)
    try:
        return {w.ws for w in store.workspaces()}
    finally:
        store.dispose()


@pytest.mark.parametrize("answer", ["n\n", ""])  # a no, and no answer at all (end of input)
def test_workspaces_remove_asks_first_and_a_no_deletes_nothing(tmp_path, answer):
    db = str(tmp_path / "x.db")
    _workspace_with_people(db)
    result = CliRunner().invoke(cli, ["--db", db, "workspaces", "remove", "T0REMOVE"], obj={}, env={},
                                input=answer)
    assert result.exit_code == 1 and "Aborted" in result.output, result.output
    assert "delete everything stored about its 2 people?" in result.output
    assert _workspace_keys(db) == {"T0REMOVE"}


@pytest.mark.parametrize("how", [["--yes"], []])
def test_workspaces_remove_after_a_yes_or_with_yes_deletes_the_workspace(tmp_path, how):
    db = str(tmp_path / "x.db")
    _workspace_with_people(db)
    result = CliRunner().invoke(cli, ["--db", db, "workspaces", "remove", "T0REMOVE", *how], obj={}, env={},
                                input="y\n")
    assert result.exit_code == 0 and "Removed workspace T0REMOVE" in result.output, result.output
    assert ("?" in result.output) == (how == [])  # --yes asks nothing
    assert _workspace_keys(db) == set()


def test_workspaces_set_social_hides_and_shows_saved_counts_and_says_which(tmp_path):
    from storage import Paper, SqliteStore

    db = str(tmp_path / "x.db")
    _workspace_with_people(db)
    store = SqliteStore(db)
    store.upsert_papers([Paper(id="p1", abstract="a")])
    team = store.for_workspace("T0REMOVE")
    team.save_paper("U0", "p1")
    team.save_paper("U1", "p1")
    store.dispose()

    def counts() -> dict[str, int]:
        store = SqliteStore(db)
        try:
            return store.for_workspace("T0REMOVE").shown_saved_counts(["p1"])
        finally:
            store.dispose()

    said = run("--db", db, "workspaces", "set", "T0REMOVE", "social")
    assert said.exit_code == 0 and "social is on in workspace T0REMOVE" in said.output, said.output
    off = run("--db", db, "workspaces", "set", "T0REMOVE", "social", "off")
    assert off.exit_code == 0 and "social is off" in off.output and counts() == {}
    assert " off " in run("--db", db, "workspaces").output.splitlines()[-2]  # the table's row says it too
    on = run("--db", db, "workspaces", "set", "T0REMOVE", "social", "on")
    assert on.exit_code == 0 and "social is on" in on.output and counts() == {"p1": 2}
    for wrong in (["T0REMOVE", "social", "maybe"], ["T0REMOVE", "colour", "on"]):
        bad = run("--db", db, "workspaces", "set", *wrong)
        assert bad.exit_code == 2 and "Traceback" not in bad.output and "Invalid value" in bad.output
    unknown = run("--db", db, "workspaces", "set", "T0NOPE", "social", "off")
    assert unknown.exit_code == 1
    assert unknown.output.strip() == "Error: no workspace 'T0NOPE' here: `paperbot workspaces` lists them"


def test_workspaces_remove_refuses_the_rows_of_no_workspace_in_one_line(tmp_path):
    db = str(tmp_path / "x.db")
    _workspace_with_people(db, ws="")
    result = CliRunner().invoke(cli, ["--db", db, "workspaces", "remove", "", "--yes"], obj={}, env={})
    assert result.exit_code == 1 and "Traceback" not in result.output, result.output
    assert result.output.strip() == "Error: no workspace '' here: `paperbot workspaces` lists them"


def _old_database(target: str) -> None:
    """A database from before workspaces (two people of workspace "", one with a like), and workspace
    T0ADOPT installed, with one person of its own."""
    from storage import open_store
    from tests.storage.conftest import dispose

    store = open_store(target)
    try:
        store.upsert_papers([Paper(id="p1", title="Cats", abstract="Feline cats purr.")])
        store.ensure_person("U1")
        store.add_topics("U1", ["cats"])
        store.set_feedback("U1", "p1", 1)
        store.ensure_person("U2")
        store.save_installation("T0ADOPT", None, "T0ADOPT", "U9", False, "sealed", "2026-07-01T00:00:00Z")
        store.for_workspace("T0ADOPT").ensure_person("U9")
    finally:
        dispose(store)


def _people_of(target: str, ws: str) -> list[str]:
    from storage import open_store
    from tests.storage.conftest import dispose

    store = open_store(target).for_workspace(ws)
    try:
        return [p.user_id for p in store.list_people()]
    finally:
        dispose(store)


def test_workspaces_adopt_gives_the_rows_from_before_workspaces_to_one_and_says_so(store_target):  # noqa: F811
    _old_database(store_target)
    result = run("--db", store_target, "workspaces", "adopt", "T0ADOPT")
    assert result.exit_code == 0, result.output
    # people U1 and U2, U1's topic and like
    assert result.output == "Moved 4 rows stored before workspaces into workspace T0ADOPT.\n"
    assert _people_of(store_target, "T0ADOPT") == ["U1", "U2", "U9"] and _people_of(store_target, "") == []
    again = run("--db", store_target, "workspaces", "adopt", "T0ADOPT")
    assert again.exit_code == 0 and again.output == (
        "Nothing moved into workspace T0ADOPT: no rows stored before workspaces are left.\n")


@pytest.mark.parametrize("team", ["T0NOSUCH", ""])
def test_workspaces_adopt_into_an_unknown_workspace_is_one_line_and_moves_nothing(store_target, team):  # noqa: F811
    _old_database(store_target)
    result = CliRunner().invoke(cli, ["--db", store_target, "workspaces", "adopt", team], obj={}, env={})
    assert result.exit_code == 1 and "Traceback" not in result.output, result.output
    assert result.output.strip() == f"Error: no workspace {team!r} here: `paperbot workspaces` lists them"
    assert _people_of(store_target, "") == ["U1", "U2"] and _people_of(store_target, "T0ADOPT") == ["U9"]


NEW_KEY, OLD_KEY, LOST_KEY = "n" * 40, "o" * 40, "l" * 40


def _installed(db: str, key: str, team: str) -> None:
    from slack_sdk.oauth.installation_store import Installation

    from bot.slack.oauth.installations import PaperbotInstallationStore
    from bot.slack.oauth.token_crypto import TokenBox
    from storage import SqliteStore

    store = SqliteStore(db)
    try:
        PaperbotInstallationStore(store, TokenBox(key)).save(
            Installation(team_id=team, bot_token=f"xoxb-{team}", user_id="U1"))
    finally:
        store.dispose()


def test_workspaces_rekey_reseals_under_the_new_key_and_names_what_no_key_opens(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no .env file
    db = str(tmp_path / "x.db")
    _installed(db, OLD_KEY, "T1")
    _installed(db, NEW_KEY, "T2")
    _installed(db, LOST_KEY, "T3")
    env = {"PAPERBOT_SECRET_KEY": NEW_KEY, "PAPERBOT_OLD_SECRET_KEYS": OLD_KEY}
    result = run("--db", db, "workspaces", "rekey", env=env)
    assert result.exit_code == 1, result.output
    assert result.output.splitlines() == [
        "Re-sealed 1 Slack installation under PAPERBOT_SECRET_KEY; no key opens the installation of T3: add "
        "the key it was saved with to PAPERBOT_OLD_SECRET_KEYS, or install the app there again."]
    assert NEW_KEY not in result.output and OLD_KEY not in result.output
    _installed(db, NEW_KEY, "T3")  # installed again there
    again = run("--db", db, "workspaces", "rekey", env={"PAPERBOT_SECRET_KEY": NEW_KEY})
    assert again.exit_code == 0
    assert again.output == "Re-sealed 0 Slack installations under PAPERBOT_SECRET_KEY.\n"


@pytest.mark.parametrize("env, named", [
    ({}, "PAPERBOT_SECRET_KEY is not set"),
    ({"PAPERBOT_SECRET_KEY": NEW_KEY, "PAPERBOT_OLD_SECRET_KEYS": "short"}, "PAPERBOT_OLD_SECRET_KEYS")])
def test_workspaces_rekey_without_a_good_key_is_one_line(tmp_path, monkeypatch, env, named):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("PAPERBOT_SECRET_KEY", raising=False)
    monkeypatch.delenv("PAPERBOT_OLD_SECRET_KEYS", raising=False)
    db = str(tmp_path / "x.db")
    _installed(db, OLD_KEY, "T1")
    result = run("--db", db, "workspaces", "rekey", env=env)
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1 and named in result.output, result.output


def test_search_wants_at_least_one_paper_and_says_plainly_when_none_matches(tmp_path):
    good = tmp_path / "papers.jsonl"
    good.write_text(json.dumps({"id": "a", "title": "Cats", "abstract": "Feline cats purr a lot."}) + "\n")
    db = str(tmp_path / "x.db")
    assert run("--db", db, "ingest", str(good)).exit_code == 0
    zero = CliRunner().invoke(cli, ["--db", db, "search", "-n", "0", "cats"], obj={}, env={})
    assert zero.exit_code == 2 and "-n" in zero.output and "Traceback" not in zero.output
    none = run("--db", db, "search", "quasar", "[bold]")
    assert none.exit_code == 0 and "No paper matches “quasar [bold]”." in none.output, none.output


def test_an_empty_source_warns_and_still_exits_zero(tmp_path):
    empty, good = tmp_path / "empty.jsonl", tmp_path / "good.jsonl"
    empty.write_text("")
    good.write_text(json.dumps({"id": "a", "title": "Cats", "abstract": "Feline cats purr a lot."}) + "\n")
    result = run("--db", str(tmp_path / "x.db"), "ingest", str(empty), str(good))
    assert result.exit_code == 0, result.output
    assert "empty.jsonl held no papers at all" in result.output
    assert "good.jsonl held no papers" not in result.output


def test_eval_names_the_ids_no_paper_has_and_still_ranks(tmp_path):
    from stand_ins.corpus import make_corpus

    papers = tmp_path / "papers.jsonl"
    papers.write_text("".join(json.dumps({"id": p.id, "title": p.title, "abstract": p.abstract}) + "\n"
                              for p in make_corpus()))
    users = tmp_path / "users.jsonl"
    users.write_text(json.dumps({"user": "u1", "liked": ["cats-0", "ghost-1", "ghost-1"],
                                 "disliked": ["ghost-2"]}) + "\n")
    candidates = tmp_path / "c.txt"
    candidates.write_text("cats-1\ncats-2\nnowhere\n")
    out = tmp_path / "out.jsonl"
    result = run("eval", "--papers", str(papers), "--users", str(users), "--candidates", str(candidates),
                 "--k", "2", "--out", str(out))
    assert result.exit_code == 0, result.output
    assert "2 paper id(s) in" in result.output and "ghost-1, ghost-2" in result.output
    assert "1 paper id(s) in" in result.output and "nowhere" in result.output
    assert [json.loads(line)["user"] for line in out.read_text().splitlines()] == ["u1"]


def test_search_prints_a_papers_text_without_its_control_characters(tmp_path):
    # A feed's title can hold escape sequences: a hyperlink, clear-screen, blink, a C1 CSI, a bidi override.
    hostile = ("Cats \x1b]8;;http://evil.example\x1b\\click\x1b]8;;\x1b\\ \x1b[2J\x1b[5mpurr\x07"
               " \x9b31m \u202eodd")
    papers = tmp_path / "papers.jsonl"
    papers.write_text(json.dumps({"id": "a", "title": hostile, "authors": ["Ada \x1b[8mHidden"],
                                  "abstract": "Feline cats purr a lot. \x1b[2J"}) + "\n")
    db = str(tmp_path / "x.db")
    assert run("--db", db, "ingest", str(papers)).exit_code == 0
    result = run("--db", db, "search", "cats")
    assert result.exit_code == 0, result.output
    assert "click" in result.output and "purr" in result.output and "Hidden" in result.output
    for control in ("\x1b", "\x07", "\x9b", "\u202e"):
        assert control not in result.output, (control, result.output)


def test_a_malformed_database_url_is_one_line_naming_it_without_its_password(tmp_path):
    result = CliRunner().invoke(cli, ["search", "cats"], obj={},
                                env={"PAPERBOT_DB": "postgresql://user:S3cret@[host:5432/db"})
    assert result.exit_code == 1, result.output
    assert result.output.startswith("Error: PAPERBOT_DB: can't read the database URL (end of string reached")
    assert result.output.count("\n") == 1, result.output
    assert "S3cret" not in result.output and "Traceback" not in result.output


def test_show_prints_what_a_message_shows_as_text_or_json_lines_and_exits_1_for_a_name_not_held(tmp_path):
    papers = tmp_path / "papers.jsonl"
    abstract = ("Training large models is slow. We propose $\\alpha$-Sync, a scheme that overlaps gradient "
                "exchange with the backward pass. On ImageNet it trains ResNet-50 2.1x faster at 93.5% of "
                "the accuracy.")
    papers.write_text(json.dumps({"id": "sync", "title": "Fast $\\alpha$ training", "abstract": abstract,
                                  "authors": ["Ada Lovelace"], "url": "https://arxiv.org/abs/2401.00001"})
                      + "\n"
                      + json.dumps({"id": "bare", "title": "Bare", "abstract": "Snails."}) + "\n")
    db = str(tmp_path / "x.db")
    assert run("--db", db, "ingest", str(papers)).exit_code == 0
    text = run("--db", db, "show", "sync")
    assert text.exit_code == 0, text.output
    assert "Fast α training" in text.output and "Ada Lovelace" in text.output
    assert "quoted from the abstract" in text.output and "α-Sync" in " ".join(text.output.split())
    result = CliRunner().invoke(cli, ["--db", db, "show", "--json", "-", "nope"], obj={}, env={},
                                input="arXiv:2401.00001v1\n\nbare\n")
    assert result.exit_code == 1
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert [line["id"] for line in lines] == ["sync", "bare"]
    assert lines[0]["highlight"].startswith("We propose α-Sync") and "93.5%" in lines[0]["result"]
    assert lines[1]["highlight"] is None or lines[1]["highlight"] == "Snails."
    assert {"id", "title", "authors", "highlight", "result", "summary", "summary_source"} <= set(lines[0])
    assert lines[0]["summary"] is None and lines[0]["summary_source"] is None
    assert "not held: nope" in result.stderr
