"""A timezone name that is a folder ("Europe") or too long for a file name is unknown, never an OSError."""

from __future__ import annotations

import pytest

from bot.slack.listeners.people import timezone_changed, valid_timezone
from bot.usecases.digests.due import zone

ODD = ["Europe", "America", "a" * 5000, "é" * 300, "Etc", "posix"]


@pytest.mark.parametrize("name", ODD)
def test_odd_names_are_no_timezone(name):
    assert valid_timezone(name) is None
    assert str(zone(name)) == "UTC"


def test_a_profile_change_with_an_odd_timezone_keeps_the_stored_one(ctx):
    with ctx.store.transaction():
        ctx.store.ensure_person("U1")
        ctx.store.record_timezone("U1", "Europe/Berlin")
    assert not timezone_changed(ctx, {"id": "U1", "tz": "Europe"})
    assert ctx.store.get_person("U1").tz == "Europe/Berlin"
    assert valid_timezone("Asia/Tokyo") == "Asia/Tokyo"
