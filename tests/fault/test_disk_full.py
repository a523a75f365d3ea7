"""A disk that fills up while `paperbot ingest` saves the model: one line naming the database, exit
status 1, the papers kept, and the model refitted and saved by a later run once there is space.

The database lives on a small tmpfs, so the failure is the kernel's own ENOSPC. The disk is filled
right after the papers' last batch is committed (just before the model is brought up to date), which
makes "papers fit, model doesn't" exact rather than a matter of sizing. That one is SQLite only, by
nature: the test fills the disk under the database file, and a PostgreSQL server's disk is not the
test's to fill. The bot serving a refit it cannot save runs on both backends (PostgreSQL's disk_full
becomes the same StoreFull)."""

from __future__ import annotations

import errno
import json
import logging
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from bot.cli.main import cli
from bot.state.engine import ARTIFACT, Engine
from storage import SqliteStore

PAPERS = 300


NO_TMPFS = "needs root to mount a tmpfs (run as root or in CI)"


def _without_tmpfs(detail: str) -> None:
    """Skip, or fail where a tmpfs is required (CI sets PAPERBOT_REQUIRE_TMPFS: there it must run)."""
    if os.environ.get("PAPERBOT_REQUIRE_TMPFS"):
        pytest.fail(f"PAPERBOT_REQUIRE_TMPFS is set but no tmpfs could be mounted: {detail}")
    pytest.skip(NO_TMPFS)


@pytest.fixture
def small_disk(tmp_path):
    """A 4 MB tmpfs, unmounted afterwards; skipped where mounting isn't allowed."""
    mount = tmp_path / "small"
    mount.mkdir()
    if shutil.which("mount") is None:
        _without_tmpfs("no mount command")
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(mount)],
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        _without_tmpfs(done.stderr.strip())
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], capture_output=True, check=False)


def fill(folder: Path) -> Path:
    """Take every free byte of the file system under ``folder``; returns the file holding them."""
    filler = folder / "filler"
    with filler.open("wb", buffering=0) as out:
        for chunk in (1 << 20, 1 << 12, 1):
            try:
                while True:
                    out.write(b"\0" * chunk)
            except OSError as exc:
                if exc.errno != errno.ENOSPC:
                    raise
    return filler


def papers_file(path: Path, start: int = 0, count: int = PAPERS) -> Path:
    """Papers with a wide vocabulary (each term in two papers, so none is pruned): their model is far
    bigger than any WAL space SQLite could reuse without asking the disk for more."""
    lines = []
    for i in range(start, start + count):
        words = " ".join(f"term{i // 2}x{j} word{(i * 7 + j) % 997}" for j in range(12))
        lines.append(json.dumps({"id": f"p{i}", "title": f"Paper {i}", "abstract": f"We study {words}."}))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def paperbot(db: Path, *args: str):
    return CliRunner().invoke(cli, ["--db", str(db), *args], obj={}, env={"PAPERBOT_DB": None},
                              catch_exceptions=False)


@pytest.mark.parametrize("saved_before", [0, 40], ids=["no saved model", "an older saved model"])
def test_a_full_disk_while_saving_the_model_is_one_line_and_a_later_run_saves_it(small_disk, tmp_path,
                                                                                  monkeypatch, caplog,
                                                                                  saved_before):
    db = small_disk / "paperbot.db"
    if saved_before:  # a model fitted on the first papers, saved while there was space
        first = papers_file(tmp_path / "first.jsonl", 0, saved_before)
        assert paperbot(db, "ingest", str(first)).exit_code == 0
    version = 1 if saved_before else 0
    source = papers_file(tmp_path / "papers.jsonl", saved_before, PAPERS - saved_before)
    refresh = Engine.refresh
    filled: list[Path] = []

    def refresh_on_a_full_disk(self, *args, **kwargs):
        filled.append(fill(small_disk))  # every batch of papers is committed by now
        return refresh(self, *args, **kwargs)

    with monkeypatch.context() as patch:
        patch.setattr(Engine, "refresh", refresh_on_a_full_disk)
        result = paperbot(db, "ingest", str(source))
    assert filled, "ingest never brought the model up to date"
    assert result.exit_code == 1, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1, result.output
    assert str(db) in lines[0] and "disk is full" in lines[0]
    assert "papers stored before that are kept" in lines[0]
    store = SqliteStore(db)
    try:
        assert store.count_papers() == PAPERS
        assert store.artifact_version(ARTIFACT) == version
    finally:
        store.close()

    filled[0].unlink()  # space again
    with caplog.at_level(logging.WARNING):
        later = paperbot(db, "search", "term103x5")
    assert later.exit_code == 0, later.output
    assert "Paper 207" in later.output and "Paper 206" in later.output
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]
    store = SqliteStore(db)
    try:
        assert store.artifact_version(ARTIFACT) == version + 1
        with Engine(store).index() as index:
            assert index.fitted_on == PAPERS
    finally:
        store.close()


def test_the_bot_serves_a_refit_it_cannot_save_with_one_line(tmp_path, backend, monkeypatch, caplog):
    """No tmpfs needed: the store's save raises StoreFull, as it does on a full disk."""
    from stand_ins.slack import SlackStandIn
    from storage import StoreFull
    from storage.postgres import PostgresStore
    from tests.e2e.harness import FakeSlack, new_database, opened, query, seed_papers, serving

    with new_database(tmp_path, backend) as db:
        seed_papers(db)
        with opened(db) as store, store.transaction():  # no saved model: the bot must refit, can't save it
            query(store, "delete from artifacts returning name")

        def full(self, name, data):
            raise StoreFull(f"{db}: the disk is full, so nothing more could be saved")

        monkeypatch.setattr(SqliteStore, "save_artifact", full)
        monkeypatch.setattr(PostgresStore, "save_artifact", full)
        with SlackStandIn() as standin, caplog.at_level(logging.WARNING), serving(standin, db) as bot:
            slack = FakeSlack(bot.url, standin)
            first = slack.ask("UFULL1", "search quantum qubits entanglement")
            second = slack.ask("UFULL2", "search feline cats whiskers")
    assert "qubits" in str(first.blocks) and "feline" in str(second.blocks)
    lines = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(lines) == 1 and "not saved" in lines[0] and str(db) in lines[0], lines
