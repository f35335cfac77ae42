"""Real service processes for tests: the embedded default, and the production setting.

``embedded(tmp)`` runs ``tongiaki serve`` on SQLite with inline projections, as a
newcomer would. ``production(db_url, redis_url, queue)`` runs two web processes
(gunicorn, one worker each, on their own ports, so a test chooses which process
answers each request) on one PostgreSQL database, with rq projections and a
``tongiaki worker``. ``Http`` (bench/client.py, shared with the soak) speaks to one of
them over a kept-alive connection.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from bench.client import Http, answers, free_port

ROOT = Path(__file__).resolve().parents[1]


@dataclass
class Server:
    """One running service process."""

    process: subprocess.Popen[bytes]
    port: int
    log: Path
    env: dict[str, str] = field(repr=False)

    @property
    def pid(self) -> int:
        return self.process.pid

    def http(self, prefix: str = "/api/v1") -> Http:
        return Http(self.port, prefix)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def output(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""


def base_env(**extra: str) -> dict[str, str]:
    """The environment of a service process: this one's, without service settings."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("TONGIAKI_", "DATABASE_", "REDIS_"))
    }
    env["TONGIAKI_RATE_LIMITS"] = "off"  # tests that test the limits turn them on
    # the run's log key (tests/conftest.py), but not for the in-memory store: it makes its own
    if "TONGIAKI_LOG_KEY" in os.environ and extra.get("DATABASE_URL") != "memory:":
        env["TONGIAKI_LOG_KEY"] = os.environ["TONGIAKI_LOG_KEY"]
    env.update(extra)
    return env


def start(
    args: list[str],
    env: dict[str, str],
    log: Path,
    port: int | None = None,
    wait: bool = True,
    ready: str | None = None,
) -> Server:
    """Start ``tongiaki ARGS`` (as ``python -m service.cli``); wait until it answers on
    ``port``, or until its output says ``ready`` (a worker: on a loaded machine its start
    took over 20 s, and a test's first wait counted it)."""
    handle = log.open("ab")
    process = subprocess.Popen(
        [sys.executable, "-m", "service.cli", *args],
        cwd=ROOT,
        env=env,
        stdout=handle,
        stderr=subprocess.STDOUT,
    )
    handle.close()
    server = Server(process, port or 0, log, env)
    if wait and (port or ready):
        deadline = time.monotonic() + 60
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"tongiaki {' '.join(args)} exited:\n{server.output()}")
            if answers(port) if port else ready in server.output():
                break
            if time.monotonic() > deadline:
                server.stop()
                raise RuntimeError(f"tongiaki {' '.join(args)} did not answer:\n{server.output()}")
            time.sleep(0.05)
    return server


@contextmanager
def embedded(tmp: Path, **extra: str) -> Iterator[Server]:
    """``tongiaki serve`` as it runs out of the box: SQLite under ``tmp``, inline projections."""
    tmp.mkdir(parents=True, exist_ok=True)
    port = free_port()
    env = base_env(TONGIAKI_DATA_DIR=str(tmp), TONGIAKI_PORT=str(port), **extra)
    server = start(["serve"], env, tmp / "serve.log", port)
    try:
        yield server
    finally:
        server.stop()


@contextmanager
def production(
    tmp: Path,
    database_url: str,
    redis_url: str,
    queue: str,
    web: int = 2,
    workers: int = 1,
    **extra: str,
) -> Iterator[list[Server]]:
    """``web`` gunicorn processes on one PostgreSQL database, rq projections, ``workers``
    rq workers (the web processes first in the list, then the workers)."""
    tmp.mkdir(parents=True, exist_ok=True)
    defaults = {"TONGIAKI_SWEEP_EVERY": "2", "TONGIAKI_DATA_DIR": str(tmp)}
    env = base_env(
        DATABASE_URL=database_url,
        REDIS_URL=redis_url,
        TONGIAKI_QUEUE=queue,
        **{**defaults, **extra},
    )
    servers: list[Server] = []
    try:
        for i in range(web):
            port = free_port()
            servers.append(
                start(
                    ["serve", "--workers", "1", "--port", str(port)],
                    env,
                    tmp / f"web{i}.log",
                    port,
                )
            )
        for i in range(workers):
            log = tmp / ("worker.log" if i == 0 else f"worker{i}.log")
            servers.append(start(["worker"], env, log, ready="*** Listening on"))
        yield servers
    except BaseException:
        show_tails(servers)  # what the processes said, for a failure under load in CI
        raise
    finally:
        for server in servers:
            server.stop()


def show_tails(servers: list[Server], lines: int = 60) -> None:
    """Print the last ``lines`` of each server's output (pytest shows it on failure)."""
    for server in servers:
        tail = server.output().splitlines()[-lines:]
        print(f"--- the last {len(tail)} lines of {server.log.name} ---", *tail, sep="\n")


def open_files(pid: int) -> int:
    """File descriptors a process holds (Linux)."""
    return len(os.listdir(f"/proc/{pid}/fd"))


def children(pid: int) -> set[int]:
    """The processes whose parent is ``pid`` (from /proc)."""
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.add(int(entry.name))
    return found


def rss_kib(pid: int) -> int:
    """Resident memory of a process in KiB (Linux)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def start_redis(program: str, port: int) -> subprocess.Popen[bytes]:
    """A Redis of a test's own on ``port`` (to stop, hang or flush without touching others)."""
    from redis import Redis

    process = subprocess.Popen(
        [program, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL,
    )
    for _ in range(200):
        try:
            Redis(port=port).ping()
            return process
        except Exception:
            time.sleep(0.05)
    process.kill()
    raise RuntimeError("redis-server did not start")


def seated_game(http: Http, names: tuple[str, ...] = ("ann", "bob")) -> tuple[str, dict[str, str]]:
    """New accounts, a game with a seat for each, not started: (game id, account -> token)."""
    colours = ("blue", "red", "green", "yellow", "orange", "purple")
    tokens = {}
    for name in names:
        made = http.call("POST", "/accounts", {"name": name}).json
        tokens[made["account_id"]] = made["token"]
    first = next(iter(tokens.values()))
    gid = http.call("POST", "/games", {"max_players": len(names)}, first).json["game_id"]
    for token, colour in zip(tokens.values(), colours, strict=False):
        reply = http.call("POST", f"/games/{gid}/seats", {"colour": colour}, token)
        assert reply.status == 201, reply.json
    return gid, tokens


def logged_head(http: Http, gid: str, timeout: float = 60.0) -> None:
    """Wait until the game's head is in the public log (and so every commit before it):
    its verification then reads the same log from every process and the CLI."""
    deadline = time.monotonic() + timeout
    while True:
        head = http.call("GET", f"/games/{gid}").json["version"]
        if http.call("GET", f"/games/{gid}/proof?version={head}").status == 200:
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"game {gid}'s head v{head} was not logged in {timeout} s")
        time.sleep(0.05)
