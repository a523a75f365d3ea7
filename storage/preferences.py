"""What a person chose beyond their main topics, on either backend: named feeds and their topics,
followed authors, muted words, and the feed each paper was picked for.

:class:`Preferences` is mixed into both stores; it runs its statements (qmark placeholders, no literal
``?`` or ``%``) through the store's :class:`~storage.dialect.Dialect`, and every statement filters or
writes the store's workspace ``self._ws``. Uniqueness is the database's: each insert is ON CONFLICT DO NOTHING
on a unique key (a topic or feed name ignoring case; an author's match key; a folded word).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Protocol

from storage.dialect import Shared
from storage.records import utcnow


class PreferencesStore(Protocol):
    """A person's named feeds, followed authors and muted words, in this view's workspace."""

    def get_feeds(self, user_id: str) -> dict[str, list[str]]:
        """A person's named feeds (not the main one) with their topics, each oldest first."""
        ...

    def add_feed_topics(self, user_id: str, feed: str, topics: Iterable[str]) -> list[str]:
        """Add topics to feed ``feed`` (spelled as stored when it exists); returns those that were new."""
        ...

    def remove_feed(self, user_id: str, feed: str) -> int:
        """Delete feed ``feed`` (its stored spelling) and which papers were picked for it; returns how
        many topics it had."""
        ...

    def remove_feed_topics(self, user_id: str, feed: str, topics: Iterable[str]) -> list[str]:
        """Remove these topics (their stored spellings) from feed ``feed``, keeping which papers were
        picked for it; returns those that were there. A feed left with no topics is gone."""
        ...

    def set_paper_feeds(self, user_id: str, feeds: Mapping[str, str]) -> None:
        """Remember the feed each paper (id -> feed name; "" is the main feed) was picked for."""
        ...

    def paper_feeds(self, user_id: str) -> dict[str, str]:
        """The feed each paper was picked for (paper id -> feed name; "" the main feed)."""
        ...

    def get_followed_authors(self, user_id: str) -> list[tuple[str, str]]:
        """(match key, name as typed) of every author a person follows, oldest first."""
        ...

    def follow_author(self, user_id: str, key: str, name: str) -> bool:
        """Follow an author known by match ``key``; False when already followed."""
        ...

    def unfollow_author(self, user_id: str, key: str) -> str | None:
        """Stop following the author with match ``key``; the name removed, or None."""
        ...

    def get_mutes(self, user_id: str) -> list[str]:
        """A person's muted words and phrases (as stored: folded), oldest first."""
        ...

    def add_mutes(self, user_id: str, words: Iterable[str]) -> list[str]:
        """Mute words (already folded); returns those that were new."""
        ...

    def remove_mute(self, user_id: str, word: str) -> bool:
        """Unmute one (folded) word; False when it was not muted."""
        ...

    def remove_all_mutes(self, user_id: str) -> list[str]:
        """Unmute everything; returns the words that were muted."""
        ...


class Preferences(Shared):
    """Feeds, followed authors, mutes and paper feeds of one workspace's people (see the module)."""


    # -- feeds -----------------------------------------------------------------------------------

    def get_feeds(self, user_id: str) -> dict[str, list[str]]:
        feeds: dict[str, list[str]] = {}
        for feed, topic in self._sql.all(
                "select feed, topic from feed_topics where ws = ? and user_id = ?"
                " order by lower(feed), added_at, lower(topic)", [self._ws, user_id]):
            feeds.setdefault(feed, []).append(topic)
        return feeds

    def add_feed_topics(self, user_id: str, feed: str, topics: Iterable[str]) -> list[str]:
        now, added = utcnow(), []
        for topic in topics:
            # The unique index on (ws, user_id, lower(feed), lower(topic)) has the last word.
            if self._sql.run("insert into feed_topics (ws, user_id, feed, topic, added_at)"
                              " values (?, ?, ?, ?, ?) on conflict do nothing",
                              [self._ws, user_id, feed, topic, now]):
                added.append(topic)
        return added

    def remove_feed(self, user_id: str, feed: str) -> int:
        self._sql.run("delete from feed_papers where ws = ? and user_id = ? and feed = ?",
                       [self._ws, user_id, feed])
        return self._sql.run("delete from feed_topics where ws = ? and user_id = ? and feed = ?",
                              [self._ws, user_id, feed])

    def remove_feed_topics(self, user_id: str, feed: str, topics: Iterable[str]) -> list[str]:
        return [topic for topic in topics if self._sql.run(
            "delete from feed_topics where ws = ? and user_id = ? and feed = ? and topic = ?",
            [self._ws, user_id, feed, topic])]

    def set_paper_feeds(self, user_id: str, feeds: Mapping[str, str]) -> None:
        now = utcnow()
        for paper_id, feed in feeds.items():
            self._sql.run("insert into feed_papers (ws, user_id, paper_id, feed, picked_at)"
                           " values (?, ?, ?, ?, ?) on conflict (ws, user_id, paper_id)"
                           " do update set feed = excluded.feed,"
                           " picked_at = excluded.picked_at", [self._ws, user_id, paper_id, feed, now])

    def paper_feeds(self, user_id: str) -> dict[str, str]:
        return dict(self._sql.all("select paper_id, feed from feed_papers where ws = ? and user_id = ?",
                                    [self._ws, user_id]))

    # -- followed authors ------------------------------------------------------------------------

    def get_followed_authors(self, user_id: str) -> list[tuple[str, str]]:
        return [(k, n) for k, n in self._sql.all(
            "select key, name from followed_authors where ws = ? and user_id = ? order by added_at, key",
            [self._ws, user_id])]

    def follow_author(self, user_id: str, key: str, name: str) -> bool:
        return self._sql.run("insert into followed_authors (ws, user_id, key, name, added_at)"
                              " values (?, ?, ?, ?, ?) on conflict do nothing",
                              [self._ws, user_id, key, name, utcnow()]) > 0

    def unfollow_author(self, user_id: str, key: str) -> str | None:
        rows = self._sql.all("delete from followed_authors where ws = ? and user_id = ? and key = ?"
                               " returning name", [self._ws, user_id, key])
        return rows[0][0] if rows else None

    # -- muted words -----------------------------------------------------------------------------

    def get_mutes(self, user_id: str) -> list[str]:
        return [r[0] for r in self._sql.all("select word from mutes where ws = ? and user_id = ?"
                                              " order by added_at, word", [self._ws, user_id])]

    def add_mutes(self, user_id: str, words: Iterable[str]) -> list[str]:
        now, added = utcnow(), []
        for word in words:
            if self._sql.run("insert into mutes (ws, user_id, word, added_at) values (?, ?, ?, ?)"
                              " on conflict do nothing", [self._ws, user_id, word, now]):
                added.append(word)
        return added

    def remove_mute(self, user_id: str, word: str) -> bool:
        return self._sql.run("delete from mutes where ws = ? and user_id = ? and word = ?",
                              [self._ws, user_id, word]) > 0

    def remove_all_mutes(self, user_id: str) -> list[str]:
        return [r[0] for r in self._sql.all("delete from mutes where ws = ? and user_id = ? returning word",
                                              [self._ws, user_id])]
