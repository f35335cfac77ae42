"""League players: round-robin leagues played to their end, whose rounds must open by
themselves (docs/leagues.md, L7), and a rematch of each league's last game (RM1–RM8)."""

from __future__ import annotations

import time
from typing import Any

from bench.soak.games import GameRec
from bench.soak.players import Bot

OPENS_WITHIN = 60.0  # seconds a round has to open by itself once the last one is over


class Leaguer(Bot):
    """Three players make a league at tables of two (three rounds of one game each),
    start it and play every game, never looking at the league while it runs: each next
    round must open by itself (the keeper), each table once. Then a rematch of the last
    game is proposed and accepted by the other, once; the new game is played out too.
    Every game is registered, so it is checked and verified like the bots'."""

    kind = "leaguer"

    def step(self) -> None:
        while len(self.accounts) < 3:
            self.accounts.append(self.account(f"leaguer {len(self.accounts) + 1}"))
        tokens = dict(self.accounts)
        (_, owner), *others = self.accounts
        body = {"name": "Soak league", "table_size": 2, "players": [i for i, _ in others]}
        made = self.api.call("POST", "/leagues", body, token=owner)
        if not self.expect("create a league", made, {201}):
            return
        league = made.json["league_id"]
        started = self.api.call("POST", f"/leagues/{league}/start", token=owner)
        if not self.expect("start a league", started, {200}):
            return
        played: set[str] = set()
        last: GameRec | None = None
        for _ in range(started.json["rounds"]):
            games = self.next_round(tokens, played)
            if games is None:
                return
            for game_id, players in games.items():
                rec = GameRec(game_id, self.kind, {p: tokens[p] for p in players})
                self.play_from_here(rec)
                if self.ctx.stop.is_set():
                    return
                played.add(game_id)
                last = rec
        self.count("leagues played out")
        if last is not None:
            self.rematch(last)

    def next_round(self, tokens: dict[str, str], played: set[str]) -> dict[str, list[str]] | None:
        """The games of the next round, found on the players' own lists (which open
        nothing): {game id: its players}; None (a finding) if it does not open."""
        deadline = time.monotonic() + OPENS_WITHIN
        while not self.ctx.stop.is_set():
            found: dict[str, list[str]] = {}
            for player, token in tokens.items():
                reply = self.api.call("GET", "/me/games?limit=50", token=token)
                if not self.expect("list my games", reply, {200}):
                    return None
                for game in reply.json["games"]:
                    if game["game_id"] not in played and game["status"] in ("setup", "playing"):
                        found.setdefault(game["game_id"], []).append(player)
            if found and all(len(players) == 2 for players in found.values()):
                return found
            if time.monotonic() > deadline:
                self.ctx.stats.finding(
                    "leaguer: the next round did not open by itself", f"{sorted(found)}"
                )
                return None
            time.sleep(0.5)
        return None

    def rematch(self, rec: GameRec) -> None:
        """Propose the same table again and accept it twice (the second refused)."""
        proposer, other = sorted(rec.tokens)
        path = f"/games/{rec.game_id}/rematch"
        proposed = self.api.call("POST", path, {}, token=rec.tokens[proposer])
        if not self.expect("propose a rematch", proposed, {200, 201}):
            return
        accepted = self.api.call("POST", f"{path}/accept", {}, token=rec.tokens[other])
        if not self.expect("accept a rematch", accepted, {200, 201}):
            return
        again = self.api.call("POST", f"{path}/accept", {}, token=rec.tokens[other])
        self.expect("accept a rematch twice", again, {409})
        view = self.api.call("GET", path)
        if not self.expect("read a rematch", view, {200}):
            return
        new_id: Any = (view.json.get("proposal") or {}).get("next_game_id")
        if not new_id:
            self.ctx.stats.finding("leaguer: an accepted rematch opened no game", rec.game_id)
            return
        start = self.api.call("POST", f"/games/{new_id}/start", token=rec.tokens[other])
        if not self.expect("start a rematch", start, {200}):
            return
        self.count("rematches opened")
        self.play_from_here(GameRec(str(new_id), self.kind, dict(rec.tokens)))

    def play_from_here(self, rec: GameRec) -> None:
        """Register a game the service opened (its first versions are the service's)
        and play it from the version it is at."""
        rec.started = True
        self.ctx.registry.add(rec)
        reply = self.api.call("GET", f"/games/{rec.game_id}/legal")
        if not self.expect("GET /legal", reply, {200}):
            return
        rec.version = reply.json["version"]
        self.play(rec, reply.json)

    def count(self, what: str) -> None:
        with self.ctx.stats.lock:
            self.ctx.stats.tables[what] += 1
