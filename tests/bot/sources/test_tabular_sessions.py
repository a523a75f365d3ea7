"""Sessions in record files (issue 43): a JSON Lines or CSV record's ``session``, ``starts_at`` and
``location`` become its paper's session, a start as ISO UTC text; a bad one rejects the record only."""

from __future__ import annotations

import json

from bot.sources.records import Rejected
from bot.sources.tabular import read_csv, read_jsonl
from storage.models import PaperSession


def test_jsonl_records_carry_their_sessions_in_utc(tmp_path):
    path = tmp_path / "icml.jsonl"
    rows = [
        {"id": "a", "title": "A", "abstract": "First.", "venue": "ICML 2025 poster", "session": "Poster 1",
         "starts_at": "2025-07-15T11:00:00-07:00", "location": "East Hall  #E-101"},
        {"id": "b", "title": "B", "abstract": "Second.", "starts_at": "2025-07-15T18:00:00Z"},
        {"id": "c", "title": "C", "abstract": "Third."},
        {"id": "d", "title": "D", "abstract": "Fourth.", "starts_at": "tomorrow"},
        {"id": "e", "title": "E", "abstract": "Fifth.", "location": 12},
    ]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    got = list(read_jsonl(path))
    assert got[0].session == PaperSession("Poster 1", "2025-07-15T18:00:00+00:00", "East Hall #E-101")
    assert got[1].session == PaperSession(None, "2025-07-15T18:00:00+00:00", None)
    assert got[2].session is None
    assert got[3] == Rejected("line 4", "bad starts_at 'tomorrow'")
    assert got[4] == Rejected("line 5", "location is a number, not a string")


def test_csv_rows_carry_their_sessions_a_start_without_offset_taken_as_utc(tmp_path):
    path = tmp_path / "icml.csv"
    path.write_text("id,title,abstract,Session,starts_at,location\n"
                    "a,A,First.,Oral 2B,2025-07-16 10:30,West Ballroom\n"
                    "b,B,Second.,,,\n")
    a, b = list(read_csv(path))
    assert a.session == PaperSession("Oral 2B", "2025-07-16T10:30:00+00:00", "West Ballroom")
    assert b.session is None
