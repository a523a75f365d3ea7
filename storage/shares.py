"""Paper links people posted in channels (the ``shares`` table) on either backend: each a sign of interest
in the paper, at a save's weight, unless the person turned it off (``people.shares_off``). Statements use
qmark placeholders (run through the store's :class:`~storage.dialect.Dialect`) and filter or write the
store's workspace ``self._ws``. Uniqueness is the database's: one share per person and paper (the first
kept), ON CONFLICT DO NOTHING, so a redelivered event or two replicas at once count it once."""

from __future__ import annotations

from typing import Protocol

from storage.dialect import Shared
from storage.models import SharedPaper
from storage.moments import utcnow_micro

ADD = ("insert into shares (ws, user_id, paper_id, channel_id, shared_at) values (?, ?, ?, ?, ?)"
       " on conflict (ws, user_id, paper_id) do nothing")
LIST = ("select paper_id, shared_at from shares where ws = ? and user_id = ?"
        " order by shared_at desc, paper_id desc")


class SharesStore(Protocol):
    """The paper links a person shared in channels, as interest."""

    def add_share(self, user_id: str, paper_id: str, channel_id: str | None) -> bool:
        """Record that a person posted a link to a paper (in ``channel_id``); False (nothing written) when
        they had shared it before."""
        ...

    def shared_papers(self, user_id: str) -> list[SharedPaper]:
        """The papers a person shared, newest first."""
        ...


class Shares(Shared):
    """Shared paper links of one workspace's people (see the module)."""

    def add_share(self, user_id: str, paper_id: str, channel_id: str | None) -> bool:
        return self._sql.run(ADD, [self._ws, user_id, paper_id, channel_id, utcnow_micro()]) > 0

    def shared_papers(self, user_id: str) -> list[SharedPaper]:
        return [SharedPaper(pid, at) for pid, at in self._sql.all(LIST, [self._ws, user_id])]
