"""The embedded default keeps its file handles and memory flat under ordinary use.

``tongiaki serve`` starts a thread per request (HTTP/1.0, one connection each);
the SQLite store lends each one a pooled connection and takes it back. Before,
every thread kept its own connection (two file handles, ~130 KB) for good.
"""

from __future__ import annotations

import random
import threading

from tests.servers import Http, embedded, open_files, rss_kib

REQUESTS = 10_000
CLIENTS = 4


def bot_game(http: Http) -> tuple[str, dict[str, str]]:
    tokens = {}
    for name in ("ann", "bob", "cat"):
        made = http.call("POST", "/accounts", {"name": name}).json
        tokens[made["account_id"]] = made["token"]
    first = next(iter(tokens.values()))
    gid = http.call("POST", "/games", {"max_players": 3}, first).json["game_id"]
    for token, colour in zip(tokens.values(), ("blue", "red", "green"), strict=True):
        assert http.call("POST", f"/games/{gid}/seats", {"colour": colour}, token).status == 201
    assert http.call("POST", f"/games/{gid}/start", None, first).status == 200
    return gid, tokens


def traffic(port: int, count: int, seed: int, statuses: list[int]) -> None:
    """Bots play games while reading everything a spectator reads; a new game when one ends."""
    rng = random.Random(seed)
    http = Http(port)
    gid, tokens = bot_game(http)
    sent = 0
    while sent < count:
        legal = http.call("GET", f"/games/{gid}/legal").json
        sent += 1
        if legal["decision"] is None:
            gid, tokens = bot_game(http)
            sent += 10
            continue
        reply = http.call(
            "POST",
            f"/games/{gid}/commands",
            rng.choice(legal["commands"]),
            tokens[legal["player_id"]],
            {"If-Match": f'"{legal["version"]}"'},
        )
        statuses.append(reply.status)
        for path in (
            f"/games/{gid}",
            f"/games/{gid}/events?after={max(0, legal['version'] - 5)}",
            f"/games/{gid}/scoreboard",
            "/lobby?limit=5",
        ):
            statuses.append(http.call("GET", path).status)
        sent += 5
    http.close()


def run(port: int, count: int, seed: int) -> list[int]:
    statuses: list[int] = []
    threads = [
        threading.Thread(target=traffic, args=(port, count // CLIENTS, seed + i, statuses))
        for i in range(CLIENTS)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return statuses


def test_file_handles_and_memory_stay_flat_over_ten_thousand_requests(tmp_path):
    with embedded(tmp_path) as server:
        warm = run(server.port, 1_000, seed=1)  # caches, pools and imports settle
        files, memory = open_files(server.pid), rss_kib(server.pid)
        statuses = run(server.port, REQUESTS, seed=100)
        files_after, memory_after = open_files(server.pid), rss_kib(server.pid)
    assert set(warm) | set(statuses) <= {200}, sorted(set(statuses))
    assert files_after <= files + 4, (files, files_after)
    assert memory_after <= memory + 40_000, (memory, memory_after)  # KiB
