"""A word first seen in papers ingested after the model was saved is searchable and matchable at once,
with no refit: through the CLI (another process ingests), and in a running engine (the bot's)."""

from __future__ import annotations

import json

from click.testing import CliRunner

from bot.cli.main import cli
from bot.state.engine import ARTIFACT, Engine
from recommender import Profile, rank
from stand_ins.corpus import make_corpus
from storage import Paper, SqliteStore

MAMBA = [
    {"id": "2312.00752", "title": "Mamba: Linear-Time Sequence Modeling with Selective State Spaces",
     "abstract": ("Foundation models are built on attention. "
                  "We propose Mamba, a selective state space model.")},
    {"id": "2401.09417", "title": "Vision Mamba",
     "abstract": "We apply Mamba blocks with bidirectional scans to images."},
]


def run(*args):
    return CliRunner().invoke(cli, list(args), obj={}, env={}, catch_exceptions=False)


def test_paperbot_search_finds_a_brand_new_word_right_after_its_papers_are_ingested(tmp_path):
    db = tmp_path / "p.db"
    SqliteStore(db).upsert_papers(make_corpus())
    first = run("--db", str(db), "search", "cats")  # fits the model and saves it
    assert first.exit_code == 0, first.output
    assert "Mamba" not in first.output
    saved = SqliteStore(db).artifact_version(ARTIFACT)
    feed = tmp_path / "feed.jsonl"
    feed.write_text("".join(json.dumps(p) + "\n" for p in MAMBA))
    assert run("--db", str(db), "ingest", str(feed)).exit_code == 0
    found = run("--db", str(db), "search", "mamba")
    assert found.exit_code == 0, found.output
    assert "Mamba: Linear-Time Sequence" in found.output and "Vision Mamba" in found.output
    assert SqliteStore(db).artifact_version(ARTIFACT) == saved, "found without a refit"


def test_a_running_engine_matches_a_new_word_at_its_next_refresh_without_refitting(tmp_path):
    db = tmp_path / "p.db"
    store = SqliteStore(db)
    store.upsert_papers(make_corpus())
    engine = Engine(store, refresh_every=0)
    mamba_fan = Profile(topics=["mamba", "feline cats"])
    with engine.index() as index:
        assert not {"2312.00752", "2401.09417"} & {p.paper_id for p in rank(index, mamba_fan, 5)}
    saved = store.artifact_version(ARTIFACT)
    SqliteStore(db).upsert_papers([Paper(**p) for p in MAMBA])  # another process ingests
    with engine.index() as index:
        picks = rank(index, mamba_fan, 5)
    assert picks[0].paper_id in {"2312.00752", "2401.09417"}
    assert {"2312.00752", "2401.09417"} <= {p.paper_id for p in picks}
    assert store.artifact_version(ARTIFACT) == saved, "matched without a refit"
