"""Projection benchmark on the local PostgreSQL and Redis (figures, not a test).

    python bench/projections.py [--games 40] [--seconds 10] [--rounds 3] [--json FILE]

1. catch-up of cold projections: N simulated 4-player games in the store, then
   every projection rebuilt from scratch (events/s, all of them, all of them in
   ``--jobs`` processes as ``tongiaki projections rebuild --jobs`` does, and each one);
2. command → scoreboard visible: gunicorn (2 workers) with REDIS_URL and one
   ``tongiaki worker``; 8 concurrent bot clients as in bench/store.py; after a
   command returns version V, the client asks ``/scoreboard?min_version=V`` and
   records the time from the command's response to the scoreboard showing V;
3. state at a random version of a 500-event game (keyframes + fold), cold cache.

Everything runs in a throw-away schema and Redis queue, removed at the end.
"""

from __future__ import annotations

import argparse
import http.client
import os
import random
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from redis import Redis
from rq import Queue

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.figures import Figures  # noqa: E402
from bench.processes import profiled, stop  # noqa: E402
from bench.store import (  # noqa: E402
    bot_client,
    call,
    pct,
    service_env,
    spread,
    throwaway_schema,
    wait_until_serving,
)
from domain.serialization import encode  # noqa: E402
from domain.simulation import play  # noqa: E402
from projections.store import PROJECTIONS, ReadModels  # noqa: E402
from service.play.games import GameService  # noqa: E402
from service.store.base import CommandRecord, NewEvent  # noqa: E402
from service.store.postgres import PostgresEventStore  # noqa: E402


def load_games(store: PostgresEventStore, games: int) -> int:
    """Simulated 4-player games appended a few events per command; the event count."""
    total = 0
    for seed in range(games):
        events = play(10_000 + seed, 4).events
        version = 0
        for start in range(0, len(events), 3):
            new = []
            for e in events[start : start + 3]:
                body = encode(e)
                kind = body.pop("type")
                new.append(NewEvent(kind, body, {"actor": {"account": "bench"}}))
            record = CommandRecord(
                f"sim-{seed}", f"c{start}", {"account": "bench"}, "2026-11-22T00:00:00", {}, version
            )
            version = store.append(record, version, new, "playing").version
        total += len(events)
    return total


def catch_up(url: str, games: int, rounds: int, jobs: int, figures: Figures) -> None:
    store = PostgresEventStore(url)
    rm = ReadModels(store, store)
    rm.upgrade()
    events = load_games(store, games)
    print(f"catch-up: {games} games, {events:,} events in the store")
    rates = []
    for _ in range(rounds):
        rm._states.clear()
        started = time.perf_counter()
        rm.rebuild()
        rates.append(events / (time.perf_counter() - started))
    print(
        f"  all {len(PROJECTIONS)} projections cold: {spread(rates)} events/s "
        f"(every event folded by each projection; {rounds} rounds)"
    )
    figures.add("cold_all_events_per_s", rates, "events/s")
    if jobs > 1:
        from service.cli import rebuild_jobs  # (a commit before it is measured with --jobs 1)

        in_jobs = []
        for _ in range(rounds):
            started = time.perf_counter()
            rebuild_jobs.rebuild(rm, url, PROJECTIONS, rm.all_games(), jobs, lambda _n: None)
            in_jobs.append(events / (time.perf_counter() - started))
        print(f"  all in {jobs} processes (rebuild --jobs {jobs}): {spread(in_jobs)} events/s")
        figures.add(f"cold_all_{jobs}_jobs_events_per_s", in_jobs, "events/s")
    for name in PROJECTIONS:
        alone = []
        for _ in range(rounds):
            rm._states.clear()
            started = time.perf_counter()
            rm.rebuild((name,))
            alone.append(events / (time.perf_counter() - started))
        print(f"  {name:<12} alone: {spread(alone)} events/s")
        figures.add(f"cold_{name}_events_per_s", alone, "events/s")
    store.close()


def state_at(url: str, rounds: int) -> list[float]:
    store = PostgresEventStore(url)
    rm = ReadModels(store, store)
    rm.upgrade()  # (with --only state, no catch-up made the tables)
    game = play(2024, 6)
    while len(game.events) < 500:
        game = play(random.randrange(10**6), 6)
    version = 0
    for start in range(0, 500, 5):
        new = []
        for e in game.events[start : start + 5]:
            body = encode(e)
            kind = body.pop("type")
            new.append(NewEvent(kind, body, {"actor": {"account": "bench"}}))
        record = CommandRecord("long", f"c{start}", {}, "2026-11-22T00:00:00", {}, version)
        version = store.append(record, version, new, "playing").version
    rm.catch_up_game("long")
    times = []
    rng = random.Random(5)
    for _ in range(rounds):
        service = GameService(store)  # cold: no cached state
        service.repository.keyframes = rm.keyframe
        at = rng.randint(1, 500)
        started = time.perf_counter()
        service.load("long", at=at)
        times.append((time.perf_counter() - started) * 1000)
    store.close()
    return times


def scoreboard_check(seen: list[float]):  # type: ignore[no-untyped-def]
    """After a quarter of the commands: how long until the scoreboard shows them."""

    def check(
        conn: http.client.HTTPConnection, gid: str, body: dict[str, Any], rng: random.Random
    ) -> None:
        answered = time.perf_counter()
        if rng.random() >= 0.25:
            return
        status, board = call(conn, "GET", f"/games/{gid}/scoreboard?min_version={body['version']}")
        if status == 503:  # not visible within the server's wait (5 s)
            seen.append(float("inf"))
            return
        assert status == 200 and board["version"] >= body["version"], board
        seen.append((time.perf_counter() - answered) * 1000)

    return check


def visibility(
    url: str, redis_url: str, seconds: float, rq_workers: int
) -> tuple[float, list[float], int]:
    port, queue, env = service_env(url, redis_url)
    server = subprocess.Popen(
        profiled("web", [sys.executable, "-m", "service.cli", "serve", "--workers", "2"]),
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    log = open(os.environ.get("TONGIAKI_BENCH_WORKER_LOG", os.devnull), "w")  # noqa: SIM115
    workers = [
        subprocess.Popen(
            profiled(f"worker-{i}", [sys.executable, "-m", "service.cli", "worker"]),
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=log,
        )
        for i in range(rq_workers)
    ]
    try:
        wait_until_serving(port)
        time.sleep(3)  # both gunicorn workers up (see bench/store.py)
        seen: list[float] = []
        done: list[float] = []
        deadline = time.perf_counter() + seconds
        lock = threading.Lock()
        threads = [
            threading.Thread(
                target=bot_client, args=(port, deadline, done, lock, i, scoreboard_check(seen))
            )
            for i in range(8)
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        left = Queue(queue, connection=Redis.from_url(redis_url)).count
        return len(done) / seconds, seen, left
    finally:
        for p in (server, *workers):
            stop(p)
        Queue(queue, connection=Redis.from_url(redis_url)).empty()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--url", default="postgresql://postgres@127.0.0.1:5432/test")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/14")
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--workers", type=int, default=1, help="tongiaki worker processes")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of the cold catch-up")
    parser.add_argument(
        "--jobs", type=int, default=2, help="processes of the rebuild --jobs figure (1: none)"
    )
    parser.add_argument("--json", help="write the figures to this file (bench/figures.py)")
    parser.add_argument("--only", choices=("catch-up", "state", "visible"), help="one part only")
    args = parser.parse_args()
    figures = Figures("projections")
    with throwaway_schema(args.url) as url:
        print(f"PostgreSQL at {args.url}, Redis at {args.redis}, {os.cpu_count()} cores")
        if args.only in (None, "catch-up"):
            catch_up(url, args.games, args.rounds, args.jobs, figures)
        if args.only in (None, "state"):
            times = state_at(url, 300)
            print(
                "state at a random version of a 500-event game (keyframes + fold, cold): "
                f"median {statistics.median(times):.2f} ms, p99 {pct(times, 0.99):.2f} ms"
            )
            figures.add("state_at_median_ms", statistics.median(times), "ms", better="lower")
        if args.only in (None, "visible"):
            rate, seen, left = visibility(url, args.redis, args.seconds, args.workers)
            print(
                f"command → scoreboard visible at {rate:,.0f} commands/s (gunicorn 2 workers, "
                f"{args.workers} rq worker(s), 8 bot clients): "
                f"median {statistics.median(seen):.0f} ms, "
                f"p99 {pct(seen, 0.99):.0f} ms over {len(seen)} samples; "
                f"{left} jobs queued at the end"
            )
            figures.add("visible_commands_per_s", rate, "commands/s")
            figures.add("visible_p99_ms", pct(seen, 0.99), "ms", better="lower")
    figures.write(args.json)


if __name__ == "__main__":
    main()
