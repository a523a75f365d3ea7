"""A digest's progress marks that are one owner-checked update on either backend: the papers chosen
for it and its header message, each optionally renewing the owner's lease in the same statement.

:class:`DigestMarks` is mixed into both stores; statements use qmark placeholders and run through each
store's ``_digest_update``, which is one statement, atomic alone (callers need no transaction).
"""

from __future__ import annotations

import json


class DigestMarks:
    """Owner-checked updates of one digest row (see the module)."""

    def _digest_update(self, user_id: str, local_date: str, owner: str, assignments: str,
                       args: list) -> bool:  # pragma: no cover - each store's own
        raise NotImplementedError

    def set_digest_papers(self, user_id: str, local_date: str, owner: str, papers: list[str],
                          reasons: dict[str, str], lease_until: str | None = None) -> bool:
        args = [json.dumps(papers), json.dumps(reasons, ensure_ascii=False)]
        if lease_until is None:
            return self._digest_update(user_id, local_date, owner, "papers = ?, reasons = ?", args)
        return self._digest_update(user_id, local_date, owner, "papers = ?, reasons = ?, lease_until = ?",
                                   [*args, lease_until])

    def record_digest_header(self, user_id: str, local_date: str, owner: str, message_ts: str,
                             lease_until: str | None = None) -> bool:
        if lease_until is None:
            return self._digest_update(user_id, local_date, owner, "header_ts = ?", [message_ts])
        return self._digest_update(user_id, local_date, owner, "header_ts = ?, lease_until = ?",
                                   [message_ts, lease_until])
