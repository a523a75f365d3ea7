"""What the use-case tests share."""

from __future__ import annotations

import pytest

from bot.state.context import Context
from bot.state.engine import Engine
from tests.conftest import make_corpus
from tests.storage.conftest import any_store, backend, pg_database, pg_url, store_target  # noqa: F401

WS = "T1"


@pytest.fixture
def app(any_store):  # noqa: F811
    """A context of workspace T1 over a store holding the five-topic corpus, its index built, on each
    backend in turn."""
    any_store.upsert_papers(make_corpus())
    root = Context(any_store, Engine(any_store), digest_size=3)
    root.engine.refresh()
    return root.for_workspace(WS)
