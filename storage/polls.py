"""A channel's reading-group polls and the votes cast in them, on either backend.

Every rule that must hold across processes is the database's: a channel has at most one open poll (a
partial unique index, so the second of two polls opened at once inserts nothing); a poll is closed by
one update (open -> closed, so of two closes one gets the poll); a person has one vote a poll (the key
``(ws, poll_id, user_id)``: a new vote replaces theirs), cast only while the poll is open (the vote
first bumps the open poll's ``version``, which also locks its row against a close). ``version`` lets
whoever shows the counts tell whether a vote came in since it read them.

Mixed into both stores like :class:`storage.saved.SavedPapers`: qmark statements through the store's
dialect, each filtering or writing the view's workspace ``self._ws``.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from storage.dialect import Shared

#: A poll's status: open while people vote, then closed (for good).
PollStatus = Literal["open", "closed"]

_COLUMNS = ("poll_id, channel_id, message_ts, papers, status, version, opened_at, closed_at, winner,"
            " winner_ts")
#: A new open poll; nothing when the channel has one open already (the partial unique index).
START = ("insert into polls (ws, poll_id, channel_id, papers, status, version, opened_at)"
         " values (?, ?, ?, ?, 'open', 0, ?) on conflict do nothing")
GET = f"select {_COLUMNS} from polls where ws = ? and poll_id = ?"  # noqa: S608
OPEN = f"select {_COLUMNS} from polls where ws = ? and channel_id = ? and status = 'open'"  # noqa: S608
#: The one statement that decides a close: of two at once, one changes the row, the other nothing.
CLOSE = (f"update polls set status = 'closed', closed_at = ? where ws = ? and channel_id = ?"  # noqa: S608
         f" and status = 'open' returning {_COLUMNS}")
#: A vote counts only in an open poll: this update finds the poll open (and holds its row until the vote
#: is written, so a close waits for it) or changes nothing.
BUMP = "update polls set version = version + 1 where ws = ? and poll_id = ? and status = 'open'"
VOTE = ("insert into poll_votes (ws, poll_id, user_id, paper_id, voted_at) values (?, ?, ?, ?, ?)"
        " on conflict (ws, poll_id, user_id) do update set paper_id = excluded.paper_id,"
        " voted_at = excluded.voted_at")
VERSION = "select version from polls where ws = ? and poll_id = ?"
COUNTS = "select paper_id, count(*) from poll_votes where ws = ? and poll_id = ? group by paper_id"
VOTE_OF = "select paper_id from poll_votes where ws = ? and poll_id = ? and user_id = ?"


@dataclass(frozen=True)
class PollRecord:
    """One poll as stored: its papers' ids in rank order, where its message is, whether it is open,
    how many votes were cast in it (``version``), and once closed the winner and its message."""

    poll_id: str
    channel_id: str
    message_ts: str | None
    papers: list[str]
    status: PollStatus
    version: int
    opened_at: str | None
    closed_at: str | None
    winner: str | None
    winner_ts: str | None


def _record(row: tuple) -> PollRecord:
    poll_id, channel, ts, papers, status, version, opened, closed, winner, winner_ts = row
    return PollRecord(poll_id, channel, ts, list(json.loads(papers)), status, int(version or 0), opened,
                      closed, winner, winner_ts)


class PollsStore(Protocol):
    """Reading-group polls (issue 27): a channel's, at most one open at a time."""

    def start_poll(self, channel_id: str, papers: Sequence[str], at: str) -> str | None:
        """Open a poll in a channel of these papers (ids, in rank order), opened at ``at`` (ISO UTC),
        its message not posted yet: the new poll's id, or None when the channel has an open poll already
        (the database decides: of two opened at once, one is)."""
        ...

    def set_poll_message(self, poll_id: str, message_ts: str) -> bool:
        """Remember the message a poll was posted as; False for a poll that is not there."""
        ...

    def drop_poll(self, poll_id: str) -> bool:
        """Delete a poll and its votes (one whose message could not be posted); False if it was not there."""
        ...

    def get_poll(self, poll_id: str) -> PollRecord | None:
        """A poll of this workspace, open or closed, or None."""
        ...

    def open_poll(self, channel_id: str) -> PollRecord | None:
        """The channel's open poll, or None."""
        ...

    def vote_in_poll(self, poll_id: str, user_id: str, paper_id: str, at: str) -> bool:
        """Record a person's vote for ``paper_id`` in an open poll, replacing any vote of theirs in it,
        and count it in the poll's ``version``; False (nothing written) when the poll is closed or not
        there. A close at the same moment comes wholly before or after the vote."""
        ...

    def poll_vote(self, poll_id: str, user_id: str) -> str | None:
        """The paper a person voted for in a poll, or None."""
        ...

    def poll_counts(self, poll_id: str) -> tuple[int, dict[str, int]]:
        """A poll's ``version`` and its votes per paper id (papers without votes left out), the version
        read first: counts read with an older version are never taken for the latest."""
        ...

    def close_poll(self, channel_id: str, at: str) -> PollRecord | None:
        """Close the channel's open poll at ``at`` (ISO UTC), in one statement: the poll as closed, or
        None when none was open (of two closes at once, one gets it)."""
        ...

    def set_poll_winner(self, poll_id: str, paper_id: str, message_ts: str | None = None) -> bool:
        """Record a closed poll's winner and the message it was posted as; False for no such poll."""
        ...


class Polls(Shared):
    """The reading-group polls of one workspace's channels (see the module)."""

    def start_poll(self, channel_id: str, papers: Sequence[str], at: str) -> str | None:
        poll_id = secrets.token_hex(8)
        started = self._sql.run(START, [self._ws, poll_id, channel_id, json.dumps(list(papers)), at]) > 0
        return poll_id if started else None

    def set_poll_message(self, poll_id: str, message_ts: str) -> bool:
        return self._sql.run("update polls set message_ts = ? where ws = ? and poll_id = ?",
                             [message_ts, self._ws, poll_id]) > 0

    def drop_poll(self, poll_id: str) -> bool:
        with self.transaction():
            self._sql.run("delete from poll_votes where ws = ? and poll_id = ?", [self._ws, poll_id])
            return self._sql.run("delete from polls where ws = ? and poll_id = ?", [self._ws, poll_id]) > 0

    def get_poll(self, poll_id: str) -> PollRecord | None:
        row = self._sql.one(GET, [self._ws, poll_id])
        return _record(row) if row else None

    def open_poll(self, channel_id: str) -> PollRecord | None:
        row = self._sql.one(OPEN, [self._ws, channel_id])
        return _record(row) if row else None

    def vote_in_poll(self, poll_id: str, user_id: str, paper_id: str, at: str) -> bool:
        with self.transaction():
            if self._sql.run(BUMP, [self._ws, poll_id]) == 0:
                return False
            self._sql.run(VOTE, [self._ws, poll_id, user_id, paper_id, at])
        return True

    def poll_vote(self, poll_id: str, user_id: str) -> str | None:
        row = self._sql.one(VOTE_OF, [self._ws, poll_id, user_id])
        return row[0] if row else None

    def poll_counts(self, poll_id: str) -> tuple[int, dict[str, int]]:
        # The version first: counts read after it are at least as new, so a version that moved since
        # always shows (the counts are read again), never the other way round.
        row = self._sql.one(VERSION, [self._ws, poll_id])
        counts = {r[0]: int(r[1]) for r in self._sql.all(COUNTS, [self._ws, poll_id])}
        return (int(row[0] or 0) if row else 0), counts

    def close_poll(self, channel_id: str, at: str) -> PollRecord | None:
        rows = self._sql.returning(CLOSE, [at, self._ws, channel_id])
        return _record(rows[0]) if rows else None

    def set_poll_winner(self, poll_id: str, paper_id: str, message_ts: str | None = None) -> bool:
        return self._sql.run("update polls set winner = ?, winner_ts = ? where ws = ? and poll_id = ?",
                             [paper_id, message_ts, self._ws, poll_id]) > 0
