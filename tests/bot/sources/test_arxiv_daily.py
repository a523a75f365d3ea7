"""A category's daily listing read by bot/sources/arxiv_daily.py: the saved arXiv RSS listing of the
fixtures, its announcement date, kinds and authors; and when a read must go back through the API."""

from __future__ import annotations

from datetime import UTC, date, datetime

from bot.sources.arxiv_daily import Announcements, previous_weekday, range_url, read_announcements
from bot.sources.http import Fetcher, RateLimiter
from storage.models import Paper


def test_a_saved_listing_reads_as_arxiv_writes_it(server):
    fetcher = Fetcher(server.url + "/api/query", rss_url=server.url + "/feeds/",
                      limiter=RateLimiter(clock=server.clock, sleep=server.clock.sleep))
    found = Announcements("arxiv-rss")
    now = datetime(2024, 1, 15, 6, 0, tzinfo=UTC)
    records = list(read_announcements("arxiv-rss", "2024-01-12", fetcher=fetcher, now=now, found=found))
    assert [r.id for r in records if isinstance(r, Paper)] == ["arxiv:2401.06001", "arxiv:2312.09999",
                                                               "arxiv:2401.06123"]
    assert records[0].authors == ["Hana Ito", "Ivan Petrov", "Jun Park"]  # one dc:creator, split
    assert records[1].arxiv_version == 2
    assert (found.on, found.kinds, found.announced) == ("2024-01-15", {"new": 1, "replace": 1, "cross": 1}, 3)
    # Friday's listing was read before this Monday's: nothing missed, the listing is all.
    assert found.caught_up_from is None and found.through == "2024-01-15"
    assert [r.path for r in server.requests] == ["/feeds/arxiv-rss"]


def test_the_announcement_before_a_day_skips_the_weekend():
    assert previous_weekday(date(2026, 12, 7)) == date(2026, 12, 4)  # Monday's: Friday
    assert previous_weekday(date(2026, 12, 12)) == date(2026, 12, 11)  # Saturday's: Friday
    assert previous_weekday(date(2026, 12, 9)) == date(2026, 12, 8)


def test_the_range_query_is_the_apis_syntax():
    url = range_url("https://export.arxiv.org/api/query", "cs.LG", datetime(2026, 12, 2, tzinfo=UTC),
                    datetime(2026, 12, 9, 6, 1, tzinfo=UTC), 400, 400)
    assert url == ("https://export.arxiv.org/api/query?search_query=cat:cs.LG%20AND%20lastUpdatedDate:"
                   "%5B202612020000%20TO%20202612090601%5D&sortBy=lastUpdatedDate&sortOrder=descending"
                   "&start=400&max_results=400")
