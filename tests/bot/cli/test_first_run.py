"""The first run, as a new admin meets it: `paperbot digest` (cron) on a fresh install makes the
database and fills it from PAPERBOT_FEEDS; database settings in a form paperbot can't open are refused
naming the forms it takes; a failed ingest into a new file leaves no file; `paperbot --version`."""

from __future__ import annotations

import json
from importlib.metadata import version

import pytest

from stand_ins.slack import SlackStandIn
from storage import SqliteStore
from tests.bot.cli.test_cli import run

FORMS = "give a file path, sqlite:///path or postgresql://user:password@host:port/dbname"


def papers_file(tmp_path) -> str:
    path = tmp_path / "feed.jsonl"
    path.write_text("".join(json.dumps({"id": f"p{i}", "title": f"Feline cats {i}",
                                        "abstract": f"Cats purr and sleep in study number {i}."}) + "\n"
                            for i in range(3)))
    return str(path)


def test_version_is_the_installed_distributions():
    result = run("--version")
    assert result.exit_code == 0 and result.output == f"paperbot {version('paperbot')}\n"


def test_digest_on_a_fresh_install_makes_the_database_and_ingests_the_feeds(tmp_path):
    target = tmp_path / "paperbot.db"
    with SlackStandIn() as slack:
        result = run("digest", env={"SLACK_BOT_TOKEN": "xoxb-1-first-run", "SLACK_API_URL": slack.base_url,
                                    "PAPERBOT_DB": str(target), "PAPERBOT_FEEDS": papers_file(tmp_path),
                                    "SLACK_APP_TOKEN": None})
    assert result.exit_code == 0, result.output
    store = SqliteStore(target)
    try:
        assert store.count_papers() == 3
    finally:
        store.dispose()


@pytest.mark.parametrize("value", ["mysql://u:S3cret@foo/bar", "sqlite://x.db"])
@pytest.mark.parametrize("how", ["--db", "PAPERBOT_DB"])
@pytest.mark.parametrize("command", [["search", "cats"], ["ingest", "papers.jsonl"], ["digest"], ["doctor"]],
                         ids=" ".join)
def test_a_database_in_no_accepted_form_is_refused_naming_the_forms(tmp_path, value, how, command):
    args = ["--db", value, *command] if how == "--db" else command
    result = run(*args, env={"PAPERBOT_DB": value} if how == "PAPERBOT_DB" else {"PAPERBOT_DB": None})
    assert result.exit_code == 1
    # the doctor goes on with its other checks (no token here: Slack's line fails too)
    [line] = [line for line in result.output.splitlines() if line.startswith(("Error", "FAIL settings"))]
    assert command == ["doctor"] or len(result.output.strip().splitlines()) == 1
    shown = value.replace("S3cret", "***")
    said = f"{how}: {shown} is not a database paperbot can open: {FORMS}"
    assert line in (f"Error: {said}", f"FAIL settings: {said}"), line  # the doctor says it as a check
    assert "S3cret" not in result.output and list(tmp_path.iterdir()) == []


def test_a_sqlite_url_names_its_path_relative_or_absolute(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert run("--db", "sqlite:///rel.db", "ingest", papers_file(tmp_path)).exit_code == 0
    absolute = tmp_path / "abs.db"
    assert run("ingest", papers_file(tmp_path), env={"PAPERBOT_DB": f"sqlite:///{absolute}"}).exit_code == 0
    assert (tmp_path / "rel.db").is_file() and absolute.is_file()
    found = run("--db", f"sqlite:///{absolute}", "search", "cats")
    assert found.exit_code == 0 and "Feline cats" in found.output


def test_the_default_database_is_not_blamed_on_a_setting(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = run("search", "cats", env={"PAPERBOT_DB": None})
    assert result.exit_code == 1
    assert result.output.strip() == ("Error: there is no database at paperbot.db, the default as neither "
                                     "--db nor PAPERBOT_DB is set (`paperbot ingest` makes one)")


def test_a_failed_ingest_into_a_new_file_leaves_no_file_but_keeps_a_database_that_was_there(tmp_path):
    target = tmp_path / "new.db"
    missing = str(tmp_path / "missing.jsonl")
    result = run("--db", str(target), "ingest", missing)
    assert result.exit_code == 1 and "was not kept" in result.output
    assert [p.name for p in tmp_path.iterdir()] == []
    assert run("--db", str(target), "ingest", missing, papers_file(tmp_path)).exit_code == 1
    assert target.is_file()  # a source that failed beside one that stored papers: kept
    again = run("--db", str(target), "ingest", missing)
    assert again.exit_code == 1 and target.is_file() and "was not kept" not in again.output
