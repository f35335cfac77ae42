"""Event store and HTTP benchmark on the local PostgreSQL (figures, not a test).

    python bench/store.py [--url postgresql://postgres@127.0.0.1:5432/test] [--seconds 5]
                          [--rounds 3] [--only appends|load|http] [--json FILE]

0. the raw commit limit of the same PostgreSQL: one one-row insert per transaction,
   1 writer and 4, interleaved with the appends round by round (their share of it);

1. appends of one command's events per transaction: 1 writer, then 4 writer
   processes across many games;
2. load of a 500-event game (cold: snapshot + fold), median and p99;
3. HTTP commands through gunicorn (2 workers) with 8 concurrent bot players, each
   commit ringing the rq doorbell as in production (no worker reads that queue):
   bots that take their next move from the command's response (``?include=legal``,
   one request per move), then bots that ``GET /legal`` before every move.

Everything runs in a throw-away schema that is dropped at the end.
"""

from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import psycopg

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.figures import Figures  # noqa: E402
from bench.processes import cpu_seconds, profiled, served, stop  # noqa: E402
from service.store.base import CommandRecord, NewEvent  # noqa: E402
from service.store.postgres import PostgresEventStore  # noqa: E402
from service.transparency.notes import Signer  # noqa: E402

EVENT = {
    "colour": "blue",
    "island": "tahiti",
    "beaches": [0, 2],
    "taken_from": None,
    "automatic": False,
    "rule": "R6",
}


@contextmanager
def throwaway_schema(url: str) -> Iterator[str]:
    """A fresh schema with the event store in it (its URL), dropped afterwards."""
    schema = f"bench_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
    try:
        store = PostgresEventStore(schema_url(url, schema))
        store.upgrade()
        store.close()
        yield schema_url(url, schema)
    finally:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(f"DROP SCHEMA {schema} CASCADE")


def schema_url(url: str, schema: str) -> str:
    sep = "&" if "?" in url else "?"
    return f"{url}{sep}options=-csearch_path%3D{schema}"


def writer(url: str, seconds: float, games: int, events_per_command: int, out) -> None:  # type: ignore[no-untyped-def]
    store = PostgresEventStore(url, min_size=1, max_size=1)
    versions = {f"g{os.getpid()}-{i}": 0 for i in range(games)}
    hashes = dict.fromkeys(versions, "0" * 64)
    ids = list(versions)
    count = 0
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        game = ids[count % len(ids)]
        record = CommandRecord(
            game,
            uuid.uuid4().hex,
            {"account": "bench"},
            "2026-11-22T00:00:00",
            {"type": "Expand"},
            versions[game],
        )
        new = [
            NewEvent("BoatsAdded", EVENT, {"actor": "bench", "i": i})
            for i in range(events_per_command)
        ]
        appended = store.append(record, versions[game], new, "playing", hashes[game])
        versions[game], hashes[game] = appended.version, appended.hash
        count += 1
    store.close()
    out.put(count)


def raw_writer(url: str, seconds: float, out) -> None:  # type: ignore[no-untyped-def]
    """The raw commit limit: one one-row insert per transaction (autocommit: one round
    trip, as an append is), nothing else."""
    count = 0
    with psycopg.connect(url, autocommit=True) as conn:
        deadline = time.perf_counter() + seconds
        while time.perf_counter() < deadline:
            row = (os.getpid(), count)
            conn.execute("INSERT INTO raw_commits (writer, n) VALUES (%s, %s)", row)
            count += 1
    out.put(count)


def raw_commit_rate(url: str, writers: int, seconds: float) -> float:
    """Commits per second of ``writers`` processes each inserting one row per commit
    (the same PostgreSQL, so appends are read as a share of it)."""
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CREATE TABLE IF NOT EXISTS raw_commits (writer int, n bigint)")
    return _rate(writers, raw_writer, (url, seconds), seconds)


def append_rate(url: str, writers: int, seconds: float) -> float:
    return _rate(writers, writer, (url, seconds, 50, 3), seconds)


def _rate(
    writers: int, target: Callable[..., None], args: tuple[Any, ...], seconds: float
) -> float:
    queue: multiprocessing.Queue[int] = multiprocessing.Queue()
    procs = [multiprocessing.Process(target=target, args=(*args, queue)) for _ in range(writers)]
    for p in procs:
        p.start()
    total = sum(queue.get() for _ in procs)
    for p in procs:
        p.join()
    return total / seconds


def load_times(url: str, rounds: int) -> list[float]:
    from domain.simulation import play
    from service.play.games import GameService

    store = PostgresEventStore(url)
    service = GameService(store, snapshot_every=100)
    game = play(2024, 6)
    while len(game.events) < 500:  # a long game: pad with a second game's tail
        game = play(random.randrange(10**6), 6)
    from domain.serialization import encode

    events = [encode(e) for e in game.events[:500]]
    versions = 0
    for start in range(0, 500, 10):
        chunk = [
            NewEvent(e["type"], {k: v for k, v in e.items() if k != "type"}, {"i": i})
            for i, e in enumerate(events[start : start + 10])
        ]
        record = CommandRecord("long", f"c{start}", {}, "2026-11-22T00:00:00", {}, versions)
        versions = store.append(record, versions, chunk, "playing").version
    service.load("long")  # writes the snapshots
    times = []
    for _ in range(rounds):
        service.repository.forget("long")  # cold: from the snapshot
        started = time.perf_counter()
        service.load("long")
        times.append((time.perf_counter() - started) * 1000)
    store.close()
    return times


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_until_serving(port: int) -> None:
    for _ in range(300):
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=1)
            conn.request("GET", "/api/v1/openapi.json")
            if conn.getresponse().status == 200:
                return
        except OSError:
            pass
        time.sleep(0.1)
    raise RuntimeError("the server did not start")


def service_env(url: str, redis_url: str) -> tuple[int, str, dict[str, str]]:
    """A free port, a throw-away rq queue and the environment to serve them on."""
    port = free_port()
    queue = f"bench-{uuid.uuid4().hex[:8]}"
    # PostgreSQL signs the transparency log with a key its operator keeps: a throw-away one
    key = Path(tempfile.mkdtemp(prefix="bench-store-")) / "log.key"
    key.write_text(Signer.generate("bench/store").text + "\n")
    env = {
        **os.environ,
        "DATABASE_URL": url,
        "REDIS_URL": redis_url,
        "TONGIAKI_QUEUE": queue,
        "TONGIAKI_PORT": str(port),
        # bots move far faster than the per-account limits allow people to: this
        # measures throughput (bench/soak/ turns them off too)
        "TONGIAKI_RATE_LIMITS": "off",
        "TONGIAKI_LOG_KEY": os.environ.get("TONGIAKI_LOG_KEY") or str(key),
    }
    return port, queue, env


def http_bench(
    url: str, seconds: float, players: int, redis_url: str, get_legal: bool = False
) -> tuple[int, list[float], float]:
    """Production's command path: each commit rings the rq doorbell (a throw-away
    queue no worker reads, emptied at the end), so projections cost nothing here.

    Returns the commands, their latencies and the gunicorn workers' CPU seconds
    over the run (a figure the machine's noise barely moves).
    """
    port, queue, env = service_env(url, redis_url)
    server = subprocess.Popen(
        profiled(
            "web-get-legal" if get_legal else "web-include",
            [sys.executable, "-m", "service.cli", "serve", "--workers", "2"],
        ),
        cwd=ROOT,
        env=env,
        stderr=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
    )
    try:
        wait_until_serving(port)
        # gunicorn listens before its workers are up: connect the bots only once
        # both have booted, or the first one ready takes every kept-alive connection
        time.sleep(3)
        latencies: list[float] = []
        lock = threading.Lock()
        deadline = time.perf_counter() + seconds
        threads = [
            threading.Thread(
                target=bot_client,
                args=(port, deadline, latencies, lock, i),
                kwargs={"get_legal": get_legal},
            )
            for i in range(players)
        ]
        master = served(server)
        cpu = cpu_seconds(master)
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return len(latencies), latencies, cpu_seconds(master) - cpu
    finally:
        stop(server)
        from redis import Redis
        from rq import Queue

        Queue(queue, connection=Redis.from_url(redis_url)).empty()


def call(
    conn: http.client.HTTPConnection,
    method: str,
    path: str,
    body: Any = None,
    token: str | None = None,
    headers: dict[str, str] | None = None,
) -> tuple[int, Any]:
    h = {"Content-Type": "application/json", **(headers or {})}
    if token:
        h["Authorization"] = f"Bearer {token}"
    conn.request(method, "/api/v1" + path, json.dumps(body) if body is not None else None, h)
    r = conn.getresponse()
    return r.status, json.loads(r.read() or b"null")


def two_accounts(conn: http.client.HTTPConnection) -> dict[str, str]:
    """Two new accounts, "blue" and "red": account id -> token."""
    tokens = {}
    for c in ("blue", "red"):
        _, a = call(conn, "POST", "/accounts", {"name": c})
        tokens[a["account_id"]] = a["token"]
    return tokens


def started_game(
    conn: http.client.HTTPConnection, tokens: dict[str, str], include: str = ""
) -> tuple[str, dict[str, Any]]:
    """A 2-player game of ``tokens``' accounts (blue, red), started: its id and the
    start's answer (with ``include="?include=legal"``, the first decision's commands)."""
    first = next(iter(tokens.values()))
    _, g = call(conn, "POST", "/games", {"max_players": 2}, first)
    gid = g["game_id"]
    for token, colour in zip(tokens.values(), ("blue", "red"), strict=True):
        call(conn, "POST", f"/games/{gid}/seats", {"colour": colour}, token)
    _, body = call(conn, "POST", f"/games/{gid}/start{include}", None, first)
    return gid, body


def bot_client(
    port: int,
    deadline: float,
    latencies: list[float],
    lock: threading.Lock,
    seed: int,
    after_command: Callable[[http.client.HTTPConnection, str, dict[str, Any], random.Random], None]
    | None = None,
    get_legal: bool = False,
) -> None:
    """One concurrent bot client: plays 2-player games, moving for whichever seat is due.

    It learns each next decision from the previous response (``?include=legal``),
    one request per move, as the web client of a player would; ``get_legal=True``
    asks ``GET /legal`` before every move instead (two requests per move).
    ``after_command(conn, game_id, response, rng)`` runs after each accepted command.
    """
    rng = random.Random(seed)
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    tokens = two_accounts(conn)
    include = "" if get_legal else "?include=legal"
    while time.perf_counter() < deadline:
        gid, body = started_game(conn, tokens, include)
        while time.perf_counter() < deadline:
            if get_legal:
                _, legal = call(conn, "GET", f"/games/{gid}/legal")
            else:
                legal = body["legal"]
            if legal["decision"] is None:
                break
            started = time.perf_counter()
            status, body = call(
                conn,
                "POST",
                f"/games/{gid}/commands{include}",
                rng.choice(legal["commands"]),
                tokens[legal["player_id"]],
                {"If-Match": f'"{legal["version"]}"'},
            )
            elapsed = (time.perf_counter() - started) * 1000
            assert status == 200, status
            with lock:
                latencies.append(elapsed)
            if after_command is not None:
                after_command(conn, gid, body, rng)


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--url", default="postgresql://postgres@127.0.0.1:5432/test")
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/14")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of each figure (noise)")
    parser.add_argument("--json", help="write the figures to this file (bench/figures.py)")
    parser.add_argument("--only", choices=("appends", "load", "http"), help="one part only")
    args = parser.parse_args()
    figures = Figures("store")
    with throwaway_schema(args.url) as url:
        print(f"PostgreSQL at {args.url}, {os.cpu_count()} cores, {args.rounds} rounds")
        if args.only in (None, "appends"):
            appends(url, args.seconds, args.rounds, figures)
        if args.only in (None, "load"):
            times = load_times(url, 200)
            print(
                "load of a 500-event game (cold, snapshot + fold): "
                f"median {statistics.median(times):.2f} ms, "
                f"p99 {pct(times, 0.99):.2f} ms"
            )
            figures.add("load_500_median_ms", statistics.median(times), "ms", better="lower")
        if args.only in (None, "http"):
            http_figures(url, args, figures)
    figures.write(args.json)


def appends(url: str, seconds: float, rounds: int, figures: Figures) -> None:
    """Appends against the raw commit limit, interleaved round by round so that any
    drift of the machine weighs on both alike."""
    rates: dict[str, list[float]] = {"raw1": [], "one": [], "raw4": [], "four": []}
    for _ in range(rounds):
        rates["raw1"].append(raw_commit_rate(url, 1, seconds))
        rates["one"].append(append_rate(url, 1, seconds))
        rates["raw4"].append(raw_commit_rate(url, 4, seconds))
        rates["four"].append(append_rate(url, 4, seconds))
    shares = [a / r * 100 for a, r in zip(rates["one"], rates["raw1"], strict=True)]
    print(f"raw commits, 1 writer:  {spread(rates['raw1'])} commits/s (one-row insert each)")
    print(f"appends, 1 writer:      {spread(rates['one'])} commands/s (3 events each)")
    print(f"  share of the raw commit limit: {spread(shares, '.0f')} %")
    print(f"raw commits, 4 writers: {spread(rates['raw4'])} commits/s")
    print(f"appends, 4 writers:     {spread(rates['four'])} commands/s (200 games)")
    figures.add("raw_commits_1_per_s", rates["raw1"], "commits/s")
    figures.add("appends_1_per_s", rates["one"], "commands/s")
    figures.add("appends_1_share_of_raw_pct", shares, "%")
    figures.add("raw_commits_4_per_s", rates["raw4"], "commits/s")
    figures.add("appends_4_per_s", rates["four"], "commands/s")


def http_figures(url: str, args: argparse.Namespace, figures: Figures) -> None:
    for get_legal, how in ((False, "include"), (True, "get_legal")):
        rates, cpus, p99s = [], [], []
        for _ in range(args.rounds):
            count, latencies, cpu = http_bench(url, args.seconds * 2, 8, args.redis, get_legal)
            rates.append(count / (args.seconds * 2))
            cpus.append(cpu / count * 1000)
            p99s.append(pct(latencies, 0.99))
        print(
            f"HTTP commands, gunicorn 2 workers, 8 concurrent bot clients "
            f"({'GET /legal' if get_legal else 'next moves from ?include=legal'}): "
            f"{spread(rates)} commands/s, p99 {spread(p99s, '.1f')} ms, "
            f"{spread(cpus, '.2f')} ms of worker CPU per command"
        )
        figures.add(f"http_{how}_per_s", rates, "commands/s")
        figures.add(f"http_{how}_cpu_ms", cpus, "ms", better="lower")
        figures.add(f"http_{how}_p99_ms", p99s, "ms", better="lower")


def spread(values: list[float], form: str = ",.0f") -> str:
    """The rounds' median and range: ``2,480 (2,458-2,512)``."""
    middle = format(statistics.median(values), form)
    if len(values) == 1:
        return middle
    return f"{middle} ({format(min(values), form)}-{format(max(values), form)})"


if __name__ == "__main__":
    main()
