"""`paperbot ingest acl:…` from the command line: PAPERBOT_ACL_URL aimed at the stand-in, a row for the
volume, what was read, the skipped entry's line; read again within the week it rests; a volume that
doesn't exist refused in one line naming the form."""

from __future__ import annotations

from stand_ins.acl import Anthology, entry, volume_of
from tests.bot.cli.test_cli import run


def test_ingest_acl_prints_a_row_for_the_volume_and_what_it_skipped(tmp_path):
    db = str(tmp_path / "acl.db")
    with Anthology() as site:
        site.add("2025.acl-long", [*volume_of("2025.acl-long", 5), entry("2025.acl-long", 6)])
        env = {"PAPERBOT_ACL_URL": site.base_url, "COLUMNS": "120"}

        result = run("--db", db, "ingest", "acl:2025.acl-long", env=env)

        assert result.exit_code == 0, result.output
        assert "acl:2025.acl-long: read whole (6 papers listed)" in result.output
        assert "skipped acl:2025.acl-long, 2025.acl-long.6: no abstract" in result.output
        assert site.requests == ["/volumes/2025.acl-long.bib", "/2025.acl-long.6.bib"]

        rested = run("--db", db, "ingest", "acl:2025.acl-long", env=env)
        assert rested.exit_code == 0 and "read again from " in rested.output
        assert "held no papers" not in rested.output and len(site.requests) == 2

        refused = run("--db", db, "ingest", "acl:2031.acl-long", env=env)
        assert refused.exit_code != 0
        said = refused.output
        assert "no volume '2031.acl-long'" in said and "acl:VOLUME, e.g. acl:2025.acl-long" in said
