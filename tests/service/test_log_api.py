"""The transparency log over HTTP (issue 28), on each store: every receipt carries the
log's signed promise of its head; within the merge delay the head's entry is in the log
with a proof bundle anyone can check offline; checkpoints only grow, consistently; tiles
and entry bundles are C2SP's and rebuild the signed root; bad requests are problems."""

from __future__ import annotations

import base64
import time

import pytest

from service.store.base import CommandRecord, NewEvent
from service.transparency import merkle
from service.transparency.checkpoint import Checkpoint
from service.transparency.entries import HeadEntry
from service.transparency.notes import Verifier, open_note
from service.transparency.promises import check_promise
from service.transparency.proofs import ProofBundle
from service.transparency.tiles import unbundle
from tests.service.api import open_game
from tests.service.conftest import app_fixture

app = app_fixture("sqlite", "postgres", "memory")
MERGE_DELAY = 1.0  # seconds (what the issue promises), with room for a loaded host
PATIENCE = 30.0


def log_key(client) -> Verifier:
    r = client.get("/log/key")
    assert r.status_code == 200 and r.headers["Content-Type"] == "text/plain; charset=utf-8"
    assert r.headers["Access-Control-Allow-Origin"] == "*"  # any site's tools may read it
    return Verifier.parse(r.get_data(as_text=True).strip())


def checkpoint(client, key) -> Checkpoint:
    r = client.get("/log/checkpoint")
    assert r.status_code == 200 and r.headers["Cache-Control"] == "no-cache"
    return Checkpoint.parse(open_note(r.get_data(as_text=True), (key,)).text)


def proof_of(client, game_id, version):
    """The game's proof at ``version``, waited for (a condition, with a deadline)."""
    deadline = time.monotonic() + PATIENCE
    while True:
        r = client.get(f"/api/v1/games/{game_id}/proof?version={version}")
        if r.status_code == 200:
            return r.json
        assert r.status_code == 404 and r.json["code"] == "not_logged", r.json
        assert r.headers["Retry-After"] == "1"
        assert time.monotonic() < deadline, f"v{version} was not logged within {PATIENCE} s"
        time.sleep(0.05)


def test_each_receipt_promises_its_head_and_the_log_proves_it(client):
    key = log_key(client)
    game_id, players = open_game(client, ["red", "blue"])
    legal = client.get(f"/api/v1/games/{game_id}/legal").json
    mover = next(p for p in players if p.id == legal["player_id"])
    r = mover.post(f"/games/{game_id}/commands", legal["commands"][0])
    assert r.status_code == 200, r.json
    receipt = r.json["receipt"]
    promise = check_promise(receipt["promise"], key)
    assert (promise.stream, promise.version, promise.head) == (
        f"game/{game_id}",
        receipt["version"],
        receipt["hash"],
    )
    found = proof_of(client, game_id, receipt["version"])
    bundle = ProofBundle.parse(found["bundle"])
    point, _ = bundle.check((key,))
    entry = HeadEntry.parse(bundle.entry or b"")
    assert promise.matches(entry) and found["entry"] == entry.data.decode()
    assert (found["index"], found["tree_size"]) == (bundle.index, point.size)
    # the seats and the start were commits too, each logged with the game's commitment
    first = HeadEntry.parse(ProofBundle.parse(proof_of(client, game_id, 1)["bundle"]).entry or b"")
    assert first.commitment == entry.commitment != "-"
    # a version inside the start's commit is covered by the commit's entry (the hash chain
    # links it): its proof names the entry's version
    for _ in range(40):  # a command of several events (a tile drawn, boats landed…)
        legal = client.get(f"/api/v1/games/{game_id}/legal").json
        mover = next(p for p in players if p.id == legal["player_id"])
        answer = mover.post(f"/games/{game_id}/commands", legal["commands"][0]).json
        if len(answer["events"]) > 1:
            break
    inside = answer["events"][0]["version"]
    covering = proof_of(client, game_id, inside)
    assert covering["version"] == inside < covering["entry_version"] == answer["version"]
    # a retried command is answered with the same promise (Ed25519 is deterministic)
    assert check_promise(receipt["promise"], key) == promise


def test_checkpoints_grow_consistently_and_tiles_rebuild_the_root(client):
    key = log_key(client)
    open_game(client, ["red", "blue"])
    old = checkpoint(client, key)
    deadline = time.monotonic() + PATIENCE
    while old.size < 4:  # the game's 4 commits
        assert time.monotonic() < deadline
        time.sleep(0.05)
        old = checkpoint(client, key)
    open_game(client, ["green", "yellow", "purple"])
    new = checkpoint(client, key)
    while new.size < old.size + 5:
        assert time.monotonic() < deadline
        time.sleep(0.05)
        new = checkpoint(client, key)
    r = client.get(f"/api/v1/log/consistency?old={old.size}&new={new.size}")
    assert r.status_code == 200, r.json
    proof = [base64.b64decode(h) for h in r.json["proof"]]
    merkle.verify_consistency(old.size, new.size, old.root, new.root, proof)
    # the tiles of the new tree (partial: fewer than 256 entries) give its root
    width = new.size
    hashes = client.get(f"/log/tile/0/000.p/{width}")
    entries = client.get(f"/log/tile/entries/000.p/{width}")
    assert hashes.status_code == entries.status_code == 200
    assert hashes.headers["Cache-Control"] == "public, max-age=3600"
    leaves = [merkle.leaf_hash(e) for e in unbundle(entries.data)]
    assert b"".join(leaves) == hashes.data
    assert merkle.root(leaves) == new.root
    assert client.get(f"/log/tile/0/000.p/{width + 1}").status_code == 404  # not yet


def test_full_tiles_are_immutable_and_cached_for_a_year(app):
    store = app.extensions["tongiaki.services"].store
    created = NewEvent("GameCreated", {"deck_commitment": "cd" * 32}, {})
    for i in range(260):
        record = CommandRecord(f"t{i}", "c", {}, "2026-11-27T10:00:00+00:00", {}, None)
        store.append(record, 0, [created], "open")
    client = app.test_client()
    key = log_key(client)
    deadline = time.monotonic() + PATIENCE  # the app's own integrator logs them
    while checkpoint(client, key).size < 260:
        assert time.monotonic() < deadline, "260 commits not integrated"
        time.sleep(0.05)
    for path in ("/log/tile/0/000", "/log/tile/entries/000"):
        r = client.get(path)
        assert r.status_code == 200 and r.headers["Cache-Control"].endswith("immutable")
    assert len(client.get("/log/tile/0/000").data) == 256 * 32
    assert len(unbundle(client.get("/log/tile/entries/000").data)) == 256


@pytest.mark.parametrize(
    "path",
    [
        "/log/tile/0/0",  # not the canonical spelling of index 0
        "/log/tile/0/000.p/0",
        "/log/tile/0/000.p/256",
        "/log/tile/64/000",
        "/log/tile/0/x001/000",  # beyond the tree
        "/log/tile/entries/../../etc/passwd",
        "/log/tile/" + "x123/" * 40 + "000",
        "/log/tile/",
    ],
)
def test_a_path_that_is_no_tile_of_the_tree_is_a_404_problem(client, path):
    r = client.get(path)
    assert r.status_code == 404 and r.mimetype == "application/problem+json"
    assert r.json["code"] in ("no_such_tile", "not_found")


def test_bad_proof_and_consistency_queries_are_problems_that_change_nothing(client):
    game_id, players = open_game(client, ["red", "blue"])
    for query, status in [
        ("", 422),
        ("?version=0", 422),
        ("?version=abc", 422),
        ("?version=99999999999999", 422),
        ("?version=500", 404),
    ]:
        r = client.get(f"/api/v1/games/{game_id}/proof{query}")
        assert r.status_code == status and r.mimetype == "application/problem+json", query
    assert client.get("/api/v1/games/nope/proof?version=1").status_code == 404
    assert client.get("/api/v1/disputes/d1/proof?version=1").status_code == 401
    assert players[0].get("/api/v1/disputes/d1/proof?version=1").status_code == 404
    for query, code in [
        ("", "bad_query"),
        ("?old=2", "bad_query"),
        ("?old=-1&new=1", "bad_query"),
        ("?old=3&new=2", "bad_tree_size"),
        ("?old=0&new=99999999", "bad_tree_size"),
    ]:
        r = client.get(f"/api/v1/log/consistency{query}")
        assert r.status_code == 422 and r.json["code"] == code, query


def test_a_disputes_commits_are_proven_to_its_games_players(client):
    key = log_key(client)
    game_id, players = open_game(client, ["red", "blue"])
    version = client.get(f"/api/v1/games/{game_id}").json["version"]
    opened = players[0].post(
        f"/games/{game_id}/disputes", {"reason": "rule_applied_wrongly", "version": version}
    )
    assert opened.status_code == 201, opened.json
    dispute_id = opened.json["dispute_id"]
    deadline = time.monotonic() + PATIENCE
    while (r := players[1].get(f"/disputes/{dispute_id}/proof?version=1")).status_code != 200:
        assert r.json["code"] == "not_logged" and time.monotonic() < deadline, r.json
        time.sleep(0.05)
    bundle = ProofBundle.parse(r.json["bundle"])
    bundle.check((key,))
    entry = HeadEntry.parse(bundle.entry or b"")
    assert (entry.stream, entry.commitment) == (f"dispute/{dispute_id}", "-")
    assert r.json["stream"] == f"dispute/{dispute_id}"
