"""The use cases behind the Slack adapter's own writes: the digest schedule, timezones, feedback on a
message, the remembered DM channel. Slack-free: a profile lookup is a plain callable."""

from datetime import UTC, datetime, timedelta

import pytest

from bot.errors import Outage
from bot.usecases import follow, forget, recommend
from bot.usecases.channels import drop_dm_channel, known_dm_channel, remember_dm_channel
from bot.usecases.digest_schedule import set_digest_time, stop_digests
from bot.usecases.reactions import rate_message
from bot.usecases.timezones import MAX_AGE, refresh_timezone, timezone_changed, valid_timezone


def nothing_about(ctx, user_id):
    return ctx.store.get_person(user_id) is None and not any(ctx.store.rows_about(user_id).values())


class Profile:
    """A profile lookup that answers ``tz`` (or raises it) and counts how often it was asked."""

    def __init__(self, tz):
        self.tz, self.asked = tz, 0

    def __call__(self):
        self.asked += 1
        if isinstance(self.tz, Exception):
            raise self.tz
        return self.tz


# -- the digest schedule ----------------------------------------------------------------------------

def test_setting_a_digest_time_turns_digests_on_and_stopping_keeps_the_time(ctx):
    set_digest_time(ctx, "U1", "07:45")
    person = ctx.store.get_person("U1")
    assert (person.digest_time, person.digest_enabled) == ("07:45", True)
    assert stop_digests(ctx, "U1")
    person = ctx.store.get_person("U1")
    assert (person.digest_time, person.digest_enabled) == ("07:45", False)


def test_stopping_the_digests_of_someone_unknown_writes_nothing(ctx):
    assert stop_digests(ctx, "U9") is False
    assert nothing_about(ctx, "U9")


# -- timezones -------------------------------------------------------------------------------------

def test_a_timezone_is_asked_for_when_unknown_then_trusted_for_a_day(ctx):
    follow(ctx, "U1", "cats")
    profile = Profile("Asia/Tokyo")
    now = datetime.now(UTC)
    assert refresh_timezone(ctx, "U1", profile, now) == "Asia/Tokyo"
    assert ctx.store.get_person("U1").tz == "Asia/Tokyo"
    profile.tz = "Europe/Berlin"
    assert refresh_timezone(ctx, "U1", profile, now + MAX_AGE / 2) == "Asia/Tokyo"  # not asked again
    assert profile.asked == 1
    assert refresh_timezone(ctx, "U1", profile, now + MAX_AGE / 2, fresh=True) == "Europe/Berlin"
    assert refresh_timezone(ctx, "U1", profile, now + MAX_AGE + timedelta(hours=1)) == "Europe/Berlin"
    assert profile.asked == 3


def test_a_timezone_lookup_that_fails_keeps_the_stored_one(ctx):
    follow(ctx, "U1", "cats")
    ctx.store.set_timezone("U1", "America/Chicago")
    profile = Profile(Outage("users.info failed"))
    assert refresh_timezone(ctx, "U1", profile, fresh=True) == "America/Chicago"
    assert profile.asked == 1 and ctx.store.get_person("U1").tz == "America/Chicago"
    assert ctx.store.timezone_checked_at("U1") is None  # so it is asked again next time


def test_an_unknown_zone_from_the_profile_is_recorded_as_none(ctx):
    follow(ctx, "U1", "cats")
    ctx.store.set_timezone("U1", "America/Chicago")
    assert refresh_timezone(ctx, "U1", Profile("Mars/Olympus_Mons"), fresh=True) is None
    assert ctx.store.get_person("U1").tz is None


def test_a_timezone_answer_never_creates_a_person(ctx):
    # Someone unknown (never used paperbot, or forgotten while Slack was answering) gets no row.
    assert refresh_timezone(ctx, "U9", Profile("Asia/Tokyo"), fresh=True) == "Asia/Tokyo"
    assert nothing_about(ctx, "U9")
    assert not timezone_changed(ctx, "U9", "Asia/Tokyo")
    assert nothing_about(ctx, "U9")


def test_a_changed_profile_s_timezone_is_taken_only_when_it_is_one(ctx):
    follow(ctx, "U1", "cats")
    assert timezone_changed(ctx, "U1", "Asia/Kolkata")
    assert ctx.store.get_person("U1").tz == "Asia/Kolkata"
    assert not timezone_changed(ctx, "U1", "Europe")  # a folder of zones, not a zone
    assert not timezone_changed(ctx, "U1", None)
    assert not timezone_changed(ctx, "", "Asia/Tokyo")
    assert ctx.store.get_person("U1").tz == "Asia/Kolkata"
    assert valid_timezone("UTC") == "UTC" and valid_timezone(None) is None


# -- feedback on a message -------------------------------------------------------------------------

@pytest.fixture
def shown(ctx):
    """A paper shown to U1 as message 1.0 in D1."""
    follow(ctx, "U1", "feline cats")
    rec = recommend(ctx, "U1", 1, remember=False)[0]
    ctx.store.mark_shown("U1", rec.paper.id, rec.reason, "D1", "1.0")
    return rec.paper


def test_rating_a_message_returns_its_paper_and_records_the_feedback(ctx, shown):
    paper = rate_message(ctx, "U1", "D1", "1.0", -1)
    assert paper is not None and (paper.id, paper.title) == (shown.id, shown.title)
    assert {f.paper_id: f.value for f in ctx.store.get_feedback("U1")} == {shown.id: -1}


def test_rating_someone_else_s_or_an_unknown_message_records_nothing(ctx, shown):
    assert rate_message(ctx, "U2", "D1", "1.0", 1) is None
    assert rate_message(ctx, "U1", "D1", "9.9", 1) is None
    assert ctx.store.get_feedback("U1") == [] and nothing_about(ctx, "U2")
    forget(ctx, "U1")
    assert rate_message(ctx, "U1", "D1", "1.0", 1) is None
    assert nothing_about(ctx, "U1")


# -- the remembered DM channel ---------------------------------------------------------------------

def test_a_dm_channel_is_remembered_for_known_people_only_and_dropped_when_refused(ctx):
    follow(ctx, "U1", "cats")
    remember_dm_channel(ctx, "U1", "D1")
    assert known_dm_channel(ctx, "U1") == "D1"
    remember_dm_channel(ctx, "U9", "D9")
    assert known_dm_channel(ctx, "U9") is None and nothing_about(ctx, "U9")
    drop_dm_channel(ctx, "D1")
    assert known_dm_channel(ctx, "U1") is None
