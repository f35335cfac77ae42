"""Rate limits against abuse: 429 problem+json with Retry-After, nothing changed."""

from __future__ import annotations

import pytest

from service.app import create_app
from service.runtime.settings import ConfigError, Settings, parse_rate_limits
from tests.service.api import Player, open_game

LIMITS = parse_rate_limits(
    "accounts=6/minute; games=2/hour; commands=4/minute; unauthorised=3/minute"
)


@pytest.fixture
def limited(tmp_path):
    app = create_app(Settings(data_dir=tmp_path, rate_limits=LIMITS))
    yield app.test_client()
    app.extensions["tongiaki.games"].store.close()


def refused(r, kind):
    assert r.status_code == 429, r.json
    assert r.content_type == "application/problem+json"
    assert (r.json["code"], r.json["limit"]) == ("rate_limited", kind)
    assert int(r.headers["Retry-After"]) >= 1


def test_sign_ups_from_one_address_are_limited(limited):
    for n in range(6):
        assert limited.post("/api/v1/accounts", json={"name": f"n{n}"}).status_code == 201
    refused(limited.post("/api/v1/accounts", json={"name": "one too many"}), "accounts")
    other = limited.post(
        "/api/v1/accounts", json={"name": "elsewhere"}, environ_base={"REMOTE_ADDR": "10.0.0.9"}
    )
    assert other.status_code == 201


def test_games_opened_per_account_are_limited(limited):
    ann = Player(limited, "ann")
    for _ in range(2):
        # a body refused as invalid (422) or by the options' rules (409) opens nothing
        # and is not counted
        assert ann.post("/games", {"max_players": 9}).status_code == 422
        assert ann.post("/games", {"max_players": 2, "first_seat": 3}).status_code == 409
        assert ann.post("/games", {"max_players": 2}).status_code == 201
    refused(ann.post("/games", {"max_players": 2}), "games")
    assert Player(limited, "bob").post("/games", {"max_players": 2}).status_code == 201


def test_leagues_created_per_account_are_limited(tmp_path):
    """A league opens a game per table and round: creating them is limited apart from
    commands (a new user's probe made 80 in 5 s), and a refused one counts nothing."""
    app = create_app(Settings(data_dir=tmp_path, rate_limits=parse_rate_limits("leagues=2/hour")))
    client = app.test_client()
    ann, bob = Player(client, "ann"), Player(client, "bob")
    league = {"name": "Autumn", "table_size": 2, "players": [bob.id]}
    for _ in range(2):
        assert ann.post("/leagues", {**league, "players": []}).status_code == 409  # L2
        assert ann.post("/leagues", league).status_code == 201
    refused(ann.post("/leagues", league), "leagues")
    assert len(client.get("/api/v1/leagues").json["leagues"]) == 2
    assert bob.post("/leagues", {**league, "players": [ann.id]}).status_code == 201
    app.extensions["tongiaki.games"].store.close()


def test_a_command_flood_from_one_account_is_refused_and_changes_nothing(limited):
    game_id, players = open_game(limited, ["blue", "red"])
    ann = players[0]  # took a seat: one command of her four this minute
    journal = ann.get(f"/games/{game_id}/journal").json["commands"]
    version = limited.get(f"/api/v1/games/{game_id}").json["version"]
    statuses = [
        ann.post(f"/games/{game_id}/commands", {"type": "StartGame"}).status_code for _ in range(6)
    ]
    assert statuses == [409, 409, 409, 429, 429, 429]  # refused by the rules (R25), then limited
    assert limited.get(f"/api/v1/games/{game_id}").json["version"] == version
    after = ann.get(f"/games/{game_id}/journal").json["commands"]
    assert len(after) - len(journal) == statuses.count(409)  # refused by the rules: journalled


def test_bad_tokens_from_one_address_are_limited(limited):
    for _ in range(3):
        r = limited.get("/api/v1/me/games", headers={"Authorization": "Bearer guess"})
        assert r.status_code == 401
    refused(
        limited.get("/api/v1/me/games", headers={"Authorization": "Bearer guess"}), "unauthorised"
    )


def test_rate_limit_settings_are_checked_at_start():
    assert parse_rate_limits("off") == {}
    assert parse_rate_limits("")["commands"] == "20/second; 600/minute"
    for bad in ("commands", "commands=", "spam=1/second", "commands=often"):
        with pytest.raises(ConfigError):
            parse_rate_limits(bad)


def test_a_retried_game_opening_is_answered_with_its_game_and_not_counted(limited):
    ann = Player(limited, "ann")
    key = {"Idempotency-Key": "open-1"}
    first = limited.post("/api/v1/games", json={"max_players": 2}, headers={**ann.headers, **key})
    assert first.status_code == 201
    for _ in range(3):  # retries: the same game, however many, counted once
        again = limited.post(
            "/api/v1/games", json={"max_players": 2}, headers={**ann.headers, **key}
        )
        assert again.status_code == 201 and again.json["game_id"] == first.json["game_id"]
    reused = limited.post("/api/v1/games", json={"max_players": 3}, headers={**ann.headers, **key})
    assert reused.status_code == 422 and reused.json["code"] == "idempotency_key_reused"
    assert ann.post("/games", {"max_players": 2}).status_code == 201  # the second game
    refused(ann.post("/games", {"max_players": 2}), "games")
    # the limit reached, a retry still gets its game back
    again = limited.post("/api/v1/games", json={"max_players": 2}, headers={**ann.headers, **key})
    assert again.status_code == 201 and again.json["game_id"] == first.json["game_id"]
