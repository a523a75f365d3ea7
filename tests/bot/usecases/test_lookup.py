"""Papers by arXiv id or DOI: held ones, fetched ones (stored and searchable), misses remembered, polite
requests; `follow ID` and the Save paper shortcut's use case on top."""

from datetime import UTC, datetime, timedelta

import pytest

from bot.sources.http import Fetcher, RateLimiter
from bot.usecases import follow, search
from bot.usecases.lookup import (
    FAILURE_KEPT,
    MISS_KEPT,
    ArxivLookup,
    LookupFailed,
    default_lookup,
    papers_by_arxiv_id,
    papers_by_doi,
)
from bot.usecases.save_named import find_named_papers, save_named_papers
from storage import Paper
from tests.arxiv_standin import ArxivStandIn
from tests.fakes import Clock


@pytest.fixture
def arxiv():
    with ArxivStandIn() as standin:
        standin.add("2501.01234", "Tidal locking of exomoons", "Exomoons tidally locked by their planets.",
                    ["Ann Smith"], version=2)
        standin.add("2501.05678", "Zebrafish fin regrowth", "Zebrafish regenerate fins in days.", ["Bo Li"])
        yield standin


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def lookup(arxiv, clock):
    return ArxivLookup(Fetcher(arxiv.url, timeout=2, limiter=RateLimiter(0)), clock=clock)


def held(ctx, base="2401.00001"):
    paper = Paper(id=f"arxiv:{base}", title="Purring cats", abstract="feline cats purring study",
                  arxiv_id=base, arxiv_version=1, doi="10.1000/cats.1")
    ctx.store.upsert_papers([paper])
    return paper


def test_a_held_paper_is_found_by_any_version_without_asking_the_api(ctx, lookup, arxiv):
    held(ctx)
    found = papers_by_arxiv_id(ctx, ["2401.00001v3", "2401.00001"], lookup)
    assert {k: p.id for k, p in found.items()} == {"2401.00001v3": "arxiv:2401.00001",
                                                   "2401.00001": "arxiv:2401.00001"}
    assert arxiv.asked == []


def test_missing_papers_are_fetched_in_one_request_stored_and_searchable(ctx, lookup, arxiv):
    held(ctx)
    assert search(ctx, "exomoons zebrafish", 5) == []  # words no paper held has
    found = papers_by_arxiv_id(ctx, ["2401.00001", "2501.01234v1", "2501.05678"], lookup)
    assert arxiv.asked == [["2501.01234", "2501.05678"]]  # one request, base ids, only the missing
    assert found["2501.01234v1"].id == "arxiv:2501.01234" and found["2501.01234v1"].arxiv_version == 2
    assert ctx.store.find_paper_by_arxiv_id("2501.05678").title == "Zebrafish fin regrowth"
    assert [r.paper.id for r in search(ctx, "exomoons", 5)] == ["arxiv:2501.01234"]  # new words count
    papers_by_arxiv_id(ctx, ["2501.01234"], lookup)
    assert len(arxiv.asked) == 1  # held now


def test_an_id_the_api_does_not_have_is_not_asked_again_for_a_while(ctx, lookup, arxiv, clock):
    assert papers_by_arxiv_id(ctx, ["2502.99999"], lookup) == {}
    assert papers_by_arxiv_id(ctx, ["2502.99999"], lookup) == {}
    assert arxiv.asked == [["2502.99999"]]
    clock.now += MISS_KEPT + 1
    papers_by_arxiv_id(ctx, ["2502.99999"], lookup)
    assert len(arxiv.asked) == 2


def test_a_failed_request_raises_lookup_failed_and_waits_before_asking_again(ctx, lookup, arxiv, clock):
    arxiv.status = 500
    with pytest.raises(LookupFailed, match="2501.01234"):
        papers_by_arxiv_id(ctx, ["2501.01234"], lookup)
    arxiv.status = None
    assert papers_by_arxiv_id(ctx, ["2501.01234"], lookup) == {}  # not asked: it failed just now
    assert len(arxiv.asked) == 1 and ctx.store.find_paper_by_arxiv_id("2501.01234") is None
    clock.now += FAILURE_KEPT + 1
    assert papers_by_arxiv_id(ctx, ["2501.01234"], lookup)["2501.01234"].title == "Tidal locking of exomoons"


def test_a_timeout_is_a_failed_lookup(ctx, arxiv, clock):
    arxiv.hang = 1.0
    quick = ArxivLookup(Fetcher(arxiv.url, timeout=0.2, limiter=RateLimiter(0)), clock=clock)
    with pytest.raises(LookupFailed, match="timed out"):
        papers_by_arxiv_id(ctx, ["2501.01234"], quick)


def test_requests_are_spaced_three_seconds_apart(ctx, arxiv, clock):
    limiter = RateLimiter(3.0, clock=clock, sleep=clock.sleep)
    spaced = ArxivLookup(Fetcher(arxiv.url, timeout=2, limiter=limiter), clock=clock)
    papers_by_arxiv_id(ctx, ["2501.01234"], spaced)
    papers_by_arxiv_id(ctx, ["2501.05678"], spaced)
    assert clock.slept == [3.0] and len(arxiv.asked) == 2


def test_papers_by_doi_are_only_the_held_ones(ctx):
    held(ctx)
    found = papers_by_doi(ctx, ["https://doi.org/10.1000/CATS.1", "10.1/none"])
    assert {k: p.id for k, p in found.items()} == {"https://doi.org/10.1000/CATS.1": "arxiv:2401.00001"}


@pytest.fixture
def offline(offline_arxiv):
    """The session's arXiv stand-in, which this process's default lookup asks."""
    default_lookup().forget_misses()
    offline_arxiv.reset()
    yield offline_arxiv
    offline_arxiv.reset()


def test_follow_fetches_an_arxiv_paper_not_held_and_likes_it(ctx, offline):
    offline.add("2503.00777", "Glacier calving dynamics", "Glaciers calve icebergs at fronts.", ["Cy Ng"])
    result = follow(ctx, "U1", "https://arxiv.org/abs/2503.00777v1, 2503.99999, glaciers")
    assert [p.id for p in result.seeds] == ["arxiv:2503.00777"]
    assert result.unknown_seeds == ["2503.99999"] and result.added == ["glaciers"]
    assert offline.asked == [["2503.00777", "2503.99999"]]
    assert {f.paper_id: f.value for f in ctx.store.get_feedback("U1")} == {"arxiv:2503.00777": 1}


def test_follow_with_the_api_down_reports_the_paper_as_not_held(ctx, offline):
    offline.add("2503.00888", "Sea ice albedo", "Sea ice reflects sunlight.")
    offline.status = 500
    result = follow(ctx, "U1", "2503.00888")
    assert result.seeds == [] and result.unknown_seeds == ["2503.00888"]


def test_the_shortcut_use_case_saves_each_named_paper_once(ctx, offline):
    held(ctx)
    offline.add("2503.00999", "Desert dune migration", "Dunes migrate with the wind.")
    text = ("<https://arxiv.org/abs/2503.00999|dunes> and the cats paper doi:10.1000/cats.1 "
            "(arXiv:2401.00001v1), and 10.1000/unknown.2")
    named = find_named_papers(ctx, text)
    assert named.named == ["2503.00999", "2401.00001", "10.1000/cats.1", "10.1000/unknown.2"]
    result = save_named_papers(ctx, "U1", named)
    assert [p.id for p in result.saved] == ["arxiv:2503.00999", "arxiv:2401.00001"]
    assert result.missing == ["10.1000/unknown.2"] and not result.unreachable
    assert {s.paper_id for s in ctx.store.saved_papers("U1")} == {"arxiv:2503.00999", "arxiv:2401.00001"}
    again = save_named_papers(ctx, "U1", find_named_papers(ctx, text))
    assert again.saved == [] and [p.id for p in again.already] == ["arxiv:2503.00999", "arxiv:2401.00001"]
    assert find_named_papers(ctx, "no papers here, just words").named == []


def test_the_arxiv_settings_are_read_checked_and_reach_the_arxiv_sources(tmp_path, monkeypatch):
    from click.testing import CliRunner

    import bot.config
    from bot.cli.main import cli
    from bot.config import Settings
    from bot.errors import ConfigError
    from bot.sources.http import default_fetcher
    from bot.usecases.lookup import use_arxiv_api

    assert Settings().arxiv_api_url == "https://export.arxiv.org/api/query"  # the documented default
    assert Settings.load({}, dotenv=None).arxiv_api_url == bot.config.DEFAULT_ARXIV_API_URL
    assert Settings.load({"PAPERBOT_ARXIV_API_URL": "http://mirror:8080/api/query"},
                         dotenv=None).arxiv_api_url == "http://mirror:8080/api/query"
    for bad in ("export.arxiv.org/api/query", "ftp://x/api", "http://x/a b"):
        with pytest.raises(ConfigError, match="PAPERBOT_ARXIV_API_URL"):
            Settings.load({"PAPERBOT_ARXIV_API_URL": bad}, dotenv=None)
    assert Settings().arxiv_rss_url == "https://rss.arxiv.org/rss/"
    assert Settings.load({"PAPERBOT_ARXIV_RSS_URL": "http://mirror:8080/rss"},
                         dotenv=None).arxiv_rss_url == "http://mirror:8080/rss/"
    for bad in ("rss.arxiv.org/rss/", "http://x/rss?cat=", "http://x/a b"):
        with pytest.raises(ConfigError, match="PAPERBOT_ARXIV_RSS_URL"):
            Settings.load({"PAPERBOT_ARXIV_RSS_URL": bad}, dotenv=None)
    monkeypatch.chdir(tmp_path)  # no .env of the developer's
    with ArxivStandIn() as arxiv:
        try:
            since = (datetime.now(UTC) - timedelta(days=2)).date().isoformat()
            args = ["--db", str(tmp_path / "p.db"), "ingest", "--since", since, "arxiv:cs.LG"]
            env = {"PAPERBOT_ARXIV_API_URL": arxiv.url, "PAPERBOT_ARXIV_RSS_URL": arxiv.rss_url}
            result = CliRunner().invoke(cli, args, obj={}, env=env, catch_exceptions=False)
            assert result.exit_code == 0, result.output
            # The listing and the back-fill's one range of dates went to the stand-in.
            assert arxiv.listed == ["cs.LG"] and len(arxiv.asked) == 1
            assert default_fetcher().api_url == default_lookup().fetcher.api_url == arxiv.url
            assert default_fetcher().rss_url == arxiv.rss_url
        finally:
            use_arxiv_api(bot.config.DEFAULT_ARXIV_API_URL, bot.config.DEFAULT_ARXIV_RSS_URL)
