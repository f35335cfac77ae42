"""A model-based test of the clocks (hypothesis stateful; docs/clocks.md C2–C6).

Random interleavings of time passing, players' moves, the timekeeper's ticks,
resignations, reclaims and an auditor's pauses, on a real SQLite store with the
service's clock under the test's control. After every step the seats' standing
matches a model of C4–C6, a tick acts exactly when the rules say it must (at the
deadline, never before; at once for the bot's seats; never while paused), and at
the end the whole record verifies, every clock recomputed from the recorded times.
"""

from __future__ import annotations

import random
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from domain import commands as cmd
from domain import legal_commands
from domain.serialization import encode
from domain.state import Phase
from domain.tiles import PILE
from service.audit.verify import verify_game
from service.errors import Conflict
from service.play.accounts import token_hash
from service.play.games import GameService
from service.store.base import Account
from service.store.sqlite import SQLiteEventStore
from service.timing.clocks import pending_seat

T0 = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)
ABSENT_AFTER = 2


def account(store: SQLiteEventStore, name: str, kind: str = "player") -> Account:
    """An account whose id is its name's (create_account draws a random one)."""
    made = Account(f"{name:0<12}", name, kind, token_hash(f"token-{name}"), T0.isoformat())
    store.add_account(made)
    return made


class Clocks(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.dir = tempfile.TemporaryDirectory()
        self.now = T0
        self.store = SQLiteEventStore(Path(self.dir.name) / "s.db")
        self.store.upgrade()
        self.games = GameService(self.store, clock=lambda: self.now, testing=True)
        # everything the game's course depends on is fixed per example (ids seed the bot,
        # the deck its draws): hypothesis replays an example and must see the same game
        self.accounts = [account(self.store, n) for n in ("ann", "bob", "cy")]
        self.auditor = account(self.store, "aud", kind="auditor")
        self.game_id = ""
        self.streak: dict[int, int] = {}
        self.absent: set[int] = set()
        self.resigned: set[int] = set()
        self.rng = random.Random(0)

    @rule(control=st.sampled_from(["move", "fischer"]), deck=st.integers(0, 999))
    @precondition(lambda self: not self.game_id)
    def open_game(self, control: str, deck: int) -> None:
        timing = (
            {"move_seconds": 60}
            if control == "move"
            else {"base_seconds": 120, "increment_seconds": 5}
        )
        options = cmd.GameOptions(
            max_players=3, time_control=control, absent_after=ABSENT_AFTER, **timing
        )
        order = random.Random(deck).sample(sorted(PILE), len(PILE))
        opened = self.games.create_game(self.accounts[0], options, order, idempotency_key="g")
        self.game_id = opened.game_id
        for a, c in zip(self.accounts, ("blue", "red", "green"), strict=True):
            self.games.join(self.game_id, a, [c], "")
        self.games.execute(self.game_id, self.accounts[0], {"type": "StartGame"})

    def state(self):  # type: ignore[no-untyped-def]
        return self.games.load(self.game_id)

    def under_way(self) -> bool:
        return bool(self.game_id) and self.state()[1].phase in (Phase.SETUP, Phase.PLAYING)

    @rule(seconds=st.integers(0, 150))
    def time_passes(self, seconds: int) -> None:
        self.now += timedelta(seconds=seconds, microseconds=self.rng.randrange(1000))

    @rule(seed=st.integers(0, 2**16))
    @precondition(lambda self: self.under_way())
    def the_player_moves(self, seed: int) -> None:
        version, state = self.state()
        seat = pending_seat(state)
        if seat is None or state.paused is not None:
            return
        player = next(
            a for a in self.accounts if a.account_id == state.owner(state.active_colour).player_id
        )
        move = random.Random(seed).choice(legal_commands(state))
        clock = self.games.clock_at(self.game_id, version, state)
        late = clock is not None and clock.deadline is not None and self.now >= clock.deadline
        try:
            self.games.execute(self.game_id, player, encode(move), version)
        except Conflict as exc:
            if seat in self.absent | self.resigned:  # C5, C6: the bot has it
                assert exc.code in ("seat_played_by_bot", "turn_timed_out", "stale_version")
                if late:  # the service had the bot play it first
                    assert self.state()[0] > version
                return
            # C3: a move at or after the deadline is the bot's to make: the service
            # times the decision out first, then refuses the move
            assert late, exc
            made_absent = self.streak.get(seat, 0) + 1 >= ABSENT_AFTER  # C5 then, else C3
            assert exc.code == ("seat_played_by_bot" if made_absent else "turn_timed_out"), exc
            assert self.state()[0] > version
            self.timed_out(seat)
            return
        assert not late
        assert seat not in self.absent | self.resigned
        self.streak.pop(seat, None)  # C4: a move of one's own ends the streak

    @rule()
    @precondition(lambda self: self.under_way())
    def the_timekeeper_ticks(self) -> None:
        version, state = self.state()
        seat = pending_seat(state)
        clock = self.games.clock_at(self.game_id, version, state)
        deadline = clock.deadline if clock is not None else None
        result = self.games.act_for_seat(self.game_id)
        if seat is None or state.paused is not None:
            assert result is None  # nothing runs, or the clock stands still (D7)
            return
        if seat in self.absent | self.resigned:
            assert result is not None  # C5, C6: at once
            assert result.events[0].type == "SeatPlayedByBot"
            return
        assert deadline is not None
        if self.now < deadline:
            assert result is None  # C3: never before the deadline
            return
        assert result is not None and result.events[0].type == "TurnTimedOut"
        self.timed_out(seat)

    def timed_out(self, seat: int) -> None:
        self.streak[seat] = self.streak.get(seat, 0) + 1
        if self.streak[seat] >= ABSENT_AFTER:
            self.absent.add(seat)

    @rule(index=st.integers(0, 2), chance=st.integers(0, 5))
    @precondition(lambda self: self.under_way())
    def someone_resigns(self, index: int, chance: int) -> None:
        if chance:  # rarely: a game where everyone resigns plays itself
            return
        who = self.accounts[index]
        seat = index + 1
        try:
            self.games.execute(self.game_id, who, {"type": "Resign", "player_id": who.account_id})
        except Conflict as exc:
            assert seat in self.resigned or self.state()[1].paused is not None, exc
            return
        self.resigned.add(seat)

    @rule(index=st.integers(0, 2))
    @precondition(lambda self: self.under_way())
    def someone_reclaims(self, index: int) -> None:
        who = self.accounts[index]
        seat = index + 1
        try:
            self.games.execute(
                self.game_id, who, {"type": "ReclaimSeat", "player_id": who.account_id}
            )
        except Conflict as exc:
            paused = self.state()[1].paused is not None
            assert paused or seat in self.resigned or seat not in self.absent, exc
            return
        assert seat in self.absent and seat not in self.resigned
        self.absent.discard(seat)
        self.streak.pop(seat, None)

    @rule(chance=st.integers(0, 3))
    @precondition(lambda self: self.under_way())
    def an_auditor_pauses_or_resumes(self, chance: int) -> None:
        if chance:
            return
        paused = self.state()[1].paused is not None
        command = cmd.ResumeGame("d1") if paused else cmd.PauseGame("d1")
        self.games.execute_for_dispute(self.game_id, self.auditor, command)

    @invariant()
    def the_seats_standing_follows_the_rules(self) -> None:
        if not self.game_id:
            return
        _, state = self.state()
        assert state.absent == frozenset(self.absent)
        assert state.resigned == frozenset(self.resigned)
        assert state.timeouts == {k: v for k, v in self.streak.items() if v}

    def teardown(self) -> None:
        if self.game_id:
            report = verify_game(self.store, self.game_id)
            assert report.ok, report.rerun_problems + report.chain_problems
        self.store.close()
        self.dir.cleanup()


Clocks.TestCase.settings = settings(
    max_examples=30,
    stateful_step_count=80,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
TestClocks = Clocks.TestCase
