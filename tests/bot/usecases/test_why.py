"""`why` (bot/usecases/why.py): a paper named by a link, an id or title words, and what the digest's own
choosing makes of it for the person asking (Chooser.fate), on both backends. Each reason is pinned, and
the fate agrees with the digest chosen by the same code: a paper is "picked" exactly when the digest
holds it."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from bot.errors import Missing, NotAPaperName, PaperNotHeld
from bot.usecases import follow, record_feedback
from bot.usecases.alerts import add_alert
from bot.usecases.authors import add_author
from bot.usecases.digests.choose import choose_papers
from bot.usecases.mutes import mute
from bot.usecases.saved import save
from bot.usecases.why import find_paper, why
from storage import Paper
from tests.bot.usecases.conftest import refused

NOW = datetime(2026, 12, 7, 9, 0, tzinfo=UTC)
TODAY = NOW.date().isoformat()


def add(ctx, *papers):
    ctx.store.upsert_papers(list(papers))
    ctx.engine.refresh()


# -- finding the paper ----------------------------------------------------------------------------------

def test_a_paper_is_found_by_any_of_its_names(app):
    add(app, Paper(id="arxiv:2501.01234", arxiv_id="2501.01234", arxiv_version=2, title="Purring kittens",
                   abstract="Feline purring.", doi="10.48550/arxiv.2501.01234"),
        Paper(id="pmid:3141592", title="Whiskers in mice", abstract="Whiskers.", doi="10.1000/mice.1",
              url="https://pubmed.ncbi.nlm.nih.gov/3141592/"),
        Paper(id="openreview:AbC-12_x", title="Graph kittens", abstract="Graph kittens.",
              url="https://openreview.net/forum?id=AbC-12_x"),
        Paper(id="acl:2024.acl-long.7", title="Parsing purrs", abstract="Purrs.",
              url="https://aclanthology.org/2024.acl-long.7/"),
        Paper(id="doi:10.1101/2024.01.02.573001", doi="10.1101/2024.01.02.573001", title="Litter genomics",
              abstract="Litter.", url="https://www.biorxiv.org/content/10.1101/2024.01.02.573001v1"))
    names = {
        "arxiv:2501.01234": ["2501.01234", "2501.01234v1", "arXiv:2501.01234", "https://arxiv.org/abs/2501.01234v3",
                             "arxiv.org/pdf/2501.01234", "https://arxiv.org/html/2501.01234v2",
                             "<https://arxiv.org/abs/2501.01234|the paper>", "10.48550/arXiv.2501.01234"],
        "pmid:3141592": ["https://pubmed.ncbi.nlm.nih.gov/3141592/", "pmid:3141592", "https://doi.org/10.1000/MICE.1",
                         "doi:10.1000/mice.1"],
        "openreview:AbC-12_x": ["https://openreview.net/forum?id=AbC-12_x",
                                "https://openreview.net/pdf?id=AbC-12_x&noteId=zz"],
        "acl:2024.acl-long.7": ["https://aclanthology.org/2024.acl-long.7/",
                                "https://aclanthology.org/2024.acl-long.7.pdf"],
        "doi:10.1101/2024.01.02.573001": ["https://www.biorxiv.org/content/10.1101/2024.01.02.573001v2.full",
                                          "10.1101/2024.01.02.573001"],
        "cats-3": ["cats-3"],
    }
    for paper_id, said in names.items():
        for name in said:
            assert find_paper(app, name)[0].id == paper_id, name
    answer = why(app, "U1", "https://www.biorxiv.org/content/10.1101/2024.01.02.573001v1", now=NOW)
    assert answer.sources == ("biorxiv",) and answer.held_since.startswith(TODAY[:4])
    assert why(app, "U1", "2501.01234", now=NOW).sources == ("arxiv",)
    assert why(app, "U1", "pmid:3141592", now=NOW).sources == ("pubmed",)


def test_title_words_in_quotes_find_the_best_match_and_name_the_others(app):
    paper, also = find_paper(app, "“feline and cats”")  # Slack's curly quotes
    # Two titles hold the words ("On feline and cats (0)" and "(6)"): the best first, the other named.
    assert {paper.id, *(p.id for p in also)} == {"cats-0", "cats-6"}
    assert find_paper(app, '"feline and cats (6)"')[0].id == "cats-6"
    with refused(PaperNotHeld, "No paper I hold has a title with the words “zebra crossings”"):
        find_paper(app, '"zebra crossings"')


@pytest.mark.parametrize(("text", "error", "says"), [
    ("", Missing, "Say which paper"),
    ("   ", Missing, "Say which paper"),
    ("why not", NotAPaperName, "“why not” names no paper: `/papers why` takes a paper's link or id"),
    ("banana", NotAPaperName, "names no paper"),
    ("https://example.com/blog/post", NotAPaperName, "is no paper's page I can read"),
    ("2501.99999", PaperNotHeld, "I don't hold arXiv:2501.99999"),
    ("https://arxiv.org/abs/2501.99999v2", PaperNotHeld, "I don't hold arXiv:2501.99999"),
    ("https://doi.org/10.1000/nothing.here", PaperNotHeld, "no paper with the DOI 10.1000/nothing.here"),
    ("https://pubmed.ncbi.nlm.nih.gov/999/", PaperNotHeld, "PubMed id 999"),
    ("pmid:999", PaperNotHeld, "I hold no paper with the id pmid:999"),
])
def test_what_names_no_paper_held_is_refused_in_one_line(app, text, error, says):
    with refused(error, says) as caught:
        why(app, "U1", text, now=NOW)
    assert "\n" not in str(caught.value)


def test_nothing_is_fetched_for_a_paper_not_held(app, monkeypatch):
    import bot.usecases.lookup as lookup

    monkeypatch.setattr(lookup, "default_lookup", lambda: pytest.fail("fetched"))
    with pytest.raises(PaperNotHeld):
        why(app, "U1", "2502.00001", now=NOW)


# -- what kept it out, or when it came ------------------------------------------------------------------

def test_the_fate_agrees_with_the_digest_chosen_by_the_same_code(app):
    follow(app, "U1", "feline cats kittens whiskers")
    today = date.fromisoformat(TODAY)
    digest = [r.paper.id for r in choose_papers(app, "U1", today=today)]
    assert len(digest) == 3
    ranks = {}
    for i in range(8):
        fate = why(app, "U1", f"cats-{i}", now=NOW).fate
        assert (fate.kind == "picked") == (f"cats-{i}" in digest), (i, fate)
        assert fate.kind in ("picked", "below_cut", "too_similar") and fate.cut == 3 and fate.candidates >= 8
        ranks[f"cats-{i}"] = fate.rank
    assert sorted(ranks.values()) == list(range(1, 9))  # one ranking of the candidates, no ties
    below = [pid for pid in ranks if pid not in digest and ranks[pid] > 3]
    assert below and all(why(app, "U1", pid, now=NOW).fate.kind == "below_cut" for pid in below)


def test_a_paper_outside_the_feeds_is_no_candidate(app):
    follow(app, "U1", "feline cats kittens whiskers")
    answer = why(app, "U1", "quantum-2", now=NOW)
    assert answer.fate.kind == "outside" and answer.fate.rank is None
    assert answer.digest_on  # following a first topic schedules a digest
    app.store.set_digest_schedule("U1", "08:00", False)
    assert not why(app, "U1", "quantum-2", now=NOW).digest_on


def test_shown_saved_liked_disliked_and_muted_papers_say_which_rule(app):
    follow(app, "U1", "feline cats kittens whiskers")
    app.store.mark_shown("U1", "cats-1", "earlier")
    save(app, "U1", "cats-2")
    record_feedback(app, "U1", "cats-3", +1)
    record_feedback(app, "U1", "cats-4", -1)
    app.store.add_share("U1", "cats-5", "C1")
    add(app, Paper(id="cats-zebra", title="Feline cats and zebras", abstract="Kittens, zebras."))
    mute(app, "U1", "okapi, zebra")
    assert why(app, "U1", "cats-2", now=NOW).fate.kind == "saved"
    assert why(app, "U1", "cats-3", now=NOW).fate.kind == "liked"
    assert why(app, "U1", "cats-4", now=NOW).fate.kind == "disliked"
    assert why(app, "U1", "cats-5", now=NOW).fate.kind == "shared"
    muted = why(app, "U1", "cats-zebra", now=NOW).fate
    assert (muted.kind, muted.word) == ("muted", "zebra")
    shown = why(app, "U1", "cats-1", now=NOW)
    assert shown.fate.kind == "shown"
    assert shown.shown is not None and not shown.shown.in_digest
    assert shown.shown.on == datetime.now(UTC).date().isoformat()  # the store stamps it now


def test_someone_following_nothing_gets_no_papers(app):
    assert why(app, "U9", "cats-1", now=NOW).fate.kind == "no_interests"


def test_a_followed_authors_paper_comes_first_only_when_new(app):
    follow(app, "U1", "quantum circuits qubits")
    add_author(app, "U1", "Author cats 5")  # the corpus's papers have no date and a venue of no year
    old = why(app, "U1", "cats-5", now=NOW)
    assert old.followed_author == "Author cats 5" and old.fate.kind == "outside"
    add(app, Paper(id="cats-new", title="Fresh whiskers", abstract="Whiskers.", authors=["Author cats 5"],
                   published=TODAY))
    new = why(app, "U1", "cats-new", now=NOW)
    assert (new.fate.kind, new.fate.word, new.followed_author) == ("author", "Author cats 5", None)


def test_an_alerts_paper_comes_first(app):
    follow(app, "U1", "quantum circuits qubits")
    add_alert(app, "U1", "zebra finches")
    add(app, Paper(id="finch", title="Zebra finches sing", abstract="Songs.", published=TODAY))
    fate = why(app, "U1", "finch", now=NOW).fate
    assert (fate.kind, fate.word) == ("alert", "zebra finches")


def test_the_days_the_persons_digest_was_empty_or_failed_are_told(app):
    follow(app, "U1", "feline cats kittens whiskers")
    store = app.store
    store._sql.run("update papers set added_at = ? where id = ?", ["2026-12-05T06:00:00+00:00", "cats-7"])
    for day, status in (("2026-12-04", "failed"), ("2026-12-05", "empty"), ("2026-12-06", "failed"),
                        ("2026-12-07", "sent")):
        assert store.start_digest("U1", day, "me", f"{day}T10:00:00+00:00", f"{day}T08:00:00+00:00")
        assert store.finish_digest("U1", day, "me", status, f"{day}T08:01:00+00:00")
    answer = why(app, "U1", "cats-7", now=NOW)
    assert answer.held_since == "2026-12-05T06:00:00+00:00"
    # The 4th's came before the paper did; the 7th's was sent.
    assert [(d.local_date, d.status) for d in answer.quiet_days] == [("2026-12-05", "empty"),
                                                                    ("2026-12-06", "failed")]


def test_a_weekly_digest_takes_only_the_weeks_papers(app):
    follow(app, "U1", "feline cats kittens whiskers")
    add(app, Paper(id="cats-old", title="Feline whiskers of old", abstract="Feline cats kittens whiskers.",
                   published="2020-01-06"))
    assert why(app, "U1", "cats-old", now=NOW).fate.kind in ("picked", "below_cut", "too_similar")  # daily
    app.store.set_digest_weekday("U1", 0)
    fate = why(app, "U1", "cats-old", now=NOW).fate
    assert (fate.kind, fate.rank) == ("not_new", None)
