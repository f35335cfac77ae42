"""Starting a process never disturbs the commands in flight (PostgreSQL).

Every process upgrades the schema when it starts (web workers, rq workers, the
CLI). A database already at the current version is left alone; a migration
that does run gives way to the commands and tries again.
"""

from __future__ import annotations

import random
import subprocess
import sys
import threading

from tests.servers import ROOT, Http, production, seated_game


def bots(http_port: int, stop: threading.Event, statuses: list[int], seed: int) -> None:
    rng = random.Random(seed)
    http = Http(http_port)
    while not stop.is_set():
        gid, tokens = seated_game(http)
        ann = next(iter(tokens.values()))
        reply = http.call("POST", f"/games/{gid}/start?include=legal", None, ann)
        statuses.append(reply.status)
        legal = reply.json["legal"]
        while legal["decision"] is not None and not stop.is_set():
            reply = http.call(
                "POST",
                f"/games/{gid}/commands?include=legal",
                rng.choice(legal["commands"]),
                tokens[legal["player_id"]],
            )
            statuses.append(reply.status)
            if reply.status != 200:
                break
            legal = reply.json["legal"]


def cli(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "service.cli", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_upgrades_and_worker_starts_while_commands_run(tmp_path, pg_schema, redis_url):
    _, url = pg_schema
    import psycopg

    with production(tmp_path, url, redis_url, queue=f"up-{pg_schema[0]}", web=1) as servers:
        env = servers[0].env
        stop, statuses = threading.Event(), []
        threads = [
            threading.Thread(target=bots, args=(servers[0].port, stop, statuses, i))
            for i in range(4)
        ]
        for t in threads:
            t.start()
        try:
            results = []
            for n in range(6):
                if n % 2:  # make the next start migrate for real, under traffic
                    with psycopg.connect(url, autocommit=True) as conn:
                        conn.execute("DELETE FROM schema_version WHERE version >= 3")
                results.append(cli(env, "db", "upgrade"))
            results.append(cli(env, "worker", "--burst"))
        finally:
            stop.set()
            for t in threads:
                t.join()
    assert [r.returncode for r in results] == [0] * len(results), [r.stderr[-500:] for r in results]
    assert statuses and set(statuses) <= {200, 201}, sorted(set(statuses))
