"""`arxiv:` sources take everything arXiv announced since their categories were last read (issue 39): the
daily listing of each category, days missed caught up through the API paged by date range, busy answers
waited out as asked, per-category counts, and a day without announcement that is no failure. Against
stand_ins/arxiv_days.py, a local stand-in answering in rss.arxiv.org's and the API's formats; requests are
spaced 3 s apart on a fake clock, so nothing waits."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from bot.state.context import Context
from bot.usecases.ingest import ingest
from stand_ins.arxiv_days import OLD_DAY, ArxivDays, day_of_650, first_versions, paper, replaced
from tests.fakes import Clock

SOURCE = "arxiv:cs.LG,cs.CL,stat.ML"
CATEGORIES = ("cs.LG", "cs.CL", "stat.ML")
MONDAY, TUESDAY, WEDNESDAY = date(2026, 12, 7), date(2026, 12, 8), date(2026, 12, 9)
FRIDAY, SATURDAY = date(2026, 12, 11), date(2026, 12, 12)


def in_listing(arxiv: ArxivDays, category: str) -> int:
    return sum(1 for versions in arxiv.papers.values() for v in versions
               if v.day == arxiv.today and category in v.categories)


@pytest.fixture
def app(tmp_path):
    context = Context.open(str(tmp_path / "arxiv.db"), digest_size=3)
    yield context
    context.store.close()


@pytest.fixture
def arxiv():
    with ArxivDays(today=OLD_DAY) as days:
        yield days


@pytest.fixture
def clock():
    return Clock()


def run(app: Context, arxiv: ArxivDays, clock: Clock, **options):
    """One ingest of the three categories, now being the evening of the stand-in's day in UTC."""
    now = datetime.combine(arxiv.today, datetime.min.time(), UTC).replace(hour=6)
    return {r.source: r for r in ingest(app, [SOURCE], fetcher=arxiv.fetcher(clock), clock=lambda: now,
                                        **options)}


def read_yesterday(app: Context, day: date) -> None:
    for category in CATEGORIES:
        app.store.set_arxiv_cursor(category, day.isoformat(), "2026-12-01T00:00:00+00:00")


@pytest.fixture
def held(app, arxiv, clock):
    """The 40 papers replaced on Wednesday, held as first announced (read the day they were)."""
    olds = first_versions()
    arxiv.announce(olds)
    run(app, arxiv, clock)
    assert app.store.count_papers() == 40
    arxiv.requests.clear()
    return olds


def test_a_day_of_650_papers_arrives_whole_through_a_429_and_a_second_run_adds_none(app, arxiv, clock, held):
    arxiv.today = WEDNESDAY
    arxiv.announce(day_of_650(WEDNESDAY, held))
    read_yesterday(app, TUESDAY)
    arxiv.busy = {2: "1"}  # cs.CL's listing: "429 Too Many Requests", Retry-After: 1
    start, slept = clock.now, len(clock.slept)

    reports = run(app, arxiv, clock)

    assert list(reports) == ["arxiv:cs.LG", "arxiv:cs.CL", "arxiv:stat.ML"]
    assert all(r.error is None and not r.rejected and not r.quiet for r in reports.values())
    for category in CATEGORIES:
        r = reports[f"arxiv:{category}"]
        assert r.announced == in_listing(arxiv, category) == r.added + r.updated + r.unchanged
        assert r.announced_on == "2026-12-09" and r.caught_up_from is None
    assert reports["arxiv:cs.LG"].kinds == {"new": 350, "cross": 90, "replace": 25}
    assert reports["arxiv:stat.ML"].kinds == {"new": 100, "cross": 80, "replace": 5, "replace-cross": 10}
    assert sum(r.added for r in reports.values()) == 610
    assert sum(r.updated for r in reports.values()) == 40  # each replacement updates its paper once
    assert app.store.count_papers() == 650
    assert all("Revised" in app.store.get_paper(f"arxiv:{v.base}").abstract for v in held)
    # One request a category and the refused one again, 3 s apart (the Retry-After asked less).
    assert [r.split("?")[0] for r in arxiv.requests] == ["/rss/cs.LG", "/rss/cs.CL", "/rss/cs.CL",
                                                          "/rss/stat.ML"]
    assert clock.slept[slept:] == [3.0, 3.0, 3.0] and clock.now - start == 9.0
    assert {c: app.store.arxiv_cursor(c) for c in CATEGORIES} == dict.fromkeys(CATEGORIES, "2026-12-09")

    again = run(app, arxiv, clock)
    assert all(r.added == 0 and r.updated == 0 and r.announced == r.unchanged for r in again.values())
    assert app.store.count_papers() == 650


def test_a_missed_day_is_caught_up_through_the_api_paged_by_date(app, arxiv, clock, monkeypatch):
    monkeypatch.setattr("bot.sources.arxiv_daily.PAGE_SIZE", 40)
    tuesday = [paper(5000 + n, TUESDAY, ["cs.LG", *(["cs.CL"] if n % 4 == 0 else [])]) for n in range(90)]
    old = paper(9000, OLD_DAY, ["cs.LG"])
    wednesday = [paper(n, WEDNESDAY, ["cs.LG" if n % 2 else "stat.ML"]) for n in range(30)]
    arxiv.announce([*tuesday, old, *wednesday, replaced(old, TUESDAY)])  # a paper of November, replaced
    arxiv.today = WEDNESDAY
    read_yesterday(app, MONDAY)  # Tuesday's listing was never read
    arxiv.busy = {3: "2"}  # the second page of cs.LG's catch-up (after its listing and first page)

    reports = run(app, arxiv, clock)

    assert all(r.error is None for r in reports.values())
    assert {r.caught_up_from for r in reports.values()} == {"2026-12-02"}  # Monday less the margin
    assert app.store.count_papers() == 90 + 1 + 30
    assert all(app.store.get_paper(f"arxiv:{v.base}") is not None for v in tuesday)
    assert "Revised" in app.store.get_paper(f"arxiv:{old.base}").abstract  # the version of Tuesday
    lg = [r for r in arxiv.requests if "cat:cs.LG" in r]
    # cs.LG: 15 of Wednesday's listing again, and Tuesday's 90 and its replacement: 3 pages, one asked twice.
    assert [r.split("&start=")[1].split("&")[0] for r in lg] == ["0", "40", "40", "80"]
    assert "lastUpdatedDate:%5B202612020000%20TO%20202612090601%5D" in lg[0]
    assert reports["arxiv:cs.LG"].announced == 15 + 90 + 1  # the listing, and Tuesday's
    assert reports["arxiv:cs.CL"].announced == 23 and reports["arxiv:cs.CL"].kinds == {}
    assert {c: app.store.arxiv_cursor(c) for c in CATEGORIES} == dict.fromkeys(CATEGORIES, "2026-12-09")


def test_a_first_read_takes_todays_listing_and_a_back_fill_takes_older_days_too(app, arxiv, clock):
    arxiv.announce([paper(1, MONDAY, ["cs.LG"]), paper(2, TUESDAY, ["cs.LG"])])
    arxiv.today = TUESDAY
    first = run(app, arxiv, clock)
    assert first["arxiv:cs.LG"].added == 1 and first["arxiv:cs.LG"].caught_up_from is None
    assert [r for r in arxiv.requests if "cs.LG" in r] == ["/rss/cs.LG"]
    back = run(app, arxiv, clock, arxiv_since=date(2026, 12, 1))
    assert back["arxiv:cs.LG"].caught_up_from == "2026-12-01"
    assert (back["arxiv:cs.LG"].added, back["arxiv:cs.LG"].unchanged) == (1, 1)


def test_a_first_read_on_a_weekend_takes_the_last_announcements_papers(app, arxiv, clock):
    arxiv.announce([paper(1, date(2026, 12, 10), ["cs.LG"]), paper(2, FRIDAY, ["cs.LG"])])
    arxiv.today = SATURDAY
    reports = run(app, arxiv, clock)
    assert reports["arxiv:cs.LG"].quiet and reports["arxiv:cs.LG"].caught_up_from == "2026-12-09"
    assert reports["arxiv:cs.LG"].added == 2 and app.store.arxiv_cursor("cs.LG") == "2026-12-12"


def test_a_weekend_without_announcement_is_no_failure_and_no_empty_feed(app, arxiv, clock):
    arxiv.today = SATURDAY
    read_yesterday(app, FRIDAY)
    reports = run(app, arxiv, clock)
    for r in reports.values():
        assert r.error is None and r.quiet and r.announced == 0 and not r.empty
        assert r.announced_on == "2026-12-12" and r.caught_up_from is None
    assert len(arxiv.requests) == 3  # the listings only: nothing was missed
    assert app.store.arxiv_cursor("cs.LG") == "2026-12-12"


def test_a_weekend_after_a_missed_friday_catches_friday_up(app, arxiv, clock):
    arxiv.announce([paper(7, FRIDAY, ["stat.ML"])])
    arxiv.today = SATURDAY
    read_yesterday(app, date(2026, 12, 10))
    reports = run(app, arxiv, clock)
    assert reports["arxiv:stat.ML"].added == 1 and reports["arxiv:stat.ML"].caught_up_from == "2026-12-05"


def test_an_empty_weekday_listing_leaves_that_day_to_be_caught_up(app, arxiv, clock):
    """A holiday, or a listing caught while arXiv rebuilt it: the next read catches the day up."""
    read_yesterday(app, TUESDAY)
    arxiv.today = WEDNESDAY
    arxiv.quiet_channel = True
    arxiv.announce([paper(3, WEDNESDAY, ["cs.CL"])])
    quiet = run(app, arxiv, clock)
    assert quiet["arxiv:cs.CL"].quiet and quiet["arxiv:cs.CL"].error is None
    assert app.store.arxiv_cursor("cs.CL") == "2026-12-08"
    arxiv.quiet_channel = False
    arxiv.today = date(2026, 12, 10)
    later = run(app, arxiv, clock)
    assert later["arxiv:cs.CL"].added == 1 and later["arxiv:cs.CL"].caught_up_from == "2026-12-03"


def test_arxiv_still_busy_fails_that_category_alone_and_it_is_read_again_next_time(app, arxiv, clock):
    arxiv.today = TUESDAY
    arxiv.announce([paper(n, TUESDAY, [category]) for n, category in enumerate(CATEGORIES)])
    read_yesterday(app, MONDAY)
    arxiv.busy = dict.fromkeys(range(2, 7), None)  # cs.CL's listing, five times without Retry-After
    reports = run(app, arxiv, clock)
    error = reports["arxiv:cs.CL"].error
    assert error and "HTTP 429" in error and "still after 5 tries" in error
    assert clock.slept == [3.0, 10.0, 20.0, 40.0, 80.0, 3.0]  # backing off, then the next category
    assert (reports["arxiv:cs.LG"].added, reports["arxiv:stat.ML"].added) == (1, 1)
    assert app.store.arxiv_cursor("cs.CL") == "2026-12-07" and app.store.arxiv_cursor("cs.LG") == "2026-12-08"
    arxiv.busy = {}
    again = run(app, arxiv, clock)
    assert again["arxiv:cs.CL"].added == 1


def test_a_retry_after_date_is_waited_out_and_one_too_long_is_not(app, arxiv, clock):
    from bot.sources.http import Fetcher, RateLimiter

    arxiv.today = TUESDAY
    arxiv.announce([paper(1, TUESDAY, ["cs.LG", "cs.CL"])])
    wall = datetime(2026, 12, 8, 6, 0, tzinfo=UTC)
    arxiv.busy = {1: "Tue, 08 Dec 2026 06:00:45 GMT", 3: "3600"}
    fetcher = Fetcher(arxiv.api_url, rss_url=arxiv.rss_url, wall=lambda: wall,
                      limiter=RateLimiter(clock=clock, sleep=clock.sleep))
    reports = ingest(app, ["arxiv:cs.LG,cs.CL"], fetcher=fetcher, clock=lambda: wall)
    assert reports[0].error is None and clock.slept[0] == 45.0
    assert "asks to wait 3600 s" in reports[1].error


def test_a_503_is_waited_out_too_and_another_error_is_not_tried_again(app, arxiv, clock):
    arxiv.today = TUESDAY
    arxiv.announce([paper(1, TUESDAY, ["cs.LG"])])
    arxiv.busy, arxiv.busy_status = {1: "5"}, 503
    first = ingest(app, ["arxiv:cs.LG"], fetcher=arxiv.fetcher(clock))
    assert first[0].error is None and clock.slept == [5.0] and len(arxiv.requests) == 2
    arxiv.busy_status = 404
    arxiv.busy = {3: None}
    second = ingest(app, ["arxiv:cs.LG"], fetcher=arxiv.fetcher(clock))
    assert second[0].error.endswith("/rss/cs.LG: HTTP 404 Not Found") and len(arxiv.requests) == 3


def test_a_malformed_category_is_one_clear_error(app, arxiv, clock):
    reports = ingest(app, ["arxiv:cs LG"], fetcher=arxiv.fetcher(clock))
    assert [(r.source, r.error) for r in reports] == [
        ("arxiv:cs LG", "'cs LG' is not an arXiv category: use names like cs.LG, stat.ML, math.OC, hep-th")]
    assert arxiv.requests == []


def test_the_command_says_per_category_what_was_announced_and_a_quiet_day_is_no_warning(tmp_path, monkeypatch,
                                                                                         arxiv):
    from click.testing import CliRunner

    import bot.config
    from bot.cli.main import cli
    from bot.usecases.lookup import use_arxiv_api

    arxiv.today = WEDNESDAY
    arxiv.announce([paper(1, WEDNESDAY, ["cs.LG"]), paper(2, WEDNESDAY, ["cs.CL", "cs.LG"])])
    monkeypatch.chdir(tmp_path)  # no .env of the developer's
    env = {"PAPERBOT_ARXIV_API_URL": arxiv.api_url, "PAPERBOT_ARXIV_RSS_URL": arxiv.rss_url}
    try:
        said = CliRunner().invoke(cli, ["--db", str(tmp_path / "p.db"), "ingest", "arxiv:cs.LG,stat.ML"],
                                  obj={}, env=env, catch_exceptions=False)
        arxiv.today = SATURDAY
        weekend = CliRunner().invoke(cli, ["--db", str(tmp_path / "p.db"), "ingest", "arxiv:stat.ML"],
                                     obj={}, env=env, catch_exceptions=False)
    finally:
        use_arxiv_api(bot.config.DEFAULT_ARXIV_API_URL, bot.config.DEFAULT_ARXIV_RSS_URL)
    assert said.exit_code == 0, said.output
    assert "announced" in said.output and "arxiv:cs.LG" in said.output
    assert "arxiv:cs.LG: the announcement of 2026-12-09 (Wed): 1 new, 1 cross-list" in said.output
    assert "arxiv:stat.ML: no announcement on 2026-12-09 (Wed)" in said.output  # none in stat.ML that day
    assert weekend.exit_code == 0 and "no announcement on 2026-12-12 (Sat)" in weekend.output
    assert "warning" not in said.output + weekend.output and "held no papers" not in weekend.output


def test_the_daily_feeds_run_logs_each_category_and_fails_only_for_a_real_failure(app, arxiv, clock, caplog):
    from bot.usecases.digests.run import FEED_JOB, ingest_feeds_if_due

    arxiv.today = SATURDAY
    read_yesterday(app, FRIDAY)
    saturday = datetime(2026, 12, 12, 6, 0, tzinfo=UTC)
    with caplog.at_level("INFO", logger="bot.usecases.digests.run"):
        reports = ingest_feeds_if_due(app, [SOURCE], saturday, clock=lambda: saturday,
                                      fetcher=arxiv.fetcher(clock))
    assert [r.quiet for r in reports] == [True] * 3 and app.store.get_job(FEED_JOB).status == "done"
    assert ("feed arxiv:cs.LG: no announcement on 2026-12-12, 0 added, 0 updated, 0 unchanged, 0 rejected"
            in caplog.messages)

    arxiv.today = date(2026, 12, 14)
    arxiv.announce([paper(1, arxiv.today, ["cs.LG"])])
    arxiv.busy = dict.fromkeys(range(len(arxiv.requests) + 3, len(arxiv.requests) + 8), "0")  # stat.ML's
    monday = datetime(2026, 12, 14, 6, 0, tzinfo=UTC)
    with caplog.at_level("INFO", logger="bot.usecases.digests.run"):
        ingest_feeds_if_due(app, [SOURCE], monday, clock=lambda: monday, fetcher=arxiv.fetcher(clock))
    job = app.store.get_job(FEED_JOB)
    assert job.status == "failed" and job.error.startswith("arxiv:stat.ML: couldn't fetch")
    assert "HTTP 429" in job.error
    assert ("feed arxiv:cs.LG: 1 announced (listing of 2026-12-14), 1 added, 0 updated, 0 unchanged, "
            "0 rejected" in caplog.messages)
