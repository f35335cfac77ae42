"""Analysis forks through the HTTP API on both stores (docs/forks.md F1–F7, issue 32):
opened at any version under way, played by their owner on every seat, undone,
branched, appraised by the bot; bounded and refused clearly; never changing the
original; and a fork of a game under way never tells its real next tile."""

from __future__ import annotations

import random

from domain.errors import DeckRequired
from domain.judge import apply
from domain.play import deck_of
from domain.serialization import decode_command
from tests.service.api import Player, all_events, open_game, play_to_the_end


def drawing_move(view: dict) -> dict | None:
    """A legal command of the fork's position that draws a tile, if any."""
    from domain.position import load as load_position

    state = load_position(view["position"])
    for item in view["legal"]:
        try:
            apply(state, decode_command(item["command"]))
        except DeckRequired:
            return item["command"]
    return None


def first_draw(owner: Player, fork: dict, rng: random.Random) -> str:
    """Play the fork until a tile is drawn: that tile."""
    view = fork
    for _ in range(200):
        move = drawing_move(view) or rng.choice(view["legal"])["command"]
        r = owner.post(
            f"/forks/{view['fork_id']}/commands", {**move, "expected_version": view["version"]}
        )
        assert r.status_code == 200, r.json
        view = r.json
        drawn = [e["tile"] for e in view["moves"][-1]["events"] if e["type"] == "TileDrawn"]
        if drawn:
            return drawn[0]
    raise AssertionError("no tile drawn in 200 moves")


def test_f1_to_f3_a_fork_is_opened_played_undone_and_branched(client):
    game_id, players = open_game(client, ["blue", "red"])
    ann, other = players
    head = client.get(f"/api/v1/games/{game_id}").json["version"]
    before = all_events(client, game_id)
    r = ann.post(f"/games/{game_id}/forks", {"version": head})
    assert r.status_code == 201, r.json
    fork = r.json
    assert fork["anchor"] == {"game_id": game_id, "version": head, "hash": before[-1]["hash"]}
    assert fork["version"] == 0 and fork["deck"] == "shuffle" and fork["legal"]
    assert all(item["words"] for item in fork["legal"])
    fid = fork["fork_id"]
    # the owner plays every seat (F2), twice in a row here
    for _ in range(2):
        view = client.get(f"/api/v1/forks/{fid}").json
        r = ann.post(f"/forks/{fid}/commands", view["legal"][0]["command"])
        assert r.status_code == 200, r.json
    assert r.json["version"] == 2 and [m["n"] for m in r.json["moves"]] == [1, 2]
    # someone else may look (a shared link) but not play
    assert other.post(f"/forks/{fid}/commands", r.json["legal"][0]["command"]).status_code == 403
    assert client.get(f"/api/v1/forks/{fid}").json["moves"] == r.json["moves"]
    stale = ann.post(
        f"/forks/{fid}/commands", {**r.json["legal"][0]["command"], "expected_version": 1}
    )
    assert stale.status_code == 409 and stale.json["code"] == "stale_fork"
    undone = ann.post(f"/forks/{fid}/undo", {"steps": 1})
    assert undone.status_code == 200 and undone.json["version"] == 1
    branched = other.post(f"/forks/{fid}/branch", {"at": 0})
    assert branched.status_code == 201 and branched.json["parent"] == fid
    assert branched.json["owner"] == other.id and branched.json["version"] == 0
    assert [f["fork_id"] for f in other.get("/me/forks").json["forks"]] == [
        branched.json["fork_id"]
    ]
    # F5: the original is untouched and no fork is a game
    assert all_events(client, game_id) == before
    listed = client.get("/api/v1/games").json["games"]
    assert all(not g["game_id"].startswith("f") or len(g["game_id"]) != 21 for g in listed)
    assert ann.client.delete(f"/api/v1/forks/{fid}", headers=ann.headers).status_code == 204
    assert client.get(f"/api/v1/forks/{fid}").status_code == 404


def test_f7_the_bot_appraises_every_legal_command(client):
    game_id, players = open_game(client, ["blue", "red", "green"])
    head = client.get(f"/api/v1/games/{game_id}").json["version"]
    fork = players[0].post(f"/games/{game_id}/forks", {"version": head}).json
    r = client.get(f"/api/v1/forks/{fork['fork_id']}/analysis?playouts=60")
    assert r.status_code == 200, r.json
    assert r.json["playouts"] == 60 and r.json["choice"] == r.json["appraisals"][0]
    assert sorted(str(a["command"]) for a in r.json["appraisals"]) == sorted(
        str(item["command"]) for item in fork["legal"]
    )
    for bad in ("0", "2001", "x"):
        r = client.get(f"/api/v1/forks/{fork['fork_id']}/analysis?playouts={bad}")
        assert r.status_code == 422 and r.content_type == "application/problem+json"


def test_bad_forks_are_refused_clearly_and_bounded(client):
    game_id, players = open_game(client, ["blue", "red"])
    ann = players[0]
    head = client.get(f"/api/v1/games/{game_id}").json["version"]
    for body, status, code in (
        ({"version": head + 1}, 404, "unknown_version"),
        ({"version": 1}, 409, "nothing_to_play"),
        ({"version": head, "deck": "true"}, 409, "deck_hidden"),
        ({"version": head, "deck": "stacked"}, 422, None),
        ({"version": "1"}, 422, None),
        ({}, 422, None),
    ):
        r = ann.post(f"/games/{game_id}/forks", body)
        assert r.status_code == status, (body, r.json)
        assert r.content_type == "application/problem+json"
        if code:
            assert r.json["code"] == code and r.json["rule"].startswith("F")
    assert client.post(f"/api/v1/games/{game_id}/forks", json={"version": head}).status_code == 401
    assert client.get("/api/v1/forks/f" + "0" * 20).json["code"] == "unknown_fork"
    assert client.get("/api/v1/forks/nope").status_code == 404
    for _ in range(20):
        assert ann.post(f"/games/{game_id}/forks", {"version": head}).status_code == 201
    r = ann.post(f"/games/{game_id}/forks", {"version": head})
    assert r.status_code == 409 and r.json["code"] == "too_many_forks"
    fid = ann.get("/me/forks").json["forks"][0]["fork_id"]
    r = ann.post(f"/forks/{fid}/commands", {"type": "ResumeGame"})
    assert r.status_code in (400, 422) and r.content_type == "application/problem+json"
    r = ann.post(f"/forks/{fid}/undo", {"steps": 1})
    assert r.status_code == 409 and r.json["code"] == "nothing_to_undo"


def test_f4_a_fork_of_a_game_under_way_never_tells_the_next_tile(client, app):
    game_id, players = open_game(client, ["blue", "red"])
    head = client.get(f"/api/v1/games/{game_id}").json["version"]
    games = app.extensions["tongiaki.games"]
    _, state = games.load(game_id)
    real_next = deck_of(state, games.secret(game_id)).tile_at(len(state.drawn))
    rng = random.Random(3)
    owner = players[0]
    firsts = []
    for _ in range(12):
        fork = owner.post(f"/games/{game_id}/forks", {"version": head}).json
        assert "deck" in fork and fork["deck"] == "shuffle" and "order" not in str(fork.keys())
        firsts.append(first_draw(owner, fork, rng))
    # twelve fresh deals of the tiles left: the real next tile is not what they share
    assert len(set(firsts)) > 3, firsts
    assert firsts.count(real_next) < 6, (real_next, firsts)


def test_f4_a_finished_games_fork_may_deal_the_true_order(client, app):
    game_id, players = open_game(client, ["blue", "red"])
    play_to_the_end(client, game_id, players, seed=2)
    # a version inside a command's events stands for the end of that command (F1)
    r = players[0].post(f"/games/{game_id}/forks", {"version": 40, "deck": "true"})
    assert r.status_code == 201, r.json
    fork = r.json
    version = fork["anchor"]["version"]
    assert fork["deck"] == "true" and version >= 40
    games = app.extensions["tongiaki.games"]
    _, then = games.load(game_id, version)
    _, final = games.load(game_id)
    real = deck_of(then, bytes.fromhex(final.seed_hex)).tile_at(len(then.drawn))
    assert first_draw(players[0], fork, random.Random(1)) == real


def test_a_forks_moves_are_a_variation_of_the_games_notation(client):
    from domain.notation import load

    game_id, players = open_game(client, ["blue", "red"])
    play_to_the_end(client, game_id, players, seed=6)
    fork = players[1].post(f"/games/{game_id}/forks", {"version": 30}).json
    fid = fork["fork_id"]
    for _ in range(3):
        view = client.get(f"/api/v1/forks/{fid}").json
        assert (
            players[1].post(f"/forks/{fid}/commands", view["legal"][-1]["command"]).status_code
            == 200
        )
    r = client.get(f"/api/v1/forks/{fid}/notation")
    assert r.status_code == 200 and r.mimetype == "text/plain"
    loaded = load(r.get_data(as_text=True))  # the variation is played and checked too
    varied = [m for m in loaded.record.moves if m.variations]
    assert len(varied) == 1 and len(varied[0].variations[0]) == 3
    assert varied[0].variations[0][0].comment.startswith(f"fork {fid}")
    assert [m.words for m in varied[0].variations[0]] == [
        m["words"] for m in client.get(f"/api/v1/forks/{fid}").json["moves"]
    ]
    # a fork from a game's last decision so far has no decision to stand beside
    running, others = open_game(client, ["blue", "red"])
    head = client.get(f"/api/v1/games/{running}").json["version"]
    at_head = others[0].post(f"/games/{running}/forks", {"version": head}).json
    r = client.get(f"/api/v1/forks/{at_head['fork_id']}/notation")
    assert r.status_code == 409 and r.json["code"] == "not_in_notation"
