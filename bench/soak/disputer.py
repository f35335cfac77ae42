"""Disputers: disputes on finished games, ruled by an auditor."""

from __future__ import annotations

from typing import Any

from bench.soak.api import Client
from bench.soak.games import Context, GameRec


class Disputer(Client):
    """Disputes finished bot games as one of their players and rules as an auditor
    (docs/disputes.md): a dispute with a note, then *stands*, an amended ranking, an
    annulment, or a rewind that the disputer then plays to the end again; or a
    withdrawal. Refusals it provokes must be the ones the procedure names."""

    kind = "disputer"

    def __init__(self, ctx: Context, seed: int, auditor: str) -> None:
        super().__init__(ctx, seed)
        self.auditor = auditor
        self.done: set[str] = set()

    def step(self) -> None:
        ended = [
            g
            for g in self.ctx.registry.all()
            if g.finished and g.owner == "bot" and g.game_id not in self.done
        ]
        if not ended:
            self.ctx.stop.wait(0.5)
            return
        rec = self.rng.choice(ended)
        self.done.add(rec.game_id)
        game = self.api.call("GET", f"/games/{rec.game_id}")
        if not self.expect("read a finished game", game, {200}):
            return
        head = game.json["version"]
        opener = self.rng.choice(list(rec.tokens.values()))
        d = self.open_dispute(rec, head, opener)
        if d is None:
            return
        board = self.api.call("GET", f"/games/{rec.game_id}/scoreboard?min_version={head}")
        if not self.expect("final scoreboard", board, {200}) or not board.json.get("final"):
            return
        ranking = [r["player_id"] for r in board.json["final"]["ranking"]]
        choice = self.settle(rec, d, opener, head, ranking)
        if choice is None:
            return
        with self.ctx.stats.lock:
            self.ctx.stats.rulings[choice] += 1
        self.expect(
            "a closed dispute",
            self.api.call("POST", f"/disputes/{d}/notes", {"text": "late"}, token=self.auditor),
            {409},
            "dispute_closed",
        )

    def open_dispute(self, rec: GameRec, head: int, opener: str) -> str | None:
        """A dispute ``opener`` opens on ``rec``, noted by the auditor, a ruling by the
        player refused, its evidence read: its id (None if it was not opened)."""
        opened = self.api.call(
            "POST",
            f"/games/{rec.game_id}/disputes",
            {
                "reason": self.rng.choice(["rule_applied_wrongly", "unfair_draw", "misclick"]),
                "version": self.rng.randint(1, head),
                "text": "soak",
            },
            token=opener,
        )
        if not self.expect("open a dispute", opened, {201}):
            return None
        d: str = opened.json["dispute_id"]
        self.expect(
            "note",
            self.api.call("POST", f"/disputes/{d}/notes", {"text": "a note"}, token=self.auditor),
            {200},
        )
        self.expect(
            "a player cannot rule",
            self.api.call(
                "POST",
                f"/disputes/{d}/ruling",
                {"decision": "stands", "reasoning": "x", "rules": ["D4"]},
                token=opener,
            ),
            {403},
            "auditors_only",
        )
        evidence = self.api.call("GET", f"/disputes/{d}/evidence", token=self.auditor)
        self.expect("evidence", evidence, {200})
        return d

    def settle(
        self, rec: GameRec, d: str, opener: str, head: int, ranking: list[str]
    ) -> str | None:
        """The player withdraws, or the auditor rules (a rewound game is played to its
        end again): how the dispute was settled (None if the ruling was refused)."""
        choice = self.rng.choice(["stands", "amend", "annul", "rewind", "withdraw"])
        if choice == "withdraw":
            self.expect(
                "withdraw",
                self.api.call("POST", f"/disputes/{d}/withdraw", {}, token=opener),
                {200},
            )
            return choice
        body: dict[str, Any] = {"decision": "stands", "reasoning": "soak", "rules": ["D4"]}
        if choice == "amend":
            body.update(decision="result_amended", ranking=ranking[::-1])
        elif choice == "annul":
            body.update(decision="result_amended", annulled=True)
        elif choice == "rewind":
            receipts = [v for v in self.journal_receipts(rec.game_id) if v < head - 5]
            if not receipts:
                choice = "stands"
            else:
                body.update(decision="rewind", rules=["D6"], to_version=self.rng.choice(receipts))
        ruled = self.api.call("POST", f"/disputes/{d}/ruling", body, token=self.auditor)
        if not self.expect(f"rule {choice}", ruled, {200}):
            return None
        if choice == "rewind":
            self.play_out(rec)
        return choice

    def journal_receipts(self, game_id: str) -> list[int]:
        receipts: list[Any] = []
        after = 0
        while True:
            page = self.api.call(
                "GET", f"/games/{game_id}/journal?after={after}&limit=500", token=self.auditor
            )
            if page.status != 200:
                return receipts
            receipts += [
                c["last_version"]
                for c in page.json["commands"]
                if c["outcome"] == "accepted"
                and c["payload"].get("type") not in ("CreateGame", "JoinGame", "StartGame")
            ]
            if not page.json["has_more"]:
                return receipts
            after = page.json["next_after"]

    def play_out(self, rec: GameRec) -> None:
        """The rewound game, played to its end again from the re-deal."""
        for _ in range(3000):
            legal = self.api.call("GET", f"/games/{rec.game_id}/legal")
            if (
                not self.expect("legal after a rewind", legal, {200})
                or legal.json["decision"] is None
            ):
                return
            token = rec.tokens[legal.json["player_id"]]
            moved = self.api.call(
                "POST",
                f"/games/{rec.game_id}/commands",
                self.rng.choice(legal.json["commands"]),
                token=token,
                headers={"If-Match": f'"{legal.json["version"]}"'},
            )
            if not self.expect("a move after a rewind", moved, {200}):
                return
