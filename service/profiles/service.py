"""The profiles' service, the one object the app holds for them
(``current_app.extensions["tongiaki.profiles"]``): names (P3–P5), deletion (P6–P9)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from projections.store import ReadModels
from service.identity.service import Identity
from service.play.games import GameService
from service.profiles.deletion import Deletion
from service.profiles.names import Names
from service.store.base import SqlStore


class Profiles:
    """Display names and deletions over one store."""

    def __init__(
        self,
        store: SqlStore,
        games: GameService,
        identity: Identity,
        readmodels: ReadModels,
        clock: Callable[[], datetime],
    ) -> None:
        self.names = Names(store, clock)
        self.deletion = Deletion(store, games, identity, readmodels, clock)

    def upgrade(self) -> None:
        """Create the profiles' table (idempotent)."""
        self.names.upgrade()
