"""Negotiators: players who take back moves and end games by agreement (docs/table.md)."""

from __future__ import annotations

from typing import Any

from bench.client import Reply
from bench.soak.games import GameRec
from bench.soak.players import Bot

# what a takeback request may be refused with in a game under way (T1, T2)
REFUSED = ("nothing_to_take_back", "tile_drawn_since", "table_changed_since")


class Negotiator(Bot):
    """Plays 2- and 3-seat games, now and then asking to take back the last decision
    of a seat (its other seats accept or refuse) or proposing to end the game (all
    accept, or one declines). Each offer must leave exactly one outcome: no offer
    left open, and every game checked and verified like the bots' (T1–T8)."""

    kind = "negotiator"

    def step(self) -> None:
        while len(self.accounts) < 3:
            self.accounts.append(self.account(f"negotiator {len(self.accounts) + 1}"))
        rec, legal = self.open_game(players=self.rng.choice((2, 3)))
        if rec is not None:
            self.negotiate(rec, legal)

    def negotiate(self, rec: GameRec, legal: dict[str, Any] | None) -> None:
        for _ in range(10_000):
            if self.ctx.stop.is_set():
                return
            if legal is None:
                legal = self.legal(rec)
            if legal["decision"] is None:
                rec.finished = True
                return
            roll = self.rng.random()
            if roll < 0.08:
                self.takeback(rec)
                legal = None
            elif roll < 0.085:
                self.end(rec)
                legal = None
            else:
                legal = self.move(rec, legal)

    def offer(self, rec: GameRec, player: str, kind: str, **fields: Any) -> Reply:
        body = {"type": kind, "player_id": player, **fields}
        reply = self.api.call(
            "POST", f"/games/{rec.game_id}/commands", body, token=rec.tokens[player]
        )
        if reply.status == 200:
            rec.record(reply.json)
        return reply

    def offers(self, rec: GameRec) -> dict[str, Any]:
        view = self.api.call("GET", f"/games/{rec.game_id}")
        if not self.expect("read a game's offers", view, {200}):
            return {}
        return view.json["offers"]  # type: ignore[no-any-return]

    def takeback(self, rec: GameRec) -> None:
        asker = self.rng.choice(sorted(rec.tokens))
        asked = self.offer(rec, asker, "RequestTakeback")
        if asked.status == 409 and asked.json.get("code") in REFUSED:
            self.count("takeback refused by the rules")
            return
        if not self.expect("ask a takeback", asked, {200}):
            return
        open_ = self.offers(rec).get("takeback")
        outcome = "taken back"
        for player in open_["waiting_for"] if open_ else []:
            accept = self.rng.random() < 0.8
            answered = self.offer(rec, player, "AnswerTakeback", accept=accept)
            if not self.expect("answer a takeback", answered, {200}):
                return
            if not accept:
                outcome = "takeback refused"
                break
        if self.offers(rec).get("takeback") is not None:
            self.ctx.stats.finding("negotiator: a takeback left open", rec.game_id)
        self.count(outcome)

    def end(self, rec: GameRec) -> None:
        proposer = self.rng.choice(sorted(rec.tokens))
        if not self.expect("propose an end", self.offer(rec, proposer, "ProposeEnd"), {200}):
            return
        agreed = self.rng.random() < 0.5
        others = [p for p in sorted(rec.tokens) if p != proposer]
        for i, player in enumerate(others):
            accept = agreed or i < len(others) - 1
            answered = self.offer(rec, player, "AnswerEnd", accept=accept)
            if not self.expect("answer an end", answered, {200}):
                return
        status = self.api.call("GET", f"/games/{rec.game_id}").json.get("status")
        if (status == "ended") != agreed:
            self.ctx.stats.finding("negotiator: an end not as agreed", f"{rec.game_id}: {status}")
        self.count("ended by agreement" if agreed else "end declined")

    def count(self, what: str) -> None:
        with self.ctx.stats.lock:
            self.ctx.stats.offers[what] += 1
