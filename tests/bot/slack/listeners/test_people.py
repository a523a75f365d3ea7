from bot.slack.listeners.people import timezone_changed, valid_timezone
from bot.usecases import follow


def test_a_known_person_s_new_timezone_is_taken_at_once(ctx):
    follow(ctx, "U1", "graph kernels")
    assert timezone_changed(ctx, {"id": "U1", "tz": "Asia/Tokyo", "real_name": "A"})
    assert ctx.store.get_person("U1").tz == "Asia/Tokyo"
    assert ctx.store.timezone_checked_at("U1")


def test_strangers_and_unknown_zones_change_nothing(ctx):
    assert not timezone_changed(ctx, {"id": "U9", "tz": "Asia/Tokyo"})
    assert ctx.store.get_person("U9") is None  # no row for someone who never used paperbot
    follow(ctx, "U1", "graph kernels")
    ctx.store.set_timezone("U1", "Europe/Berlin")
    assert not timezone_changed(ctx, {"id": "U1", "tz": "Mars/Olympus_Mons"})
    assert not timezone_changed(ctx, {"tz": "Asia/Tokyo"})
    assert ctx.store.get_person("U1").tz == "Europe/Berlin"
    assert valid_timezone("Asia/Kolkata") == "Asia/Kolkata" and valid_timezone("") is None
