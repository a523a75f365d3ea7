"""Background work that one process at a time does for every host sharing the database (a refit, the
embedding of new papers): a job lease by name (:data:`storage.leases.JOB`), decided by the database."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

from bot.state.owner import owner_alive
from storage.leases import JOB
from storage.moments import iso_utc

if TYPE_CHECKING:
    from storage import Store


def claim_job(store: Store, name: str, owner: str, lease: timedelta) -> bool:
    """Whether ``owner`` got job ``name`` for ``lease`` from now: nobody else is on it, or the process
    that is has gone (its lease is then taken over at once rather than waited out)."""
    now = datetime.now(UTC)
    job = store.get_job(name)
    running = job is not None and job.status == "running" and job.owner
    dead = {job.owner} if running and owner_alive(job.owner) is False else set()
    return store.take_lease(JOB, (name,), owner, iso_utc(now + lease), iso_utc(now), dead=dead,
                            fresh={"day": now.date().isoformat(), "started_at": iso_utc(now),
                                   "finished_at": None, "error": None}) is not None
