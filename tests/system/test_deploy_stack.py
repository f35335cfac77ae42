"""``deploy/stack.sh``: the real stack (web processes and rq workers on PostgreSQL and
Redis, from deploy/Procfile) starts with one command, keeps serving when a web process is
killed and starts that one again, and stops on SIGTERM."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time

from tests.servers import ROOT, Http, base_env
from tests.system.test_disputes_served import levelled, play, started


def two_free_ports() -> int:
    for _ in range(100):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = int(s.getsockname()[1])
        if port < 65000:
            with socket.socket() as t:
                try:
                    t.bind(("127.0.0.1", port + 1))
                except OSError:
                    continue
            return port
    raise RuntimeError("no two free ports")


def answers(port: int) -> bool:
    try:
        return Http(port).call("GET", "/lobby").status == 200
    except OSError:
        return False


def test_the_stack_script_runs_two_web_processes_and_two_workers(tmp_path, pg_schema, redis_url):
    import random

    _, url = pg_schema
    port = two_free_ports()
    env = base_env(
        DATABASE_URL=url,
        REDIS_URL=redis_url,
        TONGIAKI_QUEUE=f"stack-{pg_schema[0]}",
        TONGIAKI_DATA_DIR=str(tmp_path),
        PORT=str(port),
        WEB_WORKERS="1",
    )
    log = (tmp_path / "stack.log").open("wb")
    stack = subprocess.Popen(
        [str(ROOT / "deploy" / "stack.sh"), "2", "2"],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while not (answers(port) and answers(port + 1)):
            assert stack.poll() is None, (tmp_path / "stack.log").read_text()
            assert time.monotonic() < deadline, (tmp_path / "stack.log").read_text()
            time.sleep(0.2)
        one, two = Http(port), Http(port + 1)
        gid, tokens = started(one)
        head = play([one], gid, tokens, random.Random(2), 10)[-1]
        # the read model, built by the stack's workers, served by the other web process
        board = levelled(two, f"/games/{gid}/scoreboard?min_version={head}")
        assert board["version"] >= head
        output = (tmp_path / "stack.log").read_text()
        assert "worker.1 |" in output and "worker.2 |" in output and "web.2 |" in output
        # the commands as they run: the Procfile's variables expanded (issue 26)
        assert f"--workers 1 --host 127.0.0.1 --port {port + 1}" in output, output[:2000]
        assert "${" not in output
        # web.1's whole process group killed mid-game: web.2 plays on, web.1 comes back
        pid = int(output.split("web.1 started (pid ")[1].split(")")[0])
        os.killpg(pid, signal.SIGKILL)
        more = play([two], gid, tokens, random.Random(3), 10)
        assert more and more[0] > head
        deadline = time.monotonic() + 30
        while not answers(port):
            assert time.monotonic() < deadline, (tmp_path / "stack.log").read_text()[-3000:]
            time.sleep(0.2)
        assert "web.1 exited (-9); starting it again" in (tmp_path / "stack.log").read_text()
        assert one.call("GET", f"/games/{gid}/verify").json["ok"] is True
    finally:
        began = time.monotonic()
        os.killpg(stack.pid, signal.SIGTERM)
        try:
            stack.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(stack.pid, signal.SIGKILL)
            raise
    assert time.monotonic() - began < 10
    assert not answers(port) and not answers(port + 1)
