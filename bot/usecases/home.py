"""What the App Home tab shows a person, as plain data: what they follow, their schedule, their latest
saved papers, whether they are new (no feedback yet), and when the newest paper arrived."""

from __future__ import annotations

from dataclasses import dataclass

from bot.state.context import Context
from bot.usecases.interests import Interests, interests
from bot.usecases.onboarding import is_new
from bot.usecases.saved import SavedItem, saved_page

LATEST_SAVED = 5


@dataclass
class HomeData:
    """A person's Home: their :class:`Interests`, their latest saved papers (newest first, at most
    :data:`LATEST_SAVED`), how many they saved in all, whether they have rated nothing yet, and when the
    newest paper was stored (ISO UTC; None without papers): a person can see new papers still come in."""

    interests: Interests
    latest_saved: list[SavedItem]
    saved_count: int
    new: bool
    newest_paper: str | None = None


def home_data(ctx: Context, user_id: str) -> HomeData:
    """Everything the person's Home tab shows."""
    saved = saved_page(ctx, user_id, LATEST_SAVED)  # the few shown read, not the whole list
    return HomeData(interests(ctx, user_id), saved.items, saved.total, is_new(ctx, user_id),
                    ctx.store.newest_paper_added())


def home_opened(ctx: Context, user_id: str) -> None:
    """Remember that the person has opened Home (once; any process may serve their next request)."""
    ctx.store.record_home_opened(user_id)


def opened_home(ctx: Context, user_id: str) -> bool:
    """Whether the person has ever opened Home: only then is it worth publishing after a change, since
    Home is published each time it is opened."""
    return ctx.store.opened_home(user_id)
