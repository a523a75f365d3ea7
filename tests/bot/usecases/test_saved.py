"""The reading list, More like this and the exports as use cases, on both backends (``any_store``)."""

from __future__ import annotations

import json

import bibtexparser
import pytest

from bot.errors import BadArgument, NotFound
from bot.usecases import follow, recommend, record_feedback, withdraw_feedback
from bot.usecases.export import bibtex_export, data_export, export_papers, person_context
from bot.usecases.interests import interests
from bot.usecases.saved import (
    Marks,
    marks,
    paper_message,
    save,
    saved_on_message,
    saved_page,
    saved_papers,
    toggle_saved_on_message,
    unsave,
)
from bot.usecases.similar import more_like_this, similar_papers
from storage import Paper
from tests.bot.usecases.conftest import refused
from tests.storage.conftest import any_store, backend, pg_database, pg_url, store_target  # noqa: F401

WS = "T1"



def likes(ctx, user):
    return {f.paper_id: f.value for f in ctx.store.get_feedback(user)}


def show(ctx, user, paper_id, ts):
    ctx.store.ensure_person(user)
    ctx.store.mark_shown(user, paper_id, "Matches your interest “cats”", "D1", ts)


def test_a_save_is_no_like_and_unsaving_takes_only_the_save(app):
    assert save(app, "U1", "cats-1") and not save(app, "U1", "cats-1")
    assert likes(app, "U1") == {} and marks(app, "U1", "cats-1") == Marks(saved=True)
    assert unsave(app, "U1", "cats-1") and not unsave(app, "U1", "cats-1")
    assert likes(app, "U1") == {} and app.store.saved_paper_ids("U1") == set()
    # Liked before the save, or while saved: the like stays after unsaving.
    record_feedback(app, "U1", "cats-2", 1)
    save(app, "U1", "cats-2")
    save(app, "U1", "cats-3")
    record_feedback(app, "U1", "cats-3", 1)
    unsave(app, "U1", "cats-2")
    unsave(app, "U1", "cats-3")
    assert likes(app, "U1") == {"cats-2": 1, "cats-3": 1}
    with pytest.raises(NotFound):
        save(app, "U1", "no-such-paper")


def test_a_disliked_paper_may_be_saved_and_stays_disliked(app):
    show(app, "U1", "cats-1", "1.1")
    record_feedback(app, "U1", "cats-1", -1)
    assert toggle_saved_on_message(app, "U1", "D1", "1.1").saved  # 👎 then Save
    assert likes(app, "U1") == {"cats-1": -1}
    assert marks(app, "U1", "cats-1") == Marks(disliked=True, saved=True)
    info = interests(app, "U1")
    assert (info.liked, info.disliked, info.saved) == (0, 1, 1)  # not "1 liked, 0 disliked"
    assert not toggle_saved_on_message(app, "U1", "D1", "1.1").saved
    assert likes(app, "U1") == {"cats-1": -1}  # unsaving leaves the dislike too
    # The bookmark reaction, and taking it back, the same.
    saved_on_message(app, "U1", "D1", "1.1")
    saved_on_message(app, "U1", "D1", "1.1", saving=False)
    assert likes(app, "U1") == {"cats-1": -1}


def test_the_save_button_toggles_and_only_on_the_person_s_own_paper_message(app):
    show(app, "U1", "cats-1", "1.1")
    toggled = toggle_saved_on_message(app, "U1", "D1", "1.1")
    assert toggled.saved and toggled.paper.id == "cats-1"
    assert marks(app, "U1", "cats-1") == Marks(saved=True)
    assert not toggle_saved_on_message(app, "U1", "D1", "1.1").saved
    assert marks(app, "U1", "cats-1") == marks(app, "U1", "cats-2")  # nothing left
    assert toggle_saved_on_message(app, "U2", "D1", "1.1") is None  # not theirs
    assert toggle_saved_on_message(app, "U1", "D1", "9.9") is None  # no paper message
    assert app.store.saved_papers("U2") == []


def test_the_bookmark_reaction_saves_and_its_removal_unsaves(app):
    show(app, "U1", "cats-1", "1.1")
    assert saved_on_message(app, "U1", "D1", "1.1") == "cats-1"
    assert saved_on_message(app, "U1", "D1", "1.1") == "cats-1"  # twice: still one save
    assert [i.paper.id for i in saved_papers(app, "U1")] == ["cats-1"]
    assert saved_on_message(app, "U1", "D1", "1.1", saving=False) == "cats-1"
    assert saved_papers(app, "U1") == [] and likes(app, "U1") == {}


def test_a_page_of_the_reading_list_is_its_newest_papers_and_the_whole_count(app):
    for pid in ["cats-1", "graphs-2", "robots-3"]:
        save(app, "U1", pid)
    page = saved_page(app, "U1", 2)
    assert [i.paper.id for i in page.items] == ["robots-3", "graphs-2"] and page.total == 3
    assert saved_page(app, "U1", 10).items == saved_papers(app, "U1")
    assert saved_page(app, "U2", 5).items == [] and saved_page(app, "U2", 5).total == 0


def test_saved_papers_come_newest_first_and_a_paper_message_shows_its_marks(app):
    for i, pid in enumerate(["cats-1", "graphs-2", "robots-3"]):
        show(app, "U1", pid, f"1.{i}")
        saved_on_message(app, "U1", "D1", f"1.{i}")
    assert [i.paper.id for i in saved_papers(app, "U1")] == ["robots-3", "graphs-2", "cats-1"]
    found = paper_message(app, "U1", "D1", "1.0")
    assert found.rec.paper.id == "cats-1" and found.rec.reason == "Matches your interest “cats”"
    assert found.marks.saved
    withdraw_feedback(app, "U1", "cats-1")
    show(app, "U1", "cats-5", "2.0")
    record_feedback(app, "U1", "cats-5", -1)
    assert paper_message(app, "U1", "D1", "2.0").marks.disliked
    assert paper_message(app, "U1", "D1", "7.7") is None


def test_a_saved_paper_never_comes_back_in_recommend(app):
    follow(app, "U1", "feline cats whiskers")
    best = recommend(app, "U1", 3, remember=False)
    saved_id = best[0].paper.id
    save(app, "U1", saved_id)
    again = [r.paper.id for r in recommend(app, "U1", 8, remember=False)]
    assert saved_id not in again and len(again) == 7  # every other cat paper still comes


def test_more_like_this_posts_up_to_three_unseen_similar_papers_and_remembers_them(app):
    show(app, "U1", "robots-0", "1.1")
    app.store.mark_shown("U1", "robots-1", "", "D1", "1.2")
    save(app, "U1", "robots-2")
    posted = []

    def post(rec):
        posted.append(rec.paper.id)
        return "D1", f"3.{len(posted)}"

    result = more_like_this(app, "U1", "D1", "1.1", post)
    assert result.paper.id == "robots-0" and len(result.delivery.delivered) == 3
    assert all(pid.startswith("robots-") for pid in posted)
    assert not {"robots-0", "robots-1", "robots-2"} & set(posted)
    assert set(posted) <= app.store.shown_paper_ids("U1")
    assert app.store.paper_for_message("D1", "3.1") == ("U1", posted[0])  # a paper message of its own
    assert all("robots-0" not in r.reason and "which you asked for more of" in r.reason
               for r in result.delivery.delivered)
    assert more_like_this(app, "U2", "D1", "1.1", post) is None  # not theirs


def test_more_like_this_names_the_paper_as_its_message_shows_it(app):
    app.store.upsert_papers([Paper(id="tex-1", title=r"Robot grasping with $\Omega(\sqrt{T})$ regret",
                                   abstract="Robot grasping manipulation robots grippers.")])
    app.engine.refresh()
    recs = similar_papers(app, "U1", "tex-1")
    assert recs and all("“Robot grasping with Ω(√T) regret”" in r.reason for r in recs)


def test_more_like_this_runs_out_and_then_finds_nothing_new(app):
    show(app, "U1", "quantum-0", "1.1")
    seen = set()
    for _ in range(20):
        found = similar_papers(app, "U1", "quantum-0")
        if not found:
            break
        assert not {r.paper.id for r in found} & seen and len(found) <= 3
        for rec in found:
            seen.add(rec.paper.id)
            app.store.mark_shown("U1", rec.paper.id)
    assert similar_papers(app, "U1", "quantum-0") == [] and len(seen) >= 7


def test_the_bibtex_export_holds_saved_then_liked_papers_and_parses(app):
    save(app, "U1", "cats-1")
    save(app, "U1", "graphs-1")
    record_feedback(app, "U1", "robots-1", 1)
    record_feedback(app, "U1", "quantum-1", -1)  # a dislike is no part of it
    assert [p.id for p in export_papers(app, "U1")] == ["graphs-1", "cats-1", "robots-1"]
    file = bibtex_export(app, "U1")
    assert file.filename.endswith(".bib") and file.count == 3
    library = bibtexparser.parse_string(file.content)
    assert not library.failed_blocks and len({e.key for e in library.entries}) == 3
    with pytest.raises(NotFound):
        bibtex_export(app, "U2")


def test_the_data_export_holds_every_row_about_the_person_and_no_one_else_s(app):
    follow(app, "U1", "feline cats")
    save(app, "U1", "cats-1")
    show(app, "U1", "cats-2", "1.1")
    follow(app, "U2", "robots")
    file = data_export(app, "U1")
    data = json.loads(file.content)
    assert data["user_id"] == "U1" and data["workspace"] == WS
    assert set(data["tables"]) >= {"people", "topics", "feedback", "shown", "saved"}
    assert sum(len(rows) for rows in data["tables"].values()) == file.count == sum(
        app.store.rows_about("U1").values())
    assert [r["paper_id"] for r in data["tables"]["saved"]] == ["cats-1"]
    assert set(data["papers"]) == {"cats-1", "cats-2"}
    assert "U2" not in file.content and "robots" not in json.dumps(data["tables"])
    with pytest.raises(NotFound):
        data_export(app, "U9")


def test_the_data_export_holds_the_rows_naming_the_person_and_forget_takes_their_name_from_them(app):
    from bot.usecases.channel_subjects import set_trending
    from bot.usecases.forget import forget, stored_about

    app.store.save_installation(WS, None, WS, "U1", False, "sealed tokens", "2026-07-01T00:00:00+00:00")
    set_trending(app, "C1", "U1", True)  # U1 sets up a channel's trending post: nothing else about them
    data = json.loads(data_export(app, "U1").content)
    assert [(r["channel_id"], r["set_by"]) for r in data["tables"]["channels"]] == [("C1", "U1")]
    assert [(r["ws"], r["installer_id"]) for r in data["tables"]["installations"]] == [(WS, "U1")]
    assert "sealed tokens" not in json.dumps(data)
    assert stored_about(app, "U1").named == 2 and not stored_about(app, "U1").nothing
    assert forget(app, "U1") >= 2
    assert stored_about(app, "U1").nothing
    with pytest.raises(NotFound):
        data_export(app, "U1")
    assert app.store.get_channel("C1").trending and app.store.get_channel("C1").set_by is None
    assert app.store.find_installation(WS) == "sealed tokens"


def test_the_person_s_workspace_is_found_or_must_be_named(app):
    root = app.for_workspace("")
    follow(app, "U1", "cats")
    assert person_context(root, "U1").workspace == WS
    follow(app.for_workspace("T2"), "U1", "robots")
    with refused(BadArgument, "--team"):
        person_context(root, "U1")
    assert person_context(root, "U1", "T2").workspace == "T2"
    with pytest.raises(NotFound):
        person_context(root, "U1", "T3")
    with pytest.raises(NotFound):
        person_context(root, "U9")


def test_a_message_says_how_many_saved_a_paper_only_from_two_people_and_not_once_turned_off(app):
    from bot.usecases.recommend import Recommendation
    from bot.usecases.social import set_social_counts, with_saved_counts

    def said(paper_ids=("cats-1", "cats-2", "cats-3")) -> dict[str, int]:
        recs = [Recommendation(app.store.get_paper(p), 0.5, "") for p in paper_ids]
        return {r.paper.id: r.saved_by for r in with_saved_counts(app, recs)}

    for user in ("U1", "U2", "U3"):
        save(app, user, "cats-1")
    save(app, "U1", "cats-2")  # one person's save: saying so would all but name them
    assert said() == {"cats-1": 3, "cats-2": 0, "cats-3": 0}
    save(app, "U4", "cats-2")
    assert said() == {"cats-1": 3, "cats-2": 2, "cats-3": 0}
    show(app, "U9", "cats-2", "9.1")
    assert paper_message(app, "U9", "D1", "9.1").rec.saved_by == 2  # a message made again says it too
    set_social_counts(app, False)
    assert said() == dict.fromkeys(("cats-1", "cats-2", "cats-3"), 0)
    assert paper_message(app, "U9", "D1", "9.1").rec.saved_by == 0
    set_social_counts(app, True)
    unsave(app, "U4", "cats-2")
    assert said() == {"cats-1": 3, "cats-2": 0, "cats-3": 0}
