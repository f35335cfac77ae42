"""Failover under play: ``kill -9`` the primary's postmaster, promote the standby.

    .venv/bin/python -m bench.failover [--bots 8] [--before 10] [--after 10]
        [--mode sync,async] [--feed listen] [--redis redis://127.0.0.1:6379/7]
        [--dir /tmp/tongiaki-failover] [--port 5470] [--json FILE]

For each mode, a primary and a standby made by ``deploy/replication.py`` (``sync``:
the standby named in ``synchronous_standby_names``; ``async``: none), two gunicorn web
processes and an rq worker on the multi-host URL (``target_session_attrs=read-write``),
``--bots`` bots each playing its own game through both web processes (a 503 is retried
with the same ``Idempotency-Key`` after its ``Retry-After``, at most 1 s here) and a
viewer following each game's stream. After ``--before`` seconds the primary's
postmaster gets SIGKILL and the standby is promoted at once (the operator's
``deploy/replication.py promote``); play goes on for ``--after`` seconds. Then, read
from the new primary: every command acknowledged (its receipt's version and hash) is
there or is counted lost, every game verifies, every viewer got every version once.

Figures: commands acknowledged, lost, the seconds from the promotion to the first
command accepted and to every bot accepted again, 503 and 5xx answers, the viewers'
gaps, and (async) how far the standby was behind the primary while it ran: the loss
window. What ``sync`` costs (commands per second before the kill) is printed beside.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import shutil
import subprocess
import sys
import threading
import time
import uuid
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from bench.client import Http
from bench.failover_clients import Bot, Lag, Tally, Viewer
from bench.soak.stack import ROOT, Stack, clean_redis

PAIR = [sys.executable, str(ROOT / "deploy" / "replication.py")]


def pair(action: str, root: Path, *args: str) -> str:
    """``deploy/replication.py ACTION --dir ROOT ARGS``; what it printed."""
    done = subprocess.run(
        [*PAIR, action, "--dir", str(root), *args],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    if done.returncode != 0:
        raise RuntimeError(f"replication.py {action}: {done.stdout}{done.stderr}")
    return done.stdout.strip()


@dataclass
class Figures:
    mode: str
    feed: str
    bots: int
    games: int
    acked: int
    acked_before_kill: int
    lost: int
    lost_before_kill: int
    commands_per_s_before: float
    promote_s: float
    first_accepted_s: float  # after the promotion
    all_bots_back_s: float
    answers: dict[str, int]  # to commands, by status
    other_answers: dict[str, int]  # to the bots' other requests (legal, games, seats…)
    refused_connections: int
    verified: int
    not_verified: list[str]
    viewers_complete: int
    viewer_gaps: int
    viewer_repeats: int
    viewer_reconnects: int
    scoreboards_level: int  # games whose scoreboard (the worker's) reached their head
    replica: bool  # the read side on the standby (DATABASE_REPLICA_URL)
    reads_checked: int  # reads of what was just acknowledged that answered
    stale_reads: list[str]  # those that showed less than was acknowledged
    lag: dict[str, Any]


def drill(args: argparse.Namespace, mode: str) -> Figures:
    root = Path(args.dir) / mode
    shutil.rmtree(root, ignore_errors=True)
    pair("up", root, "--port", str(args.port), *(["--async"] if mode == "async" else []))
    try:
        return served(args, mode, root)
    finally:
        with contextlib.suppress(RuntimeError):
            pair("down", root)


def served(args: argparse.Namespace, mode: str, root: Path) -> Figures:
    """The drill on the pair under ``root``: the stack started, played, judged, stopped."""
    url = pair("url", root)
    primary_url = f"postgresql://postgres@127.0.0.1:{args.port}/tongiaki"
    queue = f"failover-{mode}-{uuid.uuid4().hex[:6]}"
    (root / "stack").mkdir(parents=True, exist_ok=True)
    stack = Stack(url, args.redis, queue, root / "stack", web=2)
    if args.replica:  # the standby while there is one, then the new primary
        stack.env["DATABASE_REPLICA_URL"] = pair("url", root, "--replica")
    stack.env.update(
        TONGIAKI_CHANGE_FEED=args.feed,
        TONGIAKI_STREAM_HEARTBEAT="2",
        TONGIAKI_FEED_POLL="600",  # the viewers get their moves by the listener or not at all
    )
    try:
        stack.start()
        return play_through(args, mode, root, stack, primary_url)
    finally:
        stack.stop()
        clean_redis(args.redis, queue)


def play_through(
    args: argparse.Namespace, mode: str, root: Path, stack: Stack, primary_url: str
) -> Figures:
    tally, stop, watching, unwatch = (
        Tally(),
        threading.Event(),
        threading.Event(),
        threading.Event(),
    )
    bots = [Bot(stack.ports, tally, i, stop) for i in range(args.bots)]
    for bot in bots:
        bot.start()
    lag = Lag()
    sampler = threading.Thread(target=lag.sample, args=(primary_url, watching), daemon=True)
    sampler.start()
    viewers: dict[str, Viewer] = {}
    began = time.monotonic()
    while time.monotonic() - began < args.before:
        follow(viewers, tally, stack.ports, unwatch)
        time.sleep(0.1)
    pair("kill-primary", root)
    killed_at = promoting = time.monotonic()  # whatever was acknowledged by now, it acked
    pair("promote", root)
    promoted = time.monotonic()
    watching.set()
    while time.monotonic() - promoted < args.after:
        follow(viewers, tally, stack.ports, unwatch)
        time.sleep(0.1)
    stop.set()
    for bot in bots:
        bot.join(60)
    follow(viewers, tally, stack.ports, unwatch)
    try:
        run = Run(args, mode, tally, viewers, stack, began, killed_at, promoting, promoted)
        return judged(run, lag)
    finally:
        unwatch.set()


@dataclass
class Run:
    args: argparse.Namespace
    mode: str
    tally: Tally
    viewers: dict[str, Viewer]
    stack: Stack
    began: float
    killed_at: float
    promoting: float
    promoted: float


def events_of(http: Http, gid: str) -> dict[int, str]:
    """Every event of the game, read page by page from the (new) primary: version → hash."""
    found: dict[int, str] = {}
    while True:
        page = http.call("GET", f"/games/{gid}/events?after={len(found)}&limit=500")
        if page.status != 200:
            raise RuntimeError(f"events of {gid}: {page.status} {page.json}")
        for event in page.json["events"]:
            found[event["version"]] = event["hash"]
        if len(page.json["events"]) < 500:
            return found


def judged(run: Run, lag: Lag) -> Figures:
    http = Http(run.stack.ports[0], timeout=60)
    tally = run.tally
    record = {gid: events_of(http, gid) for gid in tally.games}
    lost = [a for a in tally.acked if record.get(a[1], {}).get(a[2]) != a[3]]
    before = [a for a in tally.acked if a[4] < run.killed_at]
    after = [a for a in tally.acked if a[4] > run.promoted]
    back: dict[int, float] = {}
    for bot, _, _, _, t in after:
        back.setdefault(bot, t - run.promoted)
    not_verified = [
        gid
        for gid in tally.games
        if http.call("GET", f"/games/{gid}/verify").json.get("ok") is not True
    ]
    complete, gaps, repeats = watched(run.viewers, record)
    level = sum(levelled(http, gid, len(events)) for gid, events in record.items())
    return Figures(
        mode=run.mode,
        feed=run.args.feed,
        bots=run.args.bots,
        games=len(tally.games),
        acked=len(tally.acked),
        acked_before_kill=len(before),
        lost=len(lost),
        lost_before_kill=len([a for a in lost if a[4] < run.killed_at]),
        commands_per_s_before=round(len(before) / (run.killed_at - run.began), 1),
        promote_s=round(run.promoted - run.promoting, 2),
        first_accepted_s=round(min(back.values()), 2) if back else -1.0,
        all_bots_back_s=round(max(back.values()), 2) if len(back) == run.args.bots else -1.0,
        answers={str(k): v for k, v in sorted(tally.statuses.items())},
        other_answers={str(k): v for k, v in sorted(tally.reads.items())},
        refused_connections=tally.refused,
        verified=len(tally.games) - len(not_verified),
        not_verified=not_verified,
        viewers_complete=complete,
        viewer_gaps=gaps,
        viewer_repeats=repeats,
        viewer_reconnects=sum(v.reconnects for v in run.viewers.values()),
        scoreboards_level=level,
        replica=run.args.replica,
        reads_checked=tally.reads_checked,
        stale_reads=tally.stale[:10],
        lag=asdict(lag),
    )


def levelled(http: Http, gid: str, head: int) -> bool:
    """Whether the game's scoreboard reaches its head within a minute (the worker
    catches the read models up on the new primary)."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        board = http.call("GET", f"/games/{gid}/scoreboard?min_version={head}")
        if board.status == 200:
            return bool(board.json["version"] == head)
        time.sleep(0.2)
    return False


def watched(viewers: dict[str, Viewer], record: dict[str, dict[int, str]]) -> tuple[int, int, int]:
    """Viewers that got every version once (waiting for them to be level), versions
    missed and versions repeated."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if all(v.versions[-1:] == [len(record[g])] for g, v in viewers.items() if record[g]):
            break
        time.sleep(0.1)
    complete = gaps = repeats = 0
    for gid, viewer in viewers.items():
        want = list(range(1, len(record[gid]) + 1))
        got = viewer.versions
        missing = len(set(want) - set(got))
        gaps += missing
        repeats += len(got) - len(set(got))
        complete += got == want
    return complete, gaps, repeats


def follow(
    viewers: dict[str, Viewer], tally: Tally, ports: list[int], stop: threading.Event
) -> None:
    """A viewer for every game a bot opened."""
    with tally.lock:
        games = list(tally.games)
    for i, gid in enumerate(games):
        if gid not in viewers:
            viewers[gid] = Viewer(ports[i % len(ports)], gid, stop)
            viewers[gid].start()


def report(f: Figures) -> str:
    answers = ", ".join(f"{k}: {v:,}" for k, v in f.answers.items())
    others = ", ".join(f"{k}: {v:,}" for k, v in f.other_answers.items())
    return "\n".join(
        [
            f"{f.mode} replication, change feed {f.feed}, reads from the"
            f" {'standby' if f.replica else 'primary'}, {f.bots} bots, {f.games} games",
            f"  acknowledged {f.acked:,} commands ({f.acked_before_kill:,} before the kill,"
            f" {f.commands_per_s_before:,.1f}/s); lost {f.lost} ({f.lost_before_kill} of those"
            " acknowledged before the kill)",
            f"  promoted in {f.promote_s:.2f} s; accepting again {f.first_accepted_s:.2f} s after;"
            " every bot"
            f" {f.all_bots_back_s:.2f} s",
            f"  answers to commands: {answers}; to other requests: {others};"
            f" connections refused {f.refused_connections}",
            f"  games verified {f.verified}/{f.games}; viewers complete"
            f" {f.viewers_complete}/{len(f.not_verified) + f.verified}, gaps {f.viewer_gaps},"
            f" repeats {f.viewer_repeats}, reconnects {f.viewer_reconnects}; scoreboards level"
            f" {f.scoreboards_level}/{f.games}",
            f"  reads of what was just acknowledged: {f.reads_checked:,}, stale"
            f" {len(f.stale_reads)}",
            f"  standby behind the primary before the kill: at most {f.lag['max_bytes']:,} bytes"
            f" of WAL, {f.lag['max_flush_ms']:.1f} ms flush lag, last {f.lag['last_bytes']:,}"
            f" bytes ({f.lag['samples']} samples, {f.lag['sync_state'] or '?'})",
        ]
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bots", type=int, default=8)
    parser.add_argument("--before", type=float, default=10.0, help="seconds before the kill")
    parser.add_argument("--after", type=float, default=10.0, help="seconds after promotion")
    parser.add_argument("--mode", default="sync,async", help="sync, async or both")
    parser.add_argument("--feed", default="listen", choices=["listen", "redis"])
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/7")
    parser.add_argument("--dir", default="/tmp/tongiaki-failover")
    parser.add_argument("--port", type=int, default=5470, help="node a's (b: the next)")
    parser.add_argument("--json", default="", help="write the figures as JSON here")
    parser.add_argument(
        "--primary-reads", dest="replica", action="store_false",
        help="no DATABASE_REPLICA_URL: the read side reads the primary too",
    )  # fmt: skip
    args = parser.parse_args(argv)
    found = []
    for mode in args.mode.split(","):
        figures = drill(args, mode)
        print(report(figures), flush=True)
        found.append(asdict(figures))
    if args.json:
        Path(args.json).write_text(json.dumps(found, indent=1))


if __name__ == "__main__":
    main()
