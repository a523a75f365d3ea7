"""What paperbot answers in the DM to a library export shared there (issue 27, "Bring your library")."""

from __future__ import annotations

from bot.slack.views.messages import fit
from bot.sources.library_exports import ACCEPTED
from bot.usecases.library import DISLIKED, MAX_BYTES, NOT_STORED, REASONS, LibraryReport

#: What a library export shared in paperbot's DM does (`/papers help team`).
HELP = ("*Bring your library:* share a `.bib`, `.ris` or Zotero CSV export (up to 5 MB) in our DM: "
        "each entry is matched to a paper I hold (by DOI, arXiv id or title) or stored as a new one, "
        "and counts as a paper you like; I answer with how many were read, matched, added and "
        "skipped.")
#: How long a file's name may read in an answer (names are the person's own text: escaped and cut).
NAME_LIMIT = 80
#: How a skipped entry's reason reads, where the reader's own words don't do.
SKIPPED = {DISLIKED: "you had marked it 👎", NOT_STORED: "no title, and paperbot doesn't have it"}
HELP = " Type `help` for everything I understand."
#: Home's line about it (:mod:`bot.slack.views.home_view`).
HOME_LINE = ("*Bring your library:* drop a `.bib`, `.ris` or Zotero CSV export (up to 5 MB) in our DM: each "
             "paper in it becomes a :+1: of yours (new ones are added), so your first digest already knows "
             "what you read.")


def _name(name: str) -> str:
    return f"*{fit(name or 'that file', NAME_LIMIT)}*"


def _plural(n: int, one: str, many: str | None = None) -> str:
    return f"{n:,} {one if n == 1 else (many or one + 's')}"


def imported(name: str, report: LibraryReport) -> str:
    """The counts of an import: entries read, matched, added, liked, and skipped by reason."""
    lines = [f":books: I read your library {_name(name)}: {_plural(report.read, 'entry', 'entries')}.",
             f"• Matched: {report.matched:,} (papers I already had)",
             f"• Added: {report.added:,} (new papers)",
             f"• Liked: {report.liked:,} (now your 👍, which shape your recommendations)"]
    skipped = sum(report.skipped.values())
    if skipped:
        reasons = "; ".join(f"{report.skipped[r]:,} {SKIPPED.get(r, r)}"
                            for r in REASONS if report.skipped.get(r))
        lines.append(f"• Skipped: {skipped:,} ({reasons})")
    lines.append("Type `recommend` to see papers like them.")
    return "\n".join(lines)


def too_big(name: str, size: int) -> str:
    """A file over :data:`MAX_BYTES`: not downloaded."""
    return (f"{_name(name)} is {size / 1024 / 1024:.1f} MB: I read library exports of up to "
            f"{MAX_BYTES // 1024 // 1024} MB. Export a smaller collection (or split it) and share that.")


def wrong_kind(name: str) -> str:
    """A file of another kind (a PDF, an image…)."""
    return f"I can't read {_name(name)} as a library. To bring your library, share {ACCEPTED}.{HELP}"


def not_a_library(name: str, why: str) -> str:
    """A file of an accepted kind that holds no library export."""
    return f"{_name(name)} isn't a library export I can read: {fit(why, 200)}. Share {ACCEPTED}.{HELP}"


def not_downloaded(name: str) -> str:
    """Slack didn't hand the file over (or not in time)."""
    return (f"I couldn't download {_name(name)} from Slack just now. "
            "Please try sharing it again in a minute.")


def not_saved(name: str) -> str:
    """The database failed part-way: the file may be shared again."""
    return (f"Sorry, I couldn't save your library {_name(name)} just now (a problem with my database). "
            "Please try sharing it again in a minute: what was saved stays, nothing is counted twice.")
