"""Why a digest ended as it did, or what it waits for, in a few plain words (the caller escapes them):
the words for :class:`~bot.usecases.digest_vocabulary.Note`, shared by `paperbot digest`'s table, the
admin channel's daily post and `/papers digest now`."""

from __future__ import annotations

from bot.usecases.digest_vocabulary import Note


def _papers(n: int | None) -> str:
    return "1 paper" if n == 1 else f"{n or 0} papers"


def note_text(note: Note) -> str:
    """What ``note`` says."""
    detail = note.detail or "no reason given"
    cause = f" ({note_text(note.cause)})" if note.cause is not None else ""
    match note.why:
        case "left_to_helpers":
            return "left to the digest helper processes"
        case "stopping":
            return "stopping"
        case "requests_unfinished":
            return "their requests are still being carried out"
        case "no_papers":
            return "there are no papers yet: an admin needs to run `paperbot ingest`"
        case "database_away" | "crashed" | "unreachable" | "text":
            return detail
        case "waiting_for_slack":
            return "waiting for Slack"
        case "slack_unavailable":
            at = f"; next try at {note.retry_at[11:16]} UTC" if note.retry_at else ""
            return f"Slack unavailable ({detail}){at}"
        case "slack_until_day_end":
            return f"Slack was unavailable until the day ended ({detail})"
        case "undelivered_yet":
            return f"{_papers(note.count)} not delivered yet"
        case "undelivered":
            why = f": {note_text(note.cause)}" if note.cause else ""
            return f"{_papers(note.count)} not delivered{why}"
        case "none_posted":
            return f"none of its {_papers(note.count)} could be posted"
        case "gave_up":
            return f"gave up after {note.count} tries" + (f": {note_text(note.cause)}" if note.cause else "")
        case "day_ended":
            return "the day ended before it could be sent" + (cause or " (no run finished it in time)")
    return note.why
