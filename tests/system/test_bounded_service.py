"""Bounds that only a real server process shows: a chunked body has no length to check."""

from __future__ import annotations

import http.client
import json

from tests.servers import Http, embedded


def test_a_chunked_body_past_the_limit_is_413_and_nothing_is_journalled(tmp_path):
    with embedded(tmp_path) as server:
        api = server.http()
        made = api.call("POST", "/accounts", {"name": "ann"}).json
        token = made["token"]
        gid = api.call("POST", "/games", {"max_players": 2}, token).json["game_id"]
        api.call("POST", f"/games/{gid}/seats", {"colour": "blue"}, token)
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
        chunks = (b'{"type": "Expand", "island": "' if i == 0 else b"x" * 4096 for i in range(256))
        conn.request(
            "POST",
            f"/api/v1/games/{gid}/commands",
            body=chunks,
            headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
            encode_chunked=True,
        )
        response = conn.getresponse()
        problem = json.loads(response.read())
        conn.close()
        journal = Http(server.port).call("GET", f"/games/{gid}/journal", token=token).json
    assert response.status == 413 and problem["code"] == "body_too_large", problem
    assert response.getheader("Content-Type") == "application/problem+json"
    assert [c["payload"]["type"] for c in journal["commands"]] == ["CreateGame", "JoinGame"]
