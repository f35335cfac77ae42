"""Clocks through the HTTP API on both stores (docs/clocks.md): the time control as a
game option, the clock in the game's view and the lobby, resigning and reclaiming,
and the embedded default's in-process scheduler letting the bot play a resigned seat."""

from __future__ import annotations

import random
import time

from tests.service.api import Player, all_events, open_game


def test_c1_a_time_control_is_a_game_option_shown_in_the_game_and_the_lobby(client):
    game_id, players = open_game(
        client, ["blue", "red"], time_control="move", move_seconds=86_400, absent_after=2
    )
    view = client.get(f"/api/v1/games/{game_id}").json
    assert view["time_control"] == {"control": "move", "move_seconds": 86_400, "absent_after": 2}
    clock = view["clock"]
    assert clock["seat"] == 1 and clock["deadline"] is not None
    assert 86_000_000 < clock["time_left_ms"]["1"] <= 86_400_000
    assert view["players"][0]["bot"] is None and view["players"][0]["timeouts"] == 0
    lobby = client.get("/api/v1/lobby").json["games"]
    entry = next(g for g in lobby if g["game_id"] == game_id)
    assert entry["time_control"]["control"] == "move"
    assert entry["clock"]["deadline"] == clock["deadline"]
    assert "1" in entry["clock"]["time_left_ms"]
    mine = players[0].get("/me/games").json["games"]
    assert mine[0]["game_id"] == game_id and mine[0]["my_move"] is True
    assert mine[0]["clock"]["time_left_ms"]["1"] > 0
    assert mine[0]["last_activity"]


def test_c1_an_untimed_game_has_no_clock(client):
    game_id, _ = open_game(client, ["blue", "red"])
    view = client.get(f"/api/v1/games/{game_id}").json
    assert view["time_control"] == {"control": "none"} and view["clock"] is None


def test_c1_bad_time_controls_are_refused_and_open_nothing(client):
    ann = Player(client, "ann")
    before = client.get("/api/v1/games").json["games"]
    for body, status, code in (
        ({"time_control": "hourglass"}, 422, None),
        ({"time_control": "move", "move_seconds": "60"}, 422, None),
        ({"time_control": "move", "move_seconds": 10**12}, 422, None),
        ({"time_control": "move", "move_seconds": 2}, 409, "time_control_settings"),
        ({"time_control": "fischer", "base_seconds": 60, "move_seconds": 5}, 409, None),
        ({"time_control": "move", "move_seconds": 60, "absent_after": 0}, 422, None),
        ({"time_control": "fischer", "base_seconds": 60, "increment_seconds": 86_401}, 422, None),
        ({"time_control": "fischer", "base_seconds": 9}, 409, "time_control_settings"),
        ({"time_control": "none", "absent_after": 5}, 409, "time_control_settings"),
    ):
        r = ann.post("/games", {"max_players": 2, **body})
        assert r.status_code == status, (body, r.json)
        assert r.content_type == "application/problem+json"
        if code:
            assert r.json["code"] == code and r.json["rule"] == "C1"
    assert client.get("/api/v1/games").json["games"] == before


def test_c6_a_resigned_seat_is_played_by_the_in_process_scheduler_to_the_end(client):
    game_id, players = open_game(client, ["blue", "red", "green"])
    quitter = players[1]
    r = quitter.post(f"/games/{game_id}/commands", {"type": "Resign", "player_id": quitter.id})
    assert r.status_code == 200, r.json
    again = quitter.post(f"/games/{game_id}/commands", {"type": "Resign", "player_id": quitter.id})
    assert again.status_code == 409 and again.json["rule"] == "C6"
    other = players[0].post(
        f"/games/{game_id}/commands", {"type": "Resign", "player_id": quitter.id}
    )
    assert other.status_code == 403
    rng = random.Random(7)
    by_id = {p.id: p for p in players}
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        legal = client.get(f"/api/v1/games/{game_id}/legal").json
        if legal["decision"] is None:
            break
        if legal["player_id"] == quitter.id:  # the bot's: the scheduler plays it at once
            time.sleep(0.01)
            continue
        choice = rng.choice(legal["commands"])
        r = by_id[legal["player_id"]].post(
            f"/games/{game_id}/commands", choice, **{"If-Match": f'"{legal["version"]}"'}
        )
        assert r.status_code in (200, 409), r.json  # 409: the bot moved meanwhile
    else:
        raise AssertionError("the game did not end")
    events = all_events(client, game_id)
    kinds = [e["type"] for e in events]
    assert "PlayerResigned" in kinds and "SeatPlayedByBot" in kinds
    bot = [e for e in events if e["type"] == "SeatPlayedByBot"]
    assert all(e["metadata"]["actor"]["bot"] == "greedy" for e in bot)
    assert all(e["metadata"]["actor"]["acting_for"] == quitter.id for e in bot)
    ended = next(e for e in events if e["type"] == "GameEnded")
    assert ended["data"]["resigned"] == [quitter.id]
    assert ended["data"]["scores"][-1]["player_id"] == quitter.id
    assert client.get(f"/api/v1/games/{game_id}/verify").json["ok"] is True


def test_c5_reclaiming_a_seat_that_is_not_absent_is_refused(client):
    game_id, players = open_game(client, ["blue", "red"], time_control="move", move_seconds=3600)
    r = players[0].post(
        f"/games/{game_id}/commands", {"type": "ReclaimSeat", "player_id": players[0].id}
    )
    assert r.status_code == 409 and r.json["code"] == "seat_not_absent" and r.json["rule"] == "C5"


def test_the_bot_moves_are_not_for_players_to_send(client):
    game_id, players = open_game(client, ["blue", "red"], time_control="move", move_seconds=3600)
    r = players[0].post(
        f"/games/{game_id}/commands",
        {"type": "ActForSeat", "colour": "blue", "reason": "timeout", "move": "{}"},
    )
    assert r.status_code == 422 and r.json["code"] == "not_a_player_command"


def test_the_clock_rules_are_a_page_and_their_refusals_link_it(client):
    page = client.get("/docs/clocks")
    assert page.status_code == 200
    text = page.get_data(as_text=True)
    for rule in ("C1", "C2", "C3", "C4", "C5", "C6", "C7"):
        assert f'id="{rule}"' in text
    problem = client.get("/problems/turn_timed_out").get_data(as_text=True)
    assert 'href="/docs/clocks#C3"' in problem
