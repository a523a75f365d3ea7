"""Shared fixtures: a fresh database per test, and a small corpus whose topics are easy to tell apart."""

from __future__ import annotations

from pathlib import Path

import pytest

import bot.config
import bot.sources.http
from bot.sources.http import (
    default_acl_fetcher,
    default_biorxiv_fetcher,
    default_openreview_fetcher,
    default_pubmed_fetcher,
)
from bot.state.context import Context
from bot.usecases.lookup import (
    default_lookup,
    use_acl_url,
    use_arxiv_api,
    use_biorxiv_api,
    use_openreview_api,
    use_pubmed_api,
)
from stand_ins.acl import Anthology
from stand_ins.biorxiv import Biorxiv
from stand_ins.corpus import make_corpus
from stand_ins.openreview import OpenReview
from stand_ins.pubmed import Pubmed
from storage import SqliteStore
from tests.arxiv_standin import ArxivStandIn
from tests.e2e.harness import copy_sqlite_file

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = ROOT.parent / "shared" / "data"

def shared_data(name: str) -> Path:
    """A file from the shared data folder, or skip the test when that folder is absent."""
    path = SHARED_DATA / name
    if not path.exists():
        pytest.skip(f"shared data not available: {name}")
    return path


def pytest_configure(config):
    config.addinivalue_line("markers", "postgres: a test about PostgreSQL itself, whatever fixtures it takes")


def pytest_sessionfinish(session, exitstatus):
    """The test databases whose drop was left to the background are gone before the worker ends."""
    from stand_ins.postgres_servers import finish_drops

    finish_drops()


@pytest.hookimpl(tryfirst=True)  # before the storage conftest's hook asks a server whether it answers
def pytest_collection_modifyitems(config, items):
    """``PAPERBOT_TEST_BACKEND=sqlite`` (or ``postgres``) leaves out every case of the other backend: the
    PostgreSQL ones are those on a throwaway database (``pg_database`` and every fixture over it), with a
    parameter "postgres" (``backend`` in the storage, end-to-end and fault suites, and the like) or with
    the ``postgres`` mark. With sqlite no PostgreSQL server is asked for or started at all. Tests of
    neither backend in particular (SQLite unit tests) always run."""
    from tests.e2e.harness import BACKENDS, test_backends

    start_the_long_suites_first(items)
    chosen = test_backends()
    if chosen == BACKENDS:
        return
    kept, left_out = [], []
    for item in items:
        backend = backend_of(item)
        (kept if backend is None or backend in chosen else left_out).append(item)
    if left_out:
        config.hook.pytest_deselected(items=left_out)
        items[:] = kept


# The fault and end-to-end suites hold most of the suite's long tests (real processes, kills, a 40-s lock):
# started first, they spread over the workers from the start instead of leaving one worker a long tail.
LONG_SUITES = ("tests/fault/", "tests/e2e/")


def start_the_long_suites_first(items) -> None:
    """Put the long suites' tests before the rest, each part in its own order (a stable sort: every xdist
    worker collects the same order)."""
    def rank(item) -> int:
        path = item.nodeid
        return next((i for i, suite in enumerate(LONG_SUITES) if path.startswith(suite)), len(LONG_SUITES))
    items.sort(key=rank)


def backend_of(item) -> str | None:
    """"postgres" or "sqlite" for a case of one backend, None for a test of neither in particular."""
    if "pg_database" in item.fixturenames or item.get_closest_marker("postgres") is not None:
        return "postgres"
    callspec = getattr(item, "callspec", None)
    values = [v for v in (callspec.params.values() if callspec else ()) if isinstance(v, str)]
    return "postgres" if "postgres" in values else "sqlite" if "sqlite" in values else None


@pytest.fixture(scope="session", autouse=True)
def offline_arxiv():
    """No test reaches the real arXiv API or listings: unless a test says otherwise, this process's arXiv
    requests (and the bots the tests start, whose PAPERBOT_ARXIV_API_URL and PAPERBOT_ARXIV_RSS_URL
    default to it) go to an empty local stand-in, unspaced; nor api.biorxiv.org (``biorxiv:`` and
    ``medrxiv:`` sources), nor NCBI's E-utilities (``pubmed:``), nor OpenReview's API (``openreview:``),
    nor the ACL Anthology (``acl:``), likewise."""
    with (ArxivStandIn() as arxiv, Biorxiv() as biorxiv, Pubmed() as pubmed, OpenReview() as openreview,
          Anthology() as anthology, pytest.MonkeyPatch.context() as mp):
        mp.setattr(bot.config, "DEFAULT_ARXIV_API_URL", arxiv.url)
        mp.setattr(bot.config, "DEFAULT_ARXIV_RSS_URL", arxiv.rss_url)
        mp.setattr(bot.config, "DEFAULT_BIORXIV_API_URL", biorxiv.base_url)
        use_arxiv_api(arxiv.url, arxiv.rss_url)
        mp.setattr(bot.config, "DEFAULT_PUBMED_API_URL", pubmed.base_url)
        use_biorxiv_api(biorxiv.base_url)
        # use_pubmed_api sets its limiter from these (a CLI test calls it): unspaced too.
        mp.setattr(bot.sources.http, "PUBMED_INTERVAL", 0.0)
        mp.setattr(bot.sources.http, "PUBMED_KEY_INTERVAL", 0.0)
        use_pubmed_api(pubmed.base_url)
        limiter = default_lookup().fetcher.limiter
        mp.setattr(limiter, "interval", 0.0)
        mp.setattr(default_biorxiv_fetcher().limiter, "interval", 0.0)
        mp.setattr(default_pubmed_fetcher().limiter, "interval", 0.0)
        mp.setattr(bot.config, "DEFAULT_OPENREVIEW_API_URL", openreview.base_url)
        use_openreview_api(openreview.base_url)
        mp.setattr(default_openreview_fetcher().limiter, "interval", 0.0)
        mp.setattr(bot.config, "DEFAULT_ACL_URL", anthology.base_url)
        use_acl_url(anthology.base_url)
        mp.setattr(default_acl_fetcher().limiter, "interval", 0.0)
        yield arxiv


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory) -> Path:
    """A SQLite database at the current schema, made once per worker: a test's new database starts as a
    copy of it (:func:`new_sqlite`, some 3 ms of CPU), not migrated from nothing again (some 30 ms, a
    thousand times a run)."""
    path = tmp_path_factory.mktemp("sqlite-template") / "template.db"
    SqliteStore(path).close()
    return path


def new_sqlite(template: Path, path: Path) -> Path:
    """``path``, a new database at the current schema: a copy of ``template`` (:func:`sqlite_template`)."""
    copy_sqlite_file(template, path)
    return path


@pytest.fixture
def store(tmp_path, sqlite_template) -> SqliteStore:
    s = SqliteStore(new_sqlite(sqlite_template, tmp_path / "test.db"))
    yield s
    s.close()


@pytest.fixture
def ctx(tmp_path, corpus_template) -> Context:
    """A context over a database holding the five-topic corpus, index already built (and saved)."""
    c = Context.open(str(new_sqlite(corpus_template, tmp_path / "ctx.db")), digest_size=3)
    c.engine.refresh()  # the saved model loaded
    yield c
    c.store.close()


@pytest.fixture(scope="session")
def corpus_template(tmp_path_factory, sqlite_template) -> Path:
    """:func:`sqlite_template` holding the five-topic corpus and the model fitted on it, made once per
    worker for :func:`ctx`."""
    path = new_sqlite(sqlite_template, tmp_path_factory.mktemp("corpus-template") / "template.db")
    c = Context.open(str(path), digest_size=3)
    try:
        c.store.upsert_papers(make_corpus())
        c.engine.refresh()
    finally:
        c.store.close()
    return path
