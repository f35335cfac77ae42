"""Live streams under a crowd of viewers while bots play (figures, not a test).

    python bench/streams.py [--subscribers 5000] [--games 1] [--seconds 30] [--embedded]
                            [--json FILE]

Starts the production setting (``tongiaki serve --workers 2``: gevent workers, on
a throw-away PostgreSQL schema, Redis db 13, one ``tongiaki worker``), or with
``--embedded`` the embedded default (``tongiaki serve``: one process, SQLite,
inline projections), then:

1. opens ``--subscribers`` live streams (``GET /games/{id}/stream``), spread evenly
   over ``--games`` watched games, from ``--clients`` viewer processes (asyncio);
2. for ``--seconds``: 8 bot players play their own games as fast as the service
   answers (one request per move: ``?include=legal``), a pacer makes one move
   every ``--pace`` seconds (1) on the watched games in turn, and a prober asks ``/lobby`` every
   200 ms;
3. reports: the time from the pacer sending a move to each viewer receiving each
   of its events (p50, p99, max; and deliveries missing), the bots' commands per
   second and latency, the lobby's latency, the web processes' memory and file
   handles before the streams, with them open, and after they closed.

A delivery is timed from the moment the pacer *sends* its move (wall clock, the
same machine), so each figure includes that command's own latency.
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import multiprocessing
import os
import random
import re
import subprocess
import sys
import tempfile
import threading
import time
from multiprocessing.synchronize import Event as MpEvent
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.figures import Figures  # noqa: E402
from bench.soak.stack import children  # noqa: E402
from bench.store import (  # noqa: E402
    bot_client,
    call,
    free_port,
    pct,
    started_game,
    throwaway_schema,
    two_accounts,
    wait_until_serving,
)
from service.transparency.notes import Signer  # noqa: E402

REDIS = "redis://127.0.0.1:6379/13"


def footprint(pids: list[int]) -> tuple[int, int]:
    """Resident memory (KiB) and open file descriptors, added up over ``pids``."""
    rss = fds = 0
    for pid in pids:
        try:
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    rss += int(line.split()[1])
            fds += len(os.listdir(f"/proc/{pid}/fd"))
        except OSError:
            pass
    return rss, fds


ID = re.compile(rb"\nid: (\d+)\n")


class Stream(asyncio.Protocol):
    """One viewer, as lean as a client can be: each event's id is found in the bytes as
    they arrive (the frames' chunked framing left in place) and time-stamped."""

    def __init__(
        self, path: str, arrivals: dict[str, list[float]], opened: asyncio.Future[int]
    ) -> None:
        self.path = path
        self.arrivals = arrivals
        self.opened = opened
        self.head = b""
        self.tail = b"\n"
        self.status = 0
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        request = f"GET {self.path}?timeout=3600 HTTP/1.1\r\nHost: x\r\n\r\n"
        transport.write(request.encode())  # type: ignore[attr-defined]

    def data_received(self, data: bytes) -> None:
        now = time.time()
        if not self.status:
            self.head += data
            if b"\r\n\r\n" not in self.head:
                return
            head, _, data = self.head.partition(b"\r\n\r\n")
            self.status = int(head.split()[1])
            if not self.opened.done():
                self.opened.set_result(self.status)
            if self.status != 200:
                assert self.transport is not None
                self.transport.close()
                return
        buffer = self.tail + data
        cut = buffer.rfind(b"\n\n")
        if cut < 0:
            self.tail = buffer
            return
        for match in ID.finditer(buffer, 0, cut + 2):
            self.arrivals.setdefault(f"{self.path}|{int(match[1])}", []).append(now)
        self.tail = buffer[cut + 1 :]

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.opened.done():
            self.opened.set_result(self.status or 599)


def viewers_process(
    port: int,
    paths: list[str],
    ready: multiprocessing.Queue[Any],
    go: MpEvent,
    out: multiprocessing.Queue[Any],
) -> None:
    """One viewer process: open every stream of ``paths``, say so, keep them until told,
    then send back {"path|version": [arrival wall times]}."""
    import resource

    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))

    async def main() -> None:
        loop = asyncio.get_running_loop()
        arrivals: dict[str, list[float]] = {}
        opening = asyncio.Semaphore(200)
        streams: list[Stream] = []

        async def one(path: str) -> int:
            async with opening:
                opened = loop.create_future()
                stream = Stream(path, arrivals, opened)
                streams.append(stream)
                await loop.create_connection(lambda: stream, "127.0.0.1", port)
                status: int = await opened
                return status

        statuses: dict[int, int] = {}
        for status in await asyncio.gather(*(one(p) for p in paths)):
            statuses[status] = statuses.get(status, 0) + 1
        ready.put(statuses)
        await loop.run_in_executor(None, go.wait)
        for stream in streams:
            if stream.transport is not None:
                stream.transport.close()
        out.put(arrivals)

    asyncio.run(main())


def settled(pids: list[int], fds: int, limit: float = 30.0) -> tuple[tuple[int, int], float]:
    """The footprint once the file handles are back within 50 of ``fds`` (a stream whose
    viewer left is noticed at its next wake-up, within 5 s), and how long that took."""
    began = time.monotonic()
    while True:
        now = footprint(pids)
        if now[1] <= fds + 50 or time.monotonic() - began > limit:
            time.sleep(1)
            return footprint(pids), time.monotonic() - began - 1
        time.sleep(0.25)


class Crowd:
    """``paths`` opened as live streams from ``clients`` viewer processes."""

    def __init__(self, port: int, paths: list[str], clients: int) -> None:
        ctx = multiprocessing.get_context("fork")
        self.out: multiprocessing.Queue[Any] = ctx.Queue()
        ready: multiprocessing.Queue[Any] = ctx.Queue()
        self.go = ctx.Event()
        shares = [paths[i::clients] for i in range(clients)]
        self.processes = [
            ctx.Process(target=viewers_process, args=(port, share, ready, self.go, self.out))
            for share in shares
        ]
        began = time.monotonic()
        for p in self.processes:
            p.start()
        self.statuses: dict[int, int] = {}
        for _ in self.processes:
            for status, n in ready.get(timeout=600).items():
                self.statuses[status] = self.statuses.get(status, 0) + n
        self.opening = time.monotonic() - began

    def close(self) -> dict[str, list[float]]:
        """Close every stream; what each received: "path|version" -> arrival times."""
        self.go.set()
        arrivals: dict[str, list[float]] = {}
        for _ in self.processes:
            for key, times in self.out.get(timeout=600).items():
                arrivals.setdefault(key, []).extend(times)
        for p in self.processes:
            p.join(timeout=60)
        return arrivals


def new_game(port: int) -> tuple[str, dict[str, str], dict[str, Any]]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    tokens = two_accounts(conn)
    gid, body = started_game(conn, tokens, "?include=legal")
    return gid, tokens, body["legal"]


def pacer(
    port: int,
    games: list[str],
    tokens: dict[str, dict[str, str]],
    legal: dict[str, dict[str, Any]],
    until: float,
    every: float,
    sent: dict[tuple[str, int], float],
) -> None:
    """One move every ``every`` seconds on the watched games in turn: (game, version) ->
    the wall time the move was sent, for each event it made."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    rng = random.Random(7)
    turn = 0
    while time.monotonic() < until:
        began = time.monotonic()
        gid = games[turn % len(games)]
        turn += 1
        options = legal[gid]
        if options["decision"] is None:  # this game is over (its viewers' streams ended)
            time.sleep(every)
            continue
        at = time.time()
        status, body = call(
            conn,
            "POST",
            f"/games/{gid}/commands?include=legal",
            rng.choice(options["commands"]),
            tokens[gid][options["player_id"]],
            {"If-Match": f'"{options["version"]}"'},
        )
        if status == 200:
            for version in range(options["version"] + 1, body["version"] + 1):
                sent[(gid, version)] = at
            legal[gid] = body["legal"]
        time.sleep(max(0.0, every - (time.monotonic() - began)))


def bots_process(port: int, seconds: float, bots: int, results) -> None:  # type: ignore[no-untyped-def]
    latencies: list[float] = []
    lock = threading.Lock()
    deadline = time.perf_counter() + seconds
    threads = [
        threading.Thread(target=bot_client, args=(port, deadline, latencies, lock, 100 + i))
        for i in range(bots)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    results.put(("bots", latencies))


def lobby_process(port: int, seconds: float, results) -> None:  # type: ignore[no-untyped-def]
    latencies: list[float] = []
    lobby_prober(port, time.monotonic() + seconds, latencies)
    results.put(("lobby", latencies))


def lobby_prober(port: int, until: float, latencies: list[float]) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    while time.monotonic() < until:
        began = time.perf_counter()
        conn.request("GET", "/api/v1/lobby")
        response = conn.getresponse()
        response.read()
        latencies.append((time.perf_counter() - began) * 1000)
        time.sleep(0.2)


def start_service(args: argparse.Namespace, url: str | None, tmp: str) -> tuple[list[Any], int]:
    port = free_port()
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("TONGIAKI_", "DATABASE_", "REDIS_"))
    }
    env.update(
        TONGIAKI_PORT=str(port),
        TONGIAKI_RATE_LIMITS="off",
        TONGIAKI_STREAMS_PER_CLIENT="0",  # every viewer comes from 127.0.0.1 here
        TONGIAKI_CONNECTIONS_PER_CLIENT="0",
        TONGIAKI_DATA_DIR=tmp,
        TONGIAKI_LOG_KEY=str(Path(tmp) / "log.key"),
    )
    Path(env["TONGIAKI_LOG_KEY"]).write_text(Signer.generate("bench/log").text + "\n")
    processes = []
    log = open(Path(tmp) / "service.log", "ab")  # noqa: SIM115
    if args.embedded:
        serve = [sys.executable, "-m", "service.cli", "serve"]
    else:
        queue = f"bench-streams-{os.getpid()}"
        env.update(DATABASE_URL=url or "", REDIS_URL=REDIS, TONGIAKI_QUEUE=queue)
        serve = [sys.executable, "-m", "service.cli", "serve", "--workers", "2"]
        worker = [sys.executable, "-m", "service.cli", "worker"]
        processes.append(subprocess.Popen(worker, cwd=ROOT, env=env, stdout=log, stderr=log))
    processes.insert(0, subprocess.Popen(serve, cwd=ROOT, env=env, stdout=log, stderr=log))
    wait_until_serving(port)
    time.sleep(3)  # every gunicorn worker booted
    return processes, port


def run(args: argparse.Namespace, url: str | None, figures: Figures) -> None:
    tmp = tempfile.mkdtemp(prefix="bench-streams-")
    processes, port = start_service(args, url, tmp)
    server = processes[0]
    web = [server.pid] if args.embedded else children(server.pid)
    try:
        games: list[str] = []
        tokens: dict[str, dict[str, str]] = {}
        legal: dict[str, dict[str, Any]] = {}
        for _ in range(args.games):
            gid, seat_tokens, options = new_game(port)
            games.append(gid)
            tokens[gid] = seat_tokens
            legal[gid] = options
        paths = [f"/api/v1/games/{games[i % len(games)]}/stream" for i in range(args.subscribers)]
        # 1. memory: the crowd opens and leaves, nothing else happening
        before = footprint(web)
        crowd = Crowd(port, paths, args.clients)
        time.sleep(2)
        held = footprint(web)
        crowd.close()
        left, left_in = settled(web, before[1])
        # 2. delivery: the crowd again, while the bots play
        crowd = Crowd(port, paths, args.clients)
        sent, commands, lobby = play_watched(args, port, games, tokens, legal)
        time.sleep(2)  # the last deliveries
        arrivals = crowd.close()
        after, after_in = settled(web, before[1])
        delays, missing = print_delivery(args, games, paths, crowd, sent, arrivals)
        print_load(args, commands, lobby)
        per_stream = (held[0] - before[0]) * 1024 / max(1, args.subscribers)
        if delays:
            figures.add("delivery_p50_ms", pct(delays, 0.5), "ms", better="lower")
            figures.add("delivery_p99_ms", pct(delays, 0.99), "ms", better="lower")
        figures.add("deliveries_missing", missing, "deliveries", better="lower")
        figures.add("commands_per_s", len(commands) / args.seconds, "commands/s")
        figures.add("memory_per_stream_kib", per_stream / 1024, "KiB", better="lower")
        print(
            f"  web processes, the crowd alone: RSS {before[0] / 1024:.0f} MiB -> "
            f"{held[0] / 1024:.0f} MiB with the streams open ({per_stream / 1024:.1f} KiB per "
            f"stream) -> {left[0] / 1024:.0f} MiB after they closed; file handles {before[1]} -> "
            f"{held[1]} -> {left[1]} ({left_in:.1f} s after the viewers left); after the second "
            f"crowd and the bots: RSS {after[0] / 1024:.0f} MiB, file handles {after[1]} "
            f"({after_in:.1f} s after)"
        )
    finally:
        stop(processes)


def play_watched(
    args: argparse.Namespace,
    port: int,
    games: list[str],
    tokens: dict[str, dict[str, str]],
    legal: dict[str, dict[str, Any]],
) -> tuple[dict[tuple[str, int], float], list[float], list[float]]:
    """For ``--seconds``, the pacer's moves on the watched games while the bots play and
    the lobby is probed, each in a process of its own (in this one, their threads and
    the pacer would wait for each other's turn at the GIL, and count it as latency):
    when each paced event was sent, the bots' command latencies and the lobby's."""
    until = time.monotonic() + args.seconds
    sent: dict[tuple[str, int], float] = {}
    lobby: list[float] = []
    commands: list[float] = []
    ctx = multiprocessing.get_context("fork")
    results: multiprocessing.Queue[Any] = ctx.Queue()
    others = [
        ctx.Process(target=bots_process, args=(port, args.seconds, args.bots, results)),
        ctx.Process(target=lobby_process, args=(port, args.seconds, results)),
    ]
    for p in others:
        p.start()
    pacer(port, games, tokens, legal, until, args.pace, sent)
    for _ in others:
        kind, values = results.get(timeout=600)
        (commands if kind == "bots" else lobby).extend(values)
    for p in others:
        p.join(timeout=60)
    return sent, commands, lobby


def print_delivery(
    args: argparse.Namespace,
    games: list[str],
    paths: list[str],
    crowd: Crowd,
    sent: dict[tuple[str, int], float],
    arrivals: dict[str, list[float]],
) -> tuple[list[float], int]:
    """From the pacer sending each move to each viewer of its game receiving each of its
    events; the deliveries that never came (both returned: the delays in ms, missing)."""
    per_game = {g: paths.count(f"/api/v1/games/{g}/stream") for g in games}
    delays: list[float] = []
    missing = 0
    for (gid, version), at in sent.items():
        got = arrivals.get(f"/api/v1/games/{gid}/stream|{version}", [])
        delays.extend((t - at) * 1000 for t in got)
        missing += per_game[gid] - len(got)
    if not delays:
        print(
            f"  (no delivery measured: {len(sent)} paced events, {len(arrivals)} received:"
            f" {list(sent)[:2]} {list(arrivals)[:2]})"
        )
    where = "embedded (1 process, SQLite)" if args.embedded else "gunicorn 2 gevent workers"
    print(
        f"{where}: {args.subscribers:,} streams on {args.games} game(s), from "
        f"{args.clients} viewer processes; opened in {crowd.opening:.1f} s: {crowd.statuses}"
    )
    if delays:
        print(
            f"  delivery (move sent -> event at a viewer): {len(delays):,} deliveries of "
            f"{len(sent):,} events, p50 {pct(delays, 0.5):.0f} ms, "
            f"p99 {pct(delays, 0.99):.0f} ms, max {max(delays):.0f} ms; missing {missing}"
        )
    return delays, missing


def print_load(args: argparse.Namespace, commands: list[float], lobby: list[float]) -> None:
    """The bots' commands and the lobby's answers meanwhile."""
    rate = len(commands) / args.seconds
    commands = commands or [0.0]
    print(
        f"  {args.bots} bots: {rate:,.0f} commands/s, p50 {pct(commands, 0.5):.1f} ms, "
        f"p99 {pct(commands, 0.99):.1f} ms"
    )
    print(
        f"  lobby: {len(lobby)} requests, p50 {pct(lobby, 0.5):.1f} ms, "
        f"p99 {pct(lobby, 0.99):.1f} ms, max {max(lobby):.1f} ms"
    )


def stop(processes: list[Any]) -> None:
    """Terminate the service's processes (kill one that does not end within 20 s)."""
    for p in processes:
        p.terminate()
    for p in processes:
        try:
            p.wait(timeout=20)
        except subprocess.TimeoutExpired:
            p.kill()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--subscribers", type=int, default=5000)
    parser.add_argument("--games", type=int, default=1, help="watched games")
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--bots", type=int, default=8)
    parser.add_argument("--pace", type=float, default=1.0, help="seconds between paced moves")
    parser.add_argument("--clients", type=int, default=2, help="viewer processes")
    parser.add_argument("--embedded", action="store_true")
    parser.add_argument("--url", default="postgresql://postgres@127.0.0.1:5432/test")
    parser.add_argument("--json", help="write the figures to this file (bench/figures.py)")
    args = parser.parse_args()
    print(f"{os.cpu_count()} cores; Python {sys.version.split()[0]}")
    figures = Figures("streams-embedded" if args.embedded else "streams")
    if args.embedded:
        run(args, None, figures)
    else:
        with throwaway_schema(args.url) as url:
            run(args, url, figures)
    figures.write(args.json)


if __name__ == "__main__":
    main()
