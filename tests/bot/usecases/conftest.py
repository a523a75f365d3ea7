"""What the use-case tests share."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from bot.slack.views.refusals import say
from bot.state.context import Context
from bot.state.engine import Engine
from stand_ins.corpus import make_corpus
from tests.storage.conftest import any_store, backend, pg_database, pg_url, store_target  # noqa: F401

WS = "T1"


def workspace_context(store, papers, digest_size: int = 3) -> Context:
    """A context of workspace :data:`WS` over ``store`` holding ``papers``, its index built."""
    store.upsert_papers(papers)
    root = Context(store, Engine(store), digest_size=digest_size)
    root.engine.refresh()
    return root.for_workspace(WS)


@pytest.fixture
def app(any_store):  # noqa: F811
    """A context of workspace T1 over a store holding the five-topic corpus, its index built, on each
    backend in turn."""
    return workspace_context(any_store, make_corpus())


@contextmanager
def refused(kind: type[Exception], says: str) -> Iterator[pytest.ExceptionInfo]:
    """Expects a ``kind`` raised whose words, as a person reads them (:func:`say`), match ``says``:
    use cases raise refusals with fields, the adapters phrase them."""
    with pytest.raises(kind) as caught:
        yield caught
    assert re.search(says, say(caught.value)), say(caught.value)
