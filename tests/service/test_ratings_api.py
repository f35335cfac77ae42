"""Ratings through the API on SQLite, PostgreSQL and the in-memory store (docs/ratings.md
G1-G9): a rated game opened and played out moves its players' ratings as OpenSkill says;
rulings that amend, annul or rewind it move them and move them back; bad input is a
problem, never a 500."""

from __future__ import annotations

import random

import pytest
from openskill.models import PlackettLuce

from tests.service.api import open_game, play_to_the_end
from tests.service.conftest import app_fixture
from tests.service.test_disputes import Auditor, dispute

app = app_fixture("sqlite", "postgres", "memory")


def ranking_of(client, game_id):
    board = client.get(f"/api/v1/games/{game_id}/scoreboard").json
    return [(r["player_id"], r["rank"]) for r in board["final"]["ranking"]]


def expected(ranking):
    """What PlackettLuce gives fresh players ranked so (called directly)."""
    model = PlackettLuce()
    after = model.rate([[model.rating()] for _ in ranking], ranks=[r for _, r in ranking])
    return {p: (t[0].mu, t[0].sigma) for (p, _), t in zip(ranking, after, strict=True)}


def board(client, min_games=1):
    r = client.get(f"/api/v1/ratings?min_games={min_games}")
    assert r.status_code == 200, r.json
    return {p["account_id"]: (p["mu"], p["sigma"]) for p in r.json["players"]}


def test_g1_a_rated_game_says_so_and_moves_ratings_a_casual_one_does_not(client):
    # given a casual game and a rated one, played out
    casual, _ = open_game(client, ["blue", "red"])
    rated, players = open_game(client, ["green", "yellow", "orange"], rated=True)
    assert client.get(f"/api/v1/games/{rated}").json["rated"] is True
    assert client.get(f"/api/v1/games/{casual}").json["rated"] is False
    lobby = {g["game_id"]: g for g in client.get("/api/v1/lobby").json["games"]}
    assert lobby[rated]["rated"] is True and lobby[casual]["rated"] is False
    play_to_the_end(client, rated, players, seed=7)
    # then the leaderboard rates the rated game's players as the library does
    ranking = ranking_of(client, rated)
    assert board(client) == expected(ranking)
    answer = client.get("/api/v1/ratings").json  # the default minimum: 5 games (G7)
    assert answer["players"] == [] and answer["min_games"] == 5
    listed = client.get("/api/v1/ratings?min_games=1").json["players"]
    assert [p["position"] for p in listed] == [1, 2, 3]
    assert all(p["provisional"] and p["games"] == 1 and p["name"] for p in listed)
    # and each account's history has the game, with its rating before and after
    best = ranking[0][0]
    history = client.get(f"/api/v1/accounts/{best}/ratings").json
    assert history["rating"]["games"] == 1 and history["has_more"] is False
    (game,) = history["games"]
    assert game["game_id"] == rated and game["rank"] == 1 and game["players"] == 3
    assert game["before"] == {"rating": 0.0, "mu": 25.0, "sigma": 25 / 3}
    assert (game["after"]["mu"], game["after"]["sigma"]) == expected(ranking)[best]


def test_g4_amended_and_annulled_results_move_ratings_and_move_them_back(client, app):
    # given a rated game played out
    game_id, players = open_game(client, ["blue", "red"], rated=True)
    play_to_the_end(client, game_id, players, seed=5)
    ranking = ranking_of(client, game_id)
    assert board(client) == expected(ranking)
    version = client.get(f"/api/v1/games/{game_id}").json["version"]
    auditor = Auditor(client, app)
    # when a ruling amends the result (D4), the ratings follow the new ranking
    amended = [p for p, _ in reversed(ranking)]
    d = dispute(players[0], game_id, version, reason="unfair_draw").json["dispute_id"]
    r = auditor.post(
        f"/disputes/{d}/ruling",
        {"decision": "result_amended", "reasoning": "x", "rules": ["D4"], "ranking": amended},
    )
    assert r.status_code == 200, r.json
    assert board(client) == expected([(p, i) for i, p in enumerate(amended, start=1)])
    # when another annuls it, the game counts for nobody: no rating at all
    d2 = dispute(players[1], game_id, version, reason="other", text="void").json["dispute_id"]
    r = auditor.post(
        f"/disputes/{d2}/ruling",
        {"decision": "result_amended", "reasoning": "void", "rules": ["D4"], "annulled": True},
    )
    assert r.status_code == 200, r.json
    assert board(client) == {}
    history = client.get(f"/api/v1/accounts/{players[0].id}/ratings").json
    assert history["rating"] is None and history["games"] == []


def test_g4_a_rewind_of_an_ended_game_takes_its_ratings_back_until_it_ends_again(client, app):
    game_id, players = open_game(client, ["blue", "red"], rated=True)
    responses = play_to_the_end(client, game_id, players, seed=3)
    receipts = [
        r.json["version"] for r in responses if r.status_code == 200 and "receipt" in r.json
    ]
    assert board(client) != {}
    version = client.get(f"/api/v1/games/{game_id}").json["version"]
    d = dispute(players[0], game_id, version).json["dispute_id"]
    r = Auditor(client, app).post(
        f"/disputes/{d}/ruling",
        {"decision": "rewind", "reasoning": "x", "rules": ["D6"], "to_version": receipts[-3]},
    )
    assert r.status_code == 200, r.json
    assert board(client) == {}  # the game is under way again: no result, no rating
    play_to_the_end(client, game_id, players, seed=4)
    assert board(client) == expected(ranking_of(client, game_id))
    # the read models rebuilt from the record give the same numbers
    kept = client.get("/api/v1/ratings?min_games=1").json
    app.extensions["tongiaki.readmodels"].rebuild()
    assert client.get("/api/v1/ratings?min_games=1").json == kept


@pytest.mark.parametrize(
    "path, status, code",
    [
        ("/ratings?min_games=0", 422, None),
        ("/ratings?min_games=1001", 422, None),
        ("/ratings?min_games=x", 422, None),
        ("/ratings?limit=501", 422, None),
        ("/ratings?offset=-1", 422, None),
        ("/accounts/nobody/ratings", 404, "unknown_account"),
        ("/accounts/a%20b/ratings", 404, "unknown_account"),
        (f"/accounts/{'a' * 65}/ratings", 404, "unknown_account"),
        ("/accounts/nobody/ratings?limit=0", 422, None),
    ],
)
def test_bad_input_is_a_problem(client, path, status, code):
    r = client.get(f"/api/v1{path}")
    assert r.status_code == status, r.json
    assert r.content_type == "application/problem+json"
    if code:
        assert r.json["code"] == code


def test_g1_rated_must_be_a_json_boolean(client):
    from tests.service.api import Player

    p = Player(client, "ann")
    for bad in ("yes", 1, None):
        r = p.post("/games", {"max_players": 2, "rated": bad})
        assert r.status_code == 422, r.json
        assert r.content_type == "application/problem+json"
    assert client.get("/api/v1/lobby").json["games"] == []


def test_g9_the_history_pages(client, app):
    rng = random.Random(1)
    game_ids = []
    for seed in range(3):
        game_id, players = open_game(client, ["blue", "red"], rated=True)
        play_to_the_end(client, game_id, players, seed=rng.randrange(100) + seed)
        game_ids.append((game_id, players))
    # each game has its own players: one game each, pages of one
    _, players = game_ids[0]
    first = client.get(f"/api/v1/accounts/{players[0].id}/ratings?limit=1").json
    assert len(first["games"]) == 1 and first["has_more"] is False
    assert client.get("/api/v1/ratings?min_games=1&limit=2").json["has_more"] is True


def test_g7_g9_the_openapi_document_describes_the_ratings(client):
    spec = client.get("/api/v1/openapi.json").json
    board = spec["paths"]["/ratings"]["get"]
    assert {p["name"] for p in board["parameters"]} == {"min_games", "limit", "offset"}
    history = spec["paths"]["/accounts/{account_id}/ratings"]["get"]
    assert {"200", "404", "422"} <= set(history["responses"])
    assert "rated" in spec["components"]["schemas"]["GameCreate"]["properties"]
