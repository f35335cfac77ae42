"""The transparency log's figures on the local PostgreSQL (issue 28; figures, not a test).

    python bench/log.py [--url postgresql://postgres@127.0.0.1:5432/test] [--seconds 5]
                        [--rounds 3] [--rate 1000] [--entries 1000000] [--requests 2000]

1. Command appends with the log on and off, in the same run, rounds alternating: "off"
   is the same schema with a ``tongiaki_append`` that writes no pending row. 1 writer,
   then 4 writer processes; the median of the rounds and the ratio.
2. Integration: writers paced at ``--rate`` commands per second in all, the integrator
   as a worker runs it (every 0.25 s); for every commit, the time from its
   acknowledgement to the first checkpoint whose tree holds its entry: p50, p99, max.
3. A log of ``--entries`` entries (built in bulk: the same tiles, entries and signed
   checkpoint the integrator would write), served by ``tongiaki serve`` (2 gevent
   workers): ``/log/checkpoint``, hash tiles, entry bundles and a game's proof, each
   p50 and p99 over ``--requests`` requests; and the bytes stored per entry.

Everything runs in throw-away schemas, dropped at the end.
"""

from __future__ import annotations

import argparse
import http.client
import multiprocessing
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import psycopg

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.store import (  # noqa: E402
    EVENT,
    call,
    free_port,
    pct,
    started_game,
    throwaway_schema,
    two_accounts,
    wait_until_serving,
)
from service.store.base import CommandRecord, NewEvent  # noqa: E402
from service.store.postgres import APPEND_FUNCTION, PostgresEventStore  # noqa: E402
from service.transparency.entries import HeadEntry  # noqa: E402
from service.transparency.integrator import Integrator, checkpoint_note  # noqa: E402
from service.transparency.merkle import leaf_hash  # noqa: E402
from service.transparency.notes import Signer  # noqa: E402
from service.transparency.tiled_tree import TiledTree  # noqa: E402
from service.transparency.tiles import WIDTH  # noqa: E402

COMMITMENT = "cd" * 32
NO_LOG = APPEND_FUNCTION.replace(
    "    INSERT INTO log_pending (stream, version, head)\n"
    "    VALUES ('game/' || p_game, p_new_version, p_new_hash);\n",
    "",
)


def created(game: str) -> NewEvent:
    return NewEvent("GameCreated", {"game_id": game, "deck_commitment": COMMITMENT}, {})


def writer(url: str, seconds: float, rate: float, out: Any) -> None:
    """Append 3-event commands to 50 games of its own for ``seconds`` (paced at ``rate``
    per second when given); puts (count, [(stream, version, acknowledged at)])."""
    store = PostgresEventStore(url, min_size=1, max_size=1)
    games = [f"g{os.getpid()}-{uuid.uuid4().hex[:6]}-{i}" for i in range(50)]
    versions = dict.fromkeys(games, 0)
    hashes = dict.fromkeys(games, "0" * 64)
    acked: list[tuple[str, int, float]] = []
    count = 0
    start = time.perf_counter()
    while (now := time.perf_counter()) < start + seconds:
        if rate and count > (now - start) * rate:
            time.sleep(0.001)
            continue
        game = games[count % len(games)]
        record = CommandRecord(game, uuid.uuid4().hex, {"account": "bench"}, "t", {}, None)
        first = [created(game)] if versions[game] == 0 else []
        new = [*first, *(NewEvent("BoatsAdded", EVENT, {"i": i}) for i in range(3 - len(first)))]
        done = store.append(record, versions[game], new, "playing", hashes[game])
        versions[game], hashes[game] = done.version, done.hash
        count += 1
        if rate:
            acked.append((f"game/{game}", done.version, time.time()))
    store.close()
    out.put((count, acked))


def run_writers(url: str, writers: int, seconds: float, rate: float = 0) -> list[Any]:
    queue: multiprocessing.Queue[Any] = multiprocessing.Queue()
    procs = [
        multiprocessing.Process(target=writer, args=(url, seconds, rate / writers, queue))
        for _ in range(writers)
    ]
    for p in procs:
        p.start()
    results = [queue.get() for _ in procs]
    for p in procs:
        p.join()
    return results


def appends(url: str, seconds: float, rounds: int) -> None:
    """Appends per second with the log on and off, rounds alternating."""
    with throwaway_schema(url) as on, throwaway_schema(url) as off:
        with psycopg.connect(off, autocommit=True) as conn:
            conn.execute(NO_LOG)
        for writers in (1, 4):
            rates: dict[str, list[float]] = {"on": [], "off": []}
            for _ in range(rounds):
                for name, where in (("off", off), ("on", on)):
                    done = run_writers(where, writers, seconds)
                    rates[name].append(sum(n for n, _ in done) / seconds)
            on_rate, off_rate = statistics.median(rates["on"]), statistics.median(rates["off"])
            print(
                f"appends, {writers} writer(s): log on {on_rate:,.0f}/s, off {off_rate:,.0f}/s"
                f" ({100 * on_rate / off_rate:.1f} % of off; rounds on"
                f" {', '.join(f'{r:,.0f}' for r in rates['on'])}, off"
                f" {', '.join(f'{r:,.0f}' for r in rates['off'])})"
            )


def integration(url: str, seconds: float, rate: float) -> None:
    """Acknowledgement to integration at ``rate`` commands per second."""
    signer = Signer.generate("bench/log")
    with throwaway_schema(url) as where:
        store = PostgresEventStore(where, max_size=2)
        seen: dict[int, float] = {}  # tree size → when it was first published
        stop = threading.Event()

        def integrate() -> None:
            integrator = Integrator(store.log, signer)
            while not stop.is_set():
                integrator.drain()
                seen.setdefault(store.log.log_head().size, time.time())
                stop.wait(0.25)

        thread = threading.Thread(target=integrate)
        thread.start()
        results = run_writers(where, 4, seconds, rate)
        time.sleep(1.5)
        stop.set()
        thread.join()
        index = {}
        with psycopg.connect(where) as conn:
            for stream, version, idx in conn.execute(
                "SELECT stream, version, idx FROM log_entries"
            ):
                index[(stream, version)] = idx
        sizes = sorted(seen)
        delays = []
        for _, acked in results:
            for stream, version, at in acked:
                idx = index[(stream, version)]
                first = next(s for s in sizes if s > idx)
                delays.append(max(0.0, seen[first] - at))
        count = sum(n for n, _ in results)
        store.close()
        print(f"  ({len(sizes)} checkpoints published)")
    print(
        f"integration at {count / seconds:,.0f} commands/s ({count:,} commits): ack → in a"
        f" checkpoint p50 {1000 * pct(delays, 0.5):.0f} ms, p99 {1000 * pct(delays, 0.99):.0f} ms,"
        f" max {1000 * max(delays):.0f} ms"
    )


def bulk_log(where: str, entries: int, signer: Signer) -> None:
    """``entries`` entries, their tiles and the signed checkpoint, written at once."""
    data = [HeadEntry(f"game/b{i}", 1, f"{i:064x}", COMMITMENT).data for i in range(entries)]
    tree = TiledTree(lambda level, index: b"", 0)
    tiles = tree.append([leaf_hash(d) for d in data])
    with psycopg.connect(where) as conn:
        with conn.cursor().copy(
            "COPY log_entries (idx, stream, version, entry) FROM STDIN"
        ) as copy:
            for i, d in enumerate(data):
                copy.write_row((i, f"game/b{i}", 1, d))
        with conn.cursor().copy("COPY log_tiles (level, idx, hashes) FROM STDIN") as copy:
            for (level, index), hashes in tiles.items():
                copy.write_row((level, index, hashes))
        note = checkpoint_note(signer, tree.size, tree.root())
        conn.execute(
            "INSERT INTO log_head (id, size, note, made_at) VALUES (1, %s, %s, %s)",
            (tree.size, note, time.time()),
        )
        conn.execute("ANALYZE log_entries")
        conn.execute("ANALYZE log_tiles")


def timed(port: int, paths: list[str], clients: int = 4) -> list[float]:
    """Each path GET once, by ``clients`` kept-alive connections: the latencies (ms)."""
    latencies: list[float] = []
    lock = threading.Lock()

    def client(mine: list[str]) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        for path in mine:
            began = time.perf_counter()
            conn.request("GET", path)
            response = conn.getresponse()
            response.read()
            assert response.status == 200, (path, response.status)
            with lock:
                latencies.append(1000 * (time.perf_counter() - began))
        conn.close()

    threads = [threading.Thread(target=client, args=(paths[i::clients],)) for i in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return latencies


def big_log(url: str, entries: int, requests: int) -> None:
    """Answers of a log of ``entries`` entries, and bytes per entry."""
    with tempfile.TemporaryDirectory() as tmp, throwaway_schema(url) as where:
        signer = Signer.generate("bench/log")
        key = Path(tmp) / "log.key"
        key.write_text(signer.text + "\n")
        began = time.perf_counter()
        bulk_log(where, entries, signer)
        print(f"a log of {entries:,} entries built in {time.perf_counter() - began:.0f} s")
        port = free_port()
        server = serve(where, key, tmp, port)
        try:
            answers(port, entries, requests)
        finally:
            server.terminate()
            server.wait(timeout=30)
        with psycopg.connect(where) as db:
            size, count = db.execute(
                "SELECT sum(pg_total_relation_size(c)), (SELECT count(*) FROM log_entries)"
                " FROM unnest(ARRAY['log_entries', 'log_tiles', 'log_head',"
                " 'log_pending']::regclass[]) AS c"
            ).fetchone() or (0, 1)
        print(
            f"  bytes stored per entry: {size / count:.0f} (tables and indexes, {count:,} entries)"
        )


def serve(where: str, key: Path, tmp: str, port: int) -> subprocess.Popen[bytes]:
    """``tongiaki serve --workers 2`` on the schema, inline (each web process integrates)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TONGIAKI_", "DATABASE_"))}
    env.pop("REDIS_URL", None)
    env.update(DATABASE_URL=where, TONGIAKI_LOG_KEY=str(key), TONGIAKI_RATE_LIMITS="off",
               TONGIAKI_DATA_DIR=tmp)  # fmt: skip
    with open(Path(tmp) / "serve.log", "ab") as log:
        server = subprocess.Popen(
            [sys.executable, "-m", "service.cli", "serve", "--workers", "2", "--port", str(port)],
            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
    wait_until_serving(port)
    return server


def answers(port: int, entries: int, requests: int) -> None:
    """p50 and p99 of each kind of answer, a real game's proof among them."""
    from service.transparency.tiles import Tile

    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    game, _ = started_game(conn, two_accounts(conn))  # its commits at the log's end
    head = call(conn, "GET", f"/games/{game}")[1]["version"]
    deadline = time.monotonic() + 30
    while call(conn, "GET", f"/games/{game}/proof?version={head}")[0] != 200:
        if time.monotonic() > deadline:
            raise SystemExit("the game's head was not integrated")
        time.sleep(0.1)
    rng = random.Random(1)
    full = entries // WIDTH
    level1 = [f"/log/{Tile(1, rng.randrange(full // WIDTH)).path}" for _ in range(requests)]
    kinds = {
        "checkpoint": ["/log/checkpoint"] * requests,
        "hash tile (level 0)": [
            f"/log/{Tile(0, rng.randrange(full)).path}" for _ in range(requests)
        ],
        "hash tile (level 1)": level1 if full >= WIDTH else [],
        "entry bundle": [f"/log/{Tile(None, rng.randrange(full)).path}" for _ in range(requests)],
        "a game's proof": [f"/api/v1/games/{game}/proof?version={head}"] * requests,
    }
    for name, paths in kinds.items():
        if not paths:  # no full tile at that level in a log this small
            continue
        timed(port, paths[:50])  # warm
        ms = timed(port, paths)
        print(f"  {name:22} p50 {pct(ms, 0.5):.2f} ms, p99 {pct(ms, 0.99):.2f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--url", default="postgresql://postgres@127.0.0.1:5432/test")
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--rate", type=float, default=1000.0)
    parser.add_argument("--entries", type=int, default=1_000_000)
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--only", choices=["appends", "integration", "served"], default=None)
    args = parser.parse_args()
    if args.only in (None, "appends"):
        appends(args.url, args.seconds, args.rounds)
    if args.only in (None, "integration"):
        integration(args.url, max(args.seconds, 10.0), args.rate)
    if args.only in (None, "served"):
        big_log(args.url, args.entries, args.requests)


if __name__ == "__main__":
    main()
