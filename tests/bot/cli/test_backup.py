"""``paperbot db backup``: a copy that paperbot serves at once, restored by copying it back; the journal of
unsettled requests comes with it; an existing file and a PostgreSQL database are refused in one line."""

from __future__ import annotations

import json
import shutil

from bot.state.journal import Journal, journal_path
from storage import Paper, SqliteStore
from storage.models import InboxEntry
from tests.bot.cli.test_cli import run
from tests.storage.conftest import (  # noqa: F401 (fixtures, used by name)
    pg_database,
    pg_url,
    reset_schema,
)


def database(tmp_path) -> str:
    path = str(tmp_path / "live.db")
    store = SqliteStore(path)
    store.upsert_papers([Paper(id="a", title="Graph attention",
                               abstract="Graph attention networks for molecules.")])
    store.close()
    return path


def test_a_backup_is_served_at_once_and_restores_by_copying_back(tmp_path):
    live = database(tmp_path)
    result = run("--db", live, "db", "backup", str(tmp_path / "copy.db"))
    assert result.exit_code == 0, result.output
    assert "Backed up" in result.output and "copy.db" in result.output
    found = run("--db", str(tmp_path / "copy.db"), "search", "graph", "attention")
    assert found.exit_code == 0 and "Graph attention" in found.output
    assert run("--db", str(tmp_path / "copy.db"), "workspaces").exit_code == 0
    # Restore: the original lost, the copy put back in its place, served.
    for name in ("live.db", "live.db-wal", "live.db-shm"):
        (tmp_path / name).unlink(missing_ok=True)
    shutil.copy(tmp_path / "copy.db", live)
    again = run("--db", live, "search", "molecules")
    assert again.exit_code == 0 and "Graph attention" in again.output


def test_requests_not_yet_settled_come_with_the_copy(tmp_path):
    live = database(tmp_path)
    entry = InboxEntry("T1", "k1", "command", "U1", json.dumps({"text": "follow graphs"}),
                       "2026-01-01T00:00:00+00:00")
    Journal(live).append(entry)
    result = run("--db", live, "db", "backup", str(tmp_path / "copy.db"))
    assert result.exit_code == 0, result.output
    assert "not yet settled" in result.output
    copy = SqliteStore(tmp_path / "copy.db")
    assert journal_path(tmp_path / "copy.db").is_file()
    drained = Journal(tmp_path / "copy.db").drain(copy, wait=True)
    assert drained.new == 1 and copy.inbox_item("T1", "k1") is not None
    copy.close()


def test_an_existing_file_is_refused_in_one_line_unless_forced(tmp_path):
    live = database(tmp_path)
    (tmp_path / "copy.db").write_text("an older backup")
    refused = run("--db", live, "db", "backup", str(tmp_path / "copy.db"))
    assert refused.exit_code == 1
    assert refused.output.strip().count("\n") == 0 and "--force" in refused.output
    assert (tmp_path / "copy.db").read_text() == "an older backup"
    forced = run("--db", live, "db", "backup", "--force", str(tmp_path / "copy.db"))
    assert forced.exit_code == 0, forced.output


def test_postgresql_gets_the_pg_dump_recipe_and_no_password(pg_url, tmp_path):  # noqa: F811
    result = run("--db", pg_url, "db", "backup", str(tmp_path / "copy.db"))
    assert result.exit_code == 1
    assert "pg_dump -Fc" in result.output and "pg_restore" in result.output
    assert "Traceback" not in result.output
    assert pg_url not in result.output
    assert not (tmp_path / "copy.db").exists()
