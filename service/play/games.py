"""Playing a game, as an application service: load → authorise → decide → append → ring.

One transaction per command: the command's events, the decisions it forced
(R25) and, when the game ends, ``DeckRevealed`` are appended together, with
the journal entry. The server stamps the time; the engine never sees a clock.
Where the state comes from is the repository's (``service.play.repository``);
retries and refusals the journal's (``service.play.receipts``); seat timeouts
their own (``service.play.timeouts``).
"""

from __future__ import annotations

import contextlib
import json
import secrets
import uuid
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

from domain import ENGINE_VERSION, RULES_VERSION
from domain import commands as cmd
from domain.deck import ALGORITHM, FIXED, Deck, commitment, complete_order
from domain.errors import DeckUnavailable, MalformedPayload, RuleViolation
from domain.events import Event
from domain.offers import MovesTakenBack
from domain.play import play
from domain.serialization import decode_command, encode
from domain.setup import validate_options
from domain.state import GameState
from service.errors import BadRequest, Conflict, Forbidden, ServiceError
from service.play import takebacks
from service.play.admission import admit, authorise, sent_by_players
from service.play.attempts import Attempt, Decided, Doorbell, SilentDoorbell
from service.play.receipts import (
    CommandResult,
    Receipts,
    command_id_for,
    encode_options,
    game_id_for,
    request_fingerprint,
)
from service.play.repository import GameRepository, Keyframes, decode_events, redeal_key
from service.play.timeouts import SeatTimeouts, timed_out
from service.runtime import counters as metrics
from service.store.base import (
    GENESIS,
    Account,
    AccountGone,
    Appended,
    CommandRecord,
    ConcurrencyConflict,
    DisputeAppend,
    EventStore,
    NewEvent,
)
from service.timing.clocks import Clock, Plan, advance, parse_time, stamp

RACES = 5  # appends a command may lose to other commands before it is answered 409


class GameService:
    """Runs commands against games kept in an ``EventStore``.

    The account cache is bounded and keyed by token hash (accounts never change);
    the repository's caches are described there. Verification reads none.
    """

    def __init__(
        self,
        store: EventStore,
        *,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        doorbell: Doorbell | None = None,
        testing: bool = False,
        snapshot_every: int = 100,
        keyframes: Keyframes | None = None,
        seat_bot: str = "greedy",
    ) -> None:
        self.store = store
        self.clock = clock
        self.doorbell = doorbell or SilentDoorbell()
        self.testing = testing
        self.repository = GameRepository(store, snapshot_every=snapshot_every, keyframes=keyframes)
        self.receipts = Receipts(store)
        self.timeouts = SeatTimeouts(self.repository, seat_bot)
        self.leaves: Plan | None = None  # vacation's planner (docs/vacation.md V3, V4)

    # --- reading (the repository's) -------------------------------------------------

    def load(self, game_id: str, at: int | None = None) -> tuple[int, GameState]:
        """The game's version and state, now or ``at`` a version."""
        return self.repository.load(game_id, at)

    def clock_at(self, game_id: str, version: int, state: GameState) -> Clock | None:
        """The clock recorded with ``version`` of a timed game."""
        return self.repository.clock_at(game_id, version, state)

    def secret(self, game_id: str) -> bytes:
        """The game's deck seed."""
        return self.repository.secret(game_id)

    def deck(self, state: GameState, seed: bytes) -> Deck:
        """The game's draw order (cached)."""
        return self.repository.deck(state, seed)

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
            prior = self.receipts.prior(
                game_id, command_id_for(account, idempotency_key), fingerprint
            )
            if prior is not None:
                return prior
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
        return self._run(Attempt(replace(record, fingerprint=fingerprint), command, account), None)

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
            prior = self.receipts.prior(
                game_id, command_id_for(account, idempotency_key), fingerprint
            )
            if prior is not None:
                return prior
        record = self._record(game_id, account, idempotency_key, payload, expected_version)
        record = replace(record, fingerprint=fingerprint)
        cached = self.repository.cached(game_id)
        state = (cached[0], cached[2]) if cached is not None else self.load(game_id)
        try:
            admit(account, payload, state[1])
        except Forbidden:
            if cached is None:
                raise
            state = self.load(game_id)  # seats only grow: the cache may predate a join
            admit(account, payload, state[1])
        try:
            command = decode_command(payload)
        except MalformedPayload as exc:
            return self._refused(record, state[0], BadRequest("malformed_command", str(exc)))
        sent_by_players(command)
        if isinstance(command, cmd.PLAY_COMMANDS) and self.timeouts.overdue(
            game_id, *state, record
        ):
            # C3: a move at or after its decision's deadline finds the decision the bot's.
            # The timeout is written now (the timekeeper may not have come yet), then the
            # move is judged after it: its answer names the game as the timeout left it.
            with contextlib.suppress(ServiceError):
                self.act_for_seat(game_id)
            state, cached = self.load(game_id), None
        # Optimistic: a cached state is judged without reading first. The append
        # checks version and hash, and any refusal is re-judged on a fresh load
        # before it is recorded, so a stale cache never decides anything.
        attempt = Attempt(record, command, account, expected_version)
        return self._run(attempt, state, fresh=cached is None)

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
        for tries in range(5):
            record = self._record(game_id, account, None, payload, None)
            state = self.load(game_id)
            try:
                ruling = Attempt(record, command, account, expected_version, dispute, True)
                return self._run(ruling, state)
            except Conflict as exc:  # a move landed meanwhile: a pause needs no version
                if exc.code != "stale_version" or expected_version is not None or tries == 4:
                    raise
        raise AssertionError("unreachable")

    def record_for(
        self,
        game_id: str,
        account: Account,
        command: cmd.AnnounceAway | cmd.JoinGame,
        expected_version: int | None = None,
    ) -> CommandResult:
        """A command the service sends in ``account``'s name from elsewhere than the game:
        the spell its vacation announcement recorded (docs/vacation.md V4), a rematch's
        bot seated again (docs/bots.md B4). Journalled and judged like any other; no
        seat or turn is checked (``expected_version``: 409 ``stale_version`` past it)."""
        record = self._record(game_id, account, None, encode(command), expected_version)
        attempt = Attempt(record, command, account, expected_version, authorised=True)
        return self._run(attempt, self.load(game_id))

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

    def act_for_seat(self, game_id: str) -> CommandResult | None:
        """The bot plays the pending decision if it is due now (docs/clocks.md; C3, C5,
        C6, C7 in ``service.play.timeouts``). None when nothing is due.

        The move is appended on the version judged, so when the player's own move
        lands first this one is refused (409 ``stale_version``) and nothing is written:
        exactly one of them wins."""
        now = self.clock()
        version, state = self.load(game_id)
        move = self.timeouts.due_move(game_id, version, state, now)
        if move is None:
            return None
        attempt = Attempt(move.record, move.command, None, version, authorised=True)
        return self._run(attempt, (version, state))

    def _run(
        self, attempt: Attempt, state: tuple[int, GameState] | None, *, fresh: bool = True
    ) -> CommandResult:
        """Judge, append, cache, ring. ``fresh=False``: ``state`` came from the cache
        unchecked, so a refusal is judged once more, on a fresh load, before anything
        is recorded. A command whose append loses the race to another is judged again
        on what landed first: with an ``If-Match`` it is then refused (and journalled)
        as stale; the bot's timeout that lost to the player's move finds its decision
        taken (docs/clocks.md, C3)."""
        races = 0
        while True:
            version, current = state if state is not None else (0, GameState())
            try:
                attempt = self._completed(attempt, version, current)
                decided = self._decide(attempt, version, current)
            except (Forbidden, Conflict, RuleViolation) as exc:
                if not fresh:
                    state, fresh = self.load(attempt.game_id), True
                    continue
                if isinstance(exc, RuleViolation):
                    exc = Conflict(exc.code, exc.message, rule=exc.rule)
                error = timed_out(attempt.account, current, version, exc)
                return self._refused(attempt.record, version, error)
            try:
                appended = self._append(attempt, decided)
            except AccountGone:  # deleted while the seat was being taken (P6)
                gone = Forbidden("account_deleted", "this account is deleted", rule="P6")
                return self._refused(attempt.record, version, gone)
            except ConcurrencyConflict as exc:
                races += 1
                self._lost_race(attempt, exc, races)
                state, fresh = self.load(attempt.game_id), True  # judged anew on what landed
                continue
            return self._settle(attempt, decided, appended)

    def _completed(self, attempt: Attempt, version: int, current: GameState) -> Attempt:
        """A takeback request completed from the record as it stands at ``version`` (T1):
        judged again after a lost race, it is completed again; another's seat is refused
        first, as for every seat command."""
        if not isinstance(attempt.command, cmd.RequestTakeback):
            return attempt
        if not attempt.authorised and attempt.account is not None:
            authorise(attempt.account, attempt.command, current)
        game_id = attempt.game_id
        command = takebacks.complete(
            [j for j in self.store.journal(game_id) if (j.last_version or 0) <= version],
            decode_events(self.store.read(game_id, limit=version)),
            attempt.command.player_id,
            lambda at: self.load(game_id, at=at)[1],
        )
        record = replace(attempt.record, payload=encode(command))
        return replace(attempt, command=command, record=record)

    def _decide(self, attempt: Attempt, version: int, current: GameState) -> Decided:
        """The events the command appends on ``version`` (raises its refusal)."""
        game_id, command, record = attempt.game_id, attempt.command, attempt.record
        # a stale If-Match is answered as such, whoever's turn it now is
        if attempt.expected_version is not None and attempt.expected_version != version:
            raise Conflict(
                "stale_version",
                f"the game is at version {version}, not {attempt.expected_version}",
                version=version,
            )
        if not attempt.authorised:
            assert attempt.account is not None
            authorise(attempt.account, command, current)
            self.timeouts.check_in_time(game_id, version, current, command, record)
        try:
            events, after = play(
                current,
                command,
                lambda: self.secret(game_id),
                self.deck,
                redeal=lambda n: self.secret(redeal_key(game_id, n)),
            )
        except DeckUnavailable as exc:  # the record and the secret disagree: not the client's
            raise RuntimeError(f"game {game_id}: {exc}") from exc
        new = self._new_events(record, events)
        clock = None
        if after.options.time_control != "none":
            before = self.clock_at(game_id, version, current)
            back = next((e for e in events if isinstance(e, MovesTakenBack)), None)
            restored = self.clock_at(game_id, back.to_version, after) if back else None  # T5
            at = parse_time(record.received_at)
            clock = advance(before, current, command, after, at, restored, self.leaves)
            if clock is not None:
                new[-1].metadata["clock"] = clock.to_data()
        return Decided(version, new, after, clock)

    def _append(self, attempt: Attempt, decided: Decided) -> Appended:
        """One transaction: the events, their hash chain, the journal entry (and a
        dispute's ruling); raises ``ConcurrencyConflict`` when another landed first."""
        cached = self.repository.cached(attempt.game_id)
        prev_hash = GENESIS if decided.version == 0 else None
        if cached is not None and cached[0] == decided.version:
            prev_hash = cached[1]
        command = attempt.command
        # a seat's account, locked with the append (a bot's seat has none, B1)
        bot = isinstance(command, cmd.JoinGame) and command.bot
        seating = command.player_id if isinstance(command, cmd.JoinGame) and not bot else None
        return self.store.append(
            attempt.record,
            decided.version,
            decided.events,
            decided.after.phase.value,
            prev_hash,
            attempt.dispute,
            seating,
        )

    @staticmethod
    def _lost_race(attempt: Attempt, exc: ConcurrencyConflict, races: int) -> None:
        """Raise when a lost append is not to be judged again: the dispute's stream
        moved (nothing was written), or it lost ``RACES`` times."""
        if exc.game_id != attempt.game_id:
            raise Conflict("dispute_moved", "the dispute changed meanwhile", rule="D8") from exc
        if races >= RACES:
            raise Conflict(
                "stale_version",
                f"the game moved on to version {exc.actual}",
                version=exc.actual,
            ) from exc

    def _settle(self, attempt: Attempt, decided: Decided, appended: Appended) -> CommandResult:
        """After the commit: the answer, the caches, the doorbell."""
        game_id = attempt.game_id
        if appended.duplicate:
            assert appended.entry is not None
            return self.receipts.replayed(appended.entry, attempt.record.fingerprint)
        metrics.command("accepted")
        if decided.clock is not None:
            self.repository.remember_clock(game_id, appended.version, decided.clock)
        self.repository.remember(
            game_id, appended.version, appended.hash, decided.after, decided.version
        )
        self.doorbell.ring(game_id)
        return CommandResult(
            game_id,
            appended.version,
            appended.hash,
            appended.events,
            received_at=attempt.record.received_at,
            state=decided.after,
        )

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
            game_id, command_id, actor, stamp(self.clock()), payload_dict, expected_version
        )

    @staticmethod
    def _new_events(record: CommandRecord, events: Sequence[Event]) -> list[NewEvent]:
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
        """Journal a refusal and raise it, or answer a retry that overlapped it with
        what the journal stored (``Receipts.refuse``)."""
        stored = self.receipts.refuse(record, version, error)
        if stored is not None:
            return stored
        self.doorbell.ring(record.game_id)  # the audit read model lists refusals too
        raise error
