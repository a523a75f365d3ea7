"""The store's one declared interface: :class:`Store`, a :class:`typing.Protocol` that both backends
(:class:`storage.sqlite.SqliteStore`, :class:`storage.postgres.PostgresStore`) implement, and that the bot
types against. It is composed of one contract per aggregate, each written beside its SQL (``PapersStore``
in :mod:`storage.papers`, ``InboxStore`` in :mod:`storage.inbox`, …): every public method's contract is
written there, once, and no method in two; a backend says only how it keeps it. What is the database's
as a whole (its views, transactions and connections) is :class:`BaseStore`, here.

Timestamps are ISO UTC text; a person-level method reads and writes the rows of the view's workspace
(:attr:`BaseStore.workspace`); papers, saved models, jobs, installations and OAuth states are shared by
every view. Errors are storage's own (:mod:`storage.errors`).
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Protocol, Self

from storage.activity import ActivityStore
from storage.alerts import AlertsStore
from storage.artifacts import ArtifactsStore
from storage.arxiv_cursors import ArxivCursorsStore
from storage.channel_settings import ChannelsStore
from storage.conference import ConferenceStore
from storage.copy import CopyingStore
from storage.digests import DigestsStore
from storage.fulltext import FullTextStore
from storage.inbox import InboxStore
from storage.jobs import JobsStore
from storage.leases import LeasesStore
from storage.library_imports import LibraryImportsStore
from storage.paper_events import FollowupsStore
from storage.paper_vectors import PaperVectorsStore
from storage.papers import PapersStore
from storage.people import FeedbackStore, ForgettingStore, PeopleStore, ShownStore
from storage.polls import PollsStore
from storage.preferences import PreferencesStore
from storage.recaps import RecapsStore
from storage.saved import SavedStore
from storage.shares import SharesStore
from storage.snapshot import SnapshotsStore
from storage.suggestions import SuggestionsStore
from storage.summaries import SummariesStore
from storage.watches import WatchesStore
from storage.workspaces import InstallationsStore, WorkspacesStore


class BaseStore(Protocol):
    """One database, which may serve many Slack workspaces: :meth:`for_workspace` gives the view of one,
    whose person-level methods read and write only that workspace's rows. A store as opened is the view
    of workspace "" (rows not assigned to one yet)."""

    #: What errors and logs name the database by: the SQLite file's path, the PostgreSQL URL without its
    #: password.
    path: str

    @property
    def local_file(self) -> str | None:
        """The database's file, when it is one file on this machine with one writer at a time (SQLite;
        None for PostgreSQL and an in-memory database): what must not wait on its write lock is written
        beside it."""
        ...

    @property
    def workspace(self) -> str:
        """The workspace this view's person-level methods read and write ("" for the opened store)."""
        ...

    def for_workspace(self, ws: str) -> Self:
        """The view of workspace ``ws`` (a team id, or the enterprise id of an org install): the same
        database, connections and thread's open transaction, nothing opened anew (so :meth:`dispose`
        of any view closes them for all)."""
        ...

    def transaction(self) -> AbstractContextManager[None]:
        """Group one use case's writes in one transaction, held by this thread until the end; nested
        levels are savepoints. SQLite takes the write lock at once (BEGIN IMMEDIATE); PostgreSQL locks
        nothing more than the rows written."""
        ...

    def close(self) -> None:
        """Close this thread's connection (on PostgreSQL, where no connection is held outside a
        transaction, nothing); :meth:`dispose` closes them all."""
        ...

    def dispose(self) -> None:
        """Close every connection of the store, for every thread and view; it can't be used afterwards."""
        ...

    def waiting_at_most(self, seconds: float) -> AbstractContextManager[None]:
        """Inside the block, a statement waits at most ``seconds`` for a connection of PostgreSQL's pool
        (else StoreUnavailable), not the pool's own timeout, and at most as long for a lock or for its
        answer (else StoreBusy): for an answer that must come soon. Outside a transaction only (one
        begun earlier keeps its own limits). SQLite has no pool: nothing changes there."""
        ...


class Store(BaseStore,
            PapersStore, FullTextStore, PaperVectorsStore, ArtifactsStore, ArxivCursorsStore,
            PeopleStore, FeedbackStore, ShownStore, ForgettingStore, PreferencesStore, SnapshotsStore,
            SavedStore, FollowupsStore, SharesStore, SuggestionsStore, SummariesStore, AlertsStore,
            ChannelsStore, PollsStore, RecapsStore, ConferenceStore, WatchesStore,
            DigestsStore, LeasesStore, JobsStore, InboxStore, LibraryImportsStore,
            WorkspacesStore, InstallationsStore, CopyingStore, ActivityStore, Protocol):
    """Papers, people, topics, feedback, what was shown, digests and saved models in one database: every
    aggregate's contract, over :class:`BaseStore`."""


#: The contracts :class:`Store` is composed of, each declaring its own methods.
CONTRACTS: tuple[type, ...] = tuple(base for base in Store.__bases__ if base is not Protocol)
