"""Command handling: load → authorise → decide → append → ring the doorbell.

One transaction per command: the command's events, the decisions it forced
(R25) and, when the game ends, ``DeckRevealed`` are appended together, with
the journal entry. The server stamps the time; the engine never sees a clock.
"""

from __future__ import annotations

import json
import secrets
import threading
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Protocol

from domain import ENGINE_VERSION, RULES_VERSION, position
from domain import commands as cmd
from domain.decide import apply
from domain.deck import ALGORITHM, FIXED, Deck, commitment, complete_order
from domain.errors import MalformedPayload, RuleViolation
from domain.events import Event
from domain.evolve import replay
from domain.forced import apply_forced
from domain.serialization import decode_command, decode_event, encode
from domain.state import GameState, Phase
from service.errors import BadRequest, Conflict, Forbidden, NotFound
from service.store.base import (
    GENESIS,
    Account,
    Appended,
    CommandRecord,
    ConcurrencyConflict,
    EventStore,
    JournalEntry,
    NewEvent,
    Snapshot,
    StoredEvent,
)

FOLD_VERSION = f"engine-{ENGINE_VERSION}/{position.FORMAT}"
LOBBY = (cmd.CreateGame, cmd.JoinGame)  # commands that draw no tile: no deck needed


class Doorbell(Protocol):
    """Told after every commit that a game has new events (projections issue)."""

    def ring(self, game_id: str) -> None:
        """Signal new events for ``game_id``."""
        ...


class SilentDoorbell:
    """No projections yet: nothing to wake."""

    def ring(self, game_id: str) -> None:
        """Do nothing."""


@dataclass(frozen=True)
class CommandResult:
    """What a client gets back: new version, the events, the receipt."""

    game_id: str
    version: int
    hash: str
    events: tuple[StoredEvent, ...]
    duplicate: bool = False
    # the game after the command, when this call appended it (not on a replayed id)
    state: GameState | None = field(default=None, compare=False, repr=False)


def iso(moment: datetime) -> str:
    """A server timestamp as ISO 8601 in UTC."""
    return moment.astimezone(UTC).isoformat()


def decode_events(stored: Sequence[StoredEvent]) -> list[Event]:
    """Domain events from stored rows."""
    return [decode_event(e.body()) for e in stored]


class GameService:
    """Runs commands against games kept in an ``EventStore``."""

    def __init__(
        self,
        store: EventStore,
        *,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        doorbell: Doorbell | None = None,
        testing: bool = False,
        snapshot_every: int = 100,
    ) -> None:
        self.store = store
        self.clock = clock
        self.doorbell = doorbell or SilentDoorbell()
        self.testing = testing
        self.snapshot_every = snapshot_every
        self._cache: dict[str, tuple[int, GameState]] = {}
        self._decks: dict[str, Deck] = {}
        self._accounts: dict[str, Account] = {}
        self._heads: dict[str, tuple[int, str]] = {}  # last version and hash seen per game
        self._lock = threading.Lock()
        # replay keyframes (the timeline projection), denser than snapshots
        self.keyframes: Callable[[str, int], tuple[int, str] | None] | None = None

    # --- loading ---------------------------------------------------------------

    def load(self, game_id: str, at: int | None = None) -> tuple[int, GameState]:
        """The game's version and state, now or ``at`` a version (snapshot + fold).

        The in-process cache is only a starting point: the events recorded since
        its version are always read and folded, so it is never stale.
        """
        with self._lock:
            cached = self._cache.get(game_id)
        if at is None and cached is not None:
            newer = self.store.read(game_id, after=cached[0])
            if not newer:
                return cached
            state = replay(decode_events(newer), cached[1])
            self._heads[game_id] = (newer[-1].version, newer[-1].hash)
            self._remember(game_id, newer[-1].version, state, cached[0])
            return newer[-1].version, state
        head = None
        if at is None:
            head = self.store.head(game_id)
            if head is None or head.version == 0:
                raise NotFound("unknown_game", f"there is no game {game_id!r}")
            target = head.version
        elif at < 1:
            raise self._bad_version(game_id)
        else:
            target = at  # a past version needs no head: the events read below prove it
        if cached is not None and cached[0] == target:
            return cached
        base_version, state = 0, GameState()
        if cached is not None and cached[0] < target:
            base_version, state = cached
        else:
            frame = self.keyframes(game_id, target) if self.keyframes is not None else None
            # a keyframe close by needs no snapshot lookup (keyframes are denser)
            close = frame is not None and target - frame[0] < self.snapshot_every // 4
            snap = None if close else self.store.get_snapshot(game_id, FOLD_VERSION, target)
            if frame is not None and (snap is None or frame[0] > snap.version):
                base_version, state = frame[0], position.load(json.loads(frame[1]))
            elif snap is not None:
                base_version, state = snap.version, position.load(json.loads(snap.state))
        events = self.store.read(game_id, after=base_version, limit=target - base_version)
        if len(events) < target - base_version:  # beyond the head, or no such game
            raise self._bad_version(game_id)
        state = replay(decode_events(events), state)
        if at is None:
            assert head is not None
            self._heads[game_id] = (head.version, head.hash)
            self._remember(game_id, target, state, base_version)
        return target, state

    def _bad_version(self, game_id: str) -> NotFound | BadRequest:
        """The error for a version the game does not have (or for no such game)."""
        head = self.store.head(game_id)
        if head is None or head.version == 0:
            return NotFound("unknown_game", f"there is no game {game_id!r}")
        return BadRequest("bad_version", f"versions of this game run from 1 to {head.version}")

    def authenticate(self, header: str | None) -> Account:
        """The account named by a bearer header (accounts never change: cached by token hash)."""
        from service.accounts import authenticate, token_hash

        if header and header.startswith("Bearer "):
            known = self._accounts.get(token_hash(header[len("Bearer ") :].strip()))
            if known is not None:
                return known
        account = authenticate(self.store, header)
        self._accounts[account.token_hash] = account
        return account

    def _remember(self, game_id: str, version: int, state: GameState, since: int) -> None:
        with self._lock:
            cached = self._cache.get(game_id)
            if cached is None or cached[0] < version:
                self._cache[game_id] = (version, state)
        if version // self.snapshot_every > since // self.snapshot_every:
            self.store.put_snapshot(Snapshot(game_id, version, FOLD_VERSION, position.text(state)))

    def deck(self, game_id: str, state: GameState) -> Deck:
        """The game's draw order, rebuilt from its secret (never leaves the server)."""
        deck = self._decks.get(game_id)
        if deck is None:
            seed = self.store.get_secret(game_id)
            if seed is None:
                raise NotFound("no_deck", f"game {game_id} has no deck secret")
            if state.deck_algorithm == FIXED:
                deck = Deck(FIXED, complete_order(json.loads(seed)))
            else:
                deck = Deck.from_seed(seed, game_id, [p.entropy for p in state.players])
            self._decks[game_id] = deck
        return deck

    # --- commands --------------------------------------------------------------

    def create_game(
        self, account: Account, options: cmd.GameOptions, tile_order: Sequence[str] | None = None
    ) -> CommandResult:
        """Open a game: draw and keep a secret seed, publish its commitment (Fair draws)."""
        game_id = uuid.uuid4().hex[:12]
        if tile_order is not None:
            if not self.testing:
                raise Forbidden("testing_only", "fixed tile orders exist only in testing mode")
            try:
                seed = json.dumps(list(complete_order(list(tile_order)))).encode()
            except ValueError as exc:
                raise BadRequest("bad_tile_order", str(exc)) from exc
            algorithm = FIXED
        else:
            seed, algorithm = secrets.token_bytes(32), ALGORITHM
        self.store.put_secret(game_id, seed)
        command = cmd.CreateGame(game_id, options, commitment(seed), algorithm)
        return self._run(game_id, account, command, None, None, state=(0, GameState()))

    def execute(
        self,
        game_id: str,
        account: Account,
        payload: Any,
        expected_version: int | None = None,
        command_id: str | None = None,
    ) -> CommandResult:
        """Run a command a client sent (a dict as in ``domain.serialization``)."""
        if command_id is not None:
            prior = self.store.outcome(game_id, command_id)
            if prior is not None:
                return self._replayed(prior)
        command_id = command_id or uuid.uuid4().hex
        try:
            command = decode_command(payload)
        except MalformedPayload as exc:
            version, _ = self.load(game_id)
            self._reject(
                game_id, account, command_id, payload, version, "malformed", None, str(exc)
            )
            raise BadRequest("malformed_command", str(exc)) from exc
        if type(command) not in (*cmd.PLAY_COMMANDS, cmd.JoinGame, cmd.StartGame):
            raise BadRequest(
                "not_a_player_command", f"{type(command).__name__} is not sent by players"
            )
        with self._lock:
            cached = self._cache.get(game_id)
        if cached is None:
            return self._run(
                game_id, account, command, expected_version, command_id, self.load(game_id)
            )
        # Optimistic: judge against the cached state without reading first. The
        # append checks version and hash, and any refusal is re-judged on a fresh
        # load before it is recorded, so a stale cache never decides anything.
        return self._run(
            game_id, account, command, expected_version, command_id, cached, verified=False
        )

    def join(
        self, game_id: str, account: Account, colours: Sequence[str], entropy: str
    ) -> CommandResult:
        """Take a seat (R1, R5)."""
        return self.execute(
            game_id, account, encode(cmd.JoinGame(account.account_id, tuple(colours), entropy))
        )

    def _authorise(self, account: Account, command: cmd.Command, state: GameState) -> None:
        if account.kind != "player":
            raise Forbidden("not_a_player", "auditor accounts cannot play")
        if isinstance(command, cmd.CreateGame):
            return
        if isinstance(command, cmd.JoinGame):
            if command.player_id != account.account_id:
                raise Forbidden("not_your_seat", "you can only take a seat for yourself")
            return
        seated = any(p.player_id == account.account_id for p in state.players)
        if not seated:
            raise Forbidden("not_seated", "you have no seat at this table")
        if isinstance(command, cmd.StartGame):
            return
        colour = state.active_colour
        if colour is None or state.owner(colour).player_id != account.account_id:
            waiting = f"it is {colour}'s turn" if colour else "no move is awaited"
            raise Forbidden("not_your_turn", f"not your turn: {waiting}")

    def _run(
        self,
        game_id: str,
        account: Account,
        command: cmd.Command,
        expected_version: int | None,
        command_id: str | None,
        state: tuple[int, GameState],
        *,
        verified: bool = True,
    ) -> CommandResult:
        """Judge, append, cache, ring. ``verified=False``: ``state`` came from the
        cache unchecked, so a refusal or a lost race is retried once on a fresh load."""

        def again() -> CommandResult:
            return self._run(
                game_id, account, command, expected_version, command_id, self.load(game_id)
            )

        version, current = state
        command_id = command_id or uuid.uuid4().hex
        payload = encode(command)
        try:
            self._authorise(account, command, current)
            if expected_version is not None and expected_version != version:
                raise Conflict(
                    "stale_version",
                    f"the game is at version {version}, not {expected_version}",
                    version=version,
                )
        except (Forbidden, Conflict) as exc:
            if not verified:
                return again()
            self._reject(game_id, account, command_id, payload, version, exc.code, None, exc.detail)
            raise
        deck = (
            None
            if isinstance(command, cmd.CreateGame | cmd.JoinGame)
            else self.deck(game_id, current)
        )
        try:
            events, after = apply(current, command, deck)
        except RuleViolation as v:
            if not verified:
                return again()
            self._reject(game_id, account, command_id, payload, version, v.code, v.rule, v.message)
            raise Conflict(v.code, v.message, rule=v.rule) from v
        forced, after = apply_forced(after, deck)
        events += forced
        if after.phase is Phase.ENDED and after.seed_hex is None and after.deck_commitment:
            seed = self.store.get_secret(game_id)
            assert seed is not None
            reveal, after = apply(after, cmd.RevealDeck(seed.hex()))
            events += reveal
        record = self._record(game_id, account, command_id, payload, expected_version)
        new = self._new_events(record, events)
        known = self._heads.get(game_id)
        prev_hash = known[1] if known is not None and known[0] == version else None
        if version == 0:
            prev_hash = GENESIS
        try:
            appended = self.store.append(record, version, new, after.phase.value, prev_hash)
        except ConcurrencyConflict as exc:
            if not verified:
                return again()
            raise Conflict(
                "stale_version", f"the game moved on to version {exc.actual}", version=exc.actual
            ) from exc
        if appended.duplicate:
            return self._from_appended(game_id, appended)
        self._heads[game_id] = (appended.version, appended.hash)
        self._remember(game_id, appended.version, after, version)
        self.doorbell.ring(game_id)
        return CommandResult(game_id, appended.version, appended.hash, appended.events, state=after)

    def _record(
        self,
        game_id: str,
        account: Account,
        command_id: str,
        payload: Any,
        expected_version: int | None,
    ) -> CommandRecord:
        actor = {"account": account.account_id, "name": account.name}
        payload_dict = payload if isinstance(payload, dict) else {"raw": payload}
        return CommandRecord(
            game_id, command_id, actor, iso(self.clock()), payload_dict, expected_version
        )

    def _new_events(self, record: CommandRecord, events: Sequence[Event]) -> list[NewEvent]:
        new = []
        for index, event in enumerate(events):
            body = encode(event)
            kind = body.pop("type")
            metadata = {
                "actor": record.actor,
                "command_id": record.command_id,
                "causation": record.command_id,
                "index": index,
                "recorded_at": record.received_at,
                "engine_version": ENGINE_VERSION,
                "rules_version": RULES_VERSION,
            }
            new.append(NewEvent(kind, body, metadata))
        return new

    def _reject(
        self,
        game_id: str,
        account: Account,
        command_id: str,
        payload: Any,
        version: int,
        code: str,
        rule: str | None,
        message: str,
    ) -> None:
        record = self._record(game_id, account, command_id, payload, None)
        rejection: dict[str, Any] = {"code": code, "message": message}
        if rule is not None:
            rejection["rule"] = rule
        self.store.reject(record, version, rejection)

    def _from_appended(self, game_id: str, appended: Appended) -> CommandResult:
        entry = appended.entry
        if entry is not None and entry.outcome == "rejected":
            return self._replayed(entry)
        return CommandResult(
            game_id, appended.version, appended.hash, appended.events, appended.duplicate
        )

    def _replayed(self, entry: JournalEntry) -> CommandResult:
        """The stored outcome of a command id seen before (idempotent retry)."""
        if entry.outcome == "rejected":
            rejection = entry.rejection or {}
            raise Conflict(
                str(rejection.get("code", "rejected")),
                str(rejection.get("message", "rejected earlier")),
                rule=rejection.get("rule"),
                replayed=True,
            )
        assert entry.first_version is not None and entry.last_version is not None
        events = self.store.read(
            entry.game_id,
            after=entry.first_version - 1,
            limit=entry.last_version - entry.first_version + 1,
        )
        last = events[-1]
        return CommandResult(entry.game_id, last.version, last.hash, tuple(events), True)
