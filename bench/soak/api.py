"""The soak's HTTP: ``bench/client.py``'s ``Http``, one per web process, each request
sent to a process chosen at random and every answer counted; and the loop of a
client thread that uses it."""

from __future__ import annotations

import http.client
import random
from typing import Any

from bench.client import Http, Reply
from bench.soak.games import Context
from bench.soak.stats import Stats, excerpt, short


class TransportError(Exception):
    """No answer: a refused, reset or timed-out connection (counted, then raised)."""


class Api:
    """One client thread's HTTP: a kept-alive connection per web process, every answer counted."""

    def __init__(self, ports: list[int], stats: Stats, client: str, rng: random.Random) -> None:
        self.ports = ports
        self.stats = stats
        self.client = client
        self.rng = rng
        self.conns: dict[int, Http] = {}

    def close(self) -> None:
        for conn in self.conns.values():
            conn.close()
        self.conns.clear()

    def call(
        self,
        method: str,
        path: str,
        body: Any = None,
        *,
        token: str | None = None,
        headers: dict[str, str] | None = None,
        raw: bytes | None = None,
        fresh: bool = False,
        what: str = "",
    ) -> Reply:
        """Send one request to a web process chosen at random (``path`` under /api/v1).

        ``body`` goes as JSON, ``raw`` as it is; ``fresh`` uses a connection of its
        own, closed afterwards (for requests a server may answer before reading them);
        ``what`` names the request among the transport errors.
        """
        return self.call_on(
            self.rng.choice(self.ports),
            method,
            path,
            body,
            token=token,
            headers=headers,
            raw=raw,
            fresh=fresh,
            what=what,
        )

    def call_on(
        self,
        port: int,
        method: str,
        path: str,
        body: Any = None,
        *,
        token: str | None = None,
        headers: dict[str, str] | None = None,
        raw: bytes | None = None,
        fresh: bool = False,
        what: str = "",
    ) -> Reply:
        """``call`` on the web process of ``port``."""
        conn = Http(port) if fresh else self.conns.get(port)
        if conn is None:
            conn = self.conns[port] = Http(port)
        try:
            reply = conn.call(method, path, body, token, headers, raw)
        except (OSError, http.client.HTTPException) as exc:
            self.stats.failed_transport(f"{self.client}{' sending ' + what if what else ''}", exc)
            raise TransportError(f"{method} {short(path)}: {exc!r}") from exc
        finally:
            if fresh:
                conn.close()
        self.stats.answer(self.client, method, path, reply)
        return reply


class Client:
    """A client thread's loop: ``step`` until stopped; a lost connection is counted."""

    kind = "client"

    def __init__(self, ctx: Context, seed: int) -> None:
        self.ctx = ctx
        self.rng = random.Random(seed)
        self.api = Api(ctx.ports, ctx.stats, self.kind, self.rng)

    def run(self) -> None:
        try:
            while not self.ctx.stop.is_set():
                try:
                    self.step()
                except TransportError:
                    self.ctx.stop.wait(0.2)
                except Exception as exc:  # a client bug must not end the soak silently
                    self.ctx.stats.finding(f"{self.kind} crashed", repr(exc))
                    self.ctx.stop.wait(0.5)
        finally:
            self.api.close()

    def step(self) -> None:
        raise NotImplementedError

    def expect(self, what: str, reply: Reply, statuses: set[int], code: str | None = None) -> bool:
        """Whether ``reply`` has one of ``statuses`` (and ``code``); a finding if not."""
        ok = reply.status in statuses and (code is None or reply.code == code)
        if not ok:
            wanted = "/".join(map(str, sorted(statuses))) + (f" {code}" if code else "")
            self.ctx.stats.finding(
                f"{self.kind}: {what}",
                f"expected {wanted}, got {reply.status} {excerpt(reply.raw)}",
            )
        return ok

    def account(self, name: str) -> tuple[str, str]:
        reply = self.api.call("POST", "/accounts", {"name": name})
        if not self.expect("sign up", reply, {201}):
            raise TransportError("no account")
        return reply.json["account_id"], reply.json["token"]
