"""Finding arXiv ids and DOIs in text and links, and fetching arXiv papers by id (from a local stand-in)."""

import pytest

from bot.sources.arxiv_ids import (
    MAX_IDS,
    arxiv_id_of_url,
    fetch_by_ids,
    find_arxiv_ids,
    find_dois,
    id_list_url,
    ids_of_link,
)
from bot.sources.http import Fetcher, RateLimiter
from bot.sources.records import SourceError
from tests.arxiv_standin import ArxivStandIn


@pytest.mark.parametrize("url, base", [
    ("https://arxiv.org/abs/2501.01234", "2501.01234"),
    ("https://arxiv.org/abs/2501.01234v2", "2501.01234"),
    ("http://arxiv.org/pdf/2501.01234v2", "2501.01234"),
    ("https://arxiv.org/pdf/2501.01234v2.pdf", "2501.01234"),
    ("https://arxiv.org/html/2501.01234v1", "2501.01234"),
    ("https://arxiv.org/html/2501.01234v1/", "2501.01234"),
    ("https://www.arxiv.org/abs/2501.01234?context=cs", "2501.01234"),
    ("https://export.arxiv.org/abs/0704.0001", "0704.0001"),
    ("https://arxiv.org/abs/hep-th/9901001", "hep-th/9901001"),
    ("https://arxiv.org/abs/hep-th/9901001v3", "hep-th/9901001"),
    ("https://arxiv.org/abs/math.GT/0309136", "math.GT/0309136"),
    ("arxiv.org/abs/2501.01234#section", "2501.01234"),
])
def test_arxiv_urls_give_their_base_id(url, base):
    assert arxiv_id_of_url(url) == base


@pytest.mark.parametrize("url", [
    "https://arxiv.org/list/cs.LG/new", "https://arxiv.org/abs/2513.01234", "https://arxiv.org/abs/2501.012345",
    "https://example.org/abs/2501.01234", "https://arxiv.org/abs/posts/9901001", "https://arxiv.org/",
    "https://arxiv.org/a/smith_j_1",
])
def test_other_urls_give_none(url):
    assert arxiv_id_of_url(url) is None


def test_ids_are_found_anywhere_in_a_text_each_once_in_order():
    text = ("see <https://arxiv.org/abs/2501.01234v2|this one> and arXiv:hep-th/9901001v1, then "
            "https://arxiv.org/pdf/2401.12345v3.pdf (also arxiv.org/html/2501.01234v1), 2402.00002. "
            "Its DOI is https://doi.org/10.48550/arXiv.2404.00003.")
    assert find_arxiv_ids(text) == ["2501.01234", "hep-th/9901001", "2401.12345", "2402.00002", "2404.00003"]


@pytest.mark.parametrize("text", [
    "costs were 1234.5678 last year", "version 2.0 of 2501", "a/2501.01234 path", "x2501.01234",
    "2501.012345 is too long", "see example.org/posts/9901001",
])
def test_what_only_looks_like_an_id_is_not_one(text):
    assert find_arxiv_ids(text) == []


def test_dois_are_found_normalised_without_trailing_punctuation():
    text = ("Published as doi:10.1145/3292500.3330701, also <https://doi.org/10.1000/ABC.7|here> "
            "(10.1000/abc.7). arXiv's own 10.48550/arXiv.2404.00003 is an arXiv id.")
    assert find_dois(text) == ["10.1145/3292500.3330701", "10.1000/abc.7"]
    assert find_dois("no doi here 10.12/x") == []


def test_the_id_list_url_asks_for_exactly_those_ids():
    assert id_list_url("http://h/api/query", ["2501.01234", "hep-th/9901001"]) == (
        "http://h/api/query?id_list=2501.01234,hep-th/9901001&max_results=2")


@pytest.fixture
def arxiv():
    with ArxivStandIn() as standin:
        standin.add("2501.01234", "Tidal locking of exomoons", "We model exomoon tidal locking.",
                    ["Ann Smith", "Bo Li"], version=2, category="astro-ph.EP", doi="10.1000/moon.1")
        standin.add("hep-th/9901001", "Old strings", "Strings as they were in 1999.")
        yield standin


def test_papers_are_fetched_in_one_request_and_unknown_ids_left_out(arxiv):
    fetcher = Fetcher(arxiv.url, timeout=5, limiter=RateLimiter(0))
    found = fetch_by_ids(["2501.01234", "hep-th/9901001", "2502.99999"], fetcher)
    assert arxiv.asked == [["2501.01234", "hep-th/9901001", "2502.99999"]]
    assert set(found) == {"2501.01234", "hep-th/9901001"}
    moon = found["2501.01234"]
    assert (moon.id, moon.arxiv_version, moon.title, moon.authors) == (
        "arxiv:2501.01234", 2, "Tidal locking of exomoons", ["Ann Smith", "Bo Li"])
    assert moon.doi == "10.1000/moon.1" and moon.venue == "arXiv" and "astro-ph.EP" in moon.categories


def test_at_most_max_ids_are_asked_and_a_malformed_id_is_refused_before_any_request(arxiv):
    fetcher = Fetcher(arxiv.url, timeout=5, limiter=RateLimiter(0))
    fetch_by_ids([f"2501.{i:05d}" for i in range(MAX_IDS + 5)], fetcher)
    assert len(arxiv.asked[0]) == MAX_IDS
    with pytest.raises(SourceError, match="not an arXiv id"):
        fetch_by_ids(["nonsense"], fetcher)
    assert len(arxiv.asked) == 1


def test_a_failing_or_hanging_api_is_a_source_error(arxiv):
    arxiv.status = 500
    with pytest.raises(SourceError, match="HTTP 500"):
        fetch_by_ids(["2501.01234"], Fetcher(arxiv.url, timeout=5, limiter=RateLimiter(0)))
    arxiv.status, arxiv.hang = None, 1.0
    with pytest.raises(SourceError, match="timed out"):
        fetch_by_ids(["2501.01234"], Fetcher(arxiv.url, timeout=0.2, limiter=RateLimiter(0)))


@pytest.mark.parametrize(("url", "ids"), [
    ("https://arxiv.org/pdf/2401.00001v2", ["arxiv:2401.00001"]),
    ("https://doi.org/10.1038/S41586-024-1", ["doi:10.1038/s41586-024-1"]),
    ("https://www.biorxiv.org/content/10.1101/2024.01.02.573000v2.full", ["doi:10.1101/2024.01.02.573000"]),
    ("https://www.medrxiv.org/content/10.1101/2024.05.05.24306000v1", ["doi:10.1101/2024.05.05.24306000"]),
    ("https://openreview.net/forum?id=AbC_1-x", ["openreview:AbC_1-x"]),
    ("https://openreview.net/pdf?id=AbC", ["openreview:AbC"]),
    ("https://pubmed.ncbi.nlm.nih.gov/40000001/", ["pmid:40000001"]),
    ("https://aclanthology.org/2025.acl-long.1/", ["acl:2025.acl-long.1"]),
    ("https://aclanthology.org/2025.acl-long.1.pdf", ["acl:2025.acl-long.1"]),
    ("https://openreview.net/group?id=ICML.cc/2025/Conference", []),
    ("https://www.biorxiv.org/collection/neuroscience", []),
    ("https://example.org/10.1000/x", []),
])
def test_a_link_to_a_papers_page_gives_the_ids_it_may_be_held_under(url, ids):
    assert ids_of_link(url) == ids
