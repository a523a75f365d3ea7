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
        feeds: dict[str, list[str]] = {}
        for feed, topic in self._pref_rows(
                "select feed, topic from feed_topics where ws = ? and user_id = ?"
                " order by lower(feed), added_at, lower(topic)", [self._ws, user_id]):
            feeds.setdefault(feed, []).append(topic)
        return feeds

    def add_feed_topics(self, user_id: str, feed: str, topics: Iterable[str]) -> list[str]:
        now, added = _now(), []
        for topic in topics:
            # The unique index on (ws, user_id, lower(feed), lower(topic)) has the last word.
            if self._pref_run("insert into feed_topics (ws, user_id, feed, topic, added_at)"
                              " values (?, ?, ?, ?, ?) on conflict do nothing",
                              [self._ws, user_id, feed, topic, now]):
                added.append(topic)
        return added

    def remove_feed(self, user_id: str, feed: str) -> int:
        self._pref_run("delete from feed_papers where ws = ? and user_id = ? and feed = ?",
                       [self._ws, user_id, feed])
        return self._pref_run("delete from feed_topics where ws = ? and user_id = ? and feed = ?",
                              [self._ws, user_id, feed])

    def remove_feed_topics(self, user_id: str, feed: str, topics: Iterable[str]) -> list[str]:
        return [topic for topic in topics if self._pref_run(
            "delete from feed_topics where ws = ? and user_id = ? and feed = ? and topic = ?",
            [self._ws, user_id, feed, topic])]

    def set_paper_feeds(self, user_id: str, feeds: Mapping[str, str]) -> None:
        now = _now()
        for paper_id, feed in feeds.items():
            self._pref_run("insert into feed_papers (ws, user_id, paper_id, feed, picked_at)"
                           " values (?, ?, ?, ?, ?) on conflict (ws, user_id, paper_id)"
                           " do update set feed = excluded.feed,"
                           " picked_at = excluded.picked_at", [self._ws, user_id, paper_id, feed, now])

    def paper_feeds(self, user_id: str) -> dict[str, str]:
        return dict(self._pref_rows("select paper_id, feed from feed_papers where ws = ? and user_id = ?",
                                    [self._ws, user_id]))

    # -- followed authors ------------------------------------------------------------------------

    def get_followed_authors(self, user_id: str) -> list[tuple[str, str]]:
        return [(k, n) for k, n in self._pref_rows(
            "select key, name from followed_authors where ws = ? and user_id = ? order by added_at, key",
            [self._ws, user_id])]

    def follow_author(self, user_id: str, key: str, name: str) -> bool:
        return self._pref_run("insert into followed_authors (ws, user_id, key, name, added_at)"
                              " values (?, ?, ?, ?, ?) on conflict do nothing",
                              [self._ws, user_id, key, name, _now()]) > 0

    def unfollow_author(self, user_id: str, key: str) -> str | None:
        rows = self._pref_rows("delete from followed_authors where ws = ? and user_id = ? and key = ?"
                               " returning name", [self._ws, user_id, key])
        return rows[0][0] if rows else None

    # -- muted words -----------------------------------------------------------------------------

    def get_mutes(self, user_id: str) -> list[str]:
        return [r[0] for r in self._pref_rows("select word from mutes where ws = ? and user_id = ?"
                                              " order by added_at, word", [self._ws, user_id])]

    def add_mutes(self, user_id: str, words: Iterable[str]) -> list[str]:
        now, added = _now(), []
        for word in words:
            if self._pref_run("insert into mutes (ws, user_id, word, added_at) values (?, ?, ?, ?)"
                              " on conflict do nothing", [self._ws, user_id, word, now]):
                added.append(word)
        return added

    def remove_mute(self, user_id: str, word: str) -> bool:
        return self._pref_run("delete from mutes where ws = ? and user_id = ? and word = ?",
                              [self._ws, user_id, word]) > 0

    def remove_all_mutes(self, user_id: str) -> list[str]:
        return [r[0] for r in self._pref_rows("delete from mutes where ws = ? and user_id = ? returning word",
                                              [self._ws, user_id])]

    # -- weekly digests --------------------------------------------------------------------------

    def set_digest_weekday(self, user_id: str, weekday: int | None) -> None:
        self._pref_run("update people set digest_weekday = ? where ws = ? and user_id = ?",
                       [weekday, self._ws, user_id])

    # -- papers (shared by every workspace) ------------------------------------------------------

    def recent_paper_authors(self, since: str) -> dict[str, tuple[str | None, str]]:
        return {pid: (authors, day) for pid, authors, day in self._pref_rows(
            "select id, authors, coalesce(published, substr(added_at, 1, 10)) d from papers"
            " where coalesce(published, substr(added_at, 1, 10)) >= ?", [since])}

    def papers_containing(self, fragments: Iterable[str]) -> dict[str, str]:
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
