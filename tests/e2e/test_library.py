"""End to end: a library export (.bib) shared in paperbot's DM becomes the person's likes, through signed
events (Slack's ``message`` of subtype ``file_share`` and ``file_shared``, both for one share) against the
real bot and the Slack stand-in's ``files.info`` and download; once however often it comes; a file too big,
of another kind, or no export answered clearly; on both backends."""

from __future__ import annotations

import http.client
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from stand_ins.slack import BOT_USER_ID, DOWNLOAD
from tests.e2e.harness import BOT_TOKEN, FakeSlack, opened, posts_to, user_ids
from tests.e2e.oauth_flow import install, oauth_bot

new_user = user_ids("ULIB")
FIXTURES = Path(__file__).parents[1] / "bot" / "sources" / "fixtures" / "library"
LIBRARY = (FIXTURES / "library.bib").read_bytes()


@pytest.fixture(scope="module")
def extra_papers():
    return [{"id": "1706.03762", "title": "Attention Is All You Need", "authors": ["Ashish Vaswani"],
             "abstract": "Sequence transduction models with attention only, no recurrence at all."}]


def dm(user: str) -> str:
    return "D" + user


def share(slack, user: str, file: dict, channel: str | None = None) -> None:
    """Share ``file`` (the stand-in's files.info) as Slack tells of it: a message in the channel, then
    ``file_shared``."""
    channel = channel or dm(user)
    ts = f"{time.time():.6f}"
    message = {"type": "message", "subtype": "file_share", "channel": channel,
               "channel_type": "im" if channel.startswith("D") else "channel", "user": user, "text": "",
               "ts": ts, "files": [{"id": file["id"], "name": file["name"], "filetype": file["filetype"]}]}
    assert slack.event(message)[0] == 200
    shared = {"type": "file_shared", "channel_id": channel, "file_id": file["id"], "user_id": user,
              "file": {"id": file["id"]}, "event_ts": ts}
    assert slack.event(shared)[0] == 200


def settled(slack, standin, user: str) -> list[str]:
    """Every answer in the person's DM once the work before now is done: a typed `help` is answered after
    it (one person's work runs in order). The help's own answers (which name .bib files too) left out."""
    before = len(posts_to(standin, dm(user)))
    help_message = {"type": "message", "channel_type": "im", "user": user, "channel": dm(user),
                    "text": "help", "ts": f"{time.time():.6f}"}
    assert slack.event(help_message)[0] == 200
    standin.wait_for(lambda: any("/papers" in (p.params.get("text") or "")
                                 for p in posts_to(standin, dm(user))[before:]), what="the answer to help")
    texts = [p.params["text"] for p in posts_to(standin, dm(user))]
    return [t for t in texts if "/papers help TOPIC" not in t]


def answers(standin, user: str) -> list[str]:
    return [p.params["text"] for p in posts_to(standin, dm(user)) if "help" not in p.params["text"][:40]]


def test_a_shared_bibtex_library_is_read_once_into_likes_with_one_answer(slack, standin, store):
    user = new_user()
    file = standin.share_file(user, "My library.bib", LIBRARY)
    share(slack, user, file)
    [answer] = standin.wait_for(lambda: [t for t in answers(standin, user) if ":books:" in t],
                                what="the library's answer")
    assert "6 entries" in answer and "Matched: 1" in answer and "Added: 2" in answer
    assert "Liked: 3" in answer and "Skipped: 3" in answer
    assert "1 no title and no id" in answer and "1 a duplicate entry in the file" in answer
    assert "*My library.bib*" in answer
    liked = {f.paper_id for f in store.get_feedback(user) if f.value > 0}
    assert len(liked) == 3 and "arxiv:1706.03762" in liked
    assert store.find_paper_by_doi("10.1000/volc.42").id in liked
    [download] = standin.calls(DOWNLOAD)[-1:]
    assert download.token == BOT_TOKEN and download.status == 200
    assert store.library_import(user, file["id"]).status == "done"
    # Both events were carried out (the help after them is answered): one answer, one download.
    texts = settled(slack, standin, user)
    assert sum(":books:" in t for t in texts) == 1
    assert len([c for c in standin.calls(DOWNLOAD) if file["id"] in c.path]) == 1
    # The same file shared again: nothing twice.
    share(slack, user, file)
    texts = settled(slack, standin, user)
    assert sum(":books:" in t for t in texts) == 1 and len(store.get_feedback(user)) == 3


def test_a_file_too_big_of_another_kind_or_no_export_is_answered_clearly(slack, standin, store):
    user = new_user()
    big = standin.share_file(user, "huge.bib", b"@misc{a, title={x}}\n" * (6 * 1024 * 1024 // 20 + 10))
    share(slack, user, big)
    standin.wait_for(lambda: any("MB" in t for t in answers(standin, user)), what="the too-big answer")
    pdf = standin.share_file(user, "paper.pdf", b"%PDF-1.4 not a library")
    share(slack, user, pdf)
    standin.wait_for(lambda: any("paper.pdf" in t for t in answers(standin, user)), what="the pdf answer")
    # files.info says it is small; the download stops at 5 MB all the same.
    liar = standin.share_file(user, "liar.bib", b"%" * (6 * 1024 * 1024), size=1000)
    share(slack, user, liar)
    standin.wait_for(lambda: any("liar.bib" in t for t in answers(standin, user)), what="the capped answer")
    csv = standin.share_file(user, "numbers.csv", b"id,abstract\n1,some text\n")
    share(slack, user, csv)
    texts = settled(slack, standin, user)
    [too_big] = [t for t in texts if "huge.bib" in t]
    assert "6.0 MB" in too_big and "up to 5 MB" in too_big
    assert not [c for c in standin.calls(DOWNLOAD) if big["id"] in c.path]  # never downloaded
    [other_kind] = [t for t in texts if "paper.pdf" in t]
    assert "BibTeX file (.bib)" in other_kind and ".ris" in other_kind and "Zotero CSV" in other_kind
    [capped] = [t for t in texts if "liar.bib" in t]
    assert "up to 5 MB" in capped
    [not_export] = [t for t in texts if "numbers.csv" in t]
    assert "isn't a library export" in not_export and "Title column" in not_export
    assert store.get_feedback(user) == []
    assert {store.library_import(user, f["id"]).status for f in (big, pdf, liar, csv)} == {"refused"}


def test_the_download_takes_the_bot_token_and_a_failed_one_says_try_again(slack, standin, store):
    user = new_user()
    file = standin.share_file(user, "lib.bib", LIBRARY)
    url = urlsplit(file["url_private_download"])
    for token in ("xoxb-somebody-else", None):
        conn = http.client.HTTPConnection(url.hostname, url.port, timeout=10)
        conn.request("GET", url.path, headers={"Authorization": f"Bearer {token}"} if token else {})
        assert conn.getresponse().status == 403
        conn.close()
    standin.download_tokens = {"xoxb-not-the-bots"}
    try:
        share(slack, user, file)
        texts = settled(slack, standin, user)
    finally:
        standin.download_tokens = None
    [failed] = [t for t in texts if "lib.bib" in t]
    assert "couldn't download" in failed and "try sharing it again" in failed
    record = store.library_import(user, file["id"])
    assert record.status == "failed" and "403" in record.error  # shared again a minute later, it is read
    assert store.get_feedback(user) == []


def test_files_elsewhere_or_paperbots_own_are_left_alone(slack, standin, store):
    user = new_user()
    file = standin.share_file(user, "lib.bib", LIBRARY)
    share(slack, user, file, channel="C0GENERAL")
    own = standin.share_file(BOT_USER_ID, "papers.bib", LIBRARY)
    message = {"type": "message", "subtype": "file_share", "channel": dm(user), "channel_type": "im",
               "user": BOT_USER_ID, "bot_id": "B0PAPERBOT", "text": "", "ts": f"{time.time():.6f}",
               "files": [{"id": own["id"], "name": "papers.bib"}]}
    assert slack.event(message)[0] == 200
    assert slack.event({"type": "file_shared", "channel_id": dm(user), "file_id": own["id"],
                        "user_id": BOT_USER_ID, "file": {"id": own["id"]}, "event_ts": "1.1"})[0] == 200
    texts = settled(slack, standin, user)
    assert not [t for t in texts if ".bib" in t]
    assert store.library_import(user, file["id"]) is None
    assert store.library_import(BOT_USER_ID, own["id"]) is None
    assert not standin.calls("files.info", file=file["id"])
    assert not standin.calls("files.info", file=own["id"])


def test_with_oauth_the_file_is_downloaded_with_the_installations_own_token(standin, fresh_db):
    workspace = standin.add_workspace("T0LIBRARY", installer="ULIBADMIN")
    with oauth_bot(standin, fresh_db) as bot:
        install(bot, workspace)
        slack = FakeSlack(bot.url, standin)
        user = new_user()
        file = standin.share_file(user, "lib.bib", LIBRARY)
        ts = f"{time.time():.6f}"
        assert slack.event({"type": "file_shared", "channel_id": dm(user), "file_id": file["id"],
                            "user_id": user, "file": {"id": file["id"]}, "event_ts": ts},
                           team_id=workspace.team_id)[0] == 200
        [answer] = standin.wait_for(lambda: [t for t in answers(standin, user) if ":books:" in t],
                                    what="the library's answer")
    assert "Liked: 3" in answer
    [download] = [c for c in standin.calls(DOWNLOAD) if file["id"] in c.path]
    assert download.token == workspace.token and download.status == 200
    with opened(fresh_db, workspace.key) as store:
        assert len([f for f in store.get_feedback(user) if f.value > 0]) == 3
