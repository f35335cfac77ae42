"""/metrics on real processes: the embedded default, and one gunicorn server with two
workers whose counters every scrape adds up (prometheus_client's multiprocess mode)."""

from __future__ import annotations

from tests.servers import base_env, embedded, free_port, seated_game, start
from tests.service.test_metrics import value


def commands(http, n: int) -> None:
    gid, tokens = seated_game(http)
    first = next(iter(tokens.values()))
    assert http.call("POST", f"/games/{gid}/start", None, first).status == 200
    for _ in range(n):
        legal = http.call("GET", f"/games/{gid}/legal").json
        reply = http.call(
            "POST", f"/games/{gid}/commands", legal["commands"][0], tokens[legal["player_id"]]
        )
        assert reply.status == 200, reply.json


def test_the_embedded_default_counts_its_commands(tmp_path):
    with embedded(tmp_path) as server:
        commands(server.http(), 5)
        text = server.http(prefix="").call("GET", "/metrics").raw.decode()
    # opening the game, 2 seats, the start and 5 moves
    assert value(text, "tongiaki_commands_total", outcome="accepted") == 9


def test_two_gunicorn_workers_add_up_at_every_scrape(tmp_path, pg_schema):
    _, url = pg_schema
    port = free_port()
    env = base_env(DATABASE_URL=url, TONGIAKI_DATA_DIR=str(tmp_path))
    env.pop("PROMETHEUS_MULTIPROC_DIR", None)
    server = start(
        ["serve", "--workers", "2", "--threads", "2", "--port", str(port)],
        env,
        tmp_path / "web.log",
        port,
    )
    try:
        for _ in range(3):  # new connections: both workers take requests
            commands(server.http(), 4)
        scrapes = [
            value(
                server.http(prefix="").call("GET", "/metrics").raw.decode(),
                "tongiaki_commands_total",
                outcome="accepted",
            )
            for _ in range(6)
        ]
    finally:
        server.stop()
    assert scrapes == [3 * 8.0] * 6, scrapes  # every worker's, whichever answers
