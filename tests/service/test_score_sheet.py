"""``GET /games/{id}/score``: a finished game's score explained, island by island and
player by player, equal to what the game recorded (R22, R23), on SQLite and PostgreSQL."""

from __future__ import annotations

from tests.service.api import open_game, play_to_the_end


def test_the_score_of_a_finished_game_is_explained_and_adds_up_to_its_result(client, app):
    game_id, players = open_game(client, ["blue", "red", "green"])
    play_to_the_end(client, game_id, players, seed=11)
    r = client.get(f"/api/v1/games/{game_id}/score")
    assert r.status_code == 200, r.json
    sheet = r.json
    _, state = app.extensions["tongiaki.games"].load(game_id)
    recorded = state.result.scores
    assert sheet["final"] is True and sheet["rules"] == "rules-2"
    assert [(p["player_id"], p["points"], p["rank"]) for p in sheet["players"]] == [
        (s.player_id, s.points, s.rank) for s in recorded
    ]
    assert sheet["tie_break"] == state.result.tie_break
    # a line for every player, named; the last one has nobody after it
    assert {p["name"] for p in sheet["players"]} == {"player-blue", "player-red", "player-green"}
    assert sheet["players"][-1]["ahead_of_next"] is None
    assert all(p["ahead_of_next"] for p in sheet["players"][:-1])
    earned: dict[str, int] = {}
    for found in sheet["islands"]:
        for scorer in found["scorers"]:
            assert scorer["points"] == found["value"] * len(scorer["colours"])
            earned[scorer["player_id"]] = earned.get(scorer["player_id"], 0) + scorer["points"]
    assert {k: v for k, v in earned.items() if v} == {
        s.player_id: s.points for s in recorded if s.points
    }


def test_a_game_under_way_has_its_score_as_it_stands_and_an_unknown_game_is_404(client):
    game_id, _ = open_game(client, ["blue", "red"])
    sheet = client.get(f"/api/v1/games/{game_id}/score").json
    assert sheet["final"] is False and len(sheet["players"]) == 2
    r = client.get("/api/v1/games/nope/score")
    assert r.status_code == 404 and r.headers["Content-Type"] == "application/problem+json"


def test_the_score_is_in_the_openapi_document(client):
    paths = client.get("/api/v1/openapi.json").json["paths"]
    assert "get" in paths["/games/{game_id}/score"]
    assert {"get", "put", "delete"} <= set(paths["/games/{game_id}/notes/{version}"])
    assert "get" in paths["/me/export"]
