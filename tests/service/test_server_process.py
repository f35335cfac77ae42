"""A real ``tongiaki serve`` process: bots play whole games over HTTP (SQLite and PostgreSQL)."""

from __future__ import annotations

import json
import os
import random
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Http:
    def __init__(self, base: str) -> None:
        self.base = base

    def call(self, method: str, path: str, body=None, token: str | None = None, headers=None):
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.base + path, data=data, method=method)
        request.add_header("Content-Type", "application/json")
        if token:
            request.add_header("Authorization", f"Bearer {token}")
        for k, v in (headers or {}).items():
            request.add_header(k, v)
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return response.status, json.loads(response.read() or b"null")
        except urllib.error.HTTPError as exc:
            return exc.code, json.loads(exc.read() or b"null")


@pytest.fixture(params=["sqlite", "postgres"])
def server(request, tmp_path):
    env = {
        **os.environ,
        "TONGIAKI_DATA_DIR": str(tmp_path),
        "TONGIAKI_PORT": str(free_port()),
        "TONGIAKI_RATE_LIMITS": "off",  # bots move faster than people (tests/system test limits)
    }
    env.pop("DATABASE_URL", None)
    if request.param == "postgres":
        _, url = request.getfixturevalue("pg_schema")
        env["DATABASE_URL"] = url
    # the server writes a log line per request to stderr: into a file, not a pipe that
    # nobody reads while the game goes on (past 64 KiB, about 260 moves, the pipe is
    # full, the logging handler's write blocks with its lock held, and every request
    # and the SIGTERM handler wait for it)
    log = tmp_path / "serve.log"
    with log.open("wb") as stderr:
        process = subprocess.Popen(
            [sys.executable, "-m", "service.cli", "serve"],
            env=env,
            cwd=Path(__file__).resolve().parents[2],
            stdout=subprocess.DEVNULL,
            stderr=stderr,
        )
    http = Http(f"http://127.0.0.1:{env['TONGIAKI_PORT']}/api/v1")
    deadline = time.monotonic() + 60  # not a count of tries: a busy machine starts slower
    while True:
        try:
            if http.call("GET", "/games")[0] == 200:
                break
        except OSError:
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            process.wait()
            pytest.fail("the server did not start: " + log.read_text(errors="replace"))
        time.sleep(0.1)
    yield http
    process.terminate()
    process.wait(timeout=10)


def test_bots_play_a_whole_game_against_a_real_server(server):
    tokens = {}
    for colour in ("blue", "red", "yellow", "purple"):
        status, body = server.call("POST", "/accounts", {"name": colour})
        assert status == 201
        tokens[body["account_id"]] = (colour, body["token"])
    first = next(iter(tokens.values()))[1]
    status, game = server.call("POST", "/games", {"max_players": 4}, first)
    assert status == 201
    gid = game["game_id"]
    for colour, token in tokens.values():
        assert server.call("POST", f"/games/{gid}/seats", {"colour": colour}, token)[0] == 201
    assert server.call("POST", f"/games/{gid}/start", None, first)[0] == 200
    rng = random.Random(11)
    for _ in range(3000):
        status, legal = server.call("GET", f"/games/{gid}/legal")
        if legal["decision"] is None:
            break
        token = tokens[legal["player_id"]][1]
        status, body = server.call(
            "POST",
            f"/games/{gid}/commands",
            rng.choice(legal["commands"]),
            token,
            {"If-Match": f'"{legal["version"]}"'},
        )
        assert status == 200, body
    status, report = server.call("GET", f"/games/{gid}/verify")
    assert status == 200 and report["ok"] and report["deck_revealed"]
