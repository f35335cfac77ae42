"""Disputes through the API on SQLite and PostgreSQL (docs/disputes.md, D1–D8): opening,
notes, assignment, rulings that stand or amend a result, withdrawal, pausing a game, the
evidence, and verification of games that went through all of it."""

from __future__ import annotations

import itertools
import random
import time
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from service.audit.verify import verify_game
from service.play.accounts import create_account
from tests.service.api import Player, open_game, play_to_the_end


class Auditor(Player):
    def __init__(self, client: Any, app: Any, name: str = "audrey") -> None:
        self.client = client
        store = app.extensions["tongiaki.games"].store
        made, self.token = create_account(store, name, datetime.now(UTC), "auditor")
        self.id = made.account_id
        self.headers = {"Authorization": f"Bearer {self.token}"}


def first_move(client, game_id, players):
    legal = client.get(f"/api/v1/games/{game_id}/legal").json
    mover = next(p for p in players if p.id == legal["player_id"])
    r = mover.post(f"/games/{game_id}/commands", legal["commands"][0])
    assert r.status_code == 200, r.json
    return r.json


def dispute(player, game_id, version, reason="rule_applied_wrongly", **extra):
    return player.post(
        f"/games/{game_id}/disputes", {"reason": reason, "version": version, **extra}
    )


def test_d1_a_player_opens_a_dispute_and_the_game_does_not_move(client, app):
    game_id, players = open_game(client, ["blue", "red"])
    moved = first_move(client, game_id, players)
    before = client.get(f"/api/v1/games/{game_id}").json["version"]
    r = dispute(players[0], game_id, moved["version"], text="the boat went to the wrong beach")
    assert r.status_code == 201, r.json
    body = r.json
    assert body["status"] == "open" and body["game_id"] == game_id
    assert body["opened_by"] == {"account": players[0].id, "name": "player-blue"}
    assert body["events"][0]["type"] == "DisputeOpened" and body["stream_version"] == 1
    anchored = client.get(f"/api/v1/games/{game_id}/events?after={moved['version'] - 1}")
    assert body["game_hash"] == anchored.json["events"][0]["hash"]
    assert body["version"] == moved["version"] == before
    assert client.get(f"/api/v1/games/{game_id}").json["version"] == before  # D1: no move
    # its players see it; a stranger is told nothing exists
    listed = players[1].get(f"/games/{game_id}/disputes").json["disputes"]
    assert [x["dispute_id"] for x in listed] == [body["dispute_id"]]
    stranger = Player(client, "stranger")
    assert stranger.get(f"/disputes/{body['dispute_id']}").status_code == 404
    assert stranger.get(f"/games/{game_id}/disputes").status_code == 403


def test_d1_refusals_are_problems_citing_their_rule_and_store_nothing(client, app):
    game_id, players = open_game(client, ["blue", "red"])
    stranger = Player(client, "stranger")
    r = dispute(stranger, game_id, 1)
    assert r.status_code == 403 and r.json["code"] == "not_a_player" and r.json["rule"] == "D1"
    r = dispute(players[0], game_id, 999)
    assert r.status_code == 409 and r.json["code"] == "version_out_of_range"
    r = dispute(players[0], game_id, 1, reason="other")  # other needs words
    assert r.status_code == 409 and r.json["code"] == "text_required"
    r = dispute(players[0], game_id, 1, command_id="nope")
    assert r.status_code == 409 and r.json["code"] == "unknown_command"
    for bad in ({"reason": "boredom", "version": 1}, {"reason": "other"}, {"version": 1}):
        r = players[0].post(f"/games/{game_id}/disputes", bad)
        assert r.status_code == 422 and r.headers["Content-Type"] == "application/problem+json"
    r = dispute(players[0], game_id, 1, text="x" * 2001)
    assert r.status_code == 422
    auditor = Auditor(client, app)
    r = dispute(auditor, game_id, 1)
    assert r.status_code == 403 and r.json["rule"] == "D1"
    assert auditor.get("/disputes").json["disputes"] == []


def test_d2_to_d4_notes_assignment_and_a_ruling_that_stands(client, app):
    game_id, players = open_game(client, ["blue", "red"])
    moved = first_move(client, game_id, players)
    d = dispute(players[1], game_id, moved["version"]).json["dispute_id"]
    auditor = Auditor(client, app)
    assert players[0].post(f"/disputes/{d}/notes", {"text": "it was legal"}).status_code == 200
    r = players[0].post(f"/disputes/{d}/assign", {})
    assert r.status_code == 403 and r.json["rule"] == "D3"
    r = auditor.post(f"/disputes/{d}/assign", {})
    assert r.status_code == 200 and r.json["assigned_to"] == auditor.id
    r = players[0].post(
        f"/disputes/{d}/ruling", {"decision": "stands", "reasoning": "x", "rules": ["R7"]}
    )
    assert r.status_code == 403 and r.json["rule"] == "D4"
    r = auditor.post(
        f"/disputes/{d}/ruling", {"decision": "stands", "reasoning": "x", "rules": ["C8"]}
    )
    assert r.status_code == 422 and "C1–C7" in str(r.json["errors"]), r.json
    r = auditor.post(
        f"/disputes/{d}/ruling",
        {"decision": "stands", "reasoning": "R7 applied as written", "rules": ["R7", "D4", "C3"]},
    )
    assert r.status_code == 200, r.json
    assert r.json["ruling"]["rules"] == ["R7", "D4", "C3"]  # the clocks' rules are cited too
    body = r.json
    assert body["status"] == "ruled" and body["ruling"]["decision"] == "stands"
    assert body["ruling"]["auditor_name"] == "audrey" and body["notes"] == 1
    assert [e["type"] for e in body["events"]] == [
        "DisputeOpened",
        "DisputeNoteAdded",
        "DisputeAssigned",
        "RulingIssued",
    ]
    # D8: closed
    r = players[1].post(f"/disputes/{d}/notes", {"text": "but"})
    assert r.status_code == 409 and r.json["code"] == "dispute_closed" and r.json["rule"] == "D8"
    # the auditors' queue
    assert auditor.get("/disputes?status=ruled").json["disputes"][0]["dispute_id"] == d
    assert auditor.get("/disputes?status=open").json["disputes"] == []
    assert players[0].get("/disputes").status_code == 403
    assert auditor.get("/disputes?reason=nope").status_code == 422
    # the dispute's stream is chained
    events = body["events"]
    assert all(b["prev_hash"] == a["hash"] for a, b in itertools.pairwise(events))


def test_d7_a_paused_game_refuses_commands_and_resumes_when_the_dispute_is_withdrawn(client, app):
    game_id, players = open_game(client, ["blue", "red"])
    moved = first_move(client, game_id, players)
    d = dispute(players[0], game_id, moved["version"], reason="misclick").json["dispute_id"]
    auditor = Auditor(client, app)
    assert players[1].post(f"/games/{game_id}/pause", {"dispute_id": d}).status_code == 403
    r = auditor.post(f"/games/{game_id}/pause", {"dispute_id": d})
    assert r.status_code == 200 and r.json["paused"] == d, r.json
    legal = client.get(f"/api/v1/games/{game_id}/legal").json
    assert legal["commands"] == []
    version = client.get(f"/api/v1/games/{game_id}").json["version"]
    refused = [
        p.post(
            f"/games/{game_id}/commands", {"type": "PlaceBoats", "island": "tonga", "beaches": []}
        )
        for p in players
    ]
    # every player's move, whoever's turn it is (D7)
    assert [(r.status_code, r.json["code"], r.json["rule"]) for r in refused] == [
        (409, "game_paused", "D7")
    ] * len(players)
    assert client.get(f"/api/v1/games/{game_id}").json["version"] == version  # nothing moved
    r = auditor.post(f"/games/{game_id}/pause", {"dispute_id": d})
    assert r.status_code == 409 and r.json["code"] == "already_paused"
    r = players[1].post(f"/disputes/{d}/withdraw", {})
    assert r.status_code == 403 and r.json["rule"] == "D5"
    r = players[0].post(f"/disputes/{d}/withdraw", {})
    assert r.status_code == 200 and r.json["status"] == "withdrawn"
    assert client.get(f"/api/v1/games/{game_id}/legal").json["commands"]  # resumed (D7)
    types = [e["type"] for e in client.get(f"/api/v1/games/{game_id}/events").json["events"]]
    assert types[-2:] == ["GamePaused", "GameResumed"] or "GameResumed" in types
    play_to_the_end(client, game_id, players, seed=3)
    report = verify_game(app.extensions["tongiaki.games"].store, game_id)
    assert report.ok, report.problems


def test_d4_an_amended_result_moves_the_scoreboard_and_the_leaderboard(client, app):
    game_id, players = open_game(client, ["blue", "red"])
    play_to_the_end(client, game_id, players, seed=5)
    board = client.get(f"/api/v1/games/{game_id}/scoreboard").json
    ranking = [r["player_id"] for r in board["final"]["ranking"]]
    version = client.get(f"/api/v1/games/{game_id}").json["version"]
    d = dispute(players[0], game_id, version, reason="unfair_draw").json["dispute_id"]
    auditor = Auditor(client, app)
    r = auditor.post(
        f"/disputes/{d}/ruling",
        {"decision": "result_amended", "reasoning": "x", "rules": ["D4"], "ranking": ["nobody"]},
    )
    assert r.status_code == 409 and r.json["code"] == "ranking"
    amended = list(reversed(ranking))
    r = auditor.post(
        f"/disputes/{d}/ruling",
        {
            "decision": "result_amended",
            "reasoning": "the last draw was misapplied",
            "rules": ["R21", "D4"],
            "ranking": amended,
        },
    )
    assert r.status_code == 200, r.json
    board = client.get(f"/api/v1/games/{game_id}/scoreboard?min_version={version + 1}").json
    assert board["final"]["amended"]["ranking"] == amended
    assert board["final"]["winners"] == [amended[0]]
    assert [r["player_id"] for r in board["final"]["ranking"]] == amended
    leaders = {x["account_id"]: x for x in client.get("/api/v1/leaderboard").json["players"]}
    assert leaders[amended[0]]["wins"] == 1 and leaders[amended[1]]["wins"] == 0
    report = verify_game(app.extensions["tongiaki.games"].store, game_id)
    assert report.ok, report.problems
    # a second dispute annuls it: the game counts for nobody
    d2 = dispute(players[1], game_id, version, reason="other", text="annul").json["dispute_id"]
    r = auditor.post(
        f"/disputes/{d2}/ruling",
        {"decision": "result_amended", "reasoning": "void", "rules": ["D4"], "annulled": True},
    )
    assert r.status_code == 200, r.json
    leaders = client.get("/api/v1/leaderboard").json["players"]
    assert all(x["account_id"] not in ranking for x in leaders)
    # the read models rebuilt from the record equal the ones kept up to date
    end = client.get(f"/api/v1/games/{game_id}").json["version"]
    views = [f"/games/{game_id}/scoreboard?min_version={end}", "/leaderboard", "/lobby"]
    kept = [client.get(f"/api/v1/{v.lstrip('/')}").json for v in views]
    app.extensions["tongiaki.readmodels"].rebuild()
    assert [client.get(f"/api/v1/{v.lstrip('/')}").json for v in views] == kept


def test_d1_the_window_after_the_end_closes(app, client):
    game_id, players = open_game(client, ["blue", "red"])
    play_to_the_end(client, game_id, players, seed=2)
    service = app.extensions["tongiaki.disputes"]
    later = datetime.now(UTC) + service.window + timedelta(minutes=1)
    service.clock = lambda: later
    r = dispute(players[0], game_id, 3)
    assert r.status_code == 409 and r.json["code"] == "dispute_window_closed"


def test_the_evidence_shows_the_command_positions_rerun_and_draws_without_secrets(client, app):
    game_id, players = open_game(client, ["blue", "red"])
    rng = random.Random(1)
    for _ in range(12):
        legal = client.get(f"/api/v1/games/{game_id}/legal").json
        mover = next(p for p in players if p.id == legal["player_id"])
        r = mover.post(f"/games/{game_id}/commands", rng.choice(legal["commands"]))
        assert r.status_code == 200
    # a refusal to show beside it
    legal = client.get(f"/api/v1/games/{game_id}/legal").json
    idle = next(p for p in players if p.id != legal["player_id"])
    assert idle.post(f"/games/{game_id}/commands", legal["commands"][0]).status_code == 403
    mover = next(p for p in players if p.id == legal["player_id"])
    r = mover.post(f"/games/{game_id}/commands", legal["commands"][0])
    command_id = r.json["events"][0]["metadata"]["command_id"]
    version = r.json["version"]
    d = dispute(idle, game_id, version, command_id=command_id).json["dispute_id"]
    auditor = Auditor(client, app)
    for who in (auditor, idle):
        ev = who.get(f"/disputes/{d}/evidence")
        assert ev.status_code == 200, ev.json
    body = ev.json
    assert body["commands"]["disputed"]["command_id"] == command_id
    assert body["commands"]["disputed"]["actor"]["account"] == mover.id
    assert body["anchor"]["matches"] and body["game"]["chain_ok"]
    assert body["receipt"] == {"version": version, "hash": r.json["events"][-1]["hash"]}
    assert body["position_after"]["version"] == version
    assert legal["commands"][0] in body["legal_before"]
    assert body["rerun"]["ran"] and body["rerun"]["same"], body["rerun"]
    assert body["draws"]["ok"] is True and body["draws"]["seed_revealed"] is False
    assert all(e["hash"] and e["rule"] for e in body["events"])
    # nothing in it names a tile not yet drawn
    drawn = set(client.get(f"/api/v1/games/{game_id}/state").json["position"]["drawn"])
    text = str(body)
    from domain.tiles import PILE

    assert all(t in drawn or f"'{t}'" not in text for t in PILE)
    assert Player(client, "stranger").get(f"/disputes/{d}/evidence").status_code == 404
    # the log's proof of the disputed commit, checkable offline with the log's key (issue 28)
    from service.transparency.entries import HeadEntry
    from service.transparency.notes import Verifier
    from service.transparency.proofs import ProofBundle

    key = Verifier.parse(client.get("/log/key").get_data(as_text=True).strip())
    deadline = time.monotonic() + 30
    while not (logged := auditor.get(f"/disputes/{d}/evidence").json["log"])["logged"]:
        assert time.monotonic() < deadline, logged
        time.sleep(0.05)
    ProofBundle.parse(logged["bundle"]).check((key,))
    assert HeadEntry.parse(logged["entry"].encode()).head == body["receipt"]["hash"]


@pytest.mark.parametrize(
    "path", ["/disputes/dffffffffffffff0", "/disputes/nonsense", "/disputes/ffffffffffffffff"]
)
def test_unknown_disputes_are_404_problems(client, app, path):
    r = Auditor(client, app).get(path)
    assert r.status_code == 404 and r.headers["Content-Type"] == "application/problem+json"
    assert r.json["code"] == "unknown_dispute"


def test_a_named_command_must_be_at_the_disputed_version_and_the_queue_filters_by_game(client, app):
    game_id, players = open_game(client, ["blue", "red"])
    moved = first_move(client, game_id, players)
    command_id = moved["events"][0]["metadata"]["command_id"]
    r = dispute(players[0], game_id, 1, command_id=command_id)
    assert r.status_code == 409 and r.json["code"] == "command_elsewhere"
    assert dispute(players[0], game_id, moved["version"], command_id=command_id).status_code == 201
    other, others = open_game(client, ["blue", "red"])
    dispute(others[0], other, 1)
    auditor = Auditor(client, app)
    only = auditor.get(f"/disputes?game_id={game_id}").json["disputes"]
    assert [x["game_id"] for x in only] == [game_id]
    assert auditor.get("/disputes?game_id=no%20such").status_code == 422


def test_an_amended_ranking_ranks_the_seats_on_the_scoreboard_too(client, app):
    game_id, players = open_game(client, ["blue", "red"])
    play_to_the_end(client, game_id, players, seed=5)
    final = client.get(f"/api/v1/games/{game_id}/scoreboard").json["final"]
    amended = [r["player_id"] for r in final["ranking"]][::-1]
    version = client.get(f"/api/v1/games/{game_id}").json["version"]
    d = dispute(players[0], game_id, version).json["dispute_id"]
    body = {"decision": "result_amended", "reasoning": "x", "rules": ["D4"], "ranking": amended}
    assert Auditor(client, app).post(f"/disputes/{d}/ruling", body).status_code == 200
    board = client.get(f"/api/v1/games/{game_id}/scoreboard?min_version={version + 1}").json
    assert {s["player_id"]: s["rank"] for s in board["seats"]} == {amended[0]: 1, amended[1]: 2}


def moves(client, game_id, players, n, seed):
    rng = random.Random(seed)
    receipts = []
    for _ in range(n):
        legal = client.get(f"/api/v1/games/{game_id}/legal").json
        if legal["decision"] is None:
            break
        mover = next(p for p in players if p.id == legal["player_id"])
        r = mover.post(f"/games/{game_id}/commands", rng.choice(legal["commands"]))
        assert r.status_code == 200, r.json
        receipts.append(r.json["version"])
    return receipts


def test_d6_a_rewind_continues_from_the_earlier_position_is_played_out_and_verifies(client, app):
    game_id, players = open_game(client, ["blue", "red"])
    receipts = moves(client, game_id, players, 25, seed=4)
    back_to = receipts[5]
    before = client.get(f"/api/v1/games/{game_id}/state?at={back_to}").json["position"]
    legal_then = client.get(f"/api/v1/games/{game_id}/legal").json  # now, to compare later
    head = client.get(f"/api/v1/games/{game_id}").json["version"]
    d = dispute(players[0], game_id, receipts[6], reason="misclick").json["dispute_id"]
    auditor = Auditor(client, app)
    ruling = {"decision": "rewind", "reasoning": "a misclick", "rules": ["D6"]}
    mid = next(v for v in range(receipts[0] + 1, head) if v not in receipts)
    r = auditor.post(f"/disputes/{d}/ruling", {**ruling, "to_version": mid})
    assert r.status_code == 409 and r.json["code"] == "not_a_receipt"  # mid-command
    r = auditor.post(f"/disputes/{d}/ruling", {**ruling, "to_version": back_to})
    assert r.status_code == 200, r.json
    assert r.json["status"] == "ruled" and r.json["ruling"]["to_version"] == back_to
    after = client.get(f"/api/v1/games/{game_id}").json["version"]
    assert after == head + 1  # one GameRewound; the superseded events stay in the chain
    events = client.get(f"/api/v1/games/{game_id}/events?after={head}").json["events"]
    assert events[0]["type"] == "GameRewound" and events[0]["data"]["to_version"] == back_to
    now = client.get(f"/api/v1/games/{game_id}/state").json["position"]
    assert {k: v for k, v in now.items() if k not in ("deals", "dealt")} == before
    assert client.get(f"/api/v1/games/{game_id}/legal").json["commands"] != [] or legal_then
    # the replay shows the superseded stretch, and the turns follow the history as it stands
    timeline = client.get(f"/api/v1/games/{game_id}/timeline?min_version={after}").json
    assert timeline["rewinds"] == [{"version": after, "to_version": back_to}]
    marked = {s["version"] for s in timeline["steps"] if s["superseded"]}
    assert marked == set(range(back_to + 1, after))
    assert all(
        t["first_version"] <= back_to or t["first_version"] >= after for t in timeline["turns"]
    )
    # the superseded stretch is still there to read, and a second rewind into it is refused
    d2 = dispute(players[1], game_id, after, reason="other", text="again").json["dispute_id"]
    r = auditor.post(f"/disputes/{d2}/ruling", {**ruling, "to_version": receipts[-1]})
    assert r.status_code == 409 and r.json["code"] == "superseded_version"
    # played to the end from there; the record verifies, both seeds revealed
    play_to_the_end(client, game_id, players, seed=9)
    report = verify_game(app.extensions["tongiaki.games"].store, game_id)
    assert report.ok, report.problems
    assert report.deck_ok and report.draws_checked > 0
    end = client.get(f"/api/v1/games/{game_id}").json["version"]
    revealed = client.get(f"/api/v1/games/{game_id}/events?after={end - 1}").json["events"][-1]
    assert revealed["type"] == "DeckRevealed" and len(revealed["data"]["redeals"]) == 1
    assert client.get(f"/api/v1/games/{game_id}/verify").json["ok"] is True
    # every read model rebuilt from the record equals the one kept up to date
    rm = app.extensions["tongiaki.readmodels"]
    end = client.get(f"/api/v1/games/{game_id}").json["version"]
    views = [f"/scoreboard?min_version={end}", f"/timeline?min_version={end}"]
    kept = [client.get(f"/api/v1/games/{game_id}{v}").json for v in views]
    kept_board = client.get("/api/v1/leaderboard").json
    rm.rebuild()
    assert [client.get(f"/api/v1/games/{game_id}{v}").json for v in views] == kept
    assert client.get("/api/v1/leaderboard").json == kept_board


def test_d6_verification_catches_a_forged_rewind_position(app, client):
    from domain import events as ev
    from domain.serialization import decode_event
    from service.audit.rewinds import rewind_problems

    game_id, players = open_game(client, ["blue", "red"])
    receipts = moves(client, game_id, players, 12, seed=6)
    d = dispute(players[0], game_id, receipts[-1]).json["dispute_id"]
    auditor = Auditor(client, app)
    r = auditor.post(
        f"/disputes/{d}/ruling",
        {"decision": "rewind", "reasoning": "x", "rules": ["D6"], "to_version": receipts[3]},
    )
    assert r.status_code == 200, r.json
    store = app.extensions["tongiaki.games"].store
    stored = store.read(game_id)
    events = [decode_event(e.body()) for e in stored]
    assert rewind_problems(stored, events) == []
    rewound = next(i for i, e in enumerate(events) if isinstance(e, ev.GameRewound))
    from domain import position
    from domain.fold import replay

    earlier = position.text(replay(events[: receipts[2]]))  # a real position, not that one
    forged = ev.GameRewound(d, receipts[3], events[rewound].deck_commitment, earlier)
    events[rewound] = forged
    assert any("not the record's" in p for p in rewind_problems(stored, events))
    events[rewound] = ev.GameRewound(d, len(stored), forged.deck_commitment, forged.position)
    assert any("did not then hold" in p for p in rewind_problems(stored, events))


def test_verification_covers_each_dispute_chain_anchor_and_ruling(client, app):
    from dataclasses import replace

    from service.audit.dispute_records import check_disputes

    game_id, players = open_game(client, ["blue", "red"])
    receipts = moves(client, game_id, players, 10, seed=8)
    auditor = Auditor(client, app)
    d = dispute(players[0], game_id, receipts[4]).json["dispute_id"]
    ruling = {"decision": "rewind", "reasoning": "x", "rules": ["D6"], "to_version": receipts[2]}
    assert auditor.post(f"/disputes/{d}/ruling", ruling).status_code == 200
    store = app.extensions["tongiaki.games"].store
    report = verify_game(store, game_id)
    assert report.ok, report.problems
    assert report.disputes == (
        {
            "dispute_id": d,
            "status": "ruled",
            "events": 2,
            "chain_ok": True,
            "anchor_ok": True,
            "ruling": "rewind",
            "carried_out": True,
        },
    )
    over_http = players[1].get(f"/games/{game_id}/verify").json
    assert over_http["disputes"] == [report.disputes[0]]
    # to anyone else a dispute does not exist: the report says nothing of it
    public = client.get(f"/api/v1/games/{game_id}/verify").json
    assert public["ok"] and public["disputes"] == [] and d not in str(public)
    assert Player(client, "stranger").get(f"/games/{game_id}/verify").json["disputes"] == []
    # a record rewritten at the disputed version, or a ruling missing from the game
    stored = store.read(game_id)
    rewritten = list(stored)
    rewritten[receipts[4] - 1] = replace(stored[receipts[4] - 1], hash="0" * 64)
    _, problems = check_disputes(store, game_id, rewritten)
    assert any("no longer has the hash" in p for p in problems)
    _, problems = check_disputes(store, game_id, [e for e in stored if e.type != "GameRewound"])
    assert any("not what the game's record holds for it (nothing)" in p for p in problems)
    # a rewind elsewhere than the ruling said
    forged = [
        replace(e, data=e.data.replace(f'"to_version":{receipts[2]}', '"to_version":1'))
        if e.type == "GameRewound"
        else e
        for e in stored
    ]
    _, problems = check_disputes(store, game_id, forged)
    assert any("not what the game's record holds for it (GameRewound" in p for p in problems)


def test_the_lobby_shows_open_disputes_paused_and_annulled_games(client, app):
    game_id, players = open_game(client, ["blue", "red"])
    receipts = moves(client, game_id, players, 6, seed=1)
    d = dispute(players[0], game_id, receipts[-1]).json["dispute_id"]
    auditor = Auditor(client, app)
    assert auditor.post(f"/games/{game_id}/pause", {"dispute_id": d}).status_code == 200
    head = client.get(f"/api/v1/games/{game_id}").json["version"]
    client.get(f"/api/v1/games/{game_id}/scoreboard?min_version={head}")  # levelled
    entry = next(g for g in client.get("/api/v1/lobby").json["games"] if g["game_id"] == game_id)
    assert entry["open_disputes"] == 1 and entry["paused"] is True
    mine = players[0].get("/me/games").json["games"][0]
    assert mine["open_disputes"] == 1
    players[0].post(f"/disputes/{d}/withdraw", {})
    entry = next(g for g in client.get("/api/v1/lobby").json["games"] if g["game_id"] == game_id)
    assert entry["open_disputes"] == 0 and entry["paused"] is False and entry["rulings"] == 0
    d2 = dispute(players[1], game_id, receipts[-1]).json["dispute_id"]
    ruling = {"decision": "stands", "reasoning": "as recorded", "rules": ["D4"]}
    assert auditor.post(f"/disputes/{d2}/ruling", ruling).status_code == 200
    entry = next(g for g in client.get("/api/v1/lobby").json["games"] if g["game_id"] == game_id)
    assert entry["rulings"] == 1 and entry["open_disputes"] == 0
