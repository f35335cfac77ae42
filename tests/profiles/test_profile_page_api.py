"""A player's profile (docs/profiles.md, P1, P2) through the API, on SQLite, PostgreSQL
and the in-memory store."""

from __future__ import annotations

from datetime import UTC, datetime

from service.play.accounts import create_account
from tests.profiles.helpers import move, profile
from tests.service.api import Player, open_game, play_to_the_end


def test_p1_given_a_finished_and_a_running_game_when_anyone_asks_then_each_heading_lists_its_games(
    client,
):
    # given: ann and bob finish a game, and start another
    done, (ann, bob) = open_game(client, ["blue", "red"])
    play_to_the_end(client, done, [ann, bob], seed=5)
    running = ann.post("/games", {"max_players": 2}).json["game_id"]
    for p, colour in ((ann, "green"), (bob, "red")):
        assert p.post(f"/games/{running}/seats", {"colour": colour}).status_code == 201
    assert ann.post(f"/games/{running}/start").status_code == 200
    # when: someone not signed in asks for ann's profile, each heading in turn
    first = profile(client, ann.id)
    finished = profile(client, ann.id, "?games=finished")
    # then
    assert first.status_code == 200, first.json
    body = first.json
    assert body["name"] == ann_name(ann) and body["deleted"] is False and body["own"] is False
    assert body["counts"]["running"] == 1 and body["counts"]["finished"] == 1
    assert [g["game_id"] for g in body["games"]["items"]] == [running]
    assert body["games"]["items"][0]["result"] is None
    assert "disputes" not in body  # a stranger never sees them (P1)
    [ended] = finished.json["games"]["items"]
    assert ended["game_id"] == done and ended["status"] == "ended"
    result = ended["result"]
    assert result["rank"] in (1, 2) and result["won"] == (result["rank"] == 1)
    assert finished.json["counts"]["won"] == int(result["won"])


def ann_name(player: Player) -> str:
    return player.get("/me").json["name"]


def test_p1_games_are_paged_the_latest_activity_first(client):
    ann = Player(client, "ann")
    made = []
    for _ in range(3):
        game_id = ann.post("/games", {"max_players": 2}).json["game_id"]
        assert ann.post(f"/games/{game_id}/seats", {"colour": "blue"}).status_code == 201
        made.append(game_id)
    page1 = profile(client, ann.id, "?games=open&limit=2").json["games"]
    page2 = profile(client, ann.id, "?games=open&limit=2&offset=2").json["games"]
    assert [g["game_id"] for g in page1["items"] + page2["items"]] == made[::-1]
    assert page1["has_more"] is True and page2["has_more"] is False


def test_p1_the_disputes_a_player_opened_are_shown_to_them_and_auditors_only(client, app):
    # given: ann opens a dispute on a game with bob
    game_id, (ann, bob) = open_game(client, ["blue", "red"])
    moved = move(client, game_id, [ann, bob])
    r = ann.post(f"/games/{game_id}/disputes", {"reason": "misclick", "version": moved["version"]})
    assert r.status_code == 201, r.json
    store = app.extensions["tongiaki.games"].store
    _, token = create_account(store, "audrey", datetime.now(UTC), "auditor")
    auditor = {"Authorization": f"Bearer {token}"}
    # when / then: ann sees it on her page, an auditor too; bob and strangers do not
    mine = profile(client, ann.id, who=ann).json
    assert [d["dispute_id"] for d in mine["disputes"]] == [r.json["dispute_id"]]
    assert mine["disputes"][0]["reason"] == "misclick" and mine["own"] is True
    seen = client.get(f"/api/v1/accounts/{ann.id}/profile", headers=auditor).json
    assert len(seen["disputes"]) == 1
    assert "disputes" not in profile(client, ann.id, who=bob).json
    assert "disputes" not in profile(client, ann.id).json
    # and bob's own page lists none of ann's (only their own, never others')
    assert profile(client, bob.id, who=bob).json["disputes"] == []


def test_p1_refusals_name_the_rule_and_change_nothing(client, app):
    ann = Player(client, "ann")
    for path in ("nobody", "a" * 65, "x%20y"):
        r = client.get(f"/api/v1/accounts/{path}/profile")
        assert r.status_code == 404 and r.json["code"] in ("unknown_player", "not_found")
    r = profile(client, ann.id, "?games=everything")
    assert r.status_code == 422 and r.json["code"] == "bad_games" and r.json["rule"] == "P1"
    for query in ("?limit=0", "?limit=101", "?offset=-1", "?offset=100001", "?limit=x"):
        r = profile(client, ann.id, query)
        assert r.status_code == 422, (query, r.json)
        assert r.headers["Content-Type"] == "application/problem+json"
    store = app.extensions["tongiaki.games"].store
    made, _ = create_account(store, "audrey", datetime.now(UTC), "auditor")
    assert profile(client, made.account_id).status_code == 404  # an auditor is no player


def test_p2_given_a_timed_game_when_decisions_are_taken_then_the_clock_counts_them(client):
    game_id, players = open_game(client, ["blue", "red"], time_control="move", move_seconds=3600)
    for _ in range(4):
        move(client, game_id, players)
    total = 0
    for p in players:
        [clock] = profile(client, p.id).json["clocks"]
        assert clock["time_control"] == {
            "control": "move", "move_seconds": 3600, "absent_after": 3,
        }  # fmt: skip
        assert clock["games"] == 1 and clock["decisions"] >= 1
        assert clock["used_ms"] >= 0 and clock["average_ms"] is not None
        total += clock["decisions"]
        [game] = profile(client, p.id).json["games"]["items"]
        assert game["time_used_ms"] == clock["used_ms"]
    assert total == 4  # every decision taken, counted to the seat that took it


def test_p2_a_game_without_a_clock_counts_games_and_no_time(client):
    game_id, players = open_game(client, ["blue", "red"])
    move(client, game_id, players)
    [clock] = profile(client, players[0].id).json["clocks"]
    assert clock == {
        "time_control": {"control": "none"}, "games": 1, "decisions": 0, "used_ms": 0,
        "average_ms": None,
    }  # fmt: skip
