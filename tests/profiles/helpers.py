"""What the profiles' tests share: moves, renames, deletions through the API."""

from __future__ import annotations

from typing import Any

from tests.service.api import Player


def move(client: Any, game_id: str, players: list[Player]) -> dict[str, Any]:
    """The pending decision's first legal command, sent by whoever it is for."""
    legal = client.get(f"/api/v1/games/{game_id}/legal").json
    mover = next(p for p in players if p.id == legal["player_id"])
    r = mover.post(f"/games/{game_id}/commands", legal["commands"][0])
    assert r.status_code == 200, r.json
    return r.json


def whose_turn(client: Any, game_id: str) -> str | None:
    """The account the game waits for."""
    return client.get(f"/api/v1/games/{game_id}/legal").json["player_id"]


def rename(player: Player, name: str, **extra: Any) -> Any:
    return player.client.put(
        "/api/v1/me/name", json={"name": name, **extra}, headers=player.headers
    )


def delete(player: Player, confirm: str) -> Any:
    return player.post("/me/deletion", {"confirm": confirm})


def profile(client: Any, account_id: str, query: str = "", who: Player | None = None) -> Any:
    headers = who.headers if who is not None else {}
    return client.get(f"/api/v1/accounts/{account_id}/profile{query}", headers=headers)
