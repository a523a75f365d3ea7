"""Whose an id is: a subject (who follows papers and gets digests) is a person or a channel. A leaf, so the
digest pipeline can tell one from the other without importing :mod:`bot.usecases.channel_subjects`
(which sets a channel's schedule through the pipeline)."""

from __future__ import annotations

#: How a Slack conversation id starts for a channel paperbot can post a channel digest in: public
#: ("C") or private ("G", older private channels and group DMs). "D" is a direct message; people are
#: "U" or "W", so a subject id never starts so by chance.
CHANNEL_PREFIXES = ("C", "G")


def is_channel(subject_id: str | None) -> bool:
    """Whether a subject (or a conversation) id is a channel's, not a person's or a DM's."""
    return bool(subject_id) and subject_id.startswith(CHANNEL_PREFIXES)
