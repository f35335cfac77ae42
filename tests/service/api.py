"""A tiny API client for tests: accounts, games, and bots that play through HTTP."""

from __future__ import annotations

import random
from typing import Any


class Player:
    """One account talking to the API through a Flask test client."""

    def __init__(self, client: Any, name: str) -> None:
        self.client = client
        r = client.post("/api/v1/accounts", json={"name": name})
        assert r.status_code == 201, r.json
        self.id = r.json["account_id"]
        self.token = r.json["token"]
        self.headers = {"Authorization": f"Bearer {self.token}"}

    def post(self, path: str, body: Any = None, **headers: str) -> Any:
        return self.client.post(f"/api/v1{path}", json=body, headers={**self.headers, **headers})

    def get(self, path: str) -> Any:
        return self.client.get(f"/api/v1{path}", headers=self.headers)


def open_game(client: Any, colours: list[str], **options: Any) -> tuple[str, list[Player]]:
    """Create a game, seat one player per colour, start it."""
    players = [Player(client, f"player-{c}") for c in colours]
    r = players[0].post("/games", {"max_players": len(colours), **options})
    assert r.status_code == 201, r.json
    game_id = r.json["game_id"]
    for p, c in zip(players, colours, strict=True):
        r = p.post(f"/games/{game_id}/seats", {"colour": c, "entropy": f"dice of {c}"})
        assert r.status_code == 201, r.json
    r = players[-1].post(f"/games/{game_id}/start")
    assert r.status_code == 200, r.json
    return game_id, players


def play_to_the_end(client: Any, game_id: str, players: list[Player], seed: int) -> list[Any]:
    """Bots POST items of /legal unchanged until the game ends; every response is returned."""
    rng = random.Random(seed)
    by_id = {p.id: p for p in players}
    responses = []
    for _ in range(3000):
        legal = client.get(f"/api/v1/games/{game_id}/legal")
        responses.append(legal)
        body = legal.json
        if body["decision"] is None:
            return responses
        mover = by_id[body["player_id"]]
        choice = rng.choice(body["commands"])
        r = mover.post(f"/games/{game_id}/commands", choice, **{"If-Match": f'"{body["version"]}"'})
        assert r.status_code == 200, r.json
        responses.append(r)
    raise AssertionError("the game did not end")


def all_events(client: Any, game_id: str) -> list[dict[str, Any]]:
    """Every event of a game, page after page (a randomly dealt game may pass 1,000)."""
    events: list[dict[str, Any]] = []
    while True:
        url = f"/api/v1/games/{game_id}/events?after={len(events)}&limit=1000"
        page = client.get(url).json
        events += page["events"]
        if not page["has_more"]:
            return events
