"""A worker's own timer follows a game beside the bot (docs/clocks.md C5): the player's
move there makes the bot's decision due at once, and the worker hears of it only when
its queue's batch job levels the read models. With that job late, the timer alone plays
the bot's decision within its ``follow`` interval, not at the player's deadline."""

from __future__ import annotations

import random
import time
from datetime import UTC, datetime, timedelta

from domain import commands as cmd
from domain import legal_commands
from domain.serialization import encode
from domain.state import Phase
from service.play.accounts import create_account
from service.play.games import GameService
from service.play.timekeeper import LocalScheduler, Timekeeper
from service.store.sqlite import SQLiteEventStore


class NoReadModel:
    """The read model a late batch job left: it knows of nothing due."""

    def due_games(self, now_ms: int, limit: int = 1000) -> list[tuple[str, int]]:
        return []


def game_beside_the_bot(tmp_path):
    """A game whose seat 1 is absent (one timeout), at seat 2's decision: (service,
    game id, seat 2's account, the clock's offset)."""
    offset = [timedelta(0)]
    store = SQLiteEventStore(tmp_path / "f.db")
    store.upgrade()
    service = GameService(store, clock=lambda: datetime.now(UTC) + offset[0])
    accounts = [create_account(store, n, datetime.now(UTC))[0] for n in ("ann", "bob")]
    options = cmd.GameOptions(max_players=2, time_control="move", move_seconds=60, absent_after=1)
    game_id = service.create_game(accounts[0], options).game_id
    for account, colour in zip(accounts, ("blue", "red"), strict=True):
        service.join(game_id, account, [colour], "")
    service.execute(game_id, accounts[0], {"type": "StartGame"})
    by_id = {a.account_id: a for a in accounts}
    rng = random.Random(3)
    while True:
        version, state = service.load(game_id)
        assert state.phase is not Phase.ENDED
        seat = state.owner(state.active_colour).seat
        if seat == 1 and 1 not in state.absent:
            offset[0] += timedelta(seconds=61)  # seat 1 times out: absent
            assert service.act_for_seat(game_id) is not None
        elif seat == 1:
            assert service.act_for_seat(game_id) is not None  # the bot, at once
        elif 1 in state.absent:
            return service, game_id, by_id[state.owner(state.active_colour).player_id]
        else:
            who = by_id[state.owner(state.active_colour).player_id]
            service.execute(game_id, who, encode(rng.choice(legal_commands(state))), version)


def test_a_workers_timer_plays_the_absent_seat_soon_after_the_players_move(tmp_path):
    service, game_id, player = game_beside_the_bot(tmp_path)
    keeper = Timekeeper(service)
    clocks = LocalScheduler(
        keeper, NoReadModel(), 60.0, lambda: False, now=service.clock, follow=0.05
    )
    clocks.at(game_id, service.clock())  # the last note its batch job gave it
    clocks.start()
    try:
        time.sleep(0.2)  # ticked: the player's decision, due in a minute
        rng = random.Random(5)
        while True:  # the player's turn, told to nobody
            version, state = service.load(game_id)
            if state.phase is Phase.ENDED or state.owner(state.active_colour).seat == 1:
                break
            command = encode(rng.choice(legal_commands(state)))
            service.execute(game_id, player, command, version)
        if state.phase is Phase.ENDED:
            return
        moved = time.monotonic()
        while time.monotonic() - moved < 5:  # the bot's decision, at the latest by then
            _, state = service.load(game_id)
            if state.phase is Phase.ENDED or state.owner(state.active_colour).seat != 1:
                break
            time.sleep(0.01)
        assert state.phase is Phase.ENDED or state.owner(state.active_colour).seat != 1
        assert time.monotonic() - moved < 1.0  # not at the player's deadline, a minute on
    finally:
        clocks.stop()
