"""What every use case is handed: the store, the live index and the few settings they need."""

from __future__ import annotations

from dataclasses import dataclass, field

from bot.engine import Colleagues, Engine
from bot.errors import ConfigError
from storage import Store, is_postgres_url


@dataclass
class Context:
    """The application's state for one process: pass it to the use cases in :mod:`bot.usecases`."""

    store: Store
    engine: Engine
    digest_size: int = 5
    colleagues: Colleagues = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.colleagues = Colleagues(self.store)

    @classmethod
    def open(cls, db_path: str, digest_size: int = 5, background_refit: bool = False) -> Context:
        """Open (creating and migrating as needed) the database at ``db_path``."""
        if is_postgres_url(db_path):
            # The PostgreSQL store exists (storage.postgres) but the bot's claims are not yet safe on it.
            raise ConfigError("PostgreSQL is not supported for this command yet: PAPERBOT_DB (or --db) "
                              "must be a SQLite file; `paperbot db copy --to URL` can already fill a "
                              "PostgreSQL database")
        store = Store(db_path)
        return cls(store, Engine(store, background_refit=background_refit), digest_size)
