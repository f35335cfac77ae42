"""Leagues and deleted accounts (docs/leagues.md, L4, L11, L12; docs/profiles.md, P6–P9)
through the API, on SQLite, PostgreSQL and the in-memory store: given a league, when an
account of it is deleted, then the league never waits for it (its later tables open
without it, or are not played), it is left out of a league that starts, a league its
creator deleted before the start is cancelled, and a league whose last round is over is
finished with its final standings."""

from __future__ import annotations

import logging

from domain.league_schedule import schedule
from service.leagues.opening import Opening
from tests.service.api import Player, play_to_the_end
from tests.service.conftest import app_fixture
from tests.service.test_leagues import create, problem

app = app_fixture("sqlite", "postgres", "memory")


def named(client, *names):
    return [Player(client, n) for n in names]


def delete(player, name):
    r = player.post("/me/deletion", {"confirm": name})
    assert r.status_code == 200, r.json
    return r.json


def keeper(app):
    return app.extensions["tongiaki.services"].leagues.rounds


def warnings(caplog):
    return [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]


def play_round(client, view, by_id, seed=0):
    """Play every game of the league's current round to its end."""
    for n, t in enumerate(view["schedule"][view["current_round"] - 1]["tables"]):
        if t["game_id"] is not None:
            seated = [by_id[p] for p in t["players"] if p not in t["absent"]]
            play_to_the_end(client, t["game_id"], seated, seed + n)


def test_l11_l4_given_a_deleted_member_when_the_league_starts_then_it_is_left_out(client):
    # given four players, and a league of theirs at tables of two
    a, b, c, d = named(client, "ann", "bob", "cy", "dee")
    league_id = create(a, [b, c, d]).json["league_id"]
    # when one of them deletes their account before the start
    delete(d, "dee")
    view = client.get(f"/api/v1/leagues/{league_id}").json
    assert view["status"] == "open"  # a look already leaves them out (L11)
    assert [p["account_id"] for p in view["players"]] == [a.id, b.id, c.id]
    assert [s["account_id"] for s in view["standings"]] == [a.id, b.id, c.id]
    # then the league starts without them: three players, three rounds of one table
    r = a.post(f"/leagues/{league_id}/start")
    assert r.status_code == 200, r.json
    view = r.json
    assert [p["account_id"] for p in view["players"]] == [a.id, b.id, c.id]
    assert [s["account_id"] for s in view["standings"]] == [a.id, b.id, c.id]
    assert view["rounds"] == 3
    seated = {p for rnd in view["schedule"] for t in rnd["tables"] for p in t["players"]}
    assert seated == {a.id, b.id, c.id}
    first = view["schedule"][0]["tables"][0]
    assert first["status"] == "setup" and first["absent"] == []
    # and nobody can name the deleted account in a new league (L2)
    problem(create(a, [b, d.id]), 409, "unknown_account", "L2")


def test_l11_l4_a_league_left_too_small_by_deletions_is_refused_and_stays_open(client):
    # given a league of two, and one of three at tables of three
    a, b, c = named(client, "ann", "bob", "cy")
    pair = create(a, [b]).json["league_id"]
    trio = create(a, [b, c], table_size=3).json["league_id"]
    # when one of its players deletes their account
    delete(c, "cy")
    # then the league of three cannot fill a table: 409, naming the deleted account
    r = a.post(f"/leagues/{trio}/start")
    problem(r, 409, "table_too_large", "L4")
    assert r.json["deleted"] == [c.id] and "deleted" in r.json["detail"]
    assert r.headers["Content-Type"].startswith("application/problem+json")
    # and when the other is deleted too, the league of two has too few players
    delete(b, "bob")
    r = a.post(f"/leagues/{pair}/start")
    problem(r, 409, "too_few_players", "L4")
    assert r.json["deleted"] == [b.id]
    # and nothing changed: both are still open, unscheduled, the deleted one not listed
    for league_id, count in ((pair, 1), (trio, 1)):
        view = client.get(f"/api/v1/leagues/{league_id}").json
        assert view["status"] == "open" and view["schedule"] == [] and view["rounds"] == 0
        assert len(view["players"]) == count


def test_l11_an_open_league_whose_creator_is_deleted_is_cancelled(client, app):
    # given an open league with a join link, and a player who joined it
    a, b, c = named(client, "ann", "bob", "cy")
    r = a.post("/leagues", {"name": "Spring", "table_size": 2, "link": True})
    league_id, link = r.json["league_id"], r.json["link"]
    token = link.split("join=")[1]
    assert b.post(f"/leagues/{league_id}/join", {"token": token}).status_code == 200
    # when its creator deletes their account before starting it
    delete(a, "ann")
    # then the league is cancelled, in the list and on its page, for good
    listed = client.get("/api/v1/leagues").json["leagues"]
    assert [(x["league_id"], x["status"]) for x in listed] == [(league_id, "cancelled")]
    assert listed[0]["creator_name"] == f"deleted player {a.id[:4]}"
    view = b.get(f"/leagues/{league_id}").json
    assert view["status"] == "cancelled" and view["link"] is None and view["schedule"] == []
    # and nobody joins it, nor starts it
    problem(c.post(f"/leagues/{league_id}/join", {"token": token}), 409, "league_cancelled", "L11")
    problem(b.post(f"/leagues/{league_id}/start"), 409, "league_cancelled", "L11")
    # and the keeper has nothing to do with it
    assert league_id not in keeper(app).due()


def test_l11_l12_a_deleted_players_later_tables_are_not_played_and_the_league_finishes(
    client, app, caplog
):
    """The probe's case: the keeper logged ``unknown_account`` for ever, and the league
    stayed ``started`` at its last round."""
    # given a league of three at tables of two: three rounds of one table, one bye each
    a, b, c = named(client, "ann", "bob", "cy")
    by_id = {p.id: p for p in (a, b, c)}
    league_id = create(a, [b, c]).json["league_id"]
    view = a.post(f"/leagues/{league_id}/start").json
    (table,) = view["schedule"][0]["tables"]
    (gone,) = [p for p in (a, b, c) if p.id not in table["players"]]
    # when the player sitting out round one deletes their account (creator or not)
    delete(gone, {a.id: "ann", b.id: "bob", c.id: "cy"}[gone.id])
    # and round one is played to its end
    caplog.set_level(logging.INFO, logger="tongiaki.leagues")
    play_round(client, view, by_id)
    # then the keeper's next look goes through the rounds left without them and
    # finishes the league (L11, L12), without a refusal logged, and looks no more
    rounds = keeper(app)
    assert league_id in rounds.due()
    assert rounds.look() == [league_id]
    assert not warnings(caplog)
    assert league_id not in rounds.due() and rounds.look() == []
    view = client.get(f"/api/v1/leagues/{league_id}").json
    assert view["status"] == "finished" and view["current_round"] == view["rounds"] == 3
    later = [t for rnd in view["schedule"][1:] for t in rnd["tables"]]
    assert [(t["status"], t["game_id"], t["absent"]) for t in later] == [
        ("not_played", None, [gone.id]),
        ("not_played", None, [gone.id]),
    ]
    # and the final standings count the one game played; the deleted player's line stays
    lines = {s["account_id"]: s for s in view["standings"]}
    assert lines[gone.id]["games"] == 0
    assert lines[gone.id]["name"] == f"deleted player {gone.id[:4]}"
    assert sum(s["games"] for s in lines.values()) == 2
    assert sum(s["rank_points"] for s in lines.values()) == 1
    listed = client.get("/api/v1/leagues").json["leagues"]
    assert [(x["status"], x["current_round"]) for x in listed] == [("finished", 3)]


def first_seat_later(league_id, members):
    """Whether the player sitting out round one sits first at a later table."""
    rounds = schedule(league_id, members, 3)
    (out,) = set(members) - {p for t in rounds[0] for p in t}
    return any(t[0] == out for tables in rounds[1:] for t in tables)


def test_l11_a_table_opens_without_a_deleted_player_in_the_next_players_name(client, app):
    # given four players, and a league of theirs at tables of three with the third seat
    # first, in which the player sitting out round one sits first at a later table
    players = named(client, "ann", "bob", "cy", "dee")
    a, *others = players
    by_id = {p.id: p for p in players}
    names = dict(zip([p.id for p in players], ("ann", "bob", "cy", "dee"), strict=True))
    members = [p.id for p in players]
    for _ in range(30):
        league_id = create(a, others, table_size=3, options={"first_seat": 3}).json["league_id"]
        if first_seat_later(league_id, members):
            break
    else:
        raise AssertionError("no schedule of 30 has the case")
    view = a.post(f"/leagues/{league_id}/start").json
    (table,) = view["schedule"][0]["tables"]
    (out,) = [p for p in members if p not in table["players"]]
    # when they delete their account while round one is played
    delete(by_id[out], names[out])
    store = app.extensions["tongiaki.services"].leagues.store
    while view["status"] == "started":
        play_round(client, view, by_id, seed=view["current_round"])
        keeper(app).look()
        view = client.get(f"/api/v1/leagues/{league_id}").json
    # then each of their tables opened without them, a game of the two others, with the
    # first seat the last one left, opened in the name of the first of them (L11)
    assert view["status"] == "finished"
    without = [t for rnd in view["schedule"] for t in rnd["tables"] if out in t["players"]]
    assert without and all(t["absent"] == [out] and t["status"] == "ended" for t in without)
    moved = 0
    for t in without:
        game = client.get(f"/api/v1/games/{t['game_id']}").json
        left = [p for p in t["players"] if p != out]
        assert [p["player_id"] for p in sorted(game["players"], key=lambda p: p["seat"])] == left
        created = client.get(f"/api/v1/games/{t['game_id']}/events").json["events"][0]
        assert created["type"] == "GameCreated"
        assert created["data"]["options"]["max_players"] == 2
        assert created["data"]["options"]["first_seat"] == 2
        rnd = next(r["round"] for r in view["schedule"] if t in r["tables"])
        opener = store.account(left[0])
        assert t["game_id"] == Opening.game_id(league_id, rnd, t["table"], opener)
        moved += t["players"][0] == out
    assert moved >= 1  # a table whose first seat was theirs opened under another's id
    # and the standings: their line stays, with no game; every other game counted
    lines = {s["account_id"]: s for s in view["standings"]}
    assert lines[out]["games"] == 0
    ended = [t for rnd in view["schedule"] for t in rnd["tables"] if t["status"] == "ended"]
    assert sum(s["games"] for s in lines.values()) == sum(
        len(t["players"]) - len(t["absent"]) for t in ended
    )


def test_l11_l4_a_deletion_just_before_the_start_is_seen_under_the_leagues_lock(client, app):
    # given a league of two whose start has checked its players (before its row's lock)
    a, b = named(client, "ann", "bob")
    league_id = create(a, [b]).json["league_id"]
    services = app.extensions["tongiaki.services"]
    leagues = services.leagues
    checked = leagues._playing
    calls = []

    def then_deleted(league, members):
        playing = checked(league, members)
        calls.append(members)
        if len(calls) == 1:  # when the other player's account is deleted right then
            services.profiles.deletion.delete(leagues.store.account(b.id), "bob")
        return playing

    leagues._playing = then_deleted
    try:
        r = a.post(f"/leagues/{league_id}/start")
    finally:
        leagues._playing = checked
    # then the start is refused under the lock, and undone: the league is still open
    problem(r, 409, "too_few_players", "L4")
    assert len(calls) == 1  # the second look, under the lock, refused
    view = client.get(f"/api/v1/leagues/{league_id}").json
    assert view["status"] == "open" and view["rounds"] == 0 and view["schedule"] == []
    assert [p["account_id"] for p in view["players"]] == [a.id]  # bob is gone (L11)
