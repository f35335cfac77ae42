"""The run: the stack started, every client for ``--minutes`` with the worker killed
on the way, everything read back and reported, everything removed at the end."""

from __future__ import annotations

import argparse
import shutil
import signal
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from pathlib import Path
from typing import Any

import bench.soak
from bench.soak.api import Client
from bench.soak.checks import after_traffic
from bench.soak.disputer import Disputer
from bench.soak.figures import Figures, cpu_ticks
from bench.soak.fuzzer import Fuzzer
from bench.soak.games import Context, Registry
from bench.soak.keeper import Keeper
from bench.soak.leaguer import Leaguer
from bench.soak.negotiator import Negotiator
from bench.soak.players import Bot, Sleeper
from bench.soak.report import counts, report
from bench.soak.spectator import Spectator
from bench.soak.stack import Stack, clean_redis
from bench.soak.stats import Stats
from bench.store import throwaway_schema

KILL_AT = 0.4  # the worker is killed at this fraction of the run


def run_traffic(
    args: argparse.Namespace, stack: Stack, ctx: Context, figures: Figures
) -> tuple[float, list[str]]:
    """Every client for ``--minutes``; figures after a warm-up and at the end; the
    worker killed at ``KILL_AT``. The seconds of traffic and what happened when."""
    clients: list[Client] = [
        *(Bot(ctx, args.seed * 1000 + i) for i in range(args.bots)),
        *(Sleeper(ctx, args.seed * 1000 + 400 + i) for i in range(args.sleepers)),
        *(Spectator(ctx, args.seed * 1000 + 100 + i) for i in range(args.spectators)),
        *(Fuzzer(ctx, args.seed * 1000 + 200 + i) for i in range(args.fuzzers)),
        *(Keeper(ctx, args.seed * 1000 + 500 + i) for i in range(args.keepers)),
        *(Negotiator(ctx, args.seed * 1000 + 600 + i) for i in range(args.negotiators)),
        *(Leaguer(ctx, args.seed * 1000 + 700 + i) for i in range(args.leaguers)),
    ]
    if args.disputers:
        auditor = stack.auditor_token()
        clients += [
            Disputer(ctx, args.seed * 1000 + 300 + i, auditor) for i in range(args.disputers)
        ]
    threads = [
        threading.Thread(target=c.run, name=f"{c.kind}-{i}", daemon=True)
        for i, c in enumerate(clients)
    ]
    duration = args.minutes * 60
    started = time.monotonic()

    def until(second: float) -> None:
        time.sleep(max(0.0, started + second - time.monotonic()))

    notes = []
    cpu, host = time.process_time(), cpu_ticks()
    for t in threads:
        t.start()
    try:
        until(min(15.0, 0.2 * duration))
        figures.take("warm", stack)
        until(KILL_AT * duration)
        notes += replace_worker(stack, figures, started, duration)
        until(duration)
        figures.take("end", stack)
    finally:
        seconds = time.monotonic() - started
        ctx.stats.client_cpu = time.process_time() - cpu
        busy, total = (now - then for now, then in zip(cpu_ticks(), host, strict=True))
        ctx.stats.host_busy = busy / max(total, 1)
        ctx.stop.set()
        for t in threads:
            t.join(timeout=30)
        ctx.stats.ended = time.monotonic()
    return seconds, notes


def replace_worker(stack: Stack, figures: Figures, started: float, duration: float) -> list[str]:
    """SIGKILL the worker's group; start new ones until one works or the traffic ends."""
    old = stack.worker
    stack.kill_worker()
    killed_at = time.monotonic() - started
    notes = [f"{old.role} (pid {old.pid}) killed (SIGKILL to its group) at {killed_at:.1f} s"]
    while (new := stack.start_worker()) is None:
        if time.monotonic() - started > duration - 5:
            notes.append("no new worker would start during the traffic: trying again after it")
            return notes
        time.sleep(2)
    up = time.monotonic() - started
    notes.append(
        f"{new.role} (pid {new.pid}) working at {up:.1f} s: read models without a worker"
        f" for {up - killed_at:.1f} s"
    )
    if up + 10 < duration:
        time.sleep(5)
        figures.take("warm", stack)  # the new worker's, 5 s after it started
    return notes


def soak(args: argparse.Namespace, stack: Stack) -> int:
    stats = Stats()
    ctx = Context(
        stack.ports, stats, Registry(), threading.Event(), threading.BoundedSemaphore(args.streams)
    )
    figures = Figures()
    try:
        seconds, notes = run_traffic(args, stack, ctx, figures)
    finally:
        ctx.stop.set()
    if not stack.worker_alive:
        new = stack.start_worker(attempts=5)
        if new is not None:
            notes.append(f"{new.role} (pid {new.pid}) working after the traffic")
    after = after_traffic(args.seed, args.catch_up, stack.ports, ctx)
    figures.take("idle", stack)
    reasons = report(stats, seconds, notes, stack.failed_starts, figures, after)
    tracebacks = stack.tracebacks()
    print(f"  server logs       tracebacks: {counts(Counter(tracebacks))} (logs in {stack.tmp})")
    if sum(tracebacks.values()):  # an error a client never saw is still an error
        reasons.append(f"{sum(tracebacks.values())} tracebacks in the service's logs")
    print(f"result: {'FAIL: ' + '; '.join(reasons) if reasons else 'OK'}")
    return 1 if reasons else 0


def interrupted(signum: int, frame: Any) -> None:
    """The first Ctrl-C (or SIGTERM) stops the run; later ones cannot stop the cleanup."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    raise KeyboardInterrupt


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m bench.soak",
        description=bench.soak.__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--minutes", type=float, required=True, help="of traffic (e.g. 0.5)")
    parser.add_argument("--url", default="postgresql://postgres@127.0.0.1:5432/test")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/13")
    parser.add_argument("--web", type=int, default=2, help="gunicorn processes")
    parser.add_argument("--bots", type=int, default=8)
    parser.add_argument(
        "--sleepers", type=int, default=2, help="players of timed games whose partner never plays"
    )
    parser.add_argument("--spectators", type=int, default=16)
    parser.add_argument("--streams", type=int, default=16, help="SSE streams held at once")
    parser.add_argument("--fuzzers", type=int, default=2)
    parser.add_argument(
        "--disputers", type=int, default=1, help="players disputing finished games, and an auditor"
    )
    parser.add_argument(
        "--keepers", type=int, default=2, help="people signing in, making and revoking tokens"
    )
    parser.add_argument(
        "--negotiators",
        type=int,
        default=2,
        help="players taking back moves and ending games by agreement",
    )
    parser.add_argument(
        "--leaguers",
        type=int,
        default=1,
        help="players of leagues whose rounds open by themselves, and of their rematches",
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--catch-up", type=float, default=120.0, help="seconds the read models get to catch up"
    )
    args = parser.parse_args()
    if args.minutes <= 0 or args.web < 1 or args.streams < 1:
        parser.error("--minutes must be above 0, --web and --streams at least 1")
    return args


def main() -> int:
    args = parse_args()
    signal.signal(signal.SIGINT, interrupted)
    signal.signal(signal.SIGTERM, interrupted)
    queue = f"soak-{uuid.uuid4().hex[:8]}"
    tmp = Path(tempfile.mkdtemp(prefix="tongiaki-soak-"))
    code = 1
    try:
        with throwaway_schema(args.url) as url:
            schema = url.rsplit("%3D", 1)[-1]
            stack = Stack(url, args.redis, queue, tmp, args.web)
            print(
                f"soak: {args.minutes:g} min on {args.web} gunicorn processes (1 gevent worker"
                f" each) and 1 rq worker; PostgreSQL schema {schema},"
                f" Redis {args.redis} queue {queue}; {args.bots} bots, {args.spectators}"
                f" spectators (≤ {args.streams} streams at once), {args.fuzzers} fuzzers,"
                f" seed {args.seed}",
                flush=True,
            )
            try:
                stack.start()
                code = soak(args, stack)
            finally:
                stack.stop()
    except KeyboardInterrupt:
        print("interrupted: cleaning up", file=sys.stderr)
        code = 130
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        deleted = clean_redis(args.redis, queue)
        print(f"cleaned up: schema dropped, {deleted} Redis keys of queue {queue} deleted")
        if code == 0:
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            print(f"service logs kept in {tmp}")
    return code
