"""What an authenticated command costs the database (issue 34): who is calling is read in
one statement, the credential with its account, never one after the other."""

from __future__ import annotations

import random

import service.store.database as database
from tests.service.api import open_game


def test_a_command_reads_who_is_calling_in_one_statement(app, client, monkeypatch):
    game_id, players = open_game(client, ["blue", "red"])
    by_id = {p.id: p for p in players}
    statements: list[str] = []
    execute = database.SqlDatabase.execute

    def counted(self, cursor, sql, *args, **kwargs):
        statements.append(" ".join(str(sql).split()))
        return execute(self, cursor, sql, *args, **kwargs)

    monkeypatch.setattr(database.SqlDatabase, "execute", counted)
    rng = random.Random(3)
    for _ in range(8):
        legal = client.get(f"/api/v1/games/{game_id}/legal").json
        mover = by_id[legal["player_id"]]
        statements.clear()
        answer = mover.post(
            f"/games/{game_id}/commands",
            rng.choice(legal["commands"]),
            **{"If-Match": f'"{legal["version"]}"'},
        )
        assert answer.status_code == 200, answer.json
        reads = [s for s in statements if s.startswith("SELECT")]  # (a use is stamped
        # at most once a minute, by an UPDATE)
        who = [s for s in reads if "identity_credentials" in s or "FROM accounts" in s]
        assert len(who) == 1, who
        assert "JOIN accounts" in who[0]
