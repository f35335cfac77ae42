"""An account deleting itself (docs/profiles.md, P6–P9).

Confirmed by the account itself (its session or token, and its current name typed
again: P6), and final. Its games stay, every event and the journal as recorded, so
every game still verifies (P9); its name becomes ``deleted player <4 hex digits>``
wherever a current name is shown (P7); its seats in games under way are resigned
(C6: the bot plays on for them); its credentials, sessions, passkeys, e-mail address,
sign-in links, private notes and notification settings are removed (P8).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime

from domain.state import GameState, Phase
from projections.store import ReadModels
from service.errors import BadRequest, Conflict, Forbidden, ServiceError
from service.identity.service import Identity
from service.play.games import GameService
from service.profiles.names import DELETED_PREFIX, Names
from service.store.base import DELETING, Account, SqlStore

MOST_GAMES = 1000  # games of an account looked at by one deletion (P6)
MOST_LAGGING = 100  # games whose read models a deletion brings level first
UNDER_WAY = (Phase.SETUP, Phase.PLAYING)


def anonymous_name(account_id: str) -> str:
    """The name a deleted account is shown with (P7)."""
    return f"{DELETED_PREFIX} {account_id[:4]}"


@dataclass(frozen=True)
class Deleted:
    """What a deletion did: the name now shown, the games whose seat it resigned."""

    account_id: str
    name: str
    resigned: list[str]


class Deletion:
    """Accounts deleting themselves, over one store and its services."""

    def __init__(
        self,
        store: SqlStore,
        games: GameService,
        identity: Identity,
        readmodels: ReadModels,
        clock: Callable[[], datetime],
    ) -> None:
        self.store = store
        self.games = games
        self.identity = identity
        self.readmodels = readmodels
        self.names = Names(store, clock)

    def delete(self, who: Account, confirm: str) -> Deleted:
        """Delete ``who`` for good once ``confirm`` is its current name (P6–P8)."""
        if who.kind not in ("player", DELETING):  # (DELETING: a deletion cut short)
            raise Forbidden("not_a_player", "only players' accounts delete themselves")
        mismatch = BadRequest(
            "confirmation_mismatch",
            "type the account's current name exactly to confirm its deletion",
            rule="P6",
        )
        if confirm != who.name:
            raise mismatch
        # first the account takes no more seats (a seat being taken now is waited for):
        # then every seat it has is in the store, to refuse for or to resign
        if who.kind == "player" and not self.store.change_kind(
            who.account_id, confirm, "player", DELETING
        ):
            raise mismatch  # renamed meanwhile (or deleted by another request)
        try:
            states = self._seated(who.account_id)
            self._deletable(states)
        except ServiceError:
            self.store.change_kind(who.account_id, confirm, DELETING, "player")
            raise
        gone = replace(who, kind="player", name=anonymous_name(who.account_id))
        resigned = [g for g, state in states if self._resign(g, state, gone)]
        self.store.forget_account(who.account_id, gone.name)
        self._forget_credentials(who)
        self.names.forget(who.account_id)
        return Deleted(who.account_id, gone.name, resigned)

    def _seated(self, account_id: str) -> list[tuple[str, GameState]]:
        """The account's games not over, as the store has them now: the read models
        brought level first (a game joined a moment ago may not be projected yet)."""
        for game_id in self.readmodels.behind()[:MOST_LAGGING]:
            # a read model failing on a game is counted by the engine and retried by the
            # sweeper; it must not stop a deletion
            with contextlib.suppress(Exception):
                self.readmodels.catch_up_game(game_id)
        found: list[str] = []
        for group in ("open", "running"):
            found += [
                g["game_id"]
                for g in self.readmodels.profile_games(account_id, group, MOST_GAMES, 0)
            ]
        return [(g, self.games.load(g)[1]) for g in sorted(found)]

    @staticmethod
    def _deletable(states: list[tuple[str, GameState]]) -> None:
        """409 while the account sits at a table not started yet, or in a game an
        auditor paused (P6): neither can be resigned now."""
        waiting = [g for g, s in states if s.phase is Phase.OPEN]
        if waiting:
            raise Conflict(
                "seated_at_open_table",
                "the account sits at a table not started yet: start it (or have it"
                " started), then delete the account",
                rule="P6",
                games=waiting,
            )
        paused = [g for g, s in states if s.phase in UNDER_WAY and s.paused is not None]
        if paused:
            raise Conflict(
                "game_paused",
                "an auditor paused a game of this account over a dispute: delete it once"
                " the dispute is ruled",
                rule="P6",
                games=paused,
            )

    def _resign(self, game_id: str, state: GameState, gone: Account) -> bool:
        """Resign the account's seat in a game under way (C6); whether it did."""
        if state.phase not in UNDER_WAY:
            return False
        seat = next(p.seat for p in state.players if p.player_id == gone.account_id)
        if seat in state.resigned:
            return False
        payload = {"type": "Resign", "player_id": gone.account_id}
        try:
            self.games.execute(game_id, gone, payload)
        except ServiceError as exc:
            if exc.code in ("already_resigned", "game_not_running"):
                return False  # the game ended or the seat resigned meanwhile
            raise
        return True

    def _forget_credentials(self, who: Account) -> None:
        """Every way in revoked (live streams end), then removed with what the account
        kept here: passkeys, address, links, notes, notification settings, language (P8)."""
        self.identity.sessions.disable(who, by="self")
        account_id = who.account_id
        with self.store.transaction() as tx:
            for table in (
                "identity_credentials",
                "identity_links",
                "identity_challenges",
                "player_notes",
                "notify_settings",
                "notify_digests",
                "notify_deliveries",
                "account_languages",
            ):
                tx.execute(f"DELETE FROM {table} WHERE account_id = %s", (account_id,))
