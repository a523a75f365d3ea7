"""End to end: Save, the bookmark reaction, More like this, `/papers saved`, `/papers export [data]` and
`paperbot export`, through signed requests against the real bot and the Slack stand-in, on both backends."""

from __future__ import annotations

import json
import subprocess
import sys

import bibtexparser
import pytest
from bibtexparser.middlewares import LatexDecodingMiddleware

from bot.slack.manifest import METHOD_SCOPES, SCOPES
from bot.slack.views.marks import MARK_BLOCK
from bot.slack.views.messages import LIKE_ACTION, MORE_ACTION, SAVE_ACTION, title_of
from bot.text.tex import tex_to_text
from stand_ins.slack import RESPONSE_URL, UPLOAD
from tests.e2e.harness import TEAM_ID, posts_to, process_environment, query, table_counts, user_ids

new_user = user_ids("USAV")

#: Volcano papers, one from arXiv with LaTeX's special characters in its title, one with a DOI.
VOLCANOES = [
    {"id": "2401.00042", "title": "Magma & lava: 50% of $eruptions_1$ {explained}",
     "abstract": "Volcano magma eruptions lava craters ash plumes studied in depth.",
     "authors": ["Ann Smith", "Zoë Ñandú"], "published": "2024-01-10", "categories": ["physics.geo-ph"]},
    {"id": "doi:10.1000/volc.7", "title": "Volcanic ash plumes and craters", "url": "https://doi.org/10.1000/volc.7",
     "abstract": "Volcano ash plumes craters magma eruptions lava flows measured.", "authors": ["Smith, Ann"],
     "published": "2024-03-01"},
    *[{"id": f"volcano-{i}", "title": f"Lava flows and magma chambers ({i})", "url": f"https://example.org/v/{i}",
       "abstract": f"Volcano magma eruptions lava craters number {i} and ash plumes."} for i in range(6)],
]


@pytest.fixture(scope="module")
def extra_papers():
    return VOLCANOES


def dm(user: str) -> str:
    return "D" + user


def papers_for(slack, standin, store, user: str, n: int = 3, topic: str = "volcano magma eruptions lava"):
    """Follow ``topic`` and get ``n`` papers by `/papers recommend`; their (paper id, channel, ts), in
    the order posted."""
    slack.ask(user, f"follow {topic}")
    before = len(posts_to(standin, dm(user)))
    assert "I sent you" in slack.ask(user, f"recommend {n}").text
    posted = [p for p in posts_to(standin, dm(user))[before:] if p.params.get("blocks")]
    by_ts = {r["message_ts"]: r["paper_id"] for r in query(store, "select * from shown where user_id = ?",
                                                           [user])}
    return [(by_ts[p.response["ts"]], dm(user), p.response["ts"]) for p in posted]


def click(slack, standin, user, action, channel, ts) -> str:
    status, key = slack.click(user, action, channel, ts)
    assert status == 200
    return standin.wait_for(lambda: standin.responses(key), what=f"the answer to {action}")[0].params["text"]


def updates(standin, ts):
    return [c for c in standin.calls("chat.update", ts=ts) if c.status == 200]


def blocks_of(call) -> list[dict]:
    blocks = call.params["blocks"]
    return json.loads(blocks) if isinstance(blocks, str) else blocks


def mark_of(call) -> str | None:
    found = [b for b in blocks_of(call) if b.get("block_id") == MARK_BLOCK]
    return found[0]["elements"][0]["text"] if found else None


def test_the_save_button_saves_marks_the_message_and_a_second_click_unsaves(slack, standin, store):
    user = new_user()
    (paper, channel, ts), *_ = papers_for(slack, standin, store, user, 2)
    answer = click(slack, standin, user, SAVE_ACTION, channel, ts)
    assert answer.startswith(":bookmark: Saved") and "/papers saved" in answer
    assert [s.paper_id for s in store.saved_papers(user)] == [paper]
    assert store.get_feedback(user) == []  # a save is no like
    [update] = standin.wait_for(lambda: updates(standin, ts), what="chat.update")
    assert "Saved" in mark_of(update) and update.params["channel"] == channel
    assert any(e.get("action_id") == MORE_ACTION for b in blocks_of(update) for e in b.get("elements", [])
               if b["type"] == "actions")
    assert "Removed" in click(slack, standin, user, SAVE_ACTION, channel, ts)
    assert store.saved_papers(user) == [] and store.get_feedback(user) == []
    second = standin.wait_for(lambda: updates(standin, ts)[1:], what="the second chat.update")[0]
    assert mark_of(second) is None  # taken back: the line is gone


def test_the_bookmark_reaction_saves_and_removing_it_unsaves(slack, standin, store):
    user = new_user()
    (paper, channel, ts), *_ = papers_for(slack, standin, store, user, 1)
    assert slack.reaction(user, "bookmark", channel, ts) == 200
    standin.wait_for(lambda: store.saved_papers(user), what="the bookmark to save the paper")
    assert store.get_feedback(user) == []
    standin.wait_for(lambda: updates(standin, ts) and "Saved" in mark_of(updates(standin, ts)[-1]),
                     what="the message marked saved")
    assert slack.reaction(user, "bookmark", channel, ts, added=False) == 200
    standin.wait_for(lambda: not store.saved_papers(user), what="the bookmark's removal to unsave it")
    standin.wait_for(lambda: len(updates(standin, ts)) == 2, what="the mark taken off")
    assert mark_of(updates(standin, ts)[-1]) is None and store.get_feedback(user) == []


def test_a_like_marks_the_message_and_taking_it_back_clears_the_mark(slack, standin, store):
    user = new_user()
    (_, channel, ts), *_ = papers_for(slack, standin, store, user, 1)
    click(slack, standin, user, LIKE_ACTION, channel, ts)
    assert mark_of(standin.wait_for(lambda: updates(standin, ts))[0]) == ":+1: You liked this"
    slack.reaction(user, "+1", channel, ts, added=False)
    standin.wait_for(lambda: len(updates(standin, ts)) == 2, what="the mark taken off")
    assert mark_of(updates(standin, ts)[-1]) is None


def test_a_failed_update_is_logged_and_never_shown(slack, standin, store):
    user = new_user()
    (paper, channel, ts), *_ = papers_for(slack, standin, store, user, 1)
    standin.fail("chat.update", status=500, times=10)
    answer = click(slack, standin, user, SAVE_ACTION, channel, ts)
    assert answer.startswith(":bookmark: Saved") and store.saved_papers(user)[0].paper_id == paper


def test_saved_lists_newest_first_with_links_only_to_the_caller(slack, standin, store):
    user = new_user()
    posted = papers_for(slack, standin, store, user, 3)
    for _, channel, ts in posted:
        click(slack, standin, user, SAVE_ACTION, channel, ts)
    reply = slack.ask(user, "saved")
    assert reply.via == "respond" and reply.response_type == "ephemeral"
    listing = "\n".join(b["text"]["text"] for b in reply.blocks if b["type"] == "section")
    papers = store.get_papers([p for p, _, _ in posted])
    titles = [title_of(papers[p]) for p, _, _ in reversed(posted)]  # newest first, as shown
    where = [listing.index(t.replace("&", "&amp;")) for t in titles]
    assert where == sorted(where), listing
    assert all(f"<{papers[p].url}|" in listing for p, _, _ in posted if papers[p].url)
    assert "no saved papers yet" in slack.ask(new_user(), "saved").text


def test_export_uploads_a_bibtex_file_into_the_dm_that_parses(slack, standin, store):
    user = new_user()
    posted = papers_for(slack, standin, store, user, 4)
    for _, channel, ts in posted[:2]:
        click(slack, standin, user, SAVE_ACTION, channel, ts)
    click(slack, standin, user, LIKE_ACTION, posted[2][1], posted[2][2])
    reply = slack.ask(user, "export")
    assert "BibTeX file of your 3 papers" in reply.text and reply.response_type == "ephemeral"
    [upload] = standin.uploaded(dm(user))
    assert upload["filename"].endswith(".bib")
    for method in ("files.getUploadURLExternal", "files.completeUploadExternal"):
        assert [c for c in standin.calls(method) if c.status == 200], method
    library = bibtexparser.parse_string(upload["content"].decode("utf-8"),
                                        append_middleware=[LatexDecodingMiddleware()])
    assert not library.failed_blocks and len(library.entries) == 3
    assert len({e.key for e in library.entries}) == 3
    papers = store.get_papers([p for p, _, _ in posted[:3]])
    assert {e.fields_dict["title"].value for e in library.entries} == {tex_to_text(p.title)
                                                                      for p in papers.values()}
    arxiv = [e for e in library.entries if "eprint" in e.fields_dict]
    for entry in arxiv:
        assert entry.fields_dict["archivePrefix"].value == "arXiv"


def test_the_arxiv_paper_and_the_doi_paper_export_as_a_reference_manager_wants(slack, standin, store):
    user = new_user()
    posted = papers_for(slack, standin, store, user, 8)
    by_id = {p: (c, t) for p, c, t in posted}
    for paper in ("arxiv:2401.00042", "doi:10.1000/volc.7"):
        click(slack, standin, user, SAVE_ACTION, *by_id[paper])
    slack.ask(user, "export")
    upload = standin.wait_for(lambda: standin.uploaded(dm(user)))[-1]
    library = bibtexparser.parse_string(upload["content"].decode("utf-8"),
                                        append_middleware=[LatexDecodingMiddleware()])
    fields = {e.fields_dict["title"].value: {k: f.value for k, f in e.fields_dict.items()}
              for e in library.entries}
    arxiv = fields["Magma & lava: 50% of eruptions₁ explained"]  # its TeX as paper messages show it
    assert (arxiv["eprint"], arxiv["archivePrefix"], arxiv["primaryClass"]) == ("2401.00042", "arXiv",
                                                                                "physics.geo-ph")
    assert arxiv["author"] == "Ann Smith and Zoë Ñandú" and arxiv["year"] == "2024"
    assert fields["Volcanic ash plumes and craters"]["doi"] == "10.1000/volc.7"


def test_export_data_uploads_json_of_every_row_about_the_person(slack, standin, store):
    user = new_user()
    (_, channel, ts), *_ = papers_for(slack, standin, store, user, 2)
    click(slack, standin, user, SAVE_ACTION, channel, ts)
    reply = slack.ask(user, "export data")
    assert "JSON file of everything" in reply.text
    upload = standin.wait_for(lambda: standin.uploaded(dm(user)))[-1]
    assert upload["filename"].endswith(".json")
    data = json.loads(upload["content"])
    assert data["user_id"] == user and data["workspace"] == TEAM_ID
    counts = {t: len(rows) for t, rows in data["tables"].items()}
    assert counts == store.rows_about(user)
    assert counts["saved"] == 1 and counts["shown"] == 2 and counts["topics"] == 1


def test_wrong_arguments_say_what_to_type_and_write_nothing(slack, standin, db_path):
    user = new_user()
    counts = lambda: {t: n for t, n in table_counts(db_path).items() if t != "once_keys"}  # noqa: E731
    before = counts()
    wrong = (("export json", "takes nothing, or `data`"), ("saved 3", "takes nothing after it"))
    for text, expected in wrong:
        reply = slack.ask(user, text)
        assert reply.via == "ack" and expected in reply.text and "/papers help" in reply.text
    assert "no saved or liked papers" in slack.ask(user, "export").text
    assert "stores nothing about you" in slack.ask(user, "export data").text
    assert counts() == before and not standin.uploaded(dm(user))
    help_text = slack.ask(user, "help saved").text + slack.ask(user, "help buttons").text
    assert "/papers saved" in help_text and "/papers export" in help_text and ":bookmark:" in help_text


def test_more_like_this_posts_at_most_three_unseen_papers_in_the_thread(slack, standin, store):
    user = new_user()
    (paper, channel, ts), *_ = papers_for(slack, standin, store, user, 1)
    seen = {paper}
    answer = click(slack, standin, user, MORE_ACTION, channel, ts)
    thread = [c for c in posts_to(standin, channel) if c.params.get("thread_ts") == ts]
    assert 1 <= len(thread) <= 3 and "in the thread under it" in answer
    shown = {r["message_ts"]: r["paper_id"] for r in query(store, "select * from shown where user_id = ?",
                                                           [user])}
    new = [shown[c.response["ts"]] for c in thread]
    assert not set(new) & seen and all(p.startswith(("volcano-", "arxiv:", "doi:")) for p in new)
    # Again and again: never a paper already shown, until nothing new is left.
    for _ in range(6):
        seen |= set(new)
        answer = click(slack, standin, user, MORE_ACTION, channel, ts)
        thread_now = [c for c in posts_to(standin, channel) if c.params.get("thread_ts") == ts]
        fresh, thread = thread_now[len(thread):], thread_now
        shown = {r["message_ts"]: r["paper_id"] for r in query(store, "select * from shown where user_id = ?",
                                                               [user])}
        new = [shown[c.response["ts"]] for c in fresh]
        assert len(new) <= 3 and not set(new) & seen
        if not new:
            assert answer.startswith("Nothing new like")
            break
    else:
        pytest.fail("More like this never ran out")


def test_a_saved_paper_never_returns_in_recommend(slack, standin, store):
    user = new_user()
    (paper, channel, ts), *_ = papers_for(slack, standin, store, user, 1)
    click(slack, standin, user, SAVE_ACTION, channel, ts)
    later = papers_for(slack, standin, store, user, 8)
    assert paper not in {p for p, _, _ in later} and store.saved_paper_ids(user) == {paper}


def _cli(db_path, *args: str) -> subprocess.CompletedProcess:
    env = process_environment(db_path.parent, {"PAPERBOT_DB": str(db_path)})
    return subprocess.run([sys.executable, "-m", "bot.cli", "export", *args], cwd=db_path.parent, env=env,
                          capture_output=True, text=True, timeout=60)


def context_lines(call) -> str:
    return " ".join(e.get("text", "") for b in blocks_of(call) if b["type"] == "context"
                    for e in b["elements"])


def test_a_paper_saved_by_two_people_here_says_so_to_a_third_unless_the_workspace_turned_it_off(
        slack, standin, store):
    savers, reader, later = [new_user(), new_user()], new_user(), new_user()
    (paper, channel, ts), *_ = papers_for(slack, standin, store, savers[0], 1)
    click(slack, standin, savers[0], SAVE_ACTION, channel, ts)
    posted = papers_for(slack, standin, store, savers[1], len(VOLCANOES))
    [(_, channel, ts)] = [p for p in posted if p[0] == paper]
    click(slack, standin, savers[1], SAVE_ACTION, channel, ts)
    saved_here = query(store, "select count(*) as n from saved where ws = ? and paper_id = ?",
                       [TEAM_ID, paper])[0]["n"]
    assert saved_here >= 2

    def posted_with(user: str) -> dict[str, str]:
        slack.ask(user, "follow volcano magma eruptions lava")
        before = len(posts_to(standin, dm(user)))
        assert "I sent you" in slack.ask(user, f"recommend {len(VOLCANOES)}").text
        by_ts = {r["message_ts"]: r["paper_id"]
                 for r in query(store, "select * from shown where user_id = ?", [user])}
        return {by_ts[p.response["ts"]]: context_lines(p) for p in posts_to(standin, dm(user))[before:]
                if p.params.get("blocks")}

    lines = posted_with(reader)
    assert f"Saved by {saved_here} people here" in lines[paper], lines[paper]
    assert not [line for pid, line in lines.items() if pid != paper and "Saved by 1 " in line]  # never of one
    store.set_social_counts(False, "2026-07-15T08:00:00+00:00")  # `paperbot workspaces set TEAM social off`
    try:
        assert not [line for line in posted_with(later).values() if "Saved by" in line]
    finally:
        store.set_social_counts(True, "2026-07-15T08:00:00+00:00")


def test_paperbot_export_writes_the_file_from_the_command_line(slack, standin, store, db_path, tmp_path):
    user = new_user()
    posted = papers_for(slack, standin, store, user, 2)
    for _, channel, ts in posted:
        click(slack, standin, user, SAVE_ACTION, channel, ts)
    out = tmp_path / "papers.bib"
    done = _cli(db_path, "--user", user, "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert "Wrote 2 papers" in done.stderr
    library = bibtexparser.parse_string(out.read_text(encoding="utf-8"))
    assert not library.failed_blocks and len(library.entries) == 2
    printed = _cli(db_path, "--user", user, "--team", TEAM_ID, "--format", "json")
    assert printed.returncode == 0, printed.stderr
    assert json.loads(printed.stdout)["tables"]["saved"][0]["user_id"] == user
    unknown = _cli(db_path, "--user", "UNOBODY")
    assert unknown.returncode == 1 and "knows no person UNOBODY" in unknown.stderr
    assert "Traceback" not in unknown.stderr


def test_every_web_api_method_called_here_is_one_the_manifest_has_scopes_for(slack, standin, store):
    """A save (chat.update) and an export (the upload's calls) made here, with whatever the file's other
    tests called on the module's stand-in: each method needs a scope the manifest asks for."""
    user = new_user()
    (_, channel, ts), *_ = papers_for(slack, standin, store, user, 1)
    click(slack, standin, user, SAVE_ACTION, channel, ts)
    standin.wait_for(lambda: updates(standin, ts), what="chat.update")
    assert "BibTeX file" in slack.ask(user, "export").text
    methods = {c.method for c in standin.calls()} - {RESPONSE_URL, UPLOAD}
    assert {"chat.update", "files.getUploadURLExternal", "files.completeUploadExternal"} <= methods
    for method in methods:
        assert method in METHOD_SCOPES, method
        assert METHOD_SCOPES[method] is None or METHOD_SCOPES[method] in SCOPES
    assert "files:write" in SCOPES
