"""Account keepers: people who sign in on several browsers, make tokens for their
bots and revoke them (docs/accounts.md), each step checked on every web process."""

from __future__ import annotations

from bench.soak.api import Client
from bench.soak.games import Context


class Keeper(Client):
    """Signs a browser in with a token, makes a bot token with the page's CSRF token,
    revokes the token and the session on one process, and finds both refused at once
    on every process; a write without the CSRF token must be refused and change
    nothing."""

    kind = "keeper"

    def __init__(self, ctx: Context, seed: int) -> None:
        super().__init__(ctx, seed)
        self.token = ""

    def step(self) -> None:
        if not self.token or self.rng.random() < 0.1:
            _, self.token = self.account(f"keeper-{self.rng.randrange(10**6)}")
        opened = self.api.call("POST", "/sessions", token=self.token)
        if not self.expect("open a session", opened, {201}):
            return
        cookie = opened.headers["set-cookie"].split(";")[0]
        page = {"Cookie": cookie, "X-CSRF-Token": opened.json["csrf_token"]}
        refused = self.api.call("POST", "/me/tokens", {"name": "x"}, headers={"Cookie": cookie})
        self.expect("a write without its CSRF token", refused, {403}, "csrf_failed")
        made = self.api.call("POST", "/me/tokens", {"name": "bot"}, headers=page)
        if not self.expect("make a token", made, {201}):
            return
        bot = made.json["token"]
        self.expect("use the token", self.api.call("GET", "/me", token=bot), {200})
        listed = self.api.call("GET", "/me/credentials", headers={"Cookie": cookie})
        if not self.expect("list credentials", listed, {200}):
            return
        mine = next((c for c in listed.json["credentials"] if c["current"]), None)
        if mine is None:
            self.ctx.stats.finding("keeper: list credentials", "no current session listed")
            return
        gone = self.api.call(
            "DELETE", f"/me/credentials/{made.json['credential_id']}", headers=page
        )
        self.expect("revoke the token", gone, {204})
        ended = self.api.call("DELETE", "/sessions/current", headers=page)
        self.expect("sign out", ended, {204})
        for port in self.ctx.ports:  # at once, on every process
            self.expect(
                "a revoked token, anywhere",
                self.api.call_on(port, "GET", "/me", token=bot),
                {401},
                "bad_token",
            )
            self.expect(
                "an ended session, anywhere",
                self.api.call_on(port, "GET", "/me", headers={"Cookie": cookie}),
                {401},
                "session_ended",
            )
        with self.ctx.stats.lock:
            self.ctx.stats.keepers += 1
        self.ctx.stop.wait(0.05)
