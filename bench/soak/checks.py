"""After the traffic: every game's events read back against what its players were
told, the read models caught up, every game verified."""

from __future__ import annotations

import itertools
import random
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from bench.client import Http
from bench.soak.api import Api
from bench.soak.games import Context, GameRec
from bench.soak.stats import excerpt


@dataclass
class GameCheck:
    """One game's events as read back, against what its players were told."""

    game_id: str
    head: int = 0
    events: int = 0
    missing: int = 0  # versions of 1..head not returned
    repeated: int = 0  # versions returned more than once, or outside 1..head
    receipts_missing: int = 0  # an event or receipt a client got a 2xx for, absent or changed
    chain_breaks: int = 0  # prev_hash not the hash of the event before
    applied_twice: int = 0  # a command id whose events come in two separate runs
    problems: list[str] = field(default_factory=list)

    @property
    def lost(self) -> int:
        return self.missing + self.receipts_missing

    @property
    def duplicated(self) -> int:
        return self.repeated + self.applied_twice


def read_events(api: Api, game_id: str, check: GameCheck) -> list[dict[str, Any]]:
    """Every event of a game, a page of 1000 at a time; the head in ``check``."""
    events: list[dict[str, Any]] = []
    after = 0
    while True:
        reply = api.call("GET", f"/games/{game_id}/events?after={after}&limit=1000")
        if reply.status != 200:
            check.problems.append(f"events after {after}: {reply.status} {excerpt(reply.raw)}")
            return events
        check.head = max(check.head, reply.json["head"])
        page = reply.json["events"]
        if not page:
            return events
        events += page
        if reply.json["next_after"] <= after or len(events) > check.head + 1000:
            check.problems.append(f"paging stuck at after={after}")
            return events
        after = reply.json["next_after"]


def check_game(api: Api, rec: GameRec) -> GameCheck:
    check = GameCheck(rec.game_id)
    events = read_events(api, rec.game_id, check)
    check.events = len(events)
    versions = Counter(e["version"] for e in events)
    check.repeated = sum(n - 1 for n in versions.values()) + sum(
        n for v, n in versions.items() if not 1 <= v <= check.head
    )
    check.missing = len(set(range(1, check.head + 1)) - versions.keys())
    if [e["version"] for e in events] != sorted(versions):
        check.problems.append("events out of order")
    check.chain_breaks = sum(b["prev_hash"] != a["hash"] for a, b in itertools.pairwise(events))
    hashes = {e["version"]: e["hash"] for e in events}
    check.receipts_missing = sum(hashes.get(v) != h for v, h in rec.accepted.items())
    runs = [events[0]["metadata"].get("command_id")] if events else []
    for e in events[1:]:
        if e["metadata"].get("command_id") != runs[-1]:
            runs.append(e["metadata"].get("command_id"))
    check.applied_twice = sum(n - 1 for n in Counter(runs).values())
    return check


def catch_up(
    api: Api, games: list[GameRec], since: float, timeout: float
) -> tuple[float, dict[str, int], dict[str, str]]:
    """Poll every game's scoreboard until its version is the game's head (or later).

    The seconds it took from ``since`` (the end of the traffic), every game's head,
    and the games whose scoreboard did not get there (with their last answer).
    """
    heads = {}
    for rec in games:
        reply = api.call("GET", f"/games/{rec.game_id}")
        heads[rec.game_id] = reply.json["version"] if reply.status == 200 else 0
    waiting = {gid: "never asked" for gid in heads}
    while waiting and time.monotonic() - since < timeout:
        for gid in list(waiting):
            reply = api.call("GET", f"/games/{gid}/scoreboard")
            if reply.status == 200 and reply.json["version"] >= heads[gid]:  # (or on)
                del waiting[gid]
            else:
                version = reply.json.get("version") if isinstance(reply.json, dict) else None
                waiting[gid] = f"{reply.status} version {version}, head {heads[gid]}"
        if waiting:
            time.sleep(0.5)
    return time.monotonic() - since, heads, waiting


def projections_level(api: Api, timeout: float) -> list[str]:
    """Wait until ``GET /projections`` shows every read model level; what is not, after."""
    deadline = time.monotonic() + timeout
    while True:
        reply = api.call("GET", "/projections")
        left = [
            f"{p['projection']}: {p['behind']} games / {p['events_behind']} events behind,"
            f" {len(p['halted'])} halted {p['halted'][:2]}"
            for p in (reply.json or {}).get("projections", [])
            if p["behind"] or p["events_behind"] or p["halted"]
        ]
        if reply.status == 200 and not left:
            return []
        if time.monotonic() > deadline:
            return left or [f"GET /projections: {reply.status}"]
        time.sleep(0.5)


def verify(api: Api, games: list[GameRec]) -> tuple[Counter[str], list[str]]:
    """``GET /verify`` of every game: counts by (status, outcome) and the failures."""
    counts: Counter[str] = Counter()
    failed = []
    for rec in games:
        reply = api.call("GET", f"/games/{rec.game_id}/verify")
        ok = reply.status == 200 and reply.json.get("ok") is True
        state = "finished" if rec.finished else "unfinished"
        counts[f"{state} {'ok' if ok else 'FAILED'}"] += 1
        if not ok:
            failed.append(f"{rec.game_id} ({state}): {reply.status} {excerpt(reply.raw, 400)}")
    return counts, failed


def promises_kept(api: Api, games: list[GameRec], timeout: float) -> tuple[int, list[str]]:
    """Every promise a player got, against the public log (issue 28): signed by the log's
    key, and its head in the log at its version (waited for up to ``timeout`` seconds,
    then it is broken). How many were checked, and the broken ones."""
    from service.transparency.entries import HeadEntry
    from service.transparency.notes import NoteError, Verifier
    from service.transparency.promises import check_promise

    published = Http(api.ports[0], "/log")
    key = Verifier.parse(published.call("GET", "/key").raw.decode().strip())
    published.close()
    checked, broken = 0, []
    deadline = time.monotonic() + timeout
    for rec in games:
        for version, note in rec.promised.items():
            checked += 1
            try:
                promise = check_promise(note, key)
            except NoteError as exc:
                broken.append(f"{rec.game_id} v{version}: {exc}")
                continue
            while True:
                reply = api.call("GET", f"/games/{rec.game_id}/proof?version={version}")
                if reply.status == 200 or time.monotonic() > deadline:
                    break
                time.sleep(0.1)
            if reply.status != 200:
                broken.append(f"{rec.game_id} v{version}: not in the log ({reply.status})")
            elif not promise.matches(HeadEntry.parse(reply.json["entry"].encode())):
                broken.append(f"{rec.game_id} v{version}: the log holds another head")
    return checked, broken


@dataclass
class ReadBack:
    """What was read back after the traffic."""

    games: list[GameRec]
    checks: list[GameCheck]
    caught_in: float  # seconds from the end of the traffic to every scoreboard at its head
    lagging: dict[str, str]  # games whose scoreboard did not get there: its last answer
    behind: list[str]  # read models /projections says are not level
    verified: Counter[str]  # GET /verify, by (status, outcome)
    failed: list[str]  # the games that failed verification
    seconds: float  # the reading back took
    promises: int = 0  # the log's promises checked against it
    broken: list[str] = field(default_factory=list)  # promises without their entry


def after_traffic(seed: int, catch_up_seconds: float, ports: list[int], ctx: Context) -> ReadBack:
    """Read everything back: events, read models, verification."""
    api = Api(ports, ctx.stats, "checker", random.Random(seed))
    games = ctx.registry.all()
    started = time.monotonic()
    caught_in, _, lagging = catch_up(api, games, ctx.stats.ended, catch_up_seconds)
    behind = projections_level(api, 10.0 if not lagging else 1.0)
    checks = [check_game(api, rec) for rec in games]
    for check in checks:
        # asked after its events were read: never behind them. (Not the heads read
        # before: a sleeper's clock may have the service act for its seat meanwhile, as a
        # soak run found, the game going on from version 7 to 11 after the traffic.)
        reply = api.call("GET", f"/games/{check.game_id}")
        said = reply.json["version"] if reply.status == 200 else 0
        if said < check.head:
            check.problems.append(f"head {check.head}, GET /games said {said} after")
    verified, failed = verify(api, games)
    promises, broken = promises_kept(api, games, 30.0)
    api.close()
    return ReadBack(
        games, checks, caught_in, lagging, behind, verified, failed, time.monotonic() - started,
        promises, broken,
    )  # fmt: skip
