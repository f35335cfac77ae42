"""Fuzzers: what a careless or hostile client sends, each answer checked."""

from __future__ import annotations

import http.client
import uuid
from collections.abc import Callable
from typing import Any

from bench.client import API, Reply, exchange
from bench.soak.api import Client, TransportError
from bench.soak.games import Context, GameRec, KeyUse
from bench.soak.stats import excerpt


class Fuzzer(Client):
    """Sends what a careless or hostile client sends; every answer has a known status."""

    kind = "fuzzer"

    def __init__(self, ctx: Context, seed: int) -> None:
        super().__init__(ctx, seed)
        self.own: GameRec | None = None  # a started 2-player game nobody plays
        self.active = ""  # its active seat's token
        self.idle = ""  # the other seat's token
        self.stranger = ""  # an account with no seat anywhere
        self.cases: list[Callable[[], None]] = [
            self.malformed_json,
            self.not_an_object,
            self.bad_utf8,
            self.oversized,
            self.oversized_chunked,
            self.deeply_nested,
            self.huge_integer_body,
            self.float_body,
            self.control_characters,
            self.bad_game_id,
            self.huge_query,
            self.huge_header,
            self.wrong_token,
            self.bad_options,
            self.unseated_command,
            self.not_your_turn,
            self.stale_in_own_game,
            self.stale_in_bot_game,
            self.join_started_game,
            self.reused_key_other_body,
            self.reused_key_same_body,
            self.wrong_method,
            self.unknown_path,
            self.server_limits,
        ]

    def step(self) -> None:
        if self.own is None:
            self.setup()
        self.rng.choice(self.cases)()
        self.ctx.stop.wait(self.rng.uniform(0.01, 0.08))

    def setup(self) -> None:
        """Two seated accounts in a started game of their own, and a stranger."""
        (a, ta), (b, tb) = self.account("fuzz a"), self.account("fuzz b")
        self.stranger = self.account("fuzz stranger")[1]
        reply = self.api.call("POST", "/games", {"max_players": 2}, token=ta)
        if not self.expect("create a game", reply, {201}):
            raise TransportError("no game")
        rec = GameRec(reply.json["game_id"], "fuzzer", {a: ta, b: tb})
        rec.record(reply.json)
        for token, colour in ((ta, "blue"), (tb, "red")):
            seat = self.api.call(
                "POST", f"/games/{rec.game_id}/seats", {"colour": colour}, token=token
            )
            if not self.expect("take a seat", seat, {201}):
                raise TransportError("no seat")
            rec.record(seat.json)
        start = self.api.call("POST", f"/games/{rec.game_id}/start?include=legal", token=ta)
        if not self.expect("start", start, {200}):
            raise TransportError("no start")
        rec.record(start.json)
        rec.started = True
        legal = start.json["legal"]
        rec.sample = legal["commands"][0]
        self.active = rec.tokens[legal["player_id"]]
        self.idle = tb if self.active == ta else ta
        self.own = rec
        self.ctx.registry.add(rec)

    @property
    def gid(self) -> str:
        assert self.own is not None
        return self.own.game_id

    def post(self, path: str, raw: bytes, token: str | None = None, **kw: Any) -> Reply:
        return self.api.call("POST", path, raw=raw, token=token, **kw)

    # each case sends one request and checks its status (and code)

    def malformed_json(self) -> None:
        body = self.rng.choice([b'{"name": ', b"{'name': 'x'}", b"nul", b'{"name": "x"} x'])
        reply = self.post("/accounts", body)
        self.expect("malformed JSON", reply, {400}, "malformed_json")

    def not_an_object(self) -> None:
        reply = self.post("/accounts", self.rng.choice([b"[1, 2]", b'"name"', b"42"]))
        self.expect("a body that is not an object", reply, {400}, "malformed_body")

    def bad_utf8(self) -> None:
        reply = self.post("/accounts", self.rng.choice([b"\xff\xfe{}", b'{"name": "\xc3"}']))
        self.expect("bad UTF-8", reply, {400})

    def oversized(self) -> None:
        """The server may answer 413 and close before it read the body: a broken pipe."""
        body = b'{"name": "' + b"x" * self.rng.randint(17_000, 200_000) + b'"}'
        try:
            reply = self.post("/accounts", body, fresh=True, what="an oversized body")
        except TransportError:
            return
        self.expect("an oversized body", reply, {413}, "body_too_large")

    def oversized_chunked(self) -> None:
        """A chunked body has no length to check: the server must stop reading past 16 KiB."""
        port = self.rng.choice(self.ctx.ports)
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        path = f"/games/{self.gid}/commands"
        chunks = (b'{"type": "Expand", "island": "' if i == 0 else b"x" * 4096 for i in range(64))
        headers = {"Authorization": f"Bearer {self.active}", "Content-Type": "application/json"}
        try:
            reply = exchange(conn, "POST", API + path, chunks, headers, chunked=True)
        except (OSError, http.client.HTTPException) as exc:
            self.ctx.stats.failed_transport(self.kind, exc)
            return
        finally:
            conn.close()
        self.ctx.stats.answer(self.kind, "POST", path + " (chunked)", reply)
        self.expect("an oversized chunked body", reply, {413}, "body_too_large")

    def deeply_nested(self) -> None:
        depth = self.rng.choice([9, 30, 500, 5000])
        body = b'{"type": "Expand", "x": ' + b"[" * depth + b"]" * depth + b"}"
        reply = self.post(f"/games/{self.gid}/commands", body, self.active)
        self.expect("a deeply nested body", reply, {400, 422})

    def huge_integer_body(self) -> None:
        number = str(self.rng.choice([2**31, -(2**31) - 1, 10**30, 10**400])).encode()
        body = self.rng.choice(
            [
                b'{"name": ' + number + b"}",
                b'{"type": "Expand", "expected_version": ' + number + b"}",
            ]
        )
        path = "/accounts" if body.startswith(b'{"name"') else f"/games/{self.gid}/commands"
        reply = self.post(path, body, self.active)
        self.expect("a huge integer in a body", reply, {400, 422})

    def float_body(self) -> None:
        body = b'{"max_players": 2.5}'
        reply = self.post("/games", body, self.active)
        self.expect("a float in a body", reply, {422}, "not_an_integer")

    def control_characters(self) -> None:
        name = self.rng.choice(["a\u0000b", "\u0007", "x\u009by", "   ", "n" * 65])
        reply = self.api.call("POST", "/accounts", {"name": name})
        self.expect("a bad name", reply, {422})

    def bad_game_id(self) -> None:
        gid = self.rng.choice(
            ["a" * 65, "%00", "..%2F..%2Fetc", "-abc", "%C3%BC", "a%20b", "0123456789ab", "x" * 64]
        )
        suffix = self.rng.choice(["", "/events", "/legal", "/scoreboard", "/timeline", "/verify"])
        reply = self.api.call("GET", f"/games/{gid}{suffix}")
        self.expect("a bad game id", reply, {404})

    def huge_query(self) -> None:
        huge = self.rng.choice(
            ["99999999999999999999999", "2147483648", "-1", "1e3", "%D9%A3", "0x10"]
        )
        gid = self.gid
        path = self.rng.choice(
            [
                f"/games/{gid}/events?after={huge}",
                f"/games/{gid}/events?limit={huge}",
                f"/games/{gid}/state?at={huge}",
                f"/games/{gid}/timeline?limit={huge}",
                f"/games/{gid}/scoreboard?min_version={huge}",
                f"/games/{gid}/stream?timeout={huge}",
                f"/lobby?limit={huge}",
                f"/leaderboard?limit={huge}",
                f"/games?limit={huge}",
            ]
        )
        reply = self.api.call("GET", path)
        self.expect("a huge integer in a query", reply, {422})

    def huge_header(self) -> None:
        huge = "9" * self.rng.randint(11, 400)
        case = self.rng.choice(["if-match", "last-event-id", "key", "key-space"])
        if case == "last-event-id":
            reply = self.api.call(
                "GET", f"/games/{self.gid}/stream?timeout=1", headers={"Last-Event-ID": huge}
            )
            self.expect("a huge Last-Event-ID", reply, {422}, "bad_last_event_id")
            return
        headers = {
            "if-match": {"If-Match": f'"{huge}"'},
            "key": {"Idempotency-Key": "k" * 129},
            "key-space": {"Idempotency-Key": "two words"},
        }[case]
        reply = self.api.call(
            "POST",
            f"/games/{self.gid}/commands",
            self.own_sample(),
            token=self.active,
            headers=headers,
        )
        self.expect(f"a bad {case} header", reply, {422})

    def wrong_token(self) -> None:
        auth = self.rng.choice(
            ["Bearer " + uuid.uuid4().hex, "Basic YTpi", "Bearer", "bearer x", "Bearer  \t", None]
        )
        headers = {"Authorization": auth} if auth is not None else {}
        path, body = self.rng.choice(
            [("/games", {"max_players": 2}), (f"/games/{self.gid}/commands", self.own_sample())]
        )
        reply = self.api.call("POST", path, body, headers=headers)
        if self.expect("a wrong token", reply, {401}) and "www-authenticate" not in reply.headers:
            self.ctx.stats.finding("fuzzer: 401 without WWW-Authenticate", path)

    def bad_options(self) -> None:
        options = self.rng.choice(
            [
                {"max_players": 7},
                {"max_players": 1},
                {"colour": "blue"},
                {"two_colours_each": "maybe"},
            ]
        )
        reply = self.api.call("POST", "/games", options, token=self.stranger)
        self.expect("bad game options", reply, {422})

    def unseated_command(self) -> None:
        rec = self.ctx.registry.pick(self.rng, live=0.9, owner="bot")
        if rec is None or rec.sample is None:
            return
        reply = self.api.call(
            "POST", f"/games/{rec.game_id}/commands", rec.sample, token=self.stranger
        )
        self.expect("a command from an unseated account", reply, {403}, "not_seated")

    def not_your_turn(self) -> None:
        reply = self.api.call(
            "POST", f"/games/{self.gid}/commands", self.own_sample(), token=self.idle
        )
        self.expect("a command out of turn", reply, {403}, "not_your_turn")

    def stale_in_own_game(self) -> None:
        reply = self.api.call(
            "POST",
            f"/games/{self.gid}/commands",
            self.own_sample(),
            token=self.rng.choice([self.active, self.idle]),
            headers={"If-Match": f'"{self.rng.randint(0, 3)}"'},
        )
        self.expect("a stale If-Match", reply, {409}, "stale_version")

    def stale_in_bot_game(self) -> None:
        """A seated player's command with If-Match "1" into a game being played."""
        rec = self.ctx.registry.pick(self.rng, live=1.0, owner="bot")
        if rec is None or rec.sample is None or not rec.started:
            return
        reply = self.api.call(
            "POST",
            f"/games/{rec.game_id}/commands",
            rec.sample,
            token=self.rng.choice(list(rec.tokens.values())),
            headers={"If-Match": '"1"'},
        )
        self.expect("a stale If-Match in a bot's game", reply, {409}, "stale_version")

    def join_started_game(self) -> None:
        reply = self.api.call(
            "POST", f"/games/{self.gid}/seats", {"colour": "green"}, token=self.stranger
        )
        self.expect("a seat at a started game", reply, {409})

    def reused_key_other_body(self) -> None:
        """A bot's Idempotency-Key with another expected version: 422, nothing done."""
        use = self.key_use()
        if use is None:
            return
        headers = {**use.headers, "If-Match": '"1"'}
        body = {k: v for k, v in use.body.items() if k != "expected_version"}
        reply = self.api.call(
            "POST", f"/games/{use.game_id}/commands", body, token=use.token, headers=headers
        )
        self.expect("a reused Idempotency-Key", reply, {422}, "idempotency_key_reused")

    def reused_key_same_body(self) -> None:
        """The same request again, later and maybe on another process: the stored receipt."""
        use = self.key_use()
        if use is None:
            return
        reply = self.api.call(
            "POST", f"/games/{use.game_id}/commands", use.body, token=use.token, headers=use.headers
        )
        if self.expect("a repeated keyed command", reply, {200}) and (
            reply.json["receipt"] != use.receipt or not reply.json.get("replayed")
        ):
            self.ctx.stats.finding(
                "fuzzer: a repeated keyed command did not replay its receipt",
                f"stored {use.receipt}, got {excerpt(reply.raw)}",
            )

    def wrong_method(self) -> None:
        method, path = self.rng.choice(
            [("DELETE", f"/games/{self.gid}"), ("PUT", "/accounts"), ("PATCH", "/games")]
        )
        reply = self.api.call(method, path)
        self.expect("a wrong method", reply, {405})

    def unknown_path(self) -> None:
        reply = self.api.call("GET", self.rng.choice(["/nothing", "/games/x/y/z", "/accounts/me"]))
        self.expect("an unknown path", reply, {404, 405})

    def server_limits(self) -> None:
        """Past gunicorn's own limits: a request line over 4 KiB, a header over 8 KiB."""
        if self.rng.random() < 0.5:
            reply = self.api.call("GET", f"/games/{self.gid}/events?limit={'9' * 5000}", fresh=True)
        else:
            reply = self.api.call("GET", "/me/games", token="x" * 9000, fresh=True)
        self.expect("a request past the server's limits", reply, {400, 414, 431})

    def own_sample(self) -> dict[str, Any]:
        assert self.own is not None and self.own.sample is not None
        return self.own.sample

    def key_use(self) -> KeyUse | None:
        """An Idempotency-Key a bot used, with what it sent."""
        rec = self.ctx.registry.pick(self.rng, live=0.5, owner="bot")
        return self.rng.choice(rec.keys) if rec is not None and rec.keys else None
