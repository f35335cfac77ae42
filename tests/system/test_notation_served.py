"""TGN on real server processes (docs/notation.md, issue 32): a game played over HTTP
on the embedded default, and on two gunicorn processes with PostgreSQL and Redis, is
served as TGN and written by ``tongiaki notation export`` while the service runs, and
``tongiaki notation import`` gives back the very events the service serves; a
mistake in a file is one line naming its line and column, never a traceback."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

from tests.servers import ROOT, Http, embedded, production


def played(https: list[Http], seed: int) -> str:
    """A two-player game played to its end at random over the given processes."""
    tokens = {}
    for name in ("ann", "bob"):
        made = https[0].call("POST", "/accounts", {"name": name}).json
        tokens[made["account_id"]] = made["token"]
    ann, bob = list(tokens)
    gid = https[0].call("POST", "/games", {"max_players": 2}, tokens[ann]).json["game_id"]
    for who, colour in ((ann, "blue"), (bob, "red")):
        assert (
            https[0].call("POST", f"/games/{gid}/seats", {"colour": colour}, tokens[who]).status
            == 201
        )
    assert https[0].call("POST", f"/games/{gid}/start", None, tokens[ann]).status == 200
    rng = random.Random(seed)
    for _ in range(3000):
        http = rng.choice(https)
        legal = http.call("GET", f"/games/{gid}/legal").json
        if legal["decision"] is None:
            return gid
        reply = http.call(
            "POST",
            f"/games/{gid}/commands",
            rng.choice(legal["commands"]),
            tokens[legal["player_id"]],
            {"If-Match": f'"{legal["version"]}"'},
        )
        assert reply.status == 200, reply.json
    raise AssertionError("the game did not end")


def served_events(http: Http, gid: str) -> list[dict]:
    events: list[dict] = []
    while True:
        page = http.call("GET", f"/games/{gid}/events?after={len(events)}&limit=1000").json
        events += [{"type": e["type"], **e["data"]} for e in page["events"]]
        if not page["has_more"]:
            return events


def cli(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "service.cli", "notation", *args],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip


def check_notation(http: Http, env: dict[str, str], gid: str, tmp: Path) -> None:
    reply = http.call("GET", f"/games/{gid}/notation")
    assert reply.status == 200 and reply.content_type == "text/plain"
    text = reply.raw.decode("utf-8")
    exported = cli(env, "export", gid, "-o", str(tmp / "game.tgn"))
    assert exported.returncode == 0, exported.stderr
    assert (tmp / "game.tgn").read_text(encoding="utf-8") == text
    loaded = cli(env, "import", str(tmp / "game.tgn"), "--events", str(tmp / "events.ndjson"))
    assert loaded.returncode == 0, loaded.stderr
    assert f"{gid}: " in loaded.stdout and "ended" in loaded.stdout
    lines = (tmp / "events.ndjson").read_text(encoding="utf-8").splitlines()
    assert [json.loads(line) for line in lines] == served_events(http, gid)
    broken = text.replace("\n9. ", "\n9 ", 1)
    (tmp / "broken.tgn").write_text(broken, encoding="utf-8")
    refused = cli(env, "import", str(tmp / "broken.tgn"))
    assert refused.returncode == 1 and "Traceback" not in refused.stderr
    assert "line " in refused.stderr and ", column " in refused.stderr, refused.stderr
    (tmp / "latin1.tgn").write_bytes(text.encode("utf-8").replace(b"\n9. ", b"\n9. caf\xe9 ", 1))
    refused = cli(env, "import", str(tmp / "latin1.tgn"))
    assert refused.returncode == 1 and "is not UTF-8" in refused.stderr, refused.stderr
    assert "Traceback" not in refused.stderr and ", column " in refused.stderr
    missing = cli(env, "export", "g-nothing-here")
    assert missing.returncode == 1 and "there is no game" in missing.stderr


def test_tgn_on_the_embedded_default(tmp_path):
    with embedded(tmp_path) as server:
        http = server.http()
        gid = played([http], seed=5)
        check_notation(http, server.env, gid, tmp_path)


def test_tgn_on_postgres_and_redis(tmp_path, pg_schema, redis_url):
    _, url = pg_schema
    with production(tmp_path, url, redis_url, queue=f"n-{tmp_path.name[-8:]}") as servers:
        web = [s.http() for s in servers[:2]]
        gid = played(web, seed=6)
        check_notation(web[1], servers[0].env, gid, tmp_path)
