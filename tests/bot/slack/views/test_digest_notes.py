"""A digest's note is data in the row and words at the edge: every kind reads back as stored, and says
something of its own."""

from __future__ import annotations

from bot.slack.views.digest_notes import note_text
from bot.usecases.digest_vocabulary import Note

NOTES = [Note("left_to_helpers"), Note("stopping"), Note("requests_unfinished"), Note("no_papers"),
         Note("database_away", detail="the database is away"), Note("crashed", detail="KeyError: 'x'"),
         Note("unreachable", detail="user_not_found"), Note("waiting_for_slack"),
         Note("slack_unavailable", detail="ratelimited", retry_at="2026-07-15T10:32:00.000000Z"),
         Note("slack_until_day_end", detail="ratelimited"), Note("undelivered_yet", 2),
         Note("undelivered", 1, cause=Note("slack_until_day_end", detail="timeout")), Note("none_posted", 3),
         Note("gave_up", 3, cause=Note("crashed", detail="RuntimeError: invalid_blocks")),
         Note("day_ended", cause=Note("slack_unavailable", detail="timeout")), Note("day_ended")]


def test_every_note_reads_back_as_it_was_stored_and_each_says_something_of_its_own():
    assert [Note.read(note.stored()) for note in NOTES] == NOTES
    texts = [note_text(note) for note in NOTES]
    assert len(set(texts)) == len(texts) and all(texts)
    assert note_text(NOTES[8]) == "Slack unavailable (ratelimited); next try at 10:32 UTC"
    assert note_text(NOTES[11]) == ("1 paper not delivered: Slack was unavailable until the day ended "
                                    "(timeout)")
    assert note_text(NOTES[13]) == "gave up after 3 tries: RuntimeError: invalid_blocks"


def test_a_row_written_before_notes_were_data_reads_as_its_own_text():
    assert Note.read("Slack unavailable (timeout); next try at 10:00 UTC") == Note(
        "text", detail="Slack unavailable (timeout); next try at 10:00 UTC")
    assert note_text(Note.read("{not json")) == "{not json"
    assert Note.read(None) is None and Note.read("") is None

