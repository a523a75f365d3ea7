"""`paperbot ingest pubmed:…` from the command line (issue 42): PAPERBOT_PUBMED_API_URL aimed at the
stand-in, a row for the query, the dates read, the skipped record's line, an empty query refused in one
line."""

from __future__ import annotations

from datetime import UTC, datetime

from stand_ins.pubmed import Pubmed, article, day_of_records, entry
from tests.bot.cli.test_cli import run


def test_ingest_pubmed_prints_a_row_for_the_query_and_what_it_skipped(tmp_path):
    today = datetime.now(UTC).date()
    db = str(tmp_path / "pubmed.db")
    with Pubmed() as api:
        api.add(day_of_records(today, 6, "crispr screen"))
        api.add([entry("39800001", today, article("39800001", title="crispr screen", abstract=""))])
        env = {"PAPERBOT_PUBMED_API_URL": api.base_url, "COLUMNS": "120"}

        result = run("--db", db, "ingest", 'pubmed:"crispr screen"', env=env)

        assert result.exit_code == 0, result.output
        assert "pubmed:crispr screen" in result.output
        assert "pubmed:crispr screen: entered PubMed from " in result.output
        assert "skipped pubmed:crispr screen, PMID 39800001: no abstract" in result.output
        assert len(api.requests) == 2  # one search, one fetch

        refused = run("--db", db, "ingest", "pubmed:", env=env)
        assert refused.exit_code != 0
        assert "pubmed: needs a query" in refused.output
