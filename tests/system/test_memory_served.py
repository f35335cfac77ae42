"""``DATABASE_URL=memory:`` (issue 27): the whole service, HTTP API and read models
included, served from one process's memory by ``tongiaki serve`` — a game played to
its end, verified, its read models level, and nothing written to disk."""

from __future__ import annotations

import random
import time

from tests.servers import Http, embedded, seated_game


def play_to_the_end(http: Http, gid: str, tokens: dict[str, str], seed: int) -> int:
    """Start the game and play random legal commands until it ends: the last version."""
    rng = random.Random(seed)
    first = next(iter(tokens.values()))
    legal = http.call("POST", f"/games/{gid}/start?include=legal", None, first).json["legal"]
    for _ in range(3000):
        if legal["decision"] is None:
            return int(legal["version"])
        reply = http.call(
            "POST",
            f"/games/{gid}/commands?include=legal",
            rng.choice(legal["commands"]),
            tokens[legal["player_id"]],
        )
        assert reply.status == 200, reply.json
        legal = reply.json["legal"]
    raise AssertionError("the game did not end")


def test_the_whole_service_runs_in_memory_and_keeps_nothing(tmp_path):
    data = tmp_path / "data"
    with embedded(data, DATABASE_URL="memory:") as server:
        http = server.http()
        gid, tokens = seated_game(http)
        head = play_to_the_end(http, gid, tokens, seed=4)
        report = http.call("GET", f"/games/{gid}/verify").json
        assert report["ok"] and report["chain_ok"] and report["deck_ok"], report
        deadline = time.monotonic() + 60  # the read models catch up inline, after the commit
        while True:
            board = http.call("GET", f"/games/{gid}/scoreboard")
            if board.status == 200 and board.json["version"] == head:
                break
            assert time.monotonic() < deadline, board.json
            time.sleep(0.05)
        assert board.json["status"] == "ended" and board.json["final"]["winners"]
        timeline = http.call("GET", f"/games/{gid}/timeline?limit=1000").json
        assert timeline["steps"][-1]["version"] == head
        lobby = http.call("GET", "/lobby?status=ended").json
        assert [g["game_id"] for g in lobby["games"]] == [gid]
        assert "in memory" in server.output()
    assert not (data / "tongiaki.db").exists()
    assert not any(p.suffix == ".db" for p in data.rglob("*"))
