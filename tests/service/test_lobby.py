"""The lobby's list, a page at a time, filtered (issue 39): with 130 open games the 30
oldest could not be reached (at most 100 a list, no sign of more)."""

from __future__ import annotations

import pytest

from tests.service.api import Player


def page_all(client, query: str = "", limit: int = 40) -> list[dict]:
    """Every game the lobby lists for ``query``, following next_before."""
    games: list[dict] = []
    url = f"/api/v1/lobby?limit={limit}{'&' + query if query else ''}"
    while True:
        body = client.get(url).json
        games += body["games"]
        assert body["has_more"] == (body["next_before"] is not None)
        if not body["has_more"]:
            return games
        url = f"/api/v1/lobby?limit={limit}&before={body['next_before']}{'&' + query if query else ''}"


@pytest.fixture
def crowd(client):
    """130 open games of Ann's (2 and 4 seats, both variants, clocks), a few of Bob's."""
    ann, bob = Player(client, "Ann Marie"), Player(client, "Bob")
    made = []
    for i in range(130):
        options: dict = {"max_players": 2 if i % 2 else 4}
        if i % 5 == 0:
            options = {"max_players": 2, "two_colours_each": True}  # a two-player variant
        if i % 7 == 0:
            options["free_orientation_after_first"] = True
        if i % 3 == 0:
            options |= {"time_control": "move", "move_seconds": 600}
        made.append(ann.post("/games", options).json["game_id"])
    full = bob.post("/games", {"max_players": 2}).json["game_id"]
    bob.post(f"/games/{full}/seats", {"colour": "red"})
    ann.post(f"/games/{full}/seats", {"colour": "blue"})
    return made, full, ann, bob


def test_every_game_is_reached_a_page_at_a_time(client, crowd):
    made, full, _, _ = crowd
    listed = page_all(client, "status=open")
    ids = [g["game_id"] for g in listed]
    assert sorted(ids) == sorted([*made, full]) and len(ids) == len(set(ids))
    stamps = [(g["last_activity"], g["game_id"]) for g in listed]
    assert (
        stamps == sorted(stamps, key=lambda s: (s[0], [-ord(c) for c in s[1]]), reverse=True)
        or len(stamps) == 131
    )


def test_filters_by_seats_variant_clock_free_seat_and_player(client, crowd):
    made, full, _, _ = crowd
    two = page_all(client, "status=open&players=2")
    assert two and all(g["max_players"] == 2 for g in two)
    pairs = page_all(client, "variant=two_colours")
    assert pairs and all(g["two_colours_each"] for g in pairs)
    free = page_all(client, "variant=free_orientation")
    assert free and all(g["free_orientation_after_first"] for g in free)
    plain = page_all(client, "variant=standard")
    assert plain and not any(
        g["two_colours_each"] or g["free_orientation_after_first"] for g in plain
    )
    timed = page_all(client, "clock=move")
    assert timed and all(g["time_control"]["control"] == "move" for g in timed)
    open_seats = {g["game_id"] for g in page_all(client, "free_seat=true")}
    assert full not in open_seats and set(made) <= open_seats
    by_bob = {g["game_id"] for g in page_all(client, "player=bOB")}
    assert by_bob == {full}
    by_ann = {g["game_id"] for g in page_all(client, "player=marie")}
    assert by_ann == {full}  # the games she opened have nobody seated yet
    assert page_all(client, "player=nobody") == []


@pytest.mark.parametrize(
    "query",
    [
        "before=notacursor!",
        "before=2026-11-27T08:00:00~00:00",  # no game id
        "before=2026-11-27T08:00:00+00:00_g1",  # "+" unescaped: a space
        "before=_" + "g" * 65,
        "players=7",
        "variant=chess",
        "clock=hourglass",
        "free_seat=yes",
        "player=",
        "player=" + "x" * 65,
    ],
)
def test_a_bad_lobby_query_is_422(client, query):
    r = client.get(f"/api/v1/lobby?{query}")
    assert r.status_code == 422 and r.content_type == "application/problem+json", (query, r.json)


def test_an_older_lobby_is_filled_again_after_the_upgrade(tmp_path):
    """Schema 5 adds the filters' columns: every game's lobby row is projected again (its
    checkpoints dropped), so a filter finds games made before the upgrade."""
    import sqlite3

    from projections.store import ReadModels
    from service.app import create_app
    from service.runtime.settings import Settings
    from service.store.sqlite import SQLiteEventStore

    path = tmp_path / "old.db"
    store = SQLiteEventStore(path)
    app = create_app(Settings(data_dir=tmp_path, rate_limits={}), store=store, sweep=False)
    ann = Player(app.test_client(), "Ann")
    made = [ann.post("/games", {"max_players": 3}).json["game_id"] for _ in range(3)]
    store.close()
    with sqlite3.connect(path) as conn:  # back to schema 4: no filter (nor private) columns
        for column in ("players", "seated", "two_colours", "free_orientation", "clock", "private"):
            conn.execute(f"ALTER TABLE rm_lobby DROP COLUMN {column}")
        conn.execute("ALTER TABLE rm_steps DROP COLUMN words")  # schema 11's
        conn.execute("ALTER TABLE rm_notifications DROP COLUMN words")
        conn.execute("DELETE FROM readmodel_schema WHERE version > 4")
    store = SQLiteEventStore(path)
    try:
        rm = ReadModels(store, store)
        rm.upgrade()
        assert rm.lobby("open", 10, players=3) == []  # not refilled yet
        assert sorted(rm.behind()) == sorted(made)  # the sweeper's work
        for game_id in rm.behind():
            rm.catch_up_game(game_id)
        assert sorted(g["game_id"] for g in rm.lobby("open", 10, players=3)) == sorted(made)
    finally:
        store.close()


def test_any_cursor_of_the_documented_form_is_a_point_in_the_list(client, crowd):
    """The cursor is the last game's activity and id (``~`` for ``+``): one made by hand
    pages from there, and an offset counts from it."""
    everything = page_all(client)
    tenth = everything[9]
    cursor = f"{tenth['last_activity'].replace('+', '~')}_{tenth['game_id']}"
    after = client.get(f"/api/v1/lobby?limit=5&before={cursor}").json["games"]
    assert [g["game_id"] for g in after] == [g["game_id"] for g in everything[10:15]]
    skipped = client.get(f"/api/v1/lobby?limit=5&before={cursor}&offset=3").json["games"]
    assert [g["game_id"] for g in skipped] == [g["game_id"] for g in everything[13:18]]
    nowhere = client.get("/api/v1/lobby?before=_zz").json  # before every game of activity ""
    assert nowhere["games"] == [] and nowhere["next_before"] is None
