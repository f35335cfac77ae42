"""Private tables as the service keeps them (docs/invitations.md): a private table is
unlisted (I1) and seats only its opener, its invited accounts (I2) and holders of its
link (I3, I4); an invitee may decline, and a declined invitation seats nobody (I5);
invitees list their invitations (I6) and the table's players see the answers (I7)."""

from __future__ import annotations

import hmac
import secrets
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from domain import commands as cmd
from domain.errors import RuleViolation
from domain.setup import validate_options
from domain.state import GameState, Phase
from service.errors import Conflict, Forbidden, NotFound
from service.invitations.schema import INVITATIONS_SCHEMA, TABLES
from service.invitations.table import DECLINED, Invitation, InvitationTable, PrivateTable
from service.play.accounts import players_named
from service.play.games import GameService
from service.play.receipts import CommandResult, game_id_for
from service.store.base import Account, SqlStore
from service.timing.clocks import stamp

MOST_LISTED = 100  # invitations GET /me/invitations answers with
MAX_NAME = 64  # characters of one invitee entry (an account id or a name)


@dataclass(frozen=True)
class Opened:
    """A private table just opened: the game's answer, the table, its invitations."""

    result: CommandResult
    table: PrivateTable
    invitations: list[Invitation]


def invitation_path(table: PrivateTable) -> str | None:
    """The invitation link's path (the lobby page seats its holder), or None (I3)."""
    if table.token is None:
        return None
    return f"/?game={table.game_id}&invitation={table.token}"


class Invitations:
    """Private tables and invitations, the one object the app holds for them."""

    def __init__(self, store: SqlStore, games: GameService) -> None:
        self.store = store
        self.games = games
        self.table = InvitationTable(store)

    def upgrade(self) -> None:
        """Create the invitations' tables (idempotent)."""
        self.store.ensure_tables(TABLES, "invitations_schema", INVITATIONS_SCHEMA)

    def invitees(self, who: Account, entries: Sequence[str], seats: int) -> list[str]:
        """The accounts named by ``entries`` (an account id, or a player's exact name
        that names one account), refused as a whole if one is wrong (I2)."""
        if len(entries) > seats - 1:
            raise Conflict(
                "too_many_invitees",
                f"a table of {seats} seats takes at most {seats - 1} invitees besides you",
                rule="I2",
            )
        found: list[str] = []
        for entry in entries:
            account_id = self._account_of(entry.strip())
            if account_id == who.account_id:
                raise Conflict("self_invitation", "you cannot invite yourself", rule="I2")
            if account_id in found:
                raise Conflict("duplicate_invitee", f"{entry!r} is invited twice", rule="I2")
            found.append(account_id)
        return found

    def _account_of(self, entry: str) -> str:
        """The player's account an entry names (I2)."""
        if not entry or len(entry) > MAX_NAME:
            raise _unknown(entry)
        exact = players_named(self.store, entry)
        if len(exact) > 1:
            raise Conflict(
                "ambiguous_invitee",
                f"{len(exact)} players are named {entry!r}: invite by account id",
                rule="I2",
            )
        if not exact:
            raise _unknown(entry)
        return exact[0]

    def open(
        self,
        who: Account,
        options: cmd.GameOptions,
        entries: Sequence[str],
        link: bool,
        *,
        tile_order: Sequence[str] | None = None,
        idempotency_key: str | None = None,
    ) -> Opened:
        """Open a private table (I1) for ``entries`` (I2) and/or with a link (I3).

        The table's row is written before its game, under the game's id (derived from the
        account and the Idempotency-Key, one of our own if none was sent): a table never
        exists without its row, and a retry finds the table it opened."""
        if who.kind != "player":
            raise Forbidden("not_a_player", "auditor accounts cannot open games")
        if tile_order is not None and not self.games.testing:  # refused before the row
            raise Forbidden("testing_only", "fixed tile orders exist only in testing mode")
        options = replace(options, private=True)
        try:
            validate_options(options)
        except RuleViolation as v:
            raise Conflict(v.code, v.message, rule=v.rule) from v
        invitees = self.invitees(who, entries, options.max_players)
        if not invitees and not link:
            raise Conflict(
                "nobody_invited",
                "a private table seats only its invitees and its link's holders:"
                " invite someone or ask for a link",
                rule="I2",
            )
        key = idempotency_key or f"private-table:{uuid.uuid4().hex}"
        game_id = game_id_for(who, key)
        token = secrets.token_urlsafe(24) if link else None
        now = stamp(self.games.clock())
        self.table.record(PrivateTable(game_id, who.account_id, token, now), invitees)
        result = self.games.create_game(who, options, tile_order, key)
        table = self.table.table(game_id)
        assert table is not None
        return Opened(result, table, self.table.invitations(game_id))

    def keep_private(self, game_id: str, opener: str) -> None:
        """Keep a game about to be opened as a private table without invitations or link
        (a private table's rematch: its seats are all taken at once, RM4)."""
        now = stamp(self.games.clock())
        self.table.record(PrivateTable(game_id, opener, None, now), [])

    def admit_seat(self, game_id: str, who: Account, token: str | None) -> None:
        """Whether ``who`` may take a seat at the game: any at a public one; at a private
        one its opener, an invited account that did not decline, a link's holder (I4)."""
        _, state = self.games.load(game_id)
        if not state.options.private:
            return
        table = self.table.table(game_id)
        if table is not None and table.opener == who.account_id:
            return
        invitation = self.table.invitation(game_id, who.account_id)
        if invitation is not None and invitation.status == DECLINED:
            raise Forbidden(
                "invitation_declined",
                "you declined this table's invitation: it seats you no more",
                rule="I5",
            )
        if invitation is not None:
            return
        if token is not None:
            kept = table.token if table is not None else None
            if kept and hmac.compare_digest(token.encode(), kept.encode()):
                return
            raise Forbidden("bad_invitation", "this is not this table's invitation link", rule="I3")
        raise Forbidden(
            "not_invited",
            "this table is private: its seats are for invited players and its link's holders",
            rule="I4",
        )

    def seated(self, game_id: str, who: Account) -> None:
        """After a seat was taken at a private table: a decline written meanwhile is
        taken back, the account being seated (I5; ``decline`` looks the other way)."""
        found = self.table.invitation(game_id, who.account_id)
        if found is not None and found.status == DECLINED:
            self.table.undecline(game_id, who.account_id)

    def decline(self, who: Account, game_id: str) -> Invitation:
        """Decline the caller's invitation to a table (I5)."""
        _, state = self.games.load(game_id)
        found = self.table.invitation(game_id, who.account_id)
        if found is None:
            raise NotFound("no_invitation", "you are not invited to this table", rule="I5")
        if _sits(state, who):
            raise _already_seated()
        if not self.table.decline(game_id, who.account_id, stamp(self.games.clock())):
            raise Conflict("already_declined", "you declined this invitation already", rule="I5")
        # a seat taken meanwhile (the link, another tab) wins: written, then looked for,
        # as ``seated`` looks for the decline once the seat is written (one outcome)
        if _sits(self.games.load(game_id)[1], who):
            self.table.undecline(game_id, who.account_id)
            raise _already_seated()
        declined = self.table.invitation(game_id, who.account_id)
        assert declined is not None
        return declined

    def of_table(self, who: Account, game_id: str) -> tuple[PrivateTable, list[Invitation]]:
        """A private table and its invitations, for its opener and players (I7)."""
        _, state = self.games.load(game_id)
        table = self.table.table(game_id)
        if table is None:
            raise NotFound("not_private", "this game is no private table", rule="I7")
        seated = {p.player_id for p in state.players}
        if who.account_id != table.opener and who.account_id not in seated:
            raise Forbidden(
                "not_at_table", "a table's invitations are for its opener and players", rule="I7"
            )
        return table, self.table.invitations(game_id)

    def mine(self, who: Account) -> list[dict[str, Any]]:
        """The caller's standing invitations to tables still open with a seat left, where
        the caller has none (I6)."""
        listed = []
        for invitation in self.table.of_account(who.account_id, MOST_LISTED):
            _, state = self.games.load(invitation.game_id)
            if state.phase is not Phase.OPEN:
                continue
            if any(p.player_id == who.account_id for p in state.players):
                continue
            if len(state.players) >= state.options.max_players:  # full: nothing to join
                continue
            table = self.table.table(invitation.game_id)
            listed.append(
                {
                    "game_id": invitation.game_id,
                    "opener": table.opener if table else None,
                    "invited_at": invitation.invited_at,
                    "seats": len(state.players),
                    "max_players": state.options.max_players,
                    "two_colours_each": state.options.two_colours_each,
                    "taken": sorted(c for p in state.players for c in p.colours),
                }
            )
        return listed


def _unknown(entry: str) -> Conflict:
    return Conflict("unknown_account", f"no player's account is named {entry!r}", rule="I2")


def _sits(state: GameState, who: Account) -> bool:
    return any(p.player_id == who.account_id for p in state.players)


def _already_seated() -> Conflict:
    return Conflict("already_seated", "you sit at this table: leave no seat", rule="I5")
