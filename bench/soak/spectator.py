"""Spectators: what a watcher reads, and live streams held for a while."""

from __future__ import annotations

import http.client
import json

from bench.client import API, Reply
from bench.soak.api import Client
from bench.soak.games import Context, GameRec


class Spectator(Client):
    """Reads what a watcher reads; now and then holds a live stream for a while."""

    kind = "spectator"

    def __init__(self, ctx: Context, seed: int) -> None:
        super().__init__(ctx, seed)
        self.token: str | None = None
        self.seen: dict[str, int] = {}  # game → last scoreboard version

    def step(self) -> None:
        if self.token is None:
            self.token = self.account("spectator")[1]
        rec = self.ctx.registry.pick(self.rng)
        if rec is None:
            self.ctx.stop.wait(0.2)
            return
        if self.rng.random() < 0.05 and self.ctx.streams.acquire(blocking=False):
            try:
                self.stream(rec)
            finally:
                self.ctx.streams.release()
        else:
            self.read(rec)
        self.ctx.stop.wait(self.rng.uniform(0.02, 0.15))

    def read(self, rec: GameRec) -> None:
        gid, rng, api = rec.game_id, self.rng, self.api
        version = max(rec.version, 1)
        reads: list[tuple[str, str, dict[str, str] | None, str | None]] = [
            ("game", f"/games/{gid}", None, None),
            ("events", f"/games/{gid}/events?after={rng.randint(0, version)}&limit=50", None, None),
            ("ndjson", f"/games/{gid}/events?limit=20", {"Accept": "application/x-ndjson"}, None),
            ("state", f"/games/{gid}/state?at={rng.randint(1, version)}", None, None),
            ("legal", f"/games/{gid}/legal", None, None),
            ("timeline", f"/games/{gid}/timeline?after={rng.randint(0, version)}", None, None),
            (
                "lobby",
                f"/lobby?status={rng.choice(('open', 'playing', 'ended'))}&limit=20",
                None,
                None,
            ),
            ("games", "/games?status=playing&limit=20", None, None),
            ("leaderboard", "/leaderboard?limit=10", None, None),
            ("my games", "/me/games", None, self.token),
            ("projections", "/projections", None, None),
        ]
        if rec.started:  # seated players only, and seats are taken before the start
            reads.append(
                ("journal", f"/games/{gid}/journal?limit=20", None, next(iter(rec.tokens.values())))
            )
        if rng.random() < 0.4:
            self.scoreboard(rec)
            return
        what, path, headers, token = rng.choice(reads)
        reply = api.call("GET", path, headers=headers, token=token)
        self.expect(f"GET {what}", reply, {200})

    def scoreboard(self, rec: GameRec) -> None:
        """A scoreboard answer: 200, or 503 while it is behind; its version never goes back."""
        reply = self.api.call("GET", f"/games/{rec.game_id}/scoreboard")
        if reply.status == 503 and reply.code == "projection_lagging":
            return
        if self.expect("GET scoreboard", reply, {200}):
            before = self.seen.get(rec.game_id, 0)
            if reply.json["version"] < before:
                self.ctx.stats.finding(
                    "spectator: a scoreboard went back",
                    f"{rec.game_id}: {before} then {reply.json['version']}",
                )
            self.seen[rec.game_id] = reply.json["version"]

    def stream(self, rec: GameRec) -> None:
        """Hold ``/stream`` for a few seconds; every id must follow the one before."""
        seconds = self.rng.randint(3, 10)
        after = self.rng.randint(0, rec.version)
        port = self.rng.choice(self.ctx.ports)
        path = f"/games/{rec.game_id}/stream?timeout={seconds}"
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=seconds + 30)
        stats = self.ctx.stats
        try:
            conn.request("GET", API + path, headers={"Last-Event-ID": str(after)})
            response = conn.getresponse()
            headers = {k.lower(): v for k, v in response.getheaders()}
            if response.status != 200:
                reply = Reply(response.status, headers, response.read())
                stats.answer(self.kind, "GET", path, reply)
                # 204: the game is over and this client (it sent Last-Event-ID) has it whole
                self.expect("GET stream", reply, {200, 204} if rec.finished else {200})
                return
            stats.answer(self.kind, "GET", path, Reply(200, headers, b""))
            with stats.lock:
                stats.streams += 1
            self.follow(rec, response, after)
        except (OSError, http.client.HTTPException) as exc:
            stats.failed_transport(self.kind, exc)
        finally:
            conn.close()

    def follow(self, rec: GameRec, response: http.client.HTTPResponse, after: int) -> None:
        stats = self.ctx.stats
        last, event_id, name = after, None, ""
        while line := response.readline():
            text = line.decode().rstrip("\n")
            if not text:  # the end of a frame: the next one says its own id and name
                event_id, name = None, ""
            elif text.startswith("event: "):
                name = text[7:]
            elif text.startswith("id: "):
                event_id = int(text[4:])
            elif text.startswith("data: ") and name == "end":
                return  # the game is over and every event came: the server closes
            elif text.startswith("data: ") and event_id is not None:
                data = json.loads(text[6:])
                if event_id != last + 1 or data["version"] != event_id:
                    with stats.lock:
                        stats.stream_gaps += 1
                    stats.finding(
                        "spectator: a stream skipped or repeated a version",
                        f"{rec.game_id}: {last} then id {event_id} (data {data['version']})",
                    )
                if rec.accepted.get(event_id, data["hash"]) != data["hash"]:
                    stats.finding(
                        "spectator: a streamed event differs from its player's receipt",
                        f"{rec.game_id} version {event_id}",
                    )
                last = event_id
                with stats.lock:
                    stats.stream_events += 1
