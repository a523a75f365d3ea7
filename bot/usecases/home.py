"""What the App Home tab shows a person, as plain data: what they follow, their schedule, their latest
saved papers, and whether they are new (no feedback yet)."""

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
    :data:`LATEST_SAVED`), how many they saved in all, and whether they have rated nothing yet."""

    interests: Interests
    latest_saved: list[SavedItem]
    saved_count: int
    new: bool


def home_data(ctx: Context, user_id: str) -> HomeData:
    """Everything the person's Home tab shows."""
    saved = saved_page(ctx, user_id, LATEST_SAVED)  # the few shown read, not the whole list
    return HomeData(interests(ctx, user_id), saved.items, saved.total, is_new(ctx, user_id))
