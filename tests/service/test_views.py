"""Read-model endpoints (inline projections) on SQLite, PostgreSQL and the in-memory store
(its read models in an in-memory database)."""

from __future__ import annotations

from domain.fold import replay
from domain.scoring import outcome
from projections.store import KEYFRAME_EVERY
from service.http.api.views import WAIT_SECONDS
from tests.service.api import Player, open_game, play_to_the_end
from tests.service.conftest import app_fixture

app = app_fixture("sqlite", "postgres", "memory")


def finished_game(client, seed=5):
    game_id, players = open_game(client, ["blue", "red"])
    play_to_the_end(client, game_id, players, seed)
    return game_id, players


def test_the_scoreboard_of_a_finished_game_equals_the_engines_outcome(client, app):
    game_id, _ = finished_game(client)
    head = client.get(f"/api/v1/games/{game_id}").json["version"]
    board = client.get(f"/api/v1/games/{game_id}/scoreboard").json
    assert board["version"] == head and board["status"] == "ended"
    _, state = app.extensions["tongiaki.games"].load(game_id)
    result = outcome(state)
    assert [(r["player_id"], r["rank"], r["points"]) for r in board["final"]["ranking"]] == [
        (s.player_id, s.rank, s.points) for s in result.scores
    ]
    assert board["final"]["winners"] == list(result.winners)


def test_the_leaderboard_counts_games_wins_points_and_average_rank(client):
    game_id, _ = finished_game(client, seed=6)
    board = client.get(f"/api/v1/games/{game_id}/scoreboard").json
    rows = {r["account_id"]: r for r in client.get("/api/v1/leaderboard").json["players"]}
    for r in board["final"]["ranking"]:
        row = rows[r["player_id"]]
        assert (row["games"], row["points"], row["average_rank"]) == (1, r["points"], r["rank"])
        assert row["wins"] == int(r["player_id"] in board["final"]["winners"])
        assert row["name"] in {"player-blue", "player-red"}
    # a page at a time, saying whether more follow (issue 39)
    everyone = client.get("/api/v1/leaderboard").json
    assert everyone["has_more"] is False and len(everyone["players"]) == 2
    first = client.get("/api/v1/leaderboard?limit=1").json
    second = client.get("/api/v1/leaderboard?limit=1&offset=1").json
    assert first["has_more"] is True and second["has_more"] is False
    assert first["players"] + second["players"] == everyone["players"]


def test_my_games_list_the_ones_waiting_for_my_move_first(client):
    first, (blue, red) = open_game(client, ["blue", "red"])
    second, _ = open_game(client, ["blue", "red"])  # other accounts
    assert client.get(f"/api/v1/games/{first}/legal").json["player_id"] == blue.id
    third = blue.post("/games", {"max_players": 2}).json["game_id"]
    assert red.post(f"/games/{third}/seats", {"colour": "red"}).status_code == 201
    assert blue.post(f"/games/{third}/seats", {"colour": "blue"}).status_code == 201
    assert blue.post(f"/games/{third}/start").status_code == 200  # red moves first
    mine = blue.get("/me/games").json["games"]
    # the third game is the latest activity, but the first one waits for my move
    assert [g["game_id"] for g in mine] == [first, third]
    assert [g["my_move"] for g in mine] == [True, False]
    assert mine[0]["active_player"] == blue.id
    theirs = red.get("/me/games").json["games"]
    assert [(g["game_id"], g["my_move"]) for g in theirs] == [(third, True), (first, False)]
    lobby = client.get("/api/v1/lobby?status=setup").json["games"]
    assert {first, second} <= {g["game_id"] for g in lobby}
    assert client.get("/api/v1/lobby?status=nope").status_code == 422
    assert client.get("/api/v1/me/games").status_code == 401


def test_the_timeline_pages_every_event_with_turns_and_descriptions(client, app):
    game_id, _ = finished_game(client, seed=7)
    head = client.get(f"/api/v1/games/{game_id}").json["version"]
    steps, after = [], 0
    while True:
        page = client.get(f"/api/v1/games/{game_id}/timeline?after={after}&limit=100").json
        if not page["steps"]:
            break
        steps += page["steps"]
        after = page["next_after"]
    assert [s["version"] for s in steps] == list(range(1, head + 1))
    assert all(s["description"] for s in steps)
    turns = page["turns"]
    assert turns[0]["turn"] == 0 and turns[1] == {
        "turn": 1,
        "first_version": turns[1]["first_version"],
    }
    by_version = {s["version"]: s for s in steps}
    for t in turns:
        assert by_version[t["first_version"]]["turn"] == t["turn"]
        assert by_version[t["first_version"]]["step"] == 1


def test_state_at_a_version_comes_from_keyframes_and_equals_a_fold(client, app):
    game_id, _ = finished_game(client, seed=8)
    service = app.extensions["tongiaki.games"]
    store = service.store
    from service.play.repository import decode_events

    events = decode_events(store.read(game_id))
    for at in (1, 26, 60, 99):
        view = client.get(f"/api/v1/games/{game_id}/state?at={at}").json
        assert view["version"] == at
        cold = type(service)(store)  # no cache: a keyframe or snapshot, then the fold
        assert cold.load(game_id, at=at)[1] == replay(events[:at])
    rm = app.extensions["tongiaki.readmodels"]
    assert rm.keyframe(game_id, 65)[0] == 65 - 65 % KEYFRAME_EVERY


def test_the_audit_shows_a_rejected_command_beside_the_accepted_ones(client):
    game_id, (blue, red) = open_game(client, ["blue", "red"])
    legal = client.get(f"/api/v1/games/{game_id}/legal").json
    assert red.post(f"/games/{game_id}/commands", legal["commands"][0]).status_code == 403
    assert blue.post(f"/games/{game_id}/commands", legal["commands"][0]).status_code == 200
    audit = blue.get(f"/games/{game_id}/audit").json
    commands = [c for t in audit["turns"] for c in t["commands"]]
    rejected = [c for c in commands if c["outcome"] == "rejected"]
    assert len(rejected) == 1 and rejected[0]["actor"]["account"] == red.id
    assert rejected[0]["rejection"]["code"] == "not_your_turn" and rejected[0]["events"] == []
    accepted = commands[-1]
    assert accepted["outcome"] == "accepted" and accepted["events"]
    assert [e["version"] for e in accepted["events"]] == list(
        range(accepted["first_version"], accepted["last_version"] + 1)
    )
    assert Player(client, "stranger").get(f"/games/{game_id}/audit").status_code == 403


def test_a_refusal_is_in_the_audit_at_once_without_waiting_for_the_next_move(client):
    """The doorbell rings for a journalled refusal too: an auditor sees it straight away."""
    game_id, (blue, red) = open_game(client, ["blue", "red"])
    legal = client.get(f"/api/v1/games/{game_id}/legal").json
    assert red.post(f"/games/{game_id}/commands", legal["commands"][0]).status_code == 403
    audit = blue.get(f"/games/{game_id}/audit").json
    commands = [c for t in audit["turns"] for c in t["commands"]]
    assert commands[-1]["outcome"] == "rejected" and commands[-1]["actor"]["account"] == red.id


def test_read_your_writes_min_version_and_errors(client):
    game_id, _ = finished_game(client, seed=9)
    head = client.get(f"/api/v1/games/{game_id}").json["version"]
    ok = client.get(f"/api/v1/games/{game_id}/scoreboard?min_version={head}")
    assert ok.status_code == 200 and ok.json["version"] == head
    too_far = client.get(f"/api/v1/games/{game_id}/scoreboard?min_version={head + 1}")
    assert too_far.status_code == 422 and too_far.content_type == "application/problem+json"
    assert client.get("/api/v1/games/nope/timeline").status_code == 404
    assert client.get(f"/api/v1/games/{game_id}/timeline?limit=0").status_code == 422
    assert WAIT_SECONDS <= 5


def test_a_halted_projection_is_a_visible_503_not_a_silent_gap(client, app):
    rm = app.extensions["tongiaki.readmodels"]

    def poison(name, game_id, batch):
        if name == "scoreboard":
            raise RuntimeError("poison event")

    rm.before_apply = poison
    game_id, _ = open_game(client, ["blue", "red"])  # commands still succeed
    r = client.get(f"/api/v1/games/{game_id}/scoreboard")
    assert r.status_code == 503 and r.json["code"] == "projection_halted"
    assert "poison event" in r.json["detail"]
    status = client.get("/api/v1/projections").json["projections"]
    halted = {p["projection"]: p["halted"] for p in status}
    assert halted["scoreboard"] == [{"game_id": game_id, "error": "RuntimeError: poison event"}]
    assert client.get(f"/api/v1/games/{game_id}/timeline").status_code == 200


def test_the_read_model_endpoints_are_in_the_openapi_document(client):
    paths = set(client.get("/api/v1/openapi.json").json["paths"])
    assert {
        "/games/{game_id}/scoreboard",
        "/leaderboard",
        "/lobby",
        "/me/games",
        "/games/{game_id}/timeline",
        "/games/{game_id}/audit",
        "/projections",
    } <= paths
