"""A saved model damaged in any way is refitted from the papers and rewritten, with one warning line:
through the engine, `paperbot search` and `paperbot digest`, and the running bot's slash commands.

Each shape is written straight into the ``artifacts`` row, as a damaged file or another program would
leave it, with its version bumped so that every process takes it for the newest model.

The engine's case runs on SQLite and on PostgreSQL: what differs is how a blob travels (a ``bytea``
column, NULL, the version read back). The rest are the same engine code above either store, and stay on
SQLite, as do the shapes only SQLite's loose column types can hold (text in the blob column, a version
that is not a number)."""

from __future__ import annotations

import contextlib
import logging
import pickle
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.cli.main import cli
from bot.state.context import Context
from bot.state.engine import ARTIFACT, Engine
from bot.usecases import follow
from recommender import Profile, rank
from recommender.index import FORMAT
from stand_ins.corpus import make_corpus
from stand_ins.slack import SlackStandIn
from storage import Paper, SqliteStore
from tests.e2e.harness import (
    SLACK_ENVIRONMENT,
    FakeSlack,
    PostgresTarget,
    bot_environment,
    copy_sqlite_file,
    new_database,
    opened,
    posts_to,
    process_environment,
    query,
    serving,
)

READER = "UREADER"


def _payload(good: bytes) -> dict:
    return pickle.loads(good)


def _state(good: bytes) -> dict:
    return pickle.loads(_payload(good)["index"])


def _with(good: bytes, **changes) -> bytes:
    return pickle.dumps({**_payload(good), **changes})


def _with_state(good: bytes, **changes) -> bytes:
    return _with(good, index=pickle.dumps({**_state(good), **changes}))


#: Every damaged shape of the saved model: a function of the good blob to what the row then holds.
SHAPES: dict[str, Callable[[bytes], bytes | str | None]] = {
    "pickled int": lambda good: pickle.dumps(42),
    "pickled list": lambda good: pickle.dumps([1, 2, 3]),
    "pickled None": lambda good: pickle.dumps(None),
    "empty blob": lambda good: b"",
    "NULL": lambda good: None,
    "TEXT": lambda good: "a fitted model, honest",
    "not a pickle": lambda good: b"not a pickle at all",
    "truncated pickle": lambda good: good[: len(good) // 2],
    "dict without index": lambda good: pickle.dumps({"seq": 1}),
    "dict without seq": lambda good: pickle.dumps({"index": _payload(good)["index"]}),
    "index garbage bytes": lambda good: _with(good, index=b"\x80\x05garbage"),
    "index not bytes": lambda good: _with(good, index=[1, 2]),
    "index truncated": lambda good: _with(good, index=_payload(good)["index"][:100]),
    "index of an old format": lambda good: _with_state(good, format=FORMAT - 1),
    "index without a model": lambda good: _with_state(good, model=None),
    "index rows not matching its ids": lambda good: _with_state(good, ids=_state(good)["ids"][:3]),
    "another class": lambda good: pickle.dumps(Paper(id="x", abstract="not a model")),
    "a class that no longer exists": lambda good: b"cpaperbot_gone\nOldModel\n)R.",
    "seq a string": lambda good: _with(good, seq="40"),
    "seq None": lambda good: _with(good, seq=None),
    "seq a float": lambda good: _with(good, seq=40.0),
    "seq beyond the papers": lambda good: _with(good, seq=10**9),
    "seq negative": lambda good: _with(good, seq=-1),
}


def damage(db: Path | PostgresTarget, value: bytes | str | None) -> int:
    """Overwrite the saved model's row with ``value`` (a newer version); returns that version."""
    if isinstance(db, PostgresTarget):
        if isinstance(value, str):  # a bytea column holds no text: what lands there is its bytes
            value = value.encode()
        with opened(db) as store, store.transaction():
            return query(store, "update artifacts set data = ?, version = version + 1 where name = ?"
                                " returning version", [value, ARTIFACT])[0]["version"]
    conn = sqlite3.connect(db)
    try:
        with conn:
            conn.execute("update artifacts set data = ?, version = version + 1 where name = ?",
                         [value, ARTIFACT])
        return conn.execute("select version from artifacts where name = ?", [ARTIFACT]).fetchone()[0]
    finally:
        conn.close()


def saved_blob(db: Path | PostgresTarget) -> bytes:
    with opened(db) as store:
        return bytes(query(store, "select data from artifacts where name = ?", [ARTIFACT])[0]["data"])


def seeded(db: Path, reader: str = READER) -> bytes:
    """40 papers, a saved model fitted on them, and a reader who follows cats; returns the good blob."""
    ctx = Context.open(str(db))
    try:
        ctx.store.upsert_papers(make_corpus())
        ctx.engine.rebuild()
        follow(ctx, reader, "feline cats whiskers")
        with ctx.store.transaction():
            ctx.store.set_digest_schedule(reader, "00:00", True, since="2020-01-01T00:00:00+00:00")
    finally:
        ctx.close()
    return saved_blob(db)


@pytest.fixture(scope="module")
def seeded_once(tmp_path_factory) -> Callable[[str], tuple[Path | PostgresTarget, bytes]]:
    """The :func:`seeded` database of a backend, built the first time a case asks for it (fitting and
    seeding cost more than a copy) and with its good blob; each case damages a copy of its own."""
    built: dict[str, tuple[Path | PostgresTarget, bytes]] = {}
    with contextlib.ExitStack() as databases:

        def seeded_on(backend: str) -> tuple[Path | PostgresTarget, bytes]:
            if backend not in built:
                folder = tmp_path_factory.mktemp(f"seeded-{backend}")
                db = databases.enter_context(new_database(folder, backend))
                built[backend] = db, seeded(db)
            return built[backend]

        yield seeded_on


@pytest.fixture(params=list(SHAPES))
def damaged(request, tmp_path, seeded_once) -> tuple[Path, int]:
    """A database whose newest saved model has one of the damaged shapes; with that version."""
    original, good = seeded_once("sqlite")
    with new_database(tmp_path, "sqlite", copy_of=original) as db:
        return db, damage(db, SHAPES[request.param](good))


@pytest.fixture(params=list(SHAPES))
def damaged_on_each_backend(request, tmp_path, backend, seeded_once) -> tuple[Path | PostgresTarget, int]:
    """:func:`damaged`, on SQLite and on PostgreSQL in turn."""
    original, good = seeded_once(backend)
    with new_database(tmp_path, backend, copy_of=original) as db:
        yield db, damage(db, SHAPES[request.param](good))


def warnings_about_the_model(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records
            if r.name == "bot.state.engine" and r.levelno == logging.WARNING and "unusable" in r.getMessage()]


def assert_rewritten(db: Path, damaged_version: int, caplog) -> None:
    """A good model was saved over the damaged one: the next process loads it and refits nothing."""
    with opened(db) as store:
        assert store.artifact_version(ARTIFACT) == damaged_version + 1
        caplog.clear()
        engine = Engine(store, refresh_every=0)
        with engine.index() as index:
            assert index is not None and len(index) == 40
        assert store.artifact_version(ARTIFACT) == damaged_version + 1, "the next process had to refit"
        assert not warnings_about_the_model(caplog)


# -- the engine -------------------------------------------------------------------------------------

def test_the_engine_refits_and_rewrites_a_damaged_model(damaged_on_each_backend, caplog):
    db, version = damaged_on_each_backend
    with opened(db) as store:
        with caplog.at_level(logging.WARNING):
            engine = Engine(store, refresh_every=0)
            with engine.index() as index:
                ranked = [r.paper_id for r in rank(index, Profile(topics=["feline cats"]), 5)]
        assert ranked and all(pid.startswith("cats-") for pid in ranked)
        lines = warnings_about_the_model(caplog)
        assert len(lines) == 1 and str(store.path) in lines[0] and "\n" not in lines[0], lines  # file or URL
    assert_rewritten(db, version, caplog)


_objects = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8)
    | st.binary(max_size=16),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.sampled_from(["seq", "index", "format", "model", "ids", "matrix", "fitted_on"])
        | st.text(max_size=4), inner, max_size=4),
    max_leaves=12,
)


@pytest.fixture(scope="module")
def ten_papers(tmp_path_factory) -> Path:
    """A closed database of ten papers and no model, which each example copies (the schema is not built
    60 times)."""
    db = tmp_path_factory.mktemp("ten-papers") / "paperbot.db"
    store = SqliteStore(db)
    try:
        store.upsert_papers(make_corpus(per_topic=2))
    finally:
        store.close()
    return db


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(blob=st.binary(max_size=64) | _objects.map(pickle.dumps)
       | _objects.map(lambda o: pickle.dumps({"seq": 1, "index": pickle.dumps(o)})))
def test_whatever_the_blob_holds_the_engine_serves_real_papers(blob, tmp_path_factory, ten_papers):
    db = tmp_path_factory.mktemp("fuzz") / "paperbot.db"
    copy_sqlite_file(ten_papers, db)
    store = SqliteStore(db)
    try:
        store.save_artifact(ARTIFACT, blob)
        engine = Engine(store, refresh_every=0)
        with engine.index() as index:
            assert index is not None and len(index) == 10
        assert store.artifact_version(ARTIFACT) == 2
    finally:
        store.close()


# -- the command line -------------------------------------------------------------------------------

def invoke(db: Path, *args: str):
    return CliRunner().invoke(cli, ["--db", str(db), *args], obj={}, env={"PAPERBOT_DB": None},
                              catch_exceptions=False)


def test_paperbot_search_answers_from_a_refitted_model(damaged, caplog):
    db, version = damaged
    with caplog.at_level(logging.WARNING):
        result = invoke(db, "search", "feline", "cats")
    assert result.exit_code == 0, result.output
    assert "On feline" in result.output or "On cats" in result.output
    assert len(warnings_about_the_model(caplog)) == 1
    assert_rewritten(db, version, caplog)


def test_paperbot_digest_chooses_from_a_refitted_model(damaged, caplog):
    db, version = damaged
    with caplog.at_level(logging.WARNING):
        result = invoke(db, "digest", "--dry-run", "--force", "--user", READER)
    assert result.exit_code == 0, result.output
    assert "no papers" not in result.output.lower()
    assert "1 digest(s) due, 5 paper(s)" in result.output
    assert len(warnings_about_the_model(caplog)) == 1
    assert_rewritten(db, version, caplog)


@pytest.mark.parametrize("shape", ["pickled int", "NULL", "truncated pickle"])
def test_paperbot_as_its_own_process_warns_in_one_line(shape, tmp_path):
    db = tmp_path / "paperbot.db"
    damage(db, SHAPES[shape](seeded(db)))
    environ = process_environment(tmp_path)
    done = subprocess.run([sys.executable, "-m", "bot.cli", "--db", str(db), "search", "feline", "cats"],
                          cwd=tmp_path, env=environ, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert "On feline" in done.stdout or "On cats" in done.stdout
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "unusable" in lines[0] and str(db) in lines[0], done.stderr


# -- the running bot --------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def standin():
    with SlackStandIn(default_tz="Europe/Berlin") as s:
        yield s


@pytest.fixture
def bot_on(standin):
    """Start the real bot (HTTP, signed requests) on a database; stopped at the end of the test."""
    with contextlib.ExitStack() as bots:

        def start(db: Path) -> FakeSlack:
            standin.reset()
            return FakeSlack(bots.enter_context(serving(standin, db)).url, standin)

        yield start


@pytest.mark.parametrize("shape", ["pickled int", "TEXT"])
def test_paperbot_digest_sends_real_papers_over_a_damaged_model(shape, tmp_path, standin, monkeypatch):
    for name in SLACK_ENVIRONMENT:
        monkeypatch.delenv(name, raising=False)
    db, reader = tmp_path / "paperbot.db", f"UDIG{len(standin.calls())}"  # the stand-in keeps every call
    damage(db, SHAPES[shape](seeded(db, reader)))
    environ = process_environment(tmp_path, bot_environment(standin, db))
    done = subprocess.run([sys.executable, "-m", "bot.cli", "digest", "--force", "--user", reader],
                          cwd=tmp_path, env=environ, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    posted = [c for c in posts_to(standin, "D" + reader) if c.params.get("blocks")]
    assert len(posted) == 3
    assert all("feline" in c.params["text"] or "cats" in c.params["text"] for c in posted)
    warnings = [line for line in done.stderr.splitlines() if line.startswith("WARNING")]
    assert len(warnings) == 1 and "unusable" in warnings[0], done.stderr


def test_the_bot_answers_search_from_a_refitted_model(damaged, bot_on, caplog):
    db, version = damaged
    with caplog.at_level(logging.WARNING):
        slack = bot_on(db)
        reply = slack.ask("UASKER", "search feline cats whiskers")
    assert "no papers" not in reply.text.lower()
    sections = [b["text"]["text"] for b in reply.blocks if b["type"] == "section"]
    assert sum("feline" in s or "cats" in s for s in sections) >= 3, reply
    assert len(warnings_about_the_model(caplog)) == 1
    assert_rewritten(db, version, caplog)


@pytest.mark.parametrize("shape", ["pickled list", "TEXT", "index without a model", "seq a string"])
def test_the_bot_recommends_real_papers_over_a_damaged_model(shape, tmp_path, bot_on, standin):
    db, reader = tmp_path / "paperbot.db", f"UREC{len(standin.calls())}"  # the stand-in keeps every call
    damage(db, SHAPES[shape](seeded(db, reader)))
    slack = bot_on(db)
    reply = slack.ask(reader, "recommend 2")
    assert "no papers" not in reply.text.lower(), reply
    posted = [c for c in posts_to(standin, "D" + reader) if c.params.get("blocks")]
    assert len(posted) == 2
    assert all("feline" in c.params["text"] or "cats" in c.params["text"] for c in posted)


@pytest.mark.parametrize("version", [None, "abc", ""])
def test_a_damaged_version_is_older_than_any_model_and_the_model_is_rewritten(tmp_path, version):
    db = tmp_path / "paperbot.db"
    seeded(db)
    conn = sqlite3.connect(db)
    with conn:
        conn.execute("update artifacts set version = ? where name = ?", [version, ARTIFACT])
    conn.close()
    store = SqliteStore(db)
    try:
        assert store.artifact_version(ARTIFACT) == 0
        with Engine(store, refresh_every=0).index() as index:
            ranked = [r.paper_id for r in rank(index, Profile(topics=["feline cats"]), 5)]
        assert ranked and all(pid.startswith("cats-") for pid in ranked)
        assert store.artifact_version(ARTIFACT) == 1  # refitted and saved over it
    finally:
        store.close()
