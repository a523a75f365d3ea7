"""What a person chose beyond their main topics, on either backend: named feeds and their topics,
followed authors, muted words, the feed each paper was picked for, and a weekly digest's day.

:class:`Preferences` is mixed into both stores; it runs its statements (qmark placeholders, no literal
``?`` or ``%``) through the two primitives each store gives it, and every statement filters or writes
the store's workspace ``self._ws``. Uniqueness is the database's: each insert is ON CONFLICT DO NOTHING
on a unique key (a topic or feed name ignoring case; an author's match key; a folded word).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import UTC, datetime


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class Preferences:
    """Feeds, followed authors, mutes and paper feeds of one workspace's people (see the module)."""

    _ws: str

    def _pref_rows(self, sql: str, args: list) -> list[tuple]:  # pragma: no cover - each store's own
        raise NotImplementedError

    def _pref_run(self, sql: str, args: list) -> int:  # pragma: no cover - each store's own
        raise NotImplementedError

    # -- feeds -----------------------------------------------------------------------------------

    def get_feeds(self, user_id: str) -> dict[str, list[str]]:
        """A person's named feeds (not the main one) with their topics, each oldest first."""
        feeds: dict[str, list[str]] = {}
        for feed, topic in self._pref_rows(
                "select feed, topic from feed_topics where ws = ? and user_id = ?"
                " order by lower(feed), added_at, lower(topic)", [self._ws, user_id]):
            feeds.setdefault(feed, []).append(topic)
        return feeds

    def add_feed_topics(self, user_id: str, feed: str, topics: Iterable[str]) -> list[str]:
        """Add topics to feed ``feed`` (spelled as stored when it exists); returns those that were new."""
        now, added = _now(), []
        for topic in topics:
            # The unique index on (ws, user_id, lower(feed), lower(topic)) has the last word.
            if self._pref_run("insert into feed_topics (ws, user_id, feed, topic, added_at)"
                              " values (?, ?, ?, ?, ?) on conflict do nothing",
                              [self._ws, user_id, feed, topic, now]):
                added.append(topic)
        return added

    def remove_feed(self, user_id: str, feed: str) -> int:
        """Delete feed ``feed`` (its stored spelling) and which papers were picked for it; returns how
        many topics it had."""
        self._pref_run("delete from feed_papers where ws = ? and user_id = ? and feed = ?",
                       [self._ws, user_id, feed])
        return self._pref_run("delete from feed_topics where ws = ? and user_id = ? and feed = ?",
                              [self._ws, user_id, feed])

    def remove_feed_topics(self, user_id: str, feed: str, topics: Iterable[str]) -> list[str]:
        """Remove these topics (their stored spellings) from feed ``feed``, keeping which papers were
        picked for it; returns those that were there. A feed left with no topics is gone."""
        return [topic for topic in topics if self._pref_run(
            "delete from feed_topics where ws = ? and user_id = ? and feed = ? and topic = ?",
            [self._ws, user_id, feed, topic])]

    def set_paper_feeds(self, user_id: str, feeds: Mapping[str, str]) -> None:
        """Remember the feed each paper (id -> feed name; "" is the main feed) was picked for."""
        now = _now()
        for paper_id, feed in feeds.items():
            self._pref_run("insert into feed_papers (ws, user_id, paper_id, feed, picked_at)"
                           " values (?, ?, ?, ?, ?) on conflict (ws, user_id, paper_id)"
                           " do update set feed = excluded.feed,"
                           " picked_at = excluded.picked_at", [self._ws, user_id, paper_id, feed, now])

    def paper_feeds(self, user_id: str) -> dict[str, str]:
        """The feed each paper was picked for (paper id -> feed name; "" the main feed)."""
        return dict(self._pref_rows("select paper_id, feed from feed_papers where ws = ? and user_id = ?",
                                    [self._ws, user_id]))

    # -- followed authors ------------------------------------------------------------------------

    def get_followed_authors(self, user_id: str) -> list[tuple[str, str]]:
        """(match key, name as typed) of every author a person follows, oldest first."""
        return [(k, n) for k, n in self._pref_rows(
            "select key, name from followed_authors where ws = ? and user_id = ? order by added_at, key",
            [self._ws, user_id])]

    def follow_author(self, user_id: str, key: str, name: str) -> bool:
        """Follow an author known by match ``key``; False when already followed."""
        return self._pref_run("insert into followed_authors (ws, user_id, key, name, added_at)"
                              " values (?, ?, ?, ?, ?) on conflict do nothing",
                              [self._ws, user_id, key, name, _now()]) > 0

    def unfollow_author(self, user_id: str, key: str) -> str | None:
        """Stop following the author with match ``key``; the name removed, or None."""
        rows = self._pref_rows("delete from followed_authors where ws = ? and user_id = ? and key = ?"
                               " returning name", [self._ws, user_id, key])
        return rows[0][0] if rows else None

    # -- muted words -----------------------------------------------------------------------------

    def get_mutes(self, user_id: str) -> list[str]:
        """A person's muted words and phrases (as stored: folded), oldest first."""
        return [r[0] for r in self._pref_rows("select word from mutes where ws = ? and user_id = ?"
                                              " order by added_at, word", [self._ws, user_id])]

    def add_mutes(self, user_id: str, words: Iterable[str]) -> list[str]:
        """Mute words (already folded); returns those that were new."""
        now, added = _now(), []
        for word in words:
            if self._pref_run("insert into mutes (ws, user_id, word, added_at) values (?, ?, ?, ?)"
                              " on conflict do nothing", [self._ws, user_id, word, now]):
                added.append(word)
        return added

    def remove_mute(self, user_id: str, word: str) -> bool:
        """Unmute one (folded) word; False when it was not muted."""
        return self._pref_run("delete from mutes where ws = ? and user_id = ? and word = ?",
                              [self._ws, user_id, word]) > 0

    def remove_all_mutes(self, user_id: str) -> list[str]:
        """Unmute everything; returns the words that were muted."""
        return [r[0] for r in self._pref_rows("delete from mutes where ws = ? and user_id = ? returning word",
                                              [self._ws, user_id])]

    # -- weekly digests --------------------------------------------------------------------------

    def set_digest_weekday(self, user_id: str, weekday: int | None) -> None:
        """Make a person's digest weekly on ``weekday`` (0 = Monday), or daily with None. The time and
        whether digests are on stay as :meth:`set_digest_schedule` set them."""
        self._pref_run("update people set digest_weekday = ? where ws = ? and user_id = ?",
                       [weekday, self._ws, user_id])

    # -- papers (shared by every workspace) ------------------------------------------------------

    def recent_paper_authors(self, since: str) -> dict[str, tuple[str | None, str]]:
        """(authors as stored (JSON text), date) of the papers published (or, without a date, added) on
        or after ``since`` (YYYY-MM-DD), by paper id."""
        return {pid: (authors, day) for pid, authors, day in self._pref_rows(
            "select id, authors, coalesce(published, substr(added_at, 1, 10)) d from papers"
            " where coalesce(published, substr(added_at, 1, 10)) >= ?", [since])}

    def papers_containing(self, fragments: Iterable[str]) -> dict[str, str]:
        """Title and abstract (``"title. abstract"``) of every paper whose lowercased title or abstract
        holds one of ``fragments`` (lowercase), by id: a coarse first pass for muted words."""
        fragments = list(dict.fromkeys(f for f in fragments if f))
        if not fragments:
            return {}
        # Backslash escapes LIKE's wildcards in the fragments.
        like = " or ".join(["lower(coalesce(title, '') || ' ' || abstract) like ? escape '\\'"]
                           * len(fragments))
        args = ["%" + f.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
                for f in fragments]
        # Only the fixed condition above is repeated into the statement.
        rows = self._pref_rows(f"select id, coalesce(title, ''), abstract from papers where {like}", args)  # noqa: S608
        return {pid: f"{title}. {abstract}" if title else abstract for pid, title, abstract in rows}
