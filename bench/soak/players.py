"""The players: bots that play whole games, sleepers whose partner never plays."""

from __future__ import annotations

import time
import uuid
from typing import Any

from bench.client import Reply
from bench.soak.api import Client, TransportError
from bench.soak.games import Context, GameRec, KeyUse
from bench.soak.stats import excerpt

COLOURS = ("blue", "red", "green", "yellow", "orange", "purple")


class Bot(Client):
    """Plays whole games for every seat of them, one after the other."""

    kind = "bot"

    def __init__(self, ctx: Context, seed: int) -> None:
        super().__init__(ctx, seed)
        self.accounts: list[tuple[str, str]] = []

    def step(self) -> None:
        while len(self.accounts) < 4:
            self.accounts.append(self.account(f"bot {len(self.accounts) + 1}"))
        rec, legal = self.open_game()
        if rec is not None:
            self.play(rec, legal)

    def open_game(
        self, players: int | None = None, extra: dict[str, Any] | None = None
    ) -> tuple[GameRec | None, dict[str, Any]]:
        """Create, seat everyone, start: the game and its first legal commands."""
        rng = self.rng
        players = players or rng.choice((2, 2, 3, 3, 4))
        two = players == 2 and rng.random() < 0.3
        seated = rng.sample(self.accounts, players)
        options = {
            "max_players": players,
            "two_colours_each": two,
            "free_orientation_after_first": rng.random() < 0.3,
            "first_seat": rng.randint(1, players),
            **(extra or {}),
        }
        reply = self.api.call("POST", "/games", options, token=seated[0][1])
        if not self.expect("create a game", reply, {201}):
            return None, {}
        rec = GameRec(reply.json["game_id"], self.kind, dict(seated))
        rec.record(reply.json)
        self.ctx.registry.add(rec)
        colours = rng.sample(COLOURS, players * (2 if two else 1))
        for i, (_, token) in enumerate(seated):
            seat: dict[str, Any] = (
                {"colours": colours[2 * i : 2 * i + 2]} if two else {"colour": colours[i]}
            )
            if rng.random() < 0.5:
                seat["entropy"] = uuid.uuid4().hex
            reply = self.api.call("POST", f"/games/{rec.game_id}/seats", seat, token=token)
            if not self.expect("take a seat", reply, {201}):
                return None, {}
            rec.record(reply.json)
        starter = rng.choice(seated)[1]
        reply = self.api.call("POST", f"/games/{rec.game_id}/start?include=legal", token=starter)
        if not self.expect("start", reply, {200}):
            return None, {}
        rec.record(reply.json)
        rec.started = True
        with self.ctx.stats.lock:
            self.ctx.stats.game_commands += players + 2
        return rec, reply.json["legal"]

    def play(self, rec: GameRec, legal: dict[str, Any] | None) -> None:
        """Move for whoever is due until the game ends (or the soak does)."""
        for _ in range(10_000):
            if self.ctx.stop.is_set():
                return
            if legal is None or self.rng.random() < 0.2:
                legal = self.legal(rec)
            if legal["decision"] is None:
                rec.finished = True
                return
            legal = self.move(rec, legal)
        self.ctx.stats.finding("bot: game never ended", rec.game_id)

    def legal(self, rec: GameRec) -> dict[str, Any]:
        reply = self.api.call("GET", f"/games/{rec.game_id}/legal")
        if not self.expect("GET /legal", reply, {200}):
            raise TransportError("no legal commands")
        if reply.json["version"] != rec.version:
            self.ctx.stats.finding(
                "bot: GET /legal behind the bot's own command",
                f"{rec.game_id}: legal at {reply.json['version']}, last receipt {rec.version}",
            )
        return reply.json  # type: ignore[no-any-return]

    def move(self, rec: GameRec, legal: dict[str, Any]) -> dict[str, Any] | None:
        """POST one legal command (sometimes twice with an Idempotency-Key); the next legal."""
        command = self.rng.choice(legal["commands"])
        token = rec.tokens[legal["player_id"]]
        body, headers = dict(command), {}
        if self.rng.random() < 0.05:
            body["expected_version"] = legal["version"]
        else:
            headers["If-Match"] = f'"{legal["version"]}"'
        keyed = self.rng.random() < 0.15
        if keyed:
            headers["Idempotency-Key"] = uuid.uuid4().hex
        path = f"/games/{rec.game_id}/commands?include=legal"
        started = time.perf_counter()
        reply = self.api.call("POST", path, body, token=token, headers=headers)
        latency = (time.perf_counter() - started) * 1000
        if not self.expect("a legal command", reply, {200}):
            return None
        self.ctx.stats.accepted(latency)
        rec.record(reply.json)
        rec.sample = command
        if keyed:
            self.retry(rec, path, body, token, headers, reply)
        return reply.json["legal"]  # type: ignore[no-any-return]

    def retry(
        self,
        rec: GameRec,
        path: str,
        body: dict[str, Any],
        token: str,
        headers: dict[str, str],
        first: Reply,
    ) -> None:
        """Half the keyed commands are sent again: the stored outcome must come back."""
        receipt = first.json["receipt"]
        if self.rng.random() < 0.5:
            again = self.api.call("POST", path, body, token=token, headers=headers)
            if self.expect("an Idempotency-Key retry", again, {200}):
                with self.ctx.stats.lock:
                    self.ctx.stats.replays += 1
                if again.json["receipt"] != receipt or again.json.get("replayed") is not True:
                    self.ctx.stats.finding(
                        "bot: a retry did not replay the receipt",
                        f"{rec.game_id}: first {receipt}, retry {excerpt(again.raw)}",
                    )
                if again.headers.get("idempotent-replayed") != "true":
                    self.ctx.stats.finding("bot: replay without Idempotent-Replayed", path)
        rec.keys.append(
            KeyUse(rec.game_id, token, headers["Idempotency-Key"], body, headers, receipt)
        )


class Sleeper(Bot):
    """Timed games (5 s a decision, absent after one timeout) of two seats of which only
    one plays: the other times out, and the service's bot plays it to the end, kept by
    rq's scheduler and the worker (docs/clocks.md). The worker's SIGKILL at 40 % of the
    run must not leave a game stalled: the sweeper and a new worker pick it up."""

    kind = "sleeper"
    STALLED = 60.0  # seconds without the bot's move before it is a finding

    def step(self) -> None:
        while len(self.accounts) < 2:
            self.accounts.append(self.account(f"sleeper {len(self.accounts) + 1}"))
        clock = {"time_control": "move", "move_seconds": 5, "absent_after": 1}
        rec, _ = self.open_game(players=2, extra=clock)
        if rec is not None:
            self.play_awake(rec, self.accounts[1][0])

    def play_awake(self, rec: GameRec, sleeping: str) -> None:
        moved = time.monotonic()
        while not self.ctx.stop.is_set():
            reply = self.api.call("GET", f"/games/{rec.game_id}/legal")
            if not self.expect("GET /legal", reply, {200}):
                return
            legal = reply.json
            if legal["decision"] is None:
                rec.finished = True
                with self.ctx.stats.lock:
                    self.ctx.stats.timed_finished += 1
                return
            if legal["player_id"] == sleeping:
                if time.monotonic() - moved > self.STALLED:
                    self.ctx.stats.finding(
                        "sleeper: the bot did not play the absent seat", rec.game_id
                    )
                    return
                time.sleep(0.25)
                continue
            moved = time.monotonic()
            self.move(rec, legal)
