"""The message metadata paperbot's paper messages carry, so that a digest taken over after a crash can see
what went out, and a click or reaction can name the paper of a message the store can't place."""

#: A digest's header; one paper's message (payload: ``paper_id``); a compact digest, its header and
#: papers in one message (payload: ``paper_ids``, in order).
HEADER_EVENT = "paperbot_digest_header"
PAPER_EVENT = "paperbot_digest_paper"
COMPACT_EVENT = "paperbot_digest_compact"
