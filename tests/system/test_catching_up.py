"""Read models catch up whatever happened: a crash before the inline catch-up, a
hung Redis. And a hung Redis never slows a command."""

from __future__ import annotations

import os
import signal
import statistics
import time
from datetime import UTC, datetime

from domain.legal import legal_commands
from domain.serialization import encode
from service.play.accounts import create_account
from service.play.games import GameService
from service.store.sqlite import SQLiteEventStore
from tests.servers import base_env, embedded, free_port, seated_game, start, start_redis


def test_the_embedded_default_catches_up_games_left_behind_at_start(tmp_path):
    """Commands committed by a process that died before projecting them (here: a
    service with no doorbell) are projected when ``tongiaki serve`` starts."""
    store = SQLiteEventStore(tmp_path / "tongiaki.db")
    store.upgrade()
    service = GameService(store)  # a silent doorbell: nothing is projected
    now = datetime.now(UTC)
    ann, bob = (create_account(store, n, now)[0] for n in ("ann", "bob"))
    from domain import commands as cmd

    game_id = service.create_game(ann, cmd.GameOptions(max_players=2)).game_id
    service.join(game_id, ann, ["blue"], "")
    service.join(game_id, bob, ["red"], "")
    service.execute(game_id, ann, {"type": "StartGame"})
    for _ in range(6):
        version, state = service.load(game_id)
        mover = ann if state.owner(state.active_colour).player_id == ann.account_id else bob
        service.execute(game_id, mover, encode(legal_commands(state)[0]), version)
    head = store.head(game_id).version
    store.close()
    with embedded(tmp_path) as server:
        http = server.http()
        deadline = time.monotonic() + 10
        while True:
            board = http.call("GET", f"/games/{game_id}/scoreboard")
            if board.status == 200 and board.json["version"] == head:
                break
            assert time.monotonic() < deadline, board.json
            time.sleep(0.1)


def test_a_hung_redis_never_slows_a_command_and_the_sweeper_catches_up(
    tmp_path, pg_schema, redis_server
):
    _, url = pg_schema
    port = free_port()
    redis = start_redis(redis_server, port)
    try:
        redis_url = f"redis://127.0.0.1:{port}/0"
        env = base_env(
            DATABASE_URL=url,
            REDIS_URL=redis_url,
            TONGIAKI_QUEUE="hung",
            TONGIAKI_SWEEP_EVERY="1",
            TONGIAKI_RATE_LIMITS="",  # the defaults: the limits call Redis too
        )
        web_port = free_port()
        web = start(
            ["serve", "--workers", "1", "--port", str(web_port)],
            env,
            tmp_path / "web.log",
            web_port,
        )
        try:
            http = web.http()
            gid, tokens = seated_game(http)
            ann = next(iter(tokens.values()))
            http.call("POST", f"/games/{gid}/start", None, ann)
            os.kill(redis.pid, signal.SIGSTOP)  # hung: connections open, no answers
            times = []
            legal = http.call("GET", f"/games/{gid}/legal").json
            for _ in range(12):
                started = time.monotonic()
                reply = http.call(
                    "POST",
                    f"/games/{gid}/commands?include=legal",
                    legal["commands"][0],
                    tokens[legal["player_id"]],
                )
                times.append(time.monotonic() - started)
                assert reply.status == 200, reply.json
                legal = reply.json["legal"]
            head = legal["version"]
            # the first command may pay the rate limiter's 0.1 s before it falls back
            assert statistics.median(times) < 0.1 and max(times) < 0.5, times
            os.kill(redis.pid, signal.SIGCONT)
            worker = start(["worker"], env, tmp_path / "worker.log")
            try:
                deadline = time.monotonic() + 20
                while True:
                    board = http.call("GET", f"/games/{gid}/scoreboard")
                    if board.status == 200 and board.json["version"] == head:
                        break
                    assert time.monotonic() < deadline, (board.status, board.json)
                    time.sleep(0.2)
            finally:
                worker.stop()
        finally:
            web.stop()
    finally:
        os.kill(redis.pid, signal.SIGCONT)
        redis.terminate()
        redis.wait()
