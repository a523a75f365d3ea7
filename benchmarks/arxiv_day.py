"""How long `paperbot ingest arxiv:cs.LG,cs.CL,stat.ML` takes over a day of 650 announced papers, with arXiv's
3 s between requests for real, against the local stand-in of rss.arxiv.org and the arXiv API
(stand_ins/arxiv_days.py). Nothing leaves 127.0.0.1. Run by hand; prints figures.

1. The day's listings, one request answered 429 with Retry-After: 1, into a database that holds the 40
   replaced papers' first versions and read the three categories the day before: all 650 must arrive.
2. The same again: nothing added.
3. A missed day: the database read the categories two announcements before, and the day between had 300
   more papers; the catch-up pages the API by date range.

    .venv/bin/python benchmarks/arxiv_day.py
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from stand_ins.arxiv_days import ArxivDays, day_of_650, first_versions, paper  # noqa: E402
from storage import SqliteStore  # noqa: E402

SOURCE = "arxiv:cs.LG,cs.CL,stat.ML"
CATEGORIES = ("cs.LG", "cs.CL", "stat.ML")
# Days before the real today: a catch-up reads the API up to now.
MONDAY, TUESDAY, WEDNESDAY = date(2026, 11, 30), date(2026, 12, 1), date(2026, 12, 2)


def ingest(arxiv: ArxivDays, db: Path, tmp: str) -> tuple[float, str]:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": tmp, "PYTHONPATH": str(ROOT),
           "PAPERBOT_ARXIV_RSS_URL": arxiv.rss_url, "PAPERBOT_ARXIV_API_URL": arxiv.api_url, "COLUMNS": "100"}
    began = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "bot.cli", "--db", str(db), "ingest", SOURCE], cwd=tmp,
                          env=env, capture_output=True, text=True, check=False)
    took = time.monotonic() - began
    if done.returncode:
        raise SystemExit(f"ingest failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    return took, done.stdout


def prepared(db: Path, read_through: date) -> None:
    """A database holding the replaced papers' first versions, its categories read through a date."""
    store = SqliteStore(db)
    try:
        for category in CATEGORIES:
            store.set_arxiv_cursor(category, read_through.isoformat(), "2026-12-01T00:00:00+00:00")
    finally:
        store.close()


def main() -> int:
    olds = first_versions()
    with tempfile.TemporaryDirectory() as tmp, ArxivDays(today=olds[0].day) as arxiv:
        db = Path(tmp) / "day.db"
        arxiv.announce(olds)
        ingest(arxiv, db, tmp)  # the first versions, read the day they were announced
        prepared(db, TUESDAY)
        arxiv.today = WEDNESDAY
        arxiv.announce(day_of_650(WEDNESDAY, olds))
        arxiv.requests.clear()
        arxiv.busy = {2: "1"}
        took, said = ingest(arxiv, db, tmp)
        store = SqliteStore(db)
        held = store.count_papers()
        revised = sum("Revised" in store.get_paper(f"arxiv:{v.base}").abstract for v in olds)
        store.close()
        print(said)
        print(f"1. the day's listings: {held} papers held (40 before), {revised} of 40 replaced; "
              f"{len(arxiv.requests)} requests (one answered 429); {took:.1f} s")
        arxiv.requests.clear()
        arxiv.busy = {}
        took, said = ingest(arxiv, db, tmp)
        print(said)
        print(f"2. again: {len(arxiv.requests)} requests; {took:.1f} s")

        missed = Path(tmp) / "missed.db"
        arxiv.today = olds[0].day
        ingest(arxiv, missed, tmp)
        prepared(missed, MONDAY)
        arxiv.announce([paper(5000 + n, TUESDAY, ["cs.LG", *(["cs.CL"] if n % 4 == 0 else [])])
                        for n in range(300)])
        arxiv.today = WEDNESDAY
        arxiv.requests.clear()
        took, said = ingest(arxiv, missed, tmp)
        store = SqliteStore(missed)
        held = store.count_papers()
        store.close()
        print(said)
        api = sum(r.startswith("/api/") for r in arxiv.requests)
        print(f"3. a missed day: {held} papers held (40 + 610 + 300 expected); {len(arxiv.requests)} "
              f"requests ({api} to the API); {took:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
