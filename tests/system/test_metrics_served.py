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
        fresh = server.http(prefix="").call("GET", "/metrics").raw.decode()
        # at 0 before the first command: a rate() over them has its first sample
        for outcome in ("accepted", "rejected", "replayed"):
            assert f'tongiaki_commands_total{{outcome="{outcome}"}} 0.0' in fresh, fresh
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
        texts = [server.http(prefix="").call("GET", "/metrics").raw.decode() for _ in range(6)]
    finally:
        server.stop()
    scrapes = [value(t, "tongiaki_commands_total", outcome="accepted") for t in texts]
    assert scrapes == [3 * 8.0] * 6, scrapes  # every worker's, whichever answers
    # the read models' lag is this scrape's, once: no stale copy per worker (pid=...),
    # and one TYPE line per family (a second one is invalid in the text format)
    for text in texts:
        types = [line for line in text.splitlines() if line.startswith("# TYPE ")]
        assert len(types) == len(set(types)), sorted(types)
        lag = [line for line in text.splitlines() if line.startswith("tongiaki_projection_")]
        assert lag and not [line for line in lag if "pid=" in line], lag
