"""`paperbot ingest openreview:…` from the command line: PAPERBOT_OPENREVIEW_API_URL aimed at the stand-in,
a row for the venue, its accepted papers by OpenReview's names of them, the skipped note's line, a second
read the same day not asked, an empty venue said with what the id must be, a bad id refused in one line."""

from __future__ import annotations

from stand_ins.openreview import OpenReview, note, venue_of_notes
from tests.bot.cli.test_cli import run

VENUE = "ICML.cc/2025/Conference"


def test_ingest_openreview_prints_a_row_for_the_venue_and_what_it_skipped(tmp_path):
    db = str(tmp_path / "openreview.db")
    with OpenReview() as api:
        api.add(venue_of_notes(VENUE, 6) + [note("OralPaper1", VENUE, venue="ICML 2025 oral"),
                                            note("NoAbstract", VENUE, abstract="")])
        env = {"PAPERBOT_OPENREVIEW_API_URL": api.base_url, "COLUMNS": "200"}

        result = run("--db", db, "ingest", f"openreview:{VENUE}", env=env)

        assert result.exit_code == 0, result.output
        assert f"openreview:{VENUE}: 8 accepted papers: ICML 2025 poster 6, ICML 2025 oral 1" in result.output
        assert f"skipped openreview:{VENUE}, note NoAbstract: no abstract" in result.output
        assert len(api.requests) == 1

        again = run("--db", db, "ingest", f"openreview:{VENUE}", env=env)
        assert again.exit_code == 0 and len(api.requests) == 1
        assert f"openreview:{VENUE}: read whole on " in again.output
        assert "held no papers" not in again.output

        empty = run("--db", db, "ingest", "openreview:ICML.cc/2031/Conference", env=env)
        assert empty.exit_code == 0, empty.output
        assert ("openreview:ICML.cc/2031/Conference: no accepted papers under this venue id" in
                " ".join(empty.output.split()))

        refused = run("--db", db, "ingest", "openreview:ICML 2025", env=env)
        assert refused.exit_code != 0
        said = " ".join(refused.output.split())
        assert "'ICML 2025' is no OpenReview venue id" in said
        assert "e.g. openreview:ICML.cc/2025/Conference" in said and "https://openreview.net/venues" in said
