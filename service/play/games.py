"""Command handling: load → authorise → decide → append → ring the doorbell.

One transaction per command: the command's events, the decisions it forced
(R25) and, when the game ends, ``DeckRevealed`` are appended together, with
the journal entry. The server stamps the time; the engine never sees a clock.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import random
import secrets
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any, Protocol

from domain import ENGINE_VERSION, RULES_VERSION, position
from domain import commands as cmd
from domain.bots import GreedyBot
from domain.deck import ALGORITHM, FIXED, Deck, commitment, complete_order
from domain.errors import DeckUnavailable, MalformedPayload, RuleViolation
from domain.events import Event
from domain.fold import replay
from domain.play import STARTED, deck_of, entropies, play
from domain.serialization import decode_command, decode_event, encode
from domain.setup import validate_options
from domain.state import GameState
from service.errors import KINDS, BadRequest, Conflict, Forbidden, NotFound, ServiceError, kind_of
from service.runtime import counters as metrics
from service.runtime.cache import Bounded
from service.store.base import (
    GENESIS,
    Account,
    CommandRecord,
    ConcurrencyConflict,
    DisputeAppend,
    EventStore,
    JournalEntry,
    NewEvent,
    Snapshot,
    StoredEvent,
    canonical,
)
from service.timing.clocks import Clock, advance, parse_time, pending_seat

FOLD_VERSION = position.FOLD_VERSION
STATES = 512  # games whose latest fold a process keeps
ACCOUNTS = 4096  # accounts a process keeps by token hash
DECKS = 1024  # derived draw orders a process keeps
SECRETS = 4096  # deck seeds a process keeps (rows that never change)
CLOCKS = 1024  # clocks recorded at a game's version that a process keeps (never change)
RACES = 5  # appends a command may lose to other commands before it is answered 409
BOT = "greedy"  # the bot that plays timed-out, absent and resigned seats (docs/clocks.md)


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


def redeal_key(game_id: str, deal: int) -> str:
    """Where the seed of a game's re-deal number ``deal`` (D6) is kept among the secrets:
    ``<game>~<n>`` (no game id holds a ``~``)."""
    return f"{game_id}~{deal}"


def iso(moment: datetime) -> str:
    """A server timestamp as ISO 8601 in UTC."""
    return moment.astimezone(UTC).isoformat()


def decode_events(stored: Sequence[StoredEvent]) -> list[Event]:
    """Domain events from stored rows."""
    return [decode_event(e.body()) for e in stored]


class GameService:
    """Runs commands against games kept in an ``EventStore``.

    Every cache here is bounded and keyed by what its values were derived from:
    a game's fold by its version and head hash (and always topped up with the
    events recorded since), an account by its token hash, a deck by the seed,
    game id, algorithm and entropy it was derived from, a seed by its game (the
    secrets row never changes). Verification (``service.audit.verify``) reads none.
    """

    def __init__(
        self,
        store: EventStore,
        *,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        doorbell: Doorbell | None = None,
        testing: bool = False,
        snapshot_every: int = 100,
        keyframes: Callable[[str, int], tuple[int, str] | None] | None = None,
    ) -> None:
        self.store = store
        self.clock = clock
        self.doorbell = doorbell or SilentDoorbell()
        self.testing = testing
        self.snapshot_every = snapshot_every
        self._states: Bounded[str, tuple[int, str, GameState]] = Bounded(STATES)
        self._accounts: Bounded[str, Account] = Bounded(ACCOUNTS)
        self._decks: Bounded[tuple[Any, ...], Deck] = Bounded(DECKS)
        self._secrets: Bounded[str, bytes] = Bounded(SECRETS)
        self._clocks: Bounded[tuple[str, int], tuple[Clock | None]] = Bounded(CLOCKS)
        # replay keyframes (the timeline projection), denser than snapshots
        self.keyframes = keyframes

    # --- loading ---------------------------------------------------------------

    def load(self, game_id: str, at: int | None = None) -> tuple[int, GameState]:
        """The game's version and state, now or ``at`` a version (snapshot + fold).

        The in-process cache is only a starting point: the events recorded since
        its version are always read and folded, so it is never stale.
        """
        cached = self._states.get(game_id)
        if at is None and cached is not None:
            newer = self.store.read(game_id, after=cached[0])
            if not newer:
                return cached[0], cached[2]
            if newer[0].prev_hash == cached[1]:
                state = replay(decode_events(newer), cached[2])
                self._remember(game_id, newer[-1].version, newer[-1].hash, state, cached[0])
                return newer[-1].version, state
            self._states.pop(game_id)  # not the history it was folded from: load afresh
            cached = None
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
            return cached[0], cached[2]
        base_version, state = 0, GameState()
        if cached is not None and cached[0] < target:
            base_version, state = cached[0], cached[2]  # events never change: a fine start
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
        if head is not None:
            self._remember(game_id, target, head.hash, state, base_version)
        return target, state

    def _bad_version(self, game_id: str) -> NotFound | BadRequest:
        """The error for a version the game does not have (or for no such game)."""
        head = self.store.head(game_id)
        if head is None or head.version == 0:
            return NotFound("unknown_game", f"there is no game {game_id!r}")
        return BadRequest("bad_version", f"versions of this game run from 1 to {head.version}")

    def authenticate(self, header: str | None) -> Account:
        """The account named by a bearer header (accounts never change: cached by token hash)."""
        from service.play.accounts import authenticate, token_hash

        if header and header.startswith("Bearer "):
            known = self._accounts.get(token_hash(header[len("Bearer ") :].strip()))
            if known is not None:
                return known
        account = authenticate(self.store, header)
        self._accounts.put(account.token_hash, account)
        return account

    def _remember(
        self, game_id: str, version: int, head_hash: str, state: GameState, since: int
    ) -> None:
        cached = self._states.get(game_id)
        if cached is None or cached[0] < version:
            self._states.put(game_id, (version, head_hash, state))
        if version // self.snapshot_every > since // self.snapshot_every:
            self.store.put_snapshot(Snapshot(game_id, version, FOLD_VERSION, position.text(state)))

    def clock_at(self, game_id: str, version: int, state: GameState) -> Clock | None:
        """The clock recorded with ``version`` of a timed game (the last event of a
        transaction, as every head is; docs/clocks.md). Events never change, so it is
        cached by game and version."""
        if state.options.time_control == "none" or version < 1:
            return None
        known = self._clocks.get((game_id, version))
        if known is not None:
            return known[0]
        events = self.store.read(game_id, after=version - 1, limit=1)
        data = events[0].meta().get("clock") if events else None
        clock = Clock.from_data(data) if isinstance(data, dict) else None
        self._clocks.put((game_id, version), (clock,))
        return clock

    def secret(self, game_id: str) -> bytes:
        """The game's deck seed (kept server-side until ``DeckRevealed``)."""
        seed = self._secrets.get(game_id)
        if seed is None:
            seed = self.store.get_secret(game_id)
            if seed is None:
                raise NotFound("no_deck", f"game {game_id} has no deck secret on this server")
            self._secrets.put(game_id, seed)
        return seed

    def deck(self, state: GameState, seed: bytes) -> Deck:
        """``domain.play.deck_of``, cached by everything it reads (never before the start)."""
        if state.phase not in STARTED:
            return deck_of(state, seed)  # raises: the entropy is not final yet
        key = (
            state.deck_algorithm,
            state.deck_commitment,
            seed,
            state.game_id,
            entropies(state),
            state.deals,
            state.drawn[: state.dealt],
        )
        deck = self._decks.get(key)
        if deck is None:
            deck = deck_of(state, seed)
            self._decks.put(key, deck)
        return deck

    # --- commands --------------------------------------------------------------

    def create_game(
        self,
        account: Account,
        options: cmd.GameOptions,
        tile_order: Sequence[str] | None = None,
        idempotency_key: str | None = None,
    ) -> CommandResult:
        """Open a game: draw and keep a secret seed, publish its commitment (Fair draws).

        With an ``Idempotency-Key`` the game's id is derived from the account and the
        key: a retry finds the game it opened (the stored answer), not a second game.
        """
        if account.kind != "player":
            raise Forbidden("not_a_player", "auditor accounts cannot open games")
        fingerprint = None
        if idempotency_key is None:
            game_id = uuid.uuid4().hex[:12]
        else:
            game_id = game_id_for(account, idempotency_key)
            request = {"options": encode_options(options), "tile_order": tile_order}
            fingerprint = request_fingerprint(request, None)
            prior = self.store.outcome(game_id, command_id_for(account, idempotency_key))
            if prior is not None:
                return self._replayed(prior, fingerprint)
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
        try:
            validate_options(options)
        except RuleViolation as v:  # refused before a secret is kept for it
            raise Conflict(v.code, v.message, rule=v.rule) from v
        kept = self.store.put_secret(game_id, seed)
        if kept != seed and algorithm == FIXED:  # a retry that asks for another order
            raise BadRequest(
                "idempotency_key_reused",
                "this Idempotency-Key was used for another request; use a new key",
            )
        command = cmd.CreateGame(game_id, options, commitment(kept), algorithm)
        record = self._record(game_id, account, idempotency_key, encode(command))
        return self._run(game_id, account, command, None, replace(record, fingerprint=fingerprint))

    def execute(
        self,
        game_id: str,
        account: Account,
        payload: Any,
        expected_version: int | None = None,
        idempotency_key: str | None = None,
    ) -> CommandResult:
        """Run a command a client sent (a dict as in ``domain.serialization``).

        With an ``Idempotency-Key`` the command's id is derived from the account
        and the key, so a key belongs to its sender and game; a retry with the
        same request gets the stored outcome (status, code and body), one with
        another request 422 ``idempotency_key_reused``. Accounts without a seat
        are refused before anything is journalled (only ``JoinGame`` is theirs).
        """
        fingerprint = None
        if idempotency_key is not None:
            fingerprint = request_fingerprint(payload, expected_version)
            prior = self.store.outcome(game_id, command_id_for(account, idempotency_key))
            if prior is not None:
                return self._replayed(prior, fingerprint)
        record = self._record(game_id, account, idempotency_key, payload, expected_version)
        record = replace(record, fingerprint=fingerprint)
        cached = self._states.get(game_id)
        state = (cached[0], cached[2]) if cached is not None else self.load(game_id)
        try:
            self._admit(account, payload, state[1])
        except Forbidden:
            if cached is None:
                raise
            state = self.load(game_id)  # seats only grow: the cache may predate a join
            self._admit(account, payload, state[1])
        try:
            command = decode_command(payload)
        except MalformedPayload as exc:
            return self._refused(record, state[0], BadRequest("malformed_command", str(exc)))
        if type(command) not in (
            *cmd.PLAY_COMMANDS,
            *cmd.SEAT_COMMANDS,
            cmd.JoinGame,
            cmd.StartGame,
        ):
            raise BadRequest(
                "not_a_player_command", f"{type(command).__name__} is not sent by players"
            )
        if isinstance(command, cmd.PLAY_COMMANDS) and self._overdue(game_id, *state, record):
            # C3: a move at or after its decision's deadline finds the decision the bot's.
            # The timeout is written now (the timekeeper may not have come yet), then the
            # move is judged after it: its answer names the game as the timeout left it.
            with contextlib.suppress(ServiceError):
                self.act_for_seat(game_id)
            state, cached = self.load(game_id), None
        # Optimistic: a cached state is judged without reading first. The append
        # checks version and hash, and any refusal is re-judged on a fresh load
        # before it is recorded, so a stale cache never decides anything.
        return self._run(game_id, account, command, expected_version, record, state, cached is None)

    def execute_for_dispute(
        self,
        game_id: str,
        account: Account,
        command: cmd.PauseGame | cmd.ResumeGame | cmd.AmendResult | cmd.RewindGame,
        *,
        closing: bool = False,
        expected_version: int | None = None,
        dispute: DisputeAppend | None = None,
    ) -> CommandResult:
        """Pause, resume or amend a game for a dispute (docs/disputes.md, D4, D7).

        An auditor's command, journalled and judged like any other; ``closing``: the
        service resumes a game paused for a dispute that its opener withdrew (D7), in
        that player's name. The dispute service checks the dispute itself.
        ``expected_version``: the game as the caller checked it (a stale one is 409
        ``stale_version``, for the caller to check again); ``dispute``: the ruling,
        appended in the same transaction (409 ``dispute_moved`` if its stream moved).
        """
        if account.kind != "auditor" and not closing:
            raise Forbidden("auditors_only", "only an auditor pauses, resumes or amends a game")
        payload = encode(command)
        for attempt in range(5):
            record = self._record(game_id, account, None, payload, None)
            state = self.load(game_id)
            try:
                return self._run(
                    game_id,
                    account,
                    command,
                    expected_version,
                    record,
                    state,
                    authorised=True,
                    dispute=dispute,
                )
            except Conflict as exc:  # a move landed meanwhile: a pause needs no version
                if exc.code != "stale_version" or expected_version is not None or attempt == 4:
                    raise
        raise AssertionError("unreachable")

    def join(
        self,
        game_id: str,
        account: Account,
        colours: Sequence[str],
        entropy: str,
        idempotency_key: str | None = None,
    ) -> CommandResult:
        """Take a seat (R1, R5)."""
        payload = encode(cmd.JoinGame(account.account_id, tuple(colours), entropy))
        return self.execute(game_id, account, payload, None, idempotency_key)

    @staticmethod
    def _admit(account: Account, payload: Any, state: GameState) -> None:
        """Refuse, before anything is journalled, accounts that have no business here."""
        if account.kind != "player":
            raise Forbidden("not_a_player", "auditor accounts cannot play")
        joining = isinstance(payload, dict) and payload.get("type") == "JoinGame"
        if not joining and all(p.player_id != account.account_id for p in state.players):
            raise Forbidden("not_seated", "you have no seat at this table")

    def _authorise(self, account: Account, command: cmd.Command, state: GameState) -> None:
        if state.paused is not None and isinstance(command, cmd.PLAY_COMMANDS):
            # every player's move, whoever's turn it is (docs/disputes.md, D7)
            raise Conflict(
                "game_paused", "the game is paused while an auditor looks at a dispute", rule="D7"
            )
        if isinstance(command, cmd.CreateGame | cmd.StartGame):
            return
        if isinstance(command, cmd.JoinGame | cmd.ReclaimSeat | cmd.Resign):
            if command.player_id != account.account_id:
                raise Forbidden("not_your_seat", "you can only act for your own seat")
            return
        colour = state.active_colour
        if colour is None or state.owner(colour).player_id != account.account_id:
            waiting = f"it is {colour}'s turn" if colour else "no move is awaited"
            raise Forbidden("not_your_turn", f"not your turn: {waiting}")

    def act_for_seat(self, game_id: str) -> CommandResult | None:
        """The bot plays the pending decision if it is due now (docs/clocks.md): the
        seat is absent (C5) or resigned (C6), or the deadline has passed (C3: at the
        deadline exactly, never a microsecond before). None when nothing is due.

        The move is appended on the version judged, so when the player's own move
        lands first this one is refused (409 ``stale_version``) and nothing is written:
        exactly one of them wins."""
        now = self.clock()
        version, state = self.load(game_id)
        seat = pending_seat(state)
        if seat is None or state.paused is not None or state.active_colour is None:
            return None
        reason = state.bot_reason(seat)
        if reason is None:
            clock = self.clock_at(game_id, version, state)
            deadline = clock.deadline if clock is not None else None
            if deadline is None or now < deadline:
                return None
            reason = "timeout"
        player = next(p for p in state.players if p.seat == seat)
        if reason == "timeout" and state.timeout_leaves_nobody(seat):
            played = ""  # C7: the game ends with this timeout; no move is made for it
        else:
            move = GreedyBot(random.Random(f"{game_id}:{version}")).choose(state)
            played = canonical(encode(move))
        command = cmd.ActForSeat(state.active_colour, reason, played)
        actor = {"bot": BOT, "seat": seat, "acting_for": player.player_id, "reason": reason}
        record = CommandRecord(game_id, uuid.uuid4().hex, actor, iso(now), encode(command), version)
        return self._run(game_id, None, command, version, record, (version, state), authorised=True)

    def _overdue(self, game_id: str, version: int, state: GameState, record: CommandRecord) -> bool:
        """Whether the pending decision's deadline had passed when ``record`` came (C3)."""
        if state.options.time_control == "none" or state.paused is not None:
            return False
        clock = self.clock_at(game_id, version, state)
        deadline = clock.deadline if clock is not None else None
        return deadline is not None and parse_time(record.received_at) >= deadline

    def _in_time(
        self,
        game_id: str,
        version: int,
        state: GameState,
        command: cmd.Command,
        record: CommandRecord,
    ) -> None:
        """C3: a player's move is taken before its decision's deadline, or not at all
        (the timekeeper's bot plays it; whichever of the two is appended first wins)."""
        if state.options.time_control == "none" or not isinstance(command, cmd.PLAY_COMMANDS):
            return
        clock = self.clock_at(game_id, version, state)
        deadline = clock.deadline if clock is not None else None
        if deadline is not None and parse_time(record.received_at) >= deadline:
            raise Conflict(
                "turn_timed_out",
                f"your time for this decision ran out at {iso(deadline)}: the bot plays it"
                " for you (C3)",
                rule="C3",
                version=version,
            )

    def _run(
        self,
        game_id: str,
        account: Account | None,
        command: cmd.Command,
        expected_version: int | None,
        record: CommandRecord,
        state: tuple[int, GameState] | None = None,
        verified: bool = True,
        authorised: bool = False,
        dispute: DisputeAppend | None = None,
    ) -> CommandResult:
        """Judge, append, cache, ring. ``verified=False``: ``state`` came from the
        cache unchecked, so a refusal is judged once more, on a fresh load, before
        anything is recorded. A command whose append loses the race to another is
        judged again on what landed first: with an ``If-Match`` it is then refused
        (and journalled) as stale; the bot's timeout that lost to the player's move
        finds its decision taken (docs/clocks.md, C3)."""
        races = 0
        while True:
            version, current = state if state is not None else (0, GameState())
            try:
                # a stale If-Match is answered as such, whoever's turn it now is
                if expected_version is not None and expected_version != version:
                    raise Conflict(
                        "stale_version",
                        f"the game is at version {version}, not {expected_version}",
                        version=version,
                    )
                if not authorised:
                    assert account is not None
                    self._authorise(account, command, current)
                    self._in_time(game_id, version, current, command, record)
                events, after = play(
                    current,
                    command,
                    lambda: self.secret(game_id),
                    self.deck,
                    redeal=lambda n: self.secret(redeal_key(game_id, n)),
                )
            except (Forbidden, Conflict, RuleViolation) as exc:
                if not verified:
                    state, verified = self.load(game_id), True
                    continue
                if isinstance(exc, RuleViolation):
                    exc = Conflict(exc.code, exc.message, rule=exc.rule)
                return self._refused(record, version, timed_out(account, current, version, exc))
            except DeckUnavailable as exc:  # the record and the secret disagree: not the client's
                raise RuntimeError(f"game {game_id}: {exc}") from exc
            new = self._new_events(record, events)
            clock = None
            if after.options.time_control != "none":
                before = self.clock_at(game_id, version, current)
                clock = advance(before, current, command, after, parse_time(record.received_at))
                if clock is not None:
                    new[-1].metadata["clock"] = clock.to_data()
            cached = self._states.get(game_id)
            prev_hash = GENESIS if version == 0 else None
            if cached is not None and cached[0] == version:
                prev_hash = cached[1]
            try:
                appended = self.store.append(
                    record, version, new, after.phase.value, prev_hash, dispute
                )
            except ConcurrencyConflict as exc:
                if exc.game_id != game_id:  # the dispute's stream moved: nothing was written
                    raise Conflict(
                        "dispute_moved", "the dispute changed meanwhile", rule="D8"
                    ) from exc
                races += 1
                if races < RACES:  # judged anew on what landed first (and journalled so)
                    state, verified = self.load(game_id), True
                    continue
                raise Conflict(
                    "stale_version",
                    f"the game moved on to version {exc.actual}",
                    version=exc.actual,
                ) from exc
            break
        if appended.duplicate:
            assert appended.entry is not None
            return self._replayed(appended.entry, record.fingerprint)
        metrics.command("accepted")
        if clock is not None:
            self._clocks.put((game_id, appended.version), (clock,))
        self._remember(game_id, appended.version, appended.hash, after, version)
        self.doorbell.ring(game_id)
        return CommandResult(game_id, appended.version, appended.hash, appended.events, state=after)

    def _record(
        self,
        game_id: str,
        account: Account,
        idempotency_key: str | None,
        payload: Any = None,
        expected_version: int | None = None,
    ) -> CommandRecord:
        actor = {"account": account.account_id, "name": account.name}
        payload_dict = payload if isinstance(payload, dict) else {"raw": payload}
        command_id = (
            command_id_for(account, idempotency_key)
            if idempotency_key is not None
            else uuid.uuid4().hex
        )
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

    def _refused(self, record: CommandRecord, version: int, error: ServiceError) -> CommandResult:
        """Journal a refusal and raise it; if the command id was journalled meanwhile
        (a retry overlapping the original), answer with what was stored instead."""
        rejection: dict[str, Any] = {"code": error.code, "message": error.detail}
        if error.extra.get("rule") is not None:
            rejection["rule"] = error.extra["rule"]
        rejection["kind"] = error.kind
        extra = {k: v for k, v in error.extra.items() if k not in ("rule", "replayed")}
        if extra:  # stale_version's version: a replay answers with the same body
            rejection["extra"] = extra
        if record.payload.get("type") == "CreateGame":  # nothing to journal before it exists
            raise error
        stored = self.store.reject(replace(record, expected_version=None), version, rejection)
        mine = (
            stored.outcome == "rejected"
            and stored.received_at == record.received_at
            and stored.rejection == rejection
        )
        if mine:
            metrics.command("rejected")
            metrics.rejection(error.code)
            self.doorbell.ring(record.game_id)  # the audit read model lists refusals too
            raise error
        return self._replayed(stored, record.fingerprint)

    def _replayed(self, entry: JournalEntry, fingerprint: str | None) -> CommandResult:
        """The stored outcome of a command id seen before (idempotent retry)."""
        metrics.command("replayed")
        if entry.fingerprint is not None and entry.fingerprint != fingerprint:
            raise BadRequest(
                "idempotency_key_reused",
                "this Idempotency-Key was used for another request; use a new key",
            )
        if entry.outcome == "rejected":
            rejection = entry.rejection or {}
            error = KINDS[kind_of(rejection)]
            extra = rejection.get("extra")
            raise error(
                str(rejection.get("code", "rejected")),
                str(rejection.get("message", "rejected earlier")),
                rule=rejection.get("rule"),
                replayed=True,
                **(extra if isinstance(extra, dict) else {}),
            )
        assert entry.first_version is not None and entry.last_version is not None
        events = self.store.read(
            entry.game_id,
            after=entry.first_version - 1,
            limit=entry.last_version - entry.first_version + 1,
        )
        last = events[-1]
        return CommandResult(entry.game_id, last.version, last.hash, tuple(events), True)


def timed_out(
    account: Account | None, state: GameState, version: int, error: ServiceError
) -> ServiceError:
    """The answer to a player whose move came after the bot had played their timed-out
    decision (C3): the seat has timed out and its player has not moved since; or
    whose seat is absent (C5), whether this decision's timeout or an earlier one
    made it so."""
    judged = error.code in ("stale_version", "not_your_turn", "seat_played_by_bot") or str(
        error.extra.get("rule") or ""
    ).startswith("R")
    if account is None or not judged:
        return error
    seat = next((p.seat for p in state.players if p.player_id == account.account_id), None)
    if seat is None or seat in state.resigned:
        return error
    if seat in state.absent:
        streak = state.timeouts.get(seat, 0)
        after = f" after {streak} timeout{'s' if streak != 1 else ''} in a row" if streak else ""
        return Conflict(
            "seat_played_by_bot",
            f"your seat is absent{after}: the bot plays it until you take it back"
            f" (ReclaimSeat, C5); the game is at version {version}",
            rule="C5",
            version=version,
        )
    if not state.timeouts.get(seat):
        return error
    return Conflict(
        "turn_timed_out",
        f"your decision timed out and the bot played it for you; the game is at version"
        f" {version}: see what is pending now and play on",
        rule="C3",
        version=version,
    )


def game_id_for(account: Account, idempotency_key: str) -> str:
    """The id of the game an account opens with a key (the same on every retry)."""
    raw = f"game\x00{account.account_id}\x00{idempotency_key}".encode()
    return hashlib.sha256(raw).hexdigest()[:12]


def encode_options(options: cmd.GameOptions) -> dict[str, Any]:
    """Game options as JSON data (for a request's fingerprint)."""
    return dict(encode(cmd.CreateGame("", options, "", ""))["options"])


def command_id_for(account: Account, idempotency_key: str) -> str:
    """A command id that belongs to one account's key: another account's same key differs."""
    raw = f"{account.account_id}\x00{idempotency_key}".encode()
    return "k" + hashlib.sha256(raw).hexdigest()[:31]


def request_fingerprint(payload: Any, expected_version: int | None) -> str:
    """What an Idempotency-Key stands for: the command and the version it expects."""
    try:
        text = canonical({"command": payload, "expected_version": expected_version})
    except (TypeError, ValueError):
        text = repr(payload)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
