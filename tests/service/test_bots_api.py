"""Bots' seats through the HTTP API on both stores (docs/bots.md B1–B4, issue 32): seated
by a player of an open, unrated table at a level; refused clearly, changing nothing;
played by the bot at once with its level's name in the journal; never a person (C7,
takebacks); a rematch seats them again."""

from __future__ import annotations

import random

import pytest

from tests.service.api import Player, all_events


def table(client, max_players=3, **options):
    """ann opens a table and sits at blue: (game_id, ann)."""
    ann = Player(client, "ann")
    r = ann.post("/games", {"max_players": max_players, **options})
    assert r.status_code == 201, r.json
    gid = r.json["game_id"]
    assert ann.post(f"/games/{gid}/seats", {"colour": "blue"}).status_code == 201
    return gid, ann


def head(client, gid):
    view = client.get(f"/api/v1/games/{gid}").json
    return view["version"], view["players"]


def test_B1_a_seated_player_seats_bots_at_levels_and_the_game_shows_them(client):
    gid, ann = table(client)
    r = ann.post(f"/games/{gid}/bots", {"bot": "mcts-easy", "colour": "red"})
    assert r.status_code == 201, r.json
    joined = [e for e in r.json["events"] if e["type"] == "PlayerJoined"]
    assert joined[0]["data"]["player_id"] == "bot-2" and joined[0]["data"]["bot"] == "mcts-easy"
    assert ann.post(f"/games/{gid}/bots", {"bot": "greedy", "colour": "green"}).status_code == 201
    _, players = head(client, gid)
    assert [(p["player_id"], p.get("level"), p["bot"]) for p in players] == [
        (ann.id, None, None), ("bot-2", "mcts-easy", "bot"), ("bot-3", "greedy", "bot")
    ]  # fmt: skip
    lobby = client.get("/api/v1/lobby").json
    seats = next(g for g in lobby["games"] if g["game_id"] == gid)["seats"]
    assert [s.get("level") for s in seats] == [None, "mcts-easy", "greedy"]
    # the command envelope carries the same seat (B1)
    gid2, ann2 = table(client)
    r = ann2.post(
        f"/games/{gid2}/commands", {"type": "JoinGame", "player_id": "", "colours": ["red"],
                                    "bot": "mcts"}
    )  # fmt: skip
    assert r.status_code == 200, r.json


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"bot": "mcts:5000", "colour": "red"}, 422, "invalid_fields"),
        ({"bot": "random", "colour": "red"}, 422, "invalid_fields"),
        ({"bot": "mcts"}, 422, "invalid_fields"),
        ({"bot": "mcts", "colour": "red", "colours": ["red"]}, 422, "invalid_fields"),
        ({"bot": "mcts", "colour": "blue"}, 409, "colour_taken"),
        ({"bot": "mcts", "colour": "pink"}, 422, "invalid_fields"),
        ({"bot": "mcts", "colour": "red", "entropy": "x"}, 422, "invalid_fields"),
    ],
)
def test_B1_a_bad_seat_is_refused_and_changes_nothing(client, body, status, code):
    gid, ann = table(client)
    before = head(client, gid)
    r = ann.post(f"/games/{gid}/bots", body)
    assert r.status_code == status, r.json
    assert r.headers["Content-Type"] == "application/problem+json"
    assert r.json["code"] == code, r.json
    assert head(client, gid) == before


def test_B1_only_a_seated_player_of_an_open_unrated_table_seats_a_bot(client):
    gid, ann = table(client, max_players=2)
    before = head(client, gid)
    stranger = Player(client, "stranger")
    r = stranger.post(f"/games/{gid}/bots", {"bot": "mcts", "colour": "red"})
    assert (r.status_code, r.json["code"]) == (403, "not_seated")
    r = client.post(f"/api/v1/games/{gid}/bots", json={"bot": "mcts", "colour": "red"})
    assert r.status_code == 401
    assert head(client, gid) == before
    assert ann.post(f"/games/{gid}/bots", {"bot": "mcts", "colour": "red"}).status_code == 201
    r = ann.post(f"/games/{gid}/bots", {"bot": "mcts", "colour": "green"})
    assert (r.status_code, r.json["code"], r.json["rule"]) == (409, "table_full", "R1")
    assert ann.post(f"/games/{gid}/start").status_code == 200
    r = ann.post(f"/games/{gid}/bots", {"bot": "mcts", "colour": "green"})
    assert r.status_code == 409, r.json
    # G1: ratings are of people
    rated, owner = table(client, rated=True)
    r = owner.post(f"/games/{rated}/bots", {"bot": "greedy", "colour": "red"})
    assert (r.status_code, r.json["code"], r.json["rule"]) == (409, "bot_at_rated_table", "B1")
    r = client.post("/api/v1/games/nope-nope/bots", json={"bot": "mcts", "colour": "red"},
                    headers=owner.headers)  # fmt: skip
    assert r.status_code == 404


def test_B1_a_retried_seat_with_its_idempotency_key_seats_one_bot(client):
    gid, ann = table(client)
    first = ann.post(f"/games/{gid}/bots", {"bot": "greedy", "colour": "red"},
                     **{"Idempotency-Key": "bot-red"})  # fmt: skip
    again = ann.post(f"/games/{gid}/bots", {"bot": "greedy", "colour": "red"},
                     **{"Idempotency-Key": "bot-red"})  # fmt: skip
    assert (first.status_code, again.status_code) == (201, 201)
    assert first.json["version"] == again.json["version"]
    assert len(head(client, gid)[1]) == 2


def bots_play(app, gid: str) -> int:
    """What the timekeeper does: the bot plays every decision due now; how many (the
    app's own clocks thread may play some first: a lost race is looked at again)."""
    from service.errors import Conflict

    games = app.extensions["tongiaki.games"]
    played = 0
    while True:
        try:
            if games.act_for_seat(gid) is None:
                return played
        except Conflict as exc:
            assert exc.code == "stale_version", exc
            continue
        played += 1


def test_B2_the_bots_play_their_seats_at_once_and_the_game_verifies(app, client):
    gid, ann = table(client)
    ann.post(f"/games/{gid}/bots", {"bot": "mcts-easy", "colour": "red"})
    ann.post(f"/games/{gid}/bots", {"bot": "greedy", "colour": "green"})
    assert ann.post(f"/games/{gid}/start").status_code == 200
    rng = random.Random(5)
    for _ in range(3000):
        bots_play(app, gid)
        legal = client.get(f"/api/v1/games/{gid}/legal").json
        if legal["decision"] is None:
            break
        assert legal["player_id"] == ann.id  # the bots never wait for anyone (B2)
        r = ann.post(f"/games/{gid}/commands", rng.choice(legal["commands"]),
                     **{"If-Match": f'"{legal["version"]}"'})  # fmt: skip
        assert r.status_code == 200, r.json
        # a person's move on a bot's seat is refused (B2)
    events = all_events(client, gid)
    assert events[-1]["type"] in ("GameEnded", "DeckRevealed")
    played = [e for e in events if e["type"] == "SeatPlayedByBot"]
    assert {(e["data"]["reason"], e["data"]["rule"]) for e in played} == {("bot", "B2")}
    by_seat = {e["data"]["seat"]: e["metadata"]["actor"]["bot"] for e in played}
    assert by_seat == {2: "mcts-easy", 3: "greedy"}
    verified = client.get(f"/api/v1/games/{gid}/verify", headers=ann.headers).json
    assert verified["ok"] is True, verified


def test_B3_when_the_last_person_resigns_nobody_is_left_and_the_game_ends(app, client):
    gid, ann = table(client, max_players=2)
    ann.post(f"/games/{gid}/bots", {"bot": "greedy", "colour": "red"})
    ann.post(f"/games/{gid}/start")
    r = ann.post(f"/games/{gid}/commands", {"type": "Resign", "player_id": ann.id})
    assert r.status_code == 200, r.json
    ended = [e for e in r.json["events"] if e["type"] == "GameEnded"]
    assert ended and (ended[0]["data"]["reason"], ended[0]["data"]["rule"]) == ("abandoned", "C7")
    bots_play(app, gid)
    assert client.get(f"/api/v1/games/{gid}/legal").json["decision"] is None
    # no account, so no profile (B3)
    assert client.get("/api/v1/accounts/bot-2/profile").status_code == 404


def test_B4_a_rematch_seats_the_bots_again_and_only_people_answer(app, client):
    gid, ann = table(client, max_players=2)
    ann.post(f"/games/{gid}/bots", {"bot": "mcts-easy", "colour": "red"})
    ann.post(f"/games/{gid}/start")
    ann.post(f"/games/{gid}/commands", {"type": "Resign", "player_id": ann.id})
    # the score names the bot's seat by its level (B3)
    sheet = client.get(f"/api/v1/games/{gid}/score").json
    assert [(p["player_id"], p.get("level")) for p in sheet["players"]] == [
        ("bot-2", "mcts-easy"), (ann.id, None)
    ]  # fmt: skip
    r = ann.post(f"/games/{gid}/rematch", {})
    assert r.status_code in (200, 201), r.json
    proposal = r.json["proposal"]
    assert [(p["player_id"], p["answer"], p.get("level")) for p in proposal["players"]] == [
        ("bot-1", "bot", "mcts-easy"), (ann.id, "accepted", None)
    ]  # fmt: skip
    new = proposal["next_game_id"]
    assert new is not None and proposal["status"] == "opened", proposal
    _, players = head(client, new)
    # seats rotated (RM4): the bot first, ann second
    assert [(p["player_id"], p.get("level")) for p in players] == [
        ("bot-1", "mcts-easy"), (ann.id, None)
    ]  # fmt: skip
    assert ann.post(f"/games/{new}/start").status_code == 200
    bots_play(app, new)  # the bot's seat plays first; then ann's decision is pending
    legal = client.get(f"/api/v1/games/{new}/legal").json
    assert legal["player_id"] == ann.id
    played = [e for e in all_events(client, new) if e["type"] == "SeatPlayedByBot"]
    assert played and played[0]["data"]["seat"] == 1
