"""Leagues (docs/leagues.md, L1–L12) through the API, on SQLite, PostgreSQL and the
in-memory store: given accounts, when one creates a league, players join and it starts,
then the schedule's tables open round by round as private tables, and the standings
follow the results."""

from __future__ import annotations

import pytest

from tests.service.api import Player, play_to_the_end
from tests.service.conftest import app_fixture

app = app_fixture("sqlite", "postgres", "memory")


def players(client, n, prefix="p"):
    return [Player(client, f"{prefix}{i}") for i in range(n)]


def create(owner, others, table_size=2, **extra):
    body = {
        "name": "Autumn league",
        "table_size": table_size,
        "players": [getattr(p, "id", p) for p in others],
    }
    return owner.post("/leagues", {**body, **extra})


def problem(r, status, code, rule):
    assert r.status_code == status, r.json
    assert r.json["code"] == code and r.json["rule"] == rule, r.json


def current_tables(view):
    return view["schedule"][view["current_round"] - 1]["tables"]


def test_l5_l7_a_two_player_league_opens_round_one_then_the_next_when_it_is_over(client):
    # given four players and a league of theirs with a move clock
    a, b, c, d = players(client, 4)
    options = {"time_control": "move", "move_seconds": 600}
    r = create(a, [b, c, d], options=options)
    assert r.status_code == 201, r.json
    league_id = r.json["league_id"]
    assert r.json["status"] == "open" and r.json["schedule"] == []
    # when its creator starts it
    r = a.post(f"/leagues/{league_id}/start")
    assert r.status_code == 200, r.json
    view = r.json
    # then every pair plays once in three rounds of two tables (L5)
    assert view["rounds"] == 3 and view["current_round"] == 1
    pairs = [frozenset(t["players"]) for rnd in view["schedule"] for t in rnd["tables"]]
    assert len(pairs) == len(set(pairs)) == 6
    # and round one's tables are open, private, seated and started (L7)
    tables = current_tables(view)
    assert all(t["status"] == "setup" and t["game_id"] for t in tables)
    assert all(t["status"] == "scheduled" for t in view["schedule"][1]["tables"])
    for t in tables:
        game = client.get(f"/api/v1/games/{t['game_id']}").json
        seated = [p["player_id"] for p in sorted(game["players"], key=lambda p: p["seat"])]
        assert seated == t["players"]
        assert "move" in str(game["time_control"])
    lobby = client.get("/api/v1/lobby").json["games"]
    assert not {g["game_id"] for g in lobby} & {t["game_id"] for t in tables}
    # when round one's games are played to their end
    by_id = {p.id: p for p in (a, b, c, d)}
    for seed, t in enumerate(tables):
        play_to_the_end(client, t["game_id"], [by_id[p] for p in t["players"]], seed)
    # then the next look opens round two (L7), and the standings count round one (L9)
    view = client.get(f"/api/v1/leagues/{league_id}").json
    assert view["current_round"] == 2
    assert all(t["status"] == "setup" for t in current_tables(view))
    assert all(t["status"] == "ended" for t in view["schedule"][0]["tables"])
    lines = view["standings"]
    assert [s["place"] for s in lines] == [1, 2, 3, 4]
    assert sum(s["games"] for s in lines) == 4
    assert sum(s["rank_points"] for s in lines) == 2


def test_l1_l2_l4_bad_leagues_are_problems_citing_their_rule_and_keep_nothing(client):
    a, b, c = players(client, 3)
    auditorless = client.get("/api/v1/leagues").json["leagues"]
    # one player: nobody to play
    problem(create(a, []), 409, "too_few_players", "L2")
    # a table larger than the players
    problem(create(a, [b], table_size=3), 409, "table_too_large", "L2")
    # an unknown account, a player twice, the creator named again
    problem(create(a, [b, "nobody-at-all"]), 409, "unknown_account", "L2")
    Player(client, "Twin"), Player(client, "Twin")
    problem(create(a, [b, "Twin"]), 409, "ambiguous_player", "L2")
    problem(create(a, [b, "twin"]), 409, "ambiguous_player", "L2")  # in another case too
    problem(create(a, [b, b]), 409, "duplicate_player", "L2")
    problem(create(a, [b, a]), 409, "duplicate_player", "L2")
    # 31 players (the creator and 30 named): the rule says it, not the schema
    problem(create(a, [f"someone-{i}" for i in range(30)]), 409, "too_many_players", "L2")
    assert create(a, [f"x{i}" for i in range(201)]).status_code == 422  # bounded input
    # options a game refuses, a league refuses the same way (R5: the two-player variant)
    problem(create(a, [b, c], table_size=3, options={"two_colours_each": True}), 409,
            "variant_needs_two_players", "R5")  # fmt: skip
    for options in (
        {"time_control": "move", "move_seconds": 1},
        {"first_seat": 3},
        {"time_control": "fischer"},
        {"absent_after": 99},
        {"nonsense": 1},
    ):
        league = create(a, [b], options=options)
        game = a.post("/games", {"max_players": 2, **options})
        assert league.status_code == game.status_code >= 400, (options, league.json)
        assert league.json.get("code") == game.json.get("code"), options
    r = create(a, [b], options={"max_players": 4})
    assert r.status_code == 422, r.json  # the table size is the league's
    r = create(a, [b], table_size=7)
    assert r.status_code == 422, r.json
    r = a.post("/leagues", {"name": "", "table_size": 2})
    assert r.status_code == 422, r.json
    assert client.get("/api/v1/leagues").json["leagues"] == auditorless
    # a league of players named by their exact names is fine; its creator starts it once
    r = create(a, [])
    r = a.post("/leagues", {"name": "By name", "table_size": 2, "players": ["p1", "p2"]})
    assert r.status_code == 201, r.json
    assert [p["name"] for p in r.json["players"]] == ["p0", "p1", "p2"]
    league_id = r.json["league_id"]
    problem(b.post(f"/leagues/{league_id}/start"), 403, "not_league_creator", "L4")
    assert a.post(f"/leagues/{league_id}/start").status_code == 200
    problem(a.post(f"/leagues/{league_id}/start"), 409, "already_started", "L4")
    r = client.get("/api/v1/leagues/ffffffffffff")
    assert r.status_code == 404 and r.json["code"] == "unknown_league"
    assert client.get("/api/v1/leagues/not-a-league").status_code == 404


def test_l3_players_join_with_the_link_until_the_league_starts(client):
    a, b, c, stranger = players(client, 4)
    r = a.post("/leagues", {"name": "Open league", "table_size": 3, "link": True})
    assert r.status_code == 201, r.json
    league_id, link = r.json["league_id"], r.json["link"]
    token = link.split("join=")[1]
    assert client.get(f"/api/v1/leagues/{league_id}").json["link"] is None  # not public
    assert a.get(f"/leagues/{league_id}").json["link"] == link
    # too few to start yet
    problem(a.post(f"/leagues/{league_id}/start"), 409, "too_few_players", "L4")
    problem(b.post(f"/leagues/{league_id}/join", {"token": "wrong"}), 403, "bad_league_link", "L3")
    assert b.post(f"/leagues/{league_id}/join", {"token": token}).status_code == 200
    problem(a.post(f"/leagues/{league_id}/start"), 409, "table_too_large", "L4")
    problem(b.post(f"/leagues/{league_id}/join", {"token": token}), 409, "already_member", "L3")
    assert c.post(f"/leagues/{league_id}/join", {"token": token}).status_code == 200
    r = a.post(f"/leagues/{league_id}/start")
    assert r.status_code == 200, r.json
    assert r.json["link"] is None
    # a non-member cannot join a started league, even with the link
    r = stranger.post(f"/leagues/{league_id}/join", {"token": token})
    problem(r, 409, "league_started", "L3")
    view = client.get(f"/api/v1/leagues/{league_id}").json
    assert [p["account_id"] for p in view["players"]] == [a.id, b.id, c.id]
    assert view["rounds"] == 1 and len(current_tables(view)) == 1


def test_l8_a_table_whose_opening_was_cut_short_is_finished_by_the_next_look(client, app):
    a, b = players(client, 2)
    league_id = create(a, [b]).json["league_id"]
    leagues = app.extensions["tongiaki.services"].leagues
    joins = leagues.opening.games.join
    calls = []

    def crash_once(*args, **kwargs):
        calls.append(args)
        if len(calls) == 2:
            raise RuntimeError("the process died here")
        return joins(*args, **kwargs)

    leagues.opening.games.join = crash_once
    try:
        with pytest.raises(RuntimeError):
            leagues.start(leagues.store.account(a.id), league_id)
    finally:
        leagues.opening.games.join = joins
    game_id = leagues.table.tables(league_id)[0].game_id
    assert client.get(f"/api/v1/games/{game_id}").json["status"] == "open"  # one seat
    # when anyone looks at the league, the table is finished: seated and started, once
    view = client.get(f"/api/v1/leagues/{league_id}").json
    assert current_tables(view)[0]["status"] == "setup"
    assert current_tables(view)[0]["game_id"] == game_id
    events = client.get(f"/api/v1/games/{game_id}/events").json["events"]
    assert [e["type"] for e in events].count("PlayerJoined") == 2
    assert [e["type"] for e in events].count("GameCreated") == 1


def test_l9_standings_follow_a_ruling_that_amends_then_annuls_a_result(client, app):
    from tests.service.test_disputes import Auditor, dispute

    # given a two-player league whose one game was played to its end
    a, b = players(client, 2)
    league_id = create(a, [b]).json["league_id"]
    view = a.post(f"/leagues/{league_id}/start").json
    (table,) = current_tables(view)
    game_id = table["game_id"]
    by_id = {a.id: a, b.id: b}
    play_to_the_end(client, game_id, [by_id[p] for p in table["players"]], 7)
    lines = client.get(f"/api/v1/leagues/{league_id}").json["standings"]
    winner, loser = lines[0]["account_id"], lines[1]["account_id"]
    assert [s["rank_points"] for s in lines] in ([1, 0], [0.5, 0.5])
    assert lines[0]["games"] == lines[1]["games"] == 1
    # when an auditor's ruling reverses the result (D4)
    version = client.get(f"/api/v1/games/{game_id}").json["version"]
    d = dispute(a, game_id, version, reason="unfair_draw").json["dispute_id"]
    auditor = Auditor(client, app)
    ruling = {"decision": "result_amended", "reasoning": "r", "rules": ["D4"]}
    r = auditor.post(f"/disputes/{d}/ruling", {**ruling, "ranking": [loser, winner]})
    assert r.status_code == 200, r.json
    # then the standings follow it
    lines = client.get(f"/api/v1/leagues/{league_id}").json["standings"]
    assert [(s["account_id"], s["rank_points"], s["wins"]) for s in lines] == [
        (loser, 1, 1),
        (winner, 0, 0),
    ]
    # and when a second ruling annuls the game, it counts for nobody
    d2 = dispute(b, game_id, version, reason="other", text="annul").json["dispute_id"]
    r = auditor.post(f"/disputes/{d2}/ruling", {**ruling, "annulled": True})
    assert r.status_code == 200, r.json
    lines = client.get(f"/api/v1/leagues/{league_id}").json["standings"]
    assert [(s["games"], s["rank_points"]) for s in lines] == [(0, 0), (0, 0)]
    assert [s["account_id"] for s in lines] == [a.id, b.id]  # then by the order they joined
    # and the read models rebuilt from the record give the same standings
    app.extensions["tongiaki.readmodels"].rebuild()
    assert client.get(f"/api/v1/leagues/{league_id}").json["standings"] == lines


def test_l9_rank_points_share_the_places_of_a_tie():
    from service.leagues.standings import rank_points

    assert rank_points([1, 2, 3]) == [2, 1, 0]
    assert rank_points([1, 1, 3]) == [1.5, 1.5, 0]
    assert rank_points([1, 2, 2, 2]) == [3, 1, 1, 1]
    assert rank_points([1, 1]) == [0.5, 0.5]


def test_l3_a_token_of_any_characters_is_only_a_wrong_link(client):
    a, b = players(client, 2)
    league_id = a.post("/leagues", {"name": "x", "table_size": 2, "link": True}).json["league_id"]
    for token in ("°V\x183°\xad", "é" * 64, "x"):
        problem(
            b.post(f"/leagues/{league_id}/join", {"token": token}), 403, "bad_league_link", "L3"
        )


def test_l8_a_refused_opening_step_shows_the_table_opening_and_the_next_look_retries(client, app):
    from service.errors import Unavailable

    a, b = players(client, 2)
    league_id = create(a, [b]).json["league_id"]
    opening = app.extensions["tongiaki.services"].leagues.opening
    joins = opening.games.join

    def refused(*args, **kwargs):
        raise Unavailable("database_unavailable", "the store is away for a moment")

    opening.games.join = refused
    try:
        view = a.post(f"/leagues/{league_id}/start").json
    finally:
        opening.games.join = joins
    assert view["status"] == "started" and current_tables(view)[0]["status"] == "open"
    view = client.get(f"/api/v1/leagues/{league_id}").json
    assert current_tables(view)[0]["status"] == "setup"


def test_l7_the_next_round_opens_by_itself_without_a_look_at_the_league(client, app):
    """The keeper (service/leagues/rounds.py) opens a round once the current one is over,
    with nobody looking at the league; it names no league while a game of its round is
    running, and finishes the league once its last round is over (L12)."""
    # given a league of three players at tables of two: three rounds, one table each
    a, b, c = players(client, 3, prefix="k")
    league_id = create(a, [b, c]).json["league_id"]
    a.post(f"/leagues/{league_id}/start")
    rounds = app.extensions["tongiaki.services"].leagues.rounds
    table = rounds.opening.table
    by_id = {p.id: p for p in (a, b, c)}
    # while round one is played, the keeper has nothing to open
    assert league_id not in rounds.due() and rounds.look() == []
    for round_no in (1, 2, 3):
        league = table.get(league_id)
        assert league is not None and league.opened_round == round_no
        for seed, t in enumerate(t for t in table.tables(league_id) if t.round == round_no):
            assert league_id not in rounds.due()
            play_to_the_end(client, t.game_id, [by_id[p] for p in t.seats], seed + round_no)
        # when the round's last game ends, the keeper's next look opens the next round
        if round_no < 3:
            assert league_id in rounds.due()
            assert rounds.look() == [league_id]
            assert rounds.look() == []  # once
            opened = [t for t in table.tables(league_id) if t.round == round_no + 1]
            for t in opened:
                game = client.get(f"/api/v1/games/{t.game_id}").json
                assert game["status"] == "setup", game
    # the last round over: the keeper's next look finishes the league, once (L12), with
    # nobody looking at it, and then looks at it no more
    assert league_id in rounds.due()
    assert rounds.look() == [league_id]
    finished = table.get(league_id)
    assert finished.status == "finished" and finished.opened_round == 3
    assert league_id not in rounds.due() and rounds.look() == []
    view = client.get(f"/api/v1/leagues/{league_id}").json
    assert view["status"] == "finished" and view["current_round"] == 3
    assert sum(s["games"] for s in view["standings"]) == 6


def test_l8_the_keeper_finishes_a_table_whose_opening_was_refused(client, app):
    from service.errors import Unavailable

    a, b = players(client, 2, prefix="r")
    league_id = create(a, [b]).json["league_id"]
    leagues = app.extensions["tongiaki.services"].leagues
    joins = leagues.opening.games.join

    def refused(*args, **kwargs):
        raise Unavailable("database_unavailable", "the store is away for a moment")

    leagues.opening.games.join = refused
    try:
        a.post(f"/leagues/{league_id}/start")
        assert league_id in leagues.rounds.due()
        leagues.rounds.look()  # refused again: logged, tried at the next look
    finally:
        leagues.opening.games.join = joins
    game_id = leagues.table.tables(league_id)[0].game_id
    assert league_id in leagues.rounds.due()
    leagues.rounds.look()
    assert client.get(f"/api/v1/games/{game_id}").json["status"] == "setup"
    assert league_id not in leagues.rounds.due()
