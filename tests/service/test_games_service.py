"""Command handling below HTTP: snapshots, the cache, forced choices, the doorbell."""

from __future__ import annotations

import random
from datetime import UTC, datetime

import pytest

from domain import commands as cmd
from domain import legal_commands
from domain.serialization import encode
from domain.state import Phase
from service.errors import Conflict
from service.play.accounts import create_account
from service.play.games import GameService
from service.play.repository import FOLD_VERSION
from service.store.sqlite import SQLiteEventStore


class CountingDoorbell:
    def __init__(self) -> None:
        self.rung: list[str] = []

    def ring(self, game_id: str) -> None:
        self.rung.append(game_id)


def played(tmp_path, snapshot_every=20):
    store = SQLiteEventStore(tmp_path / "g.db")
    store.upgrade()
    bell = CountingDoorbell()
    service = GameService(store, doorbell=bell, snapshot_every=snapshot_every)
    now = datetime.now(UTC)
    accounts = [create_account(store, n, now)[0] for n in ("ann", "bob")]
    game_id = service.create_game(accounts[0], cmd.GameOptions(max_players=2)).game_id
    for a, c in zip(accounts, ("blue", "red"), strict=True):
        service.join(game_id, a, [c], "")
    service.execute(game_id, accounts[0], {"type": "StartGame"})
    rng = random.Random(2)
    by_id = {a.account_id: a for a in accounts}
    while True:
        version, state = service.load(game_id)
        if state.phase is Phase.ENDED:
            break
        mover = by_id[state.owner(state.active_colour).player_id]
        service.execute(game_id, mover, encode(rng.choice(legal_commands(state))), version)
    return service, store, game_id, bell


def test_snapshots_are_a_cache_that_can_be_deleted(tmp_path):
    _service, store, game_id, _ = played(tmp_path)
    head = store.head(game_id).version
    assert store.get_snapshot(game_id, FOLD_VERSION) is not None
    fresh = GameService(store)
    _, with_snapshots = fresh.load(game_id)
    mid = head // 2
    _, at_mid = fresh.load(game_id, at=mid)
    with store._connection() as conn:
        conn.execute("DELETE FROM snapshots")
    cold = GameService(store)
    assert cold.load(game_id)[1] == with_snapshots
    assert cold.load(game_id, at=mid)[1] == at_mid


def test_the_cache_never_serves_a_stale_state(tmp_path):
    service, store, game_id, _ = played(tmp_path)
    other = GameService(store)
    version, state = other.load(game_id)
    assert (version, state) == service.load(game_id)


def two_services_one_game(tmp_path):
    """Two processes' services on one store, both with the started game cached."""
    store = SQLiteEventStore(tmp_path / "g.db")
    store.upgrade()
    first, second = GameService(store), GameService(store)
    now = datetime.now(UTC)
    accounts = [create_account(store, n, now)[0] for n in ("ann", "bob")]
    game_id = first.create_game(accounts[0], cmd.GameOptions(max_players=2)).game_id
    for a, c in zip(accounts, ("blue", "red"), strict=True):
        first.join(game_id, a, [c], "")
    first.execute(game_id, accounts[0], {"type": "StartGame"})
    second.load(game_id)
    by_id = {a.account_id: a for a in accounts}
    return store, first, second, game_id, by_id


def test_a_stale_cache_never_refuses_a_move_that_is_legal_now(tmp_path):
    store, first, second, game_id, by_id = two_services_one_game(tmp_path)
    version, state = first.load(game_id)
    mover = by_id[state.owner(state.active_colour).player_id]
    first.execute(game_id, mover, encode(legal_commands(state)[0]), version)
    assert second.repository.cached(game_id)[0] == version  # second has not seen that move
    now_version, now_state = first.load(game_id)
    mover = by_id[now_state.owner(now_state.active_colour).player_id]
    result = second.execute(game_id, mover, encode(legal_commands(now_state)[0]), now_version)
    assert result.version > now_version
    assert all(j.outcome == "accepted" for j in store.journal(game_id))


def test_a_stale_cache_judges_a_refusal_against_the_fresh_version(tmp_path):
    store, first, second, game_id, by_id = two_services_one_game(tmp_path)
    version, state = first.load(game_id)
    mover = by_id[state.owner(state.active_colour).player_id]
    stale_choice = encode(legal_commands(state)[0])
    first.execute(game_id, mover, stale_choice, version)
    fresh_version = store.head(game_id).version
    with pytest.raises(Conflict) as refused:  # stale, whoever's turn it is now
        second.execute(game_id, mover, stale_choice, version)
    assert refused.value.code == "stale_version"
    rejected = [j for j in store.journal(game_id) if j.outcome == "rejected"]
    assert [j.judged_version for j in rejected] == [fresh_version]


def test_forced_choices_are_applied_in_the_same_command_and_marked_automatic(tmp_path):
    _, store, game_id, _ = played(tmp_path)
    automatic = [e for e in store.read(game_id) if e.body().get("automatic") is True]
    assert automatic, "a whole game has forced single choices (R25)"
    by_command = {}
    for e in store.read(game_id):
        by_command.setdefault(e.meta()["command_id"], []).append(e)
    for e in automatic:
        # the forced choice rode along with the player's own command, which came first
        first = by_command[e.meta()["command_id"]][0]
        assert first.body().get("automatic") is not True and first.version < e.version


def test_the_doorbell_rings_once_per_accepted_command(tmp_path):
    _, store, game_id, bell = played(tmp_path)
    accepted = [j for j in store.journal(game_id) if j.outcome == "accepted"]
    assert len(bell.rung) == len(accepted) and set(bell.rung) == {game_id}
