"""Where acknowledged work is written down before the ack (issue 24): the database's inbox, or on SQLite
the journal beside it (:mod:`bot.state.journal`), whichever can take it at once.

PostgreSQL takes an inbox row in a few milliseconds whatever else holds locks, and its unique key turns a
request sent again away at once. SQLite has one writer at a time, and an ingest may hold its lock for
many seconds, so there an entry is appended to the journal (synced to disk) and moved into the inbox
later, by :meth:`Intake.settle`, on a thread that may wait for the lock; a request sent again is then
turned away when its entry reaches the inbox.
"""

from __future__ import annotations

from datetime import timedelta

from bot.state.journal import Journal
from storage import Store
from storage.models import InboxEntry

#: How long an ack waits for a connection to the database (PostgreSQL's pool): Slack gives up on an answer
#: after 3 s, and an error before then (the database away) makes it deliver the request again.
ACK_WAIT_SECONDS = 2.0


class Intake:
    """How acknowledged work reaches ``store``'s inbox (see the module). Every entry is held back from
    other processes' claims for ``hold`` after it arrived: the process that took it claims it at once."""

    def __init__(self, store: Store, hold: timedelta):
        self.store = store
        self.hold = hold
        local = store.local_file
        self.journal = Journal(local) if local else None

    def accept(self, entry: InboxEntry) -> bool:
        """Write ``entry`` down durably (on disk when this returns). False when the inbox already holds
        its key (PostgreSQL says so at once; on SQLite a duplicate is dropped when it is settled)."""
        if self.journal is not None:
            self.journal.append(entry)
            return True
        with self.store.waiting_at_most(ACK_WAIT_SECONDS):
            return bool(self.store.inbox_put([entry], self.hold))

    def settle(self, wait: bool) -> None:
        """Move what the journal holds into the inbox (nothing to do on PostgreSQL). With ``wait``, after
        any settling under way, so that everything accepted before the call is in the inbox on return;
        without, skipped while another runs. Raises what the store raises when it can't be written."""
        if self.journal is not None:
            self.journal.drain(self.store, self.hold, wait=wait)

    def pending(self) -> bool:
        """Whether the journal holds entries not yet in the inbox."""
        return self.journal is not None and self.journal.pending()
