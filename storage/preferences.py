"""What a person chose beyond their main topics, on either backend: named feeds and their topics,
followed authors, muted words, and the feed each paper was picked for.

:class:`Preferences` is mixed into both stores; it runs its statements (qmark placeholders, no literal
``?`` or ``%``) through the store's :class:`~storage.dialect.Dialect`, and every statement filters or
writes the store's workspace ``self._ws``. Uniqueness is the database's: each insert is ON CONFLICT DO NOTHING
on a unique key (a topic or feed name ignoring case; an author's match key; a folded word).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from storage.dialect import Shared
from storage.records import utcnow


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
