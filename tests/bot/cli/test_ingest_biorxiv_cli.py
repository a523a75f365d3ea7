"""`paperbot ingest biorxiv:…` from the command line (issue 42): PAPERBOT_BIORXIV_API_URL aimed at the
stand-in, a row per subject area, the dates read, the skipped record's line, an unknown area refused in one
line; a second run reads only from the last day read."""

from __future__ import annotations

from datetime import UTC, datetime

from stand_ins.biorxiv import Biorxiv, day_of_posts
from tests.bot.cli.test_cli import run


def test_ingest_biorxiv_prints_a_row_per_area_and_what_it_skipped(tmp_path):
    today = datetime.now(UTC).date()
    db = str(tmp_path / "bio.db")
    with Biorxiv() as api:
        api.post(day_of_posts("biorxiv", today, 6, ("neuroscience", "genomics", "zoology")))
        api.post([{"doi": "10.1101/x", "category": "neuroscience"}], server="biorxiv",
                 listed_on=today.isoformat())
        env = {"PAPERBOT_BIORXIV_API_URL": api.base_url, "COLUMNS": "120"}

        result = run("--db", db, "ingest", "biorxiv:neuroscience,genomics", env=env)

        assert result.exit_code == 0, result.output
        assert "biorxiv:neuroscience" in result.output and "biorxiv:genomics" in result.output
        assert f"biorxiv:genomics: posted from {today} to {today}" not in result.output  # first: two days
        assert "biorxiv:genomics: posted from " in result.output
        assert "skipped biorxiv:neuroscience, record 7: no version" in result.output
        assert len(api.requests) == 1

        refused = run("--db", db, "ingest", "medrxiv:neuroscience", env=env)
        assert refused.exit_code != 0
        assert "'neuroscience' is not a medRxiv category" in refused.output
