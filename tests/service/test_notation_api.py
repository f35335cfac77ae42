"""``GET /games/{id}/notation`` on both stores (docs/notation.md, issue 32): a game
played over the API, finished or under way, comes back from its TGN as its very
events; a history TGN cannot hold is 409 ``not_in_notation``, an unknown game 404."""

from __future__ import annotations

from domain.notation import load
from domain.serialization import encode
from tests.service.api import Player, all_events, open_game, play_to_the_end


def events_of(client, game_id):  # type: ignore[no-untyped-def]
    return [{"type": e["type"], **e["data"]} for e in all_events(client, game_id)]


def test_a_finished_game_is_its_notation(client):
    game_id, players = open_game(client, ["blue", "red", "green"])
    play_to_the_end(client, game_id, players, seed=4)
    r = client.get(f"/api/v1/games/{game_id}/notation")
    assert r.status_code == 200 and r.mimetype == "text/plain"
    assert r.headers["Content-Disposition"] == f'inline; filename="{game_id}.tgn"'
    text = r.get_data(as_text=True)
    assert f'[Game "{game_id}"]' in text and "[Seed " in text and "[Result " in text
    assert '[Name1 "player-blue"]' in text  # the players' names, beside their ids
    loaded = load(text)
    assert [encode(e) for e in loaded.events] == events_of(client, game_id)
    # the head it was written from is its ETag: asked again with it, nothing moved
    tag = r.headers["ETag"]
    again = client.get(f"/api/v1/games/{game_id}/notation", headers={"If-None-Match": tag})
    assert again.status_code == 304 and again.headers["ETag"] == tag
    assert client.get(f"/api/v1/games/{game_id}/notation").get_data(as_text=True) == text


def test_a_game_under_way_is_written_as_it_stands_without_its_seed(client):
    game_id, players = open_game(client, ["blue", "red"])
    legal = client.get(f"/api/v1/games/{game_id}/legal").json
    mover = next(p for p in players if p.id == legal["player_id"])
    assert mover.post(f"/games/{game_id}/commands", legal["commands"][0]).status_code == 200
    first = client.get(f"/api/v1/games/{game_id}/notation")
    legal = client.get(f"/api/v1/games/{game_id}/legal").json
    mover = next(p for p in players if p.id == legal["player_id"])
    assert mover.post(f"/games/{game_id}/commands", legal["commands"][0]).status_code == 200
    moved = client.get(
        f"/api/v1/games/{game_id}/notation", headers={"If-None-Match": first.headers["ETag"]}
    )
    assert moved.status_code == 200 and moved.headers["ETag"] != first.headers["ETag"]
    text = moved.get_data(as_text=True)
    assert len(text.splitlines()) > len(first.get_data(as_text=True).splitlines())
    assert "[Seed " not in text and text.rstrip().endswith(": " + text.rstrip().split(": ")[-1])
    assert [encode(e) for e in load(text).events] == events_of(client, game_id)


def test_a_takeback_in_the_history_is_refused_by_name(client):
    game_id, players = open_game(client, ["blue", "red"])
    legal = client.get(f"/api/v1/games/{game_id}/legal").json
    mover = next(p for p in players if p.id == legal["player_id"])
    assert mover.post(f"/games/{game_id}/commands", legal["commands"][0]).status_code == 200
    asked = mover.post(
        f"/games/{game_id}/commands", {"type": "RequestTakeback", "player_id": mover.id}
    )
    assert asked.status_code == 200, asked.json
    r = client.get(f"/api/v1/games/{game_id}/notation")
    assert r.status_code == 409 and r.content_type == "application/problem+json"
    assert r.json["code"] == "not_in_notation" and "RequestTakeback" in r.json["detail"]


def test_no_such_game_and_a_game_not_started(client):
    r = client.get("/api/v1/games/g-nope/notation")
    assert r.status_code == 404 and r.json["code"] == "unknown_game"
    ann = Player(client, "ann")
    game_id = ann.post("/games", {"max_players": 2}).json["game_id"]
    r = client.get(f"/api/v1/games/{game_id}/notation")
    assert r.status_code == 409 and r.json["code"] == "not_in_notation"
