"""Profiles, the "my move" queue and the lobby at volume (figures, not a test).

    python bench/profiles.py [--accounts 10000] [--games 50000] [--running 5000]
                             [--requests 400] [--url postgresql://postgres@127.0.0.1:5432/test]
                             [--only sqlite|postgres]

On SQLite (a file) and on PostgreSQL (a throw-away schema): ``--accounts`` accounts,
``--games`` finished games of 2–4 seats and ``--running`` games under way, one account
seated in 1 game of 20 (a heavy player). The games are written **straight into the
read-model tables** (``rm_lobby``, ``rm_lobby_seats``, ``rm_profile_games``, ``rm_queue``)
and the accounts into ``accounts``, in batches: replaying 50,000 games through the
engine would take hours and measure the engine, not these reads. Then the app answers,
in this process through its WSGI stack (Flask's test client: routing, authentication,
the queries, serialisation; no sockets), and each request is timed:

- ``GET /api/v1/accounts/{id}/profile`` (running, then finished games) of random accounts
  and of the heavy one;
- ``GET /api/v1/me/queue`` with random accounts' tokens;
- ``GET /api/v1/lobby?limit=20`` and ``?status=ended&limit=20`` (the lobby's lists).

It prints p50 and p99 in milliseconds per store (target: p99 ≤ 50 ms).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import psycopg  # noqa: E402
from flask.testing import FlaskClient  # noqa: E402

from bench.store import pct, throwaway_schema  # noqa: E402
from service.app import create_app  # noqa: E402
from service.runtime.settings import Settings  # noqa: E402
from service.store.base import SqlStore  # noqa: E402
from service.store.postgres import PostgresEventStore  # noqa: E402
from service.store.sqlite import SQLiteEventStore  # noqa: E402

COLOURS = ("blue", "red", "green", "yellow")
BATCH = 500  # rows per INSERT statement
START = 1_767_225_600  # 2026-01-01, seconds


def token_of(i: int) -> str:
    return f"bench-token-{i:06d}"


def account_id(i: int) -> str:
    return f"acct{i:08x}"


def when(offset_s: int) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime(START + offset_s))


def insert(
    store: SqlStore, table: str, columns: Sequence[str], rows: list[tuple[Any, ...]]
) -> None:
    """Rows in statements of ``BATCH`` rows, one transaction."""
    one = "(" + ", ".join(["%s"] * len(columns)) + ")"
    with store.transaction() as tx:
        for start in range(0, len(rows), BATCH):
            chunk = rows[start : start + BATCH]
            values = ", ".join([one] * len(chunk))
            flat = [v for row in chunk for v in row]
            tx.execute(f"INSERT INTO {table} ({', '.join(columns)}) VALUES {values}", flat)


def accounts(store: SqlStore, n: int) -> None:
    rows = [
        (
            account_id(i),
            f"player {i}",
            "player",
            hashlib.sha256(token_of(i).encode()).hexdigest(),
            when(i),
        )
        for i in range(n)
    ]
    insert(store, "accounts", ("account_id", "name", "kind", "token_hash", "created_at"), rows)


def seats_of(rng: random.Random, n_accounts: int, index: int) -> list[int]:
    size = rng.choice((2, 2, 3, 4))
    chosen = rng.sample(range(1, n_accounts), size)
    if index % 20 == 0:  # the heavy player sits in one game of 20
        chosen[0] = 0
    return chosen


def entry(game_id: str, players: list[int], ended: bool, at: str, turn: int) -> dict[str, Any]:
    """A lobby entry as ``projections.models.lobby_entry`` writes one."""
    seats = [
        {"seat": s + 1, "player_id": account_id(p), "colours": [COLOURS[s]]}
        for s, p in enumerate(players)
    ]
    return {
        "game_id": game_id,
        "status": "ended" if ended else "playing",
        "max_players": len(players),
        "two_colours_each": False,
        "free_orientation_after_first": False,
        "seats": seats,
        "time_control": {"control": "move", "move_seconds": 86400, "absent_after": 3},
        "clock": None,
        "turn": turn,
        "active_colour": None if ended else COLOURS[0],
        "active_player": None if ended else account_id(players[0]),
        "decision": None if ended else "action",
        "last_activity": at,
        "winners": [account_id(players[0])] if ended else [],
        "annulled": False,
        "paused": False,
    }


LOBBY = (
    "game_id", "version", "status", "active_player", "last_activity", "data", "players",
    "seated", "two_colours", "free_orientation", "clock",
)  # fmt: skip
PROFILE = (
    "account_id", "game_id", "version", "status", "last_activity", "seat", "colours",
    "players", "time_control", "rank", "points", "won", "resigned", "annulled", "used_ms",
    "decisions",
)  # fmt: skip
QUEUE = ("game_id", "account_id", "version", "waiting_since", "deadline", "decision", "colour")
CONTROL = json.dumps({"absent_after": 3, "control": "move", "move_seconds": 86400}, sort_keys=True)


def games(store: SqlStore, n_accounts: int, finished: int, running: int) -> None:
    """The read models' rows of ``finished`` + ``running`` games (see the module's doc)."""
    rng = random.Random(30)
    lobby: list[tuple[Any, ...]] = []
    seated: list[tuple[Any, ...]] = []
    profile: list[tuple[Any, ...]] = []
    queue: list[tuple[Any, ...]] = []
    for index in range(finished + running):
        ended = index < finished
        game_id = f"g{index:011x}"
        players = seats_of(rng, n_accounts, index)
        at = when(3600 + index * 30)
        data = json.dumps(entry(game_id, players, ended, at, 40), sort_keys=True)
        status = "ended" if ended else "playing"
        lobby.append(
            (game_id, 200, status, None, at, data, len(players), len(players), 0, 0, "move")
        )
        for seat, p in enumerate(players):
            seated.append((game_id, account_id(p)))
            rank = seat + 1 if ended else None
            points = (20 - seat * 3) if ended else None
            won = int(seat == 0) if ended else None
            profile.append(
                (account_id(p), game_id, 200, status, at, seat + 1, COLOURS[seat], len(players),
                 CONTROL, rank, points, won, 0, 0, 60_000 * 20, 20)
            )  # fmt: skip
        if not ended:
            queue.append(
                (game_id, account_id(players[0]), 200, at, when(3600 + index * 30 + 86400),
                 "action", COLOURS[0])
            )  # fmt: skip
    insert(store, "rm_lobby", LOBBY, lobby)
    insert(store, "rm_lobby_seats", ("game_id", "account_id"), seated)
    insert(store, "rm_profile_games", PROFILE, profile)
    insert(store, "rm_queue", QUEUE, queue)
    print(f"  {len(lobby):,} games, {len(seated):,} seats, {len(queue):,} waiting decisions")


def timed(label: str, count: int, ask: Callable[[int], Any]) -> tuple[float, float]:
    """p50 and p99 (ms) of ``count`` requests after 20 unmeasured ones."""
    for i in range(20):
        ask(i)
    spent = []
    for i in range(count):
        started = time.perf_counter()
        reply = ask(i)
        spent.append((time.perf_counter() - started) * 1000)
        assert reply.status_code == 200, (label, reply.status_code, reply.get_data()[:300])
    p50, p99 = pct(spent, 0.5), pct(spent, 0.99)
    print(f"  {label:<42} p50 {p50:6.2f} ms   p99 {p99:6.2f} ms")
    return p50, p99


def measure(client: FlaskClient, n_accounts: int, count: int) -> dict[str, tuple[float, float]]:
    rng = random.Random(7)
    picks = [rng.randrange(1, n_accounts) for _ in range(count + 20)]

    def profile(query: str) -> Callable[[int], Any]:
        return lambda i: client.get(f"/api/v1/accounts/{account_id(picks[i])}/profile{query}")

    def heavy(query: str) -> Callable[[int], Any]:
        return lambda i: client.get(f"/api/v1/accounts/{account_id(0)}/profile{query}")

    def queue(i: int) -> Any:
        headers = {"Authorization": f"Bearer {token_of(picks[i])}"}
        return client.get("/api/v1/me/queue", headers=headers)

    return {
        "profile (running)": timed("GET profile (running games)", count, profile("")),
        "profile (finished)": timed(
            "GET profile (finished games)", count, profile("?games=finished")
        ),
        "profile of the heavy player": timed(
            "GET profile, heavy player (finished)", count, heavy("?games=finished")
        ),
        "queue": timed("GET /me/queue", count, queue),
        "lobby": timed(
            "GET /lobby?limit=20", count, lambda i: client.get("/api/v1/lobby?limit=20")
        ),
        "lobby (ended)": timed(
            "GET /lobby?status=ended&limit=20",
            count,
            lambda i: client.get("/api/v1/lobby?status=ended&limit=20"),
        ),
    }


def run(store: SqlStore, data: Path, args: argparse.Namespace, url: str = "") -> None:
    settings = Settings(data_dir=data, rate_limits={})
    app = create_app(settings, store=store, sweep=False)
    started = time.perf_counter()
    accounts(store, args.accounts)
    games(store, args.accounts, args.games, args.running)
    if isinstance(store, PostgresEventStore):  # as autovacuum would after a bulk load
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("VACUUM ANALYZE")
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"  loaded in {time.perf_counter() - started:.1f} s; host load average {load}")
    measure(app.test_client(), args.accounts, args.requests)


def stores(args: argparse.Namespace) -> Iterator[tuple[str, SqlStore, Path, str]]:
    if args.only != "postgres":
        yield from _sqlite()
    if args.only != "sqlite":
        yield from _postgres(args.url)


def _sqlite() -> Iterator[tuple[str, SqlStore, Path, str]]:
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp)
        sqlite = SQLiteEventStore(data / "bench.db")
        yield "SQLite", sqlite, data / "sqlite", ""
        sqlite.close()


def _postgres(base: str) -> Iterator[tuple[str, SqlStore, Path, str]]:
    with tempfile.TemporaryDirectory() as tmp, throwaway_schema(base) as url:
        postgres = PostgresEventStore(url, max_size=4)
        yield "PostgreSQL", postgres, Path(tmp), url
        postgres.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--accounts", type=int, default=10_000)
    parser.add_argument("--games", type=int, default=50_000)
    parser.add_argument("--running", type=int, default=5_000)
    parser.add_argument("--requests", type=int, default=400)
    parser.add_argument("--url", default="postgresql://postgres@127.0.0.1:5432/test")
    parser.add_argument("--only", choices=("sqlite", "postgres"), help="one store only")
    args = parser.parse_args()
    for name, store, data, url in stores(args):
        data.mkdir(parents=True, exist_ok=True)
        print(f"{name}: {args.accounts:,} accounts, {args.games:,} finished games")
        run(store, data, args, url)


if __name__ == "__main__":
    main()
