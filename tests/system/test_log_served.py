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
from pathlib import Path

from service.store.base import canonical, chain_hash
from service.transparency.entries import HeadEntry
from service.transparency.integrator import checkpoint_note
from service.transparency.merkle import leaf_hash
from service.transparency.notes import Signer, Verifier
from service.transparency.promises import check_promise
from service.transparency.tiled_tree import TiledTree
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


def rewrite_history(db: Path, gid: str, version: int) -> None:
    """What a holder of the database does: change an event and recompute every hash
    after it (the chain checks again), the immutability triggers dropped first."""
    with sqlite3.connect(db) as conn:
        for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'"):
            conn.execute(f"DROP TRIGGER {name}")
        rows = conn.execute(
            "SELECT version, data, metadata, prev_hash FROM events"
            " WHERE game_id = ? AND version >= ? ORDER BY version",
            (gid, version),
        ).fetchall()
        prev = rows[0][3]
        for i, (v, data, metadata, _) in enumerate(rows):
            if i == 0:  # who sent it, say (the events still read as the rules' events)
                body = json.loads(metadata)
                body["rewritten"] = True
                metadata = canonical(body)
            digest = chain_hash(prev, data, metadata)
            conn.execute(
                "UPDATE events SET metadata = ?, prev_hash = ?, hash = ?"
                " WHERE game_id = ? AND version = ?",
                (metadata, prev, digest, gid, v),
            )
            prev = digest
        conn.execute("UPDATE games SET hash = ? WHERE game_id = ?", (prev, gid))


def refork_log(db: Path, signer: Signer) -> None:
    """The log made to match the rewritten events and signed again with the log's key."""
    with sqlite3.connect(db) as conn:
        heads = {
            (f"game/{g}", v): h
            for g, v, h in conn.execute("SELECT game_id, version, hash FROM events")
        }
        leaves = []
        for idx, stream, version, entry in conn.execute(
            "SELECT idx, stream, version, entry FROM log_entries ORDER BY idx"
        ).fetchall():
            old = HeadEntry.parse(bytes(entry))
            head = heads.get((stream, version), old.head)
            new = HeadEntry(old.stream, old.version, head, old.commitment).data
            conn.execute("UPDATE log_entries SET entry = ? WHERE idx = ?", (new, idx))
            leaves.append(leaf_hash(new))
        tree = TiledTree(lambda level, index: b"", 0)
        tiles = tree.append(leaves)
        conn.execute("DELETE FROM log_tiles")
        conn.executemany(
            "INSERT INTO log_tiles (level, idx, hashes) VALUES (?, ?, ?)",
            [(level, index, data) for (level, index), data in tiles.items()],
        )
        note = checkpoint_note(signer, tree.size, tree.root())
        conn.execute("UPDATE log_head SET size = ?, note = ? WHERE id = 1", (tree.size, note))


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
    rewrite_history(db, gid, 10)
    caught = tongiaki(env, "verify", "--json", gid)
    report = json.loads(caught.stdout)
    assert caught.returncode == 1 and report["chain_ok"], report  # the chain checks again…
    assert any("rewritten after it was logged" in p for p in report["log_problems"])  # …not the log
    # and forks the log to match, re-signed with the log's own key
    refork_log(db, Signer.parse((data / "log.key").read_text()))
    assert json.loads(tongiaki(env, "verify", "--json", gid).stdout)["log_problems"] == []
    with embedded(data, TONGIAKI_LOG_KEY="") as server:  # its key made under data/
        url = f"http://127.0.0.1:{server.port}/log"
        forked = tongiaki(env, "log", "verify", url, "--key", key.text, "--state", str(state))
        assert forked.returncode == 1 and "INCONSISTENT" in forked.stderr, forked.stderr
        assert (tmp_path / "kept.json.evidence").exists()
        promise = check_promise(receipts[max(receipts)]["promise"], key)
        entry = HeadEntry.parse(logged(server.http(), gid, promise.version)["entry"].encode())
        assert not promise.matches(entry)  # the player's promise is evidence of the rewrite
