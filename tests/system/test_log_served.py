"""The transparency log on real processes (issue 28): every acknowledged commit is in the
log once, within the merge delay, through a SIGKILL and a restart; ``tongiaki log
verify`` follows it from its public files; and a history rewritten by whoever holds the
database — events changed, every hash after them recomputed — is caught: ``tongiaki
verify`` sees the game no longer matches its entries, and once the log is forked and
re-signed with the log's own key to match, the checkpoint kept from before no longer
extends to the new one and the player's signed promise no longer matches its entry."""

from __future__ import annotations

import json
import random
import signal
import sqlite3
import subprocess
import sys
import time

from service.transparency.entries import HeadEntry
from service.transparency.notes import Signer, Verifier
from service.transparency.promises import check_promise
from tests.forgery import drop_sqlite_triggers, refork_log, rewrite_history
from tests.servers import ROOT, Http, embedded, seated_game

PATIENCE = 60.0


def tongiaki(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "service.cli", *args],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip


def play(http: Http, gid: str, tokens: dict[str, str], rng: random.Random, n: int) -> dict:
    """Up to ``n`` random legal commands; each acknowledged receipt by version."""
    receipts = {}
    for _ in range(n):
        legal = http.call("GET", f"/games/{gid}/legal").json
        if legal["decision"] is None:
            break
        reply = http.call(
            "POST", f"/games/{gid}/commands", rng.choice(legal["commands"]),
            tokens[legal["player_id"]], {"If-Match": f'"{legal["version"]}"'},
        )  # fmt: skip
        assert reply.status == 200, reply.json
        receipts[reply.json["version"]] = reply.json["receipt"]
    return receipts


def logged(http: Http, gid: str, version: int) -> dict | None:
    """The game's proof at ``version``, waited for; None if the log has no such entry."""
    deadline = time.monotonic() + PATIENCE
    while True:
        reply = http.call("GET", f"/games/{gid}/proof?version={version}")
        if reply.status == 200:
            return reply.json
        assert reply.code == "not_logged", reply.json
        if time.monotonic() > deadline:
            return None
        time.sleep(0.05)


def check_receipts(http: Http, gid: str, key: Verifier, receipts: dict) -> None:
    for version, receipt in receipts.items():
        promise = check_promise(receipt["promise"], key)
        found = logged(http, gid, version)
        assert found is not None, f"v{version}: acknowledged, never logged"
        assert promise.matches(HeadEntry.parse(found["entry"].encode())), version


def test_the_embedded_default_logs_every_commit_and_catches_a_rewritten_history(tmp_path):
    data = tmp_path / "data"
    state = tmp_path / "kept.json"
    rng = random.Random(28)
    with embedded(data, TONGIAKI_LOG_KEY="") as server:  # its key made under data/
        http, log = server.http(), server.http("/log")
        env = server.env
        key = Verifier.parse(log.call("GET", "/key").raw.decode().strip())
        gid, tokens = seated_game(http)
        assert (
            http.call("POST", f"/games/{gid}/start", None, next(iter(tokens.values()))).status
            == 200
        )
        receipts = play(http, gid, tokens, rng, 25)
        check_receipts(http, gid, key, receipts)
        url = f"http://127.0.0.1:{server.port}/log"
        kept_promise = tmp_path / "promise.txt"
        kept_promise.write_text(receipts[max(receipts)]["promise"])
        api = f"http://127.0.0.1:{server.port}"
        checked = tongiaki(env, "promise", "verify", str(kept_promise), "--key", key.text,
                           "--server", api)  # fmt: skip
        assert checked.returncode == 0 and "kept: entry" in checked.stdout, checked.stderr
        first = tongiaki(
            env, "log", "verify", url, "--key", key.text, "--state", str(state), "--entries"
        )
        assert first.returncode == 0 and first.stdout.startswith("ok: "), first.stderr
        # killed while commands are acknowledged: every one of them is logged after a restart
        server.process.send_signal(signal.SIGKILL)
        server.process.wait()
    with embedded(data, TONGIAKI_LOG_KEY="") as server:  # its key made under data/
        http = server.http()
        receipts.update(play(http, gid, tokens, rng, 25))
        check_receipts(http, gid, key, receipts)
        url = f"http://127.0.0.1:{server.port}/log"
        again = tongiaki(
            env, "log", "verify", url, "--key", key.text, "--state", str(state), "--entries"
        )
        assert again.returncode == 0 and "consistent with the" in again.stdout, again.stderr
    # whoever holds the database rewrites the game from its 10th version on
    db = data / "tongiaki.db"
    with sqlite3.connect(db) as conn:
        drop_sqlite_triggers(conn)
        rewrite_history(conn, gid, 10)
    caught = tongiaki(env, "verify", "--json", gid)
    report = json.loads(caught.stdout)
    assert caught.returncode == 1 and report["chain_ok"], report  # the chain checks again…
    assert any("rewritten after it was logged" in p for p in report["log_problems"])  # …not the log
    # and forks the log to match, re-signed with the log's own key
    with sqlite3.connect(db) as conn:
        refork_log(conn, Signer.parse((data / "log.key").read_text()))
    assert json.loads(tongiaki(env, "verify", "--json", gid).stdout)["log_problems"] == []
    with embedded(data, TONGIAKI_LOG_KEY="") as server:  # its key made under data/
        url = f"http://127.0.0.1:{server.port}/log"
        forked = tongiaki(env, "log", "verify", url, "--key", key.text, "--state", str(state))
        assert forked.returncode == 1 and "INCONSISTENT" in forked.stderr, forked.stderr
        assert (tmp_path / "kept.json.evidence").exists()
        promise = check_promise(receipts[max(receipts)]["promise"], key)
        entry = HeadEntry.parse(logged(server.http(), gid, promise.version)["entry"].encode())
        assert not promise.matches(entry)  # the player's promise is evidence of the rewrite
        broken = tongiaki(env, "promise", "verify", str(kept_promise), "--key", key.text,
                          "--server", f"http://127.0.0.1:{server.port}")  # fmt: skip
        assert broken.returncode == 1 and "BROKEN" in broken.stderr, broken.stderr
