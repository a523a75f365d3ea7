""""Who should read this?" as a use case, on both backends: the colleague the paper fits is picked, with
a reason in their terms; never the asker, anyone who met the paper, anyone with suggestions off; Send
sends once and writes no feedback."""

from __future__ import annotations

import json

import pytest

from bot.usecases import follow, record_feedback
from bot.usecases.export import data_export
from bot.usecases.mutes import mute
from bot.usecases.settings import set_suggest
from bot.usecases.suggestions import SUGGESTED, send_suggestion, who_should_read
from tests.bot.usecases.conftest import app  # noqa: F401
from tests.storage.conftest import any_store, backend, pg_database, pg_url, store_target  # noqa: F401


def _person(ctx, user, topics, suggest=True):
    follow(ctx, user, topics)
    set_suggest(ctx, user, suggest)


@pytest.fixture
def team(app):  # noqa: F811
    _person(app, "UASK", "diffusion models")  # the asker fits the paper too: never suggested
    _person(app, "UCATS", "feline cats")
    _person(app, "UDIFF", "denoising diffusion")
    _person(app, "UDIFF2", "score matching generative")
    _person(app, "UOFF", "diffusion models denoising", suggest=False)
    return app


def test_the_paper_goes_to_the_colleagues_it_fits_with_their_reasons(team):
    paper = team.store.get_paper("diffusion-2")
    answer = who_should_read(team, "UASK", paper)
    users = [c.user_id for c in answer.colleagues]
    assert set(users) == {"UDIFF", "UDIFF2"} and answer.nobody is None  # never UCATS: it fits nothing
    assert all(c.score > 0 and c.reason for c in answer.colleagues)
    reasons = {c.user_id: c.reason for c in answer.colleagues}
    assert "denoising" in reasons["UDIFF"].lower() or "diffusion" in reasons["UDIFF"].lower()
    assert "score" in reasons["UDIFF2"].lower() or "generative" in reasons["UDIFF2"].lower()
    assert [c.user_id for c in who_should_read(team, "UASK", paper, most=1).colleagues] == users[:1]


def test_never_someone_who_met_the_paper_or_muted_its_words(team):
    paper = team.store.get_paper("diffusion-2")
    team.store.mark_shown("UDIFF", paper.id)
    team.store.save_paper("UDIFF2", paper.id)
    set_suggest(team, "UCATS", False)
    assert who_should_read(team, "UASK", paper).nobody == "all_have_it"
    _person(team, "UDISLIKED", "denoising diffusion")
    record_feedback(team, "UDISLIKED", paper.id, -1)
    _person(team, "UMUTED", "denoising diffusion")
    mute(team, "UMUTED", "denoising")
    assert who_should_read(team, "UASK", paper).colleagues == []


def test_nobody_opted_in_and_nobody_it_fits_are_told_apart(app):  # noqa: F811
    paper = app.store.get_paper("quantum-1")
    _person(app, "UASK", "quantum circuits")
    assert who_should_read(app, "UASK", paper).nobody == "nobody_opted_in"
    _person(app, "UCATS", "feline cats")
    assert who_should_read(app, "UASK", paper).nobody == "no_fit"
    assert [c.user_id for c in who_should_read(app, "UCATS", paper).colleagues] == ["UASK"]


def test_send_sends_once_records_it_shown_and_writes_no_feedback(team):
    paper = team.store.get_paper("diffusion-2")
    posted = []

    def post(rec):
        posted.append(rec)
        return "DUDIFF", f"17000000{len(posted)}.000100"

    sent = send_suggestion(team, "UASK", "UDIFF", paper, "Matches your interest “denoising”", post)
    assert sent.status == "sent" and len(posted) == 1
    assert posted[0].reason.startswith(SUGGESTED) and "denoising" in posted[0].reason
    assert paper.id in team.store.shown_paper_ids("UDIFF")
    assert team.store.get_feedback("UDIFF") == [] and team.store.saved_paper_ids("UDIFF") == set()
    assert team.store.suggested_by("UDIFF", paper.id) == "UASK"
    assert send_suggestion(team, "UASK", "UDIFF", paper, "", post).status == "already"
    assert send_suggestion(team, "UDIFF2", "UDIFF", paper, "", post).status == "already"  # anyone's
    assert len(posted) == 1
    assert "UDIFF" not in [c.user_id for c in who_should_read(team, "UASK", paper).colleagues]
    set_suggest(team, "UDIFF2", False)
    assert send_suggestion(team, "UASK", "UDIFF2", paper, "", post).status == "closed"
    assert len(posted) == 1


def test_a_send_slack_refused_is_not_recorded_and_may_be_tried_again(team):
    paper = team.store.get_paper("diffusion-2")

    def refused(rec):
        raise RuntimeError("Slack said no")

    with pytest.raises(RuntimeError):
        send_suggestion(team, "UASK", "UDIFF", paper, "", refused)
    assert team.store.suggested_by("UDIFF", paper.id) is None
    assert paper.id not in team.store.shown_paper_ids("UDIFF")
    assert send_suggestion(team, "UASK", "UDIFF", paper, "", lambda rec: ("D", "1.0")).status == "sent"


def test_a_send_slack_never_answered_may_have_landed_so_it_is_kept_and_never_sent_again(team):
    from bot.errors import Outage

    paper = team.store.get_paper("diffusion-2")

    def timed_out(rec):
        raise Outage("no answer from Slack (TimeoutError)", maybe_delivered=True)

    def down(rec):
        raise Outage("can't reach Slack")

    with pytest.raises(Outage):  # never reached Slack: nothing kept
        send_suggestion(team, "UASK", "UDIFF", paper, "", down)
    assert team.store.suggested_by("UDIFF", paper.id) is None
    assert send_suggestion(team, "UASK", "UDIFF", paper, "", timed_out).status == "unconfirmed"
    assert team.store.suggested_by("UDIFF", paper.id) == "UASK"
    assert paper.id in team.store.shown_paper_ids("UDIFF") and team.store.get_feedback("UDIFF") == []
    assert send_suggestion(team, "UOTHER", "UDIFF", paper, "", lambda rec: ("D", "1.0")).status == "already"


def test_export_data_holds_the_suggestions_either_side(team):
    paper = team.store.get_paper("diffusion-2")
    send_suggestion(team, "UASK", "UDIFF", paper, "", lambda rec: ("DUDIFF", "1.000100"))
    for user in ("UASK", "UDIFF"):
        document = json.loads(data_export(team, user).content)
        [row] = document["tables"]["suggestions"]
        assert (row["user_id"], row["by_user"], row["paper_id"]) == ("UDIFF", "UASK", paper.id)
        assert paper.id in document["papers"]
