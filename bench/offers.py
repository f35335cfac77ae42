"""What offers at the table cost (issue 29; figures, not a test).

    python bench/offers.py [--url postgresql://postgres@127.0.0.1:5432/test] [--games 3]
                           [--rounds 40]

A takeback request is completed from the record (docs/table.md, T1): the service reads
the game's journal and events up to the version judged and the position before the
asker's last decision. This measures, on SQLite and PostgreSQL, for games played to a
given length by bots (a takeback needs a decision with no tile drawn since: the bench
the bots play on), the time of ``RequestTakeback`` then ``AnswerTakeback`` through
``GameService.execute`` (p50 and max), beside a plain move on the same games, and how
long verification of a whole game takes with its takebacks.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from domain import commands as cmd  # noqa: E402
from domain import legal_commands  # noqa: E402
from domain.serialization import encode  # noqa: E402
from service.audit.verify import verify_game  # noqa: E402
from service.errors import Conflict  # noqa: E402
from service.play.accounts import create_account  # noqa: E402
from service.play.games import GameService  # noqa: E402
from service.store.base import Account  # noqa: E402
from service.store.sql import SqlEventStore  # noqa: E402
from service.store.sqlite import SQLiteEventStore  # noqa: E402

T0 = datetime(2026, 11, 27, tzinfo=UTC)


def table(store: SqlEventStore) -> tuple[GameService, str, dict[str, Account]]:
    service = GameService(store)
    accounts = [create_account(store, n, T0)[0] for n in ("ann", "bob")]
    game_id = service.create_game(accounts[0], cmd.GameOptions(max_players=2)).game_id
    for a, c in zip(accounts, ("blue", "red"), strict=True):
        service.join(game_id, a, [c], "")
    service.execute(game_id, accounts[0], {"type": "StartGame"})
    return service, game_id, {a.account_id: a for a in accounts}


def move(service: GameService, game_id: str, by: dict[str, Account], rng: random.Random) -> Any:
    version, state = service.load(game_id)
    if state.pending is None:
        return None
    who = by[state.owner(state.pending.colour).player_id]
    return who, service.execute(game_id, who, encode(rng.choice(legal_commands(state))), version)


def timed(service: GameService, game_id: str, who: Account, payload: dict[str, Any]) -> float:
    started = time.perf_counter()
    service.execute(game_id, who, payload)
    return (time.perf_counter() - started) * 1000


def bench(store: SqlEventStore, games: int, rounds: int) -> dict[str, Any]:
    """``games`` 2-seat games played by bots to their end; after every decision its
    player asks to take it back and the other accepts (a decision that drew a tile is
    refused, T2): the times of requests and acceptances (ms) by the game's length then,
    and of the plain moves."""
    asks: dict[str, list[float]] = {"under 100 versions": [], "100 or more": []}
    answers: list[float] = []
    moves: list[float] = []
    refused = 0
    verify: list[float] = []
    for seed in range(games):
        service, game_id, by = table(store)
        rng = random.Random(seed)
        taken = 0
        while taken < rounds:
            before = time.perf_counter()
            played = move(service, game_id, by, rng)
            if played is None:
                break
            moves.append((time.perf_counter() - before) * 1000)
            who, result = played
            other = next(a for a in by.values() if a is not who)
            ask = {"type": "RequestTakeback", "player_id": who.account_id}
            try:
                spent = timed(service, game_id, who, ask)
            except Conflict:  # the decision drew a tile (T2)
                refused += 1
                continue
            asks["under 100 versions" if result.version < 100 else "100 or more"].append(spent)
            answer = {"type": "AnswerTakeback", "player_id": other.account_id, "accept": True}
            answers.append(timed(service, game_id, other, answer))
            taken += 1
            move(service, game_id, by, rng)  # the same decision again, or another
        while move(service, game_id, by, rng):
            pass
        started = time.perf_counter()
        assert verify_game(store, game_id).ok, game_id
        verify.append((time.perf_counter() - started) * 1000)
    return {"asks": asks, "answers": answers, "moves": moves, "refused": refused, "verify": verify}


def line(name: str, values: list[float]) -> str:
    if not values:
        return f"{name} none"
    return f"{name} p50 {statistics.median(values):.1f} ms, max {max(values):.1f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default="postgresql://postgres@127.0.0.1:5432/test")
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=40, help="takebacks per game")
    args = parser.parse_args()
    from bench.store import throwaway_schema
    from service.store.postgres import PostgresEventStore

    with tempfile.TemporaryDirectory() as tmp:
        sqlite = SQLiteEventStore(Path(tmp) / "b.db")
        sqlite.upgrade()
        report("sqlite", bench(sqlite, args.games, args.rounds))
        sqlite.close()
    with throwaway_schema(args.url) as url:
        pg = PostgresEventStore(url, max_size=4)
        pg.upgrade()
        report("postgresql", bench(pg, args.games, args.rounds))
        pg.close()


def report(backend: str, found: dict[str, Any]) -> None:
    asks = "; ".join(line(f"request at {k}", v) for k, v in found["asks"].items())
    print(
        f"{backend:10} {asks}; {line('acceptance', found['answers'])};"
        f" {line('a move', found['moves'])}; {found['refused']} refused (T2);"
        f" {line('verify a whole game', found['verify'])} (every game ok)"
    )


if __name__ == "__main__":
    main()
