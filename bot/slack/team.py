"""Which workspace something belongs to: the key every person-level row is stored under."""

from __future__ import annotations


def workspace_key(*, team_id: object, enterprise_id: object, is_enterprise_install: object = False) -> str:
    """The workspace of a request, a token or an installation: the org for an org-wide (Enterprise
    Grid) install, whose people are the org's, else the team (the org when no team is named; "" when
    neither is known)."""
    ids = [i for i in ((enterprise_id,) if is_enterprise_install is True else ()) + (team_id, enterprise_id)
           if isinstance(i, str) and i]
    return ids[0] if ids else ""
