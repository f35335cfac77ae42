"""Every input is bounded, and nothing a client sends gives a 500 (design.md, HTTP API)."""

from __future__ import annotations

import time

import psycopg
import pytest

from tests.service.api import Player, open_game

PROBLEM = "application/problem+json"


def journal(player, game_id):
    return player.get(f"/games/{game_id}/journal").json["commands"]


def head(client, game_id):
    return client.get(f"/api/v1/games/{game_id}").json["version"]


def test_a_body_over_16_kib_is_refused_with_413_before_it_is_read(client):
    game_id, players = open_game(client, ["blue", "red"])
    before = journal(players[0], game_id)
    huge = b'{"type": "Expand", "island": "' + b"x" * 10_000_000 + b'"}'
    for who in (players[0], Player(client, "stranger")):
        r = client.post(
            f"/api/v1/games/{game_id}/commands",
            data=huge,
            headers={**who.headers, "Content-Type": "application/json"},
        )
        assert (r.status_code, r.content_type, r.json["code"]) == (413, PROBLEM, "body_too_large")
    assert journal(players[0], game_id) == before


def test_commands_from_an_account_without_a_seat_are_refused_before_the_journal(client):
    game_id, players = open_game(client, ["blue", "red"])
    stranger = Player(client, "stranger")
    before = journal(players[0], game_id)
    for payload in ({"type": "StartGame"}, {"type": "Expand", "island": "tonga"}, {"type": "?"}):
        r = stranger.post(f"/games/{game_id}/commands", payload)
        assert (r.status_code, r.json["code"]) == (403, "not_seated")
    assert journal(players[0], game_id) == before


@pytest.mark.parametrize(
    "raw, status, code",
    [
        (b"[" * 5000 + b"]" * 5000, 400, "malformed_json"),  # deeper than any parser allows
        (b'{"type": "Expand", "x": ' + b"[" * 50 + b"]" * 50 + b"}", 422, "too_deep"),
        # as deep as the parser goes (a duplicate-key check once recursed here: a 500)
        (b'{"type": "Expand", "x": ' + b"[" * 1000 + b"]" * 1000 + b"}", 422, "too_deep"),
        (b'{"type": "Expand", "x": ' + b'{"a":' * 1000 + b"1" + b"}" * 1001, 422, "too_deep"),
        (b'{"type": "Expand", "island": "\\ud800"}', 400, "malformed_json"),  # lone surrogate
        (b'{"type": "Expand", "n": 18446744073709551617}', 422, "not_an_integer"),
        (b'{"type": "Expand", "n": 1.5}', 422, "not_an_integer"),
        (b'{"type": "Expand", "n": 1e400}', 400, "malformed_json"),
        (b"\xff\xfe", 400, "malformed_json"),
        (b"[1, 2]", 400, "malformed_body"),
        # a body that says two things: orjson would keep the last
        (b'{"type": "Expand", "island": "tonga", "island": "samoa"}', 400, "duplicate_key"),
        (b'{"type": "Land", "x": {"a": ":", "a": 1}}', 400, "duplicate_key"),
    ],
)
def test_malformed_bodies_are_client_errors_and_change_nothing(client, raw, status, code):
    game_id, players = open_game(client, ["blue", "red"])
    version = head(client, game_id)
    r = client.post(
        f"/api/v1/games/{game_id}/commands",
        data=raw,
        headers={**players[0].headers, "Content-Type": "application/json"},
    )
    assert (r.status_code, r.content_type, r.json["code"]) == (status, PROBLEM, code)
    assert head(client, game_id) == version


@pytest.mark.parametrize(
    "name",
    [
        "nul\x00name",
        "bell\x07",
        "\x9f",
        "   ",
        "x" * 65,
        "",
        "evil\u202eemanrood",
        "two\u2028lines",
        # blank or invisible, though printable (a second probe)
        "\u115f",
        "\u3164",
        "\u2800",
        "\u034f",
        "\ufeffann",
        "an\u00adn",
        "ann\U000e0041",
    ],
)
def test_names_are_printable_text_of_1_to_64_characters(client, name):
    r = client.post("/api/v1/accounts", json={"name": name})
    assert r.status_code == 422 and r.content_type == PROBLEM


def test_a_lone_surrogate_in_a_name_is_malformed_json_not_a_500(client):
    r = client.post(
        "/api/v1/accounts",
        data=b'{"name": "\\ud800"}',
        headers={"Content-Type": "application/json"},
    )
    assert (r.status_code, r.json["code"]) == (400, "malformed_json")


def test_entropy_is_printable_text(client):
    a = Player(client, "a")
    game_id = a.post("/games", {"max_players": 2}).json["game_id"]
    r = a.post(f"/games/{game_id}/seats", {"colour": "blue", "entropy": "dice\x00"})
    assert r.status_code == 422


@pytest.mark.parametrize(
    "path",
    [
        "/games/ab%00cd",
        "/games/ab%00cd/legal",
        "/games/" + "a" * 65,
        "/games/%F0%9F%8F%9D/events",
        "/games/..%2F..%2Fetc/state",
        "/games//stream",  # no redirect to a merged path, with an HTML page
        "//games",
    ],
)
def test_a_game_id_of_the_wrong_shape_is_404(client, path):
    r = client.get("/api/v1" + path)
    assert (r.status_code, r.content_type) == (404, PROBLEM)


@pytest.mark.parametrize(
    "path",
    [
        "/events?after=9223372036854775808",
        "/events?after=-1",
        "/events?limit=0",
        "/events?after=1e3",
        "/events?after=%00",
        "/state?at=18446744073709551617",
        "/state?at=0",
        "/timeline?after=99999999999999999999",
        "/scoreboard?min_version=9223372036854775807",
        "/events?after=%201",
        "/events?after=1%20",
        "/events?after=1&after=2",
        "/events?after=",
        "/events?after=01",
        "/state?at=+3",
    ],
)
def test_out_of_range_query_integers_are_422(client, path):
    """Also given twice, or with spaces around."""
    game_id, _ = open_game(client, ["blue", "red"])
    r = client.get(f"/api/v1/games/{game_id}{path}")
    assert (r.status_code, r.content_type) == (422, PROBLEM), r.json


@pytest.mark.parametrize("value", ["18446744073709551617", "-1", "abc", "1.0"])
def test_a_last_event_id_out_of_range_is_422(client, value):
    game_id, _ = open_game(client, ["blue", "red"])
    r = client.get(f"/api/v1/games/{game_id}/stream?timeout=1", headers={"Last-Event-ID": value})
    assert (r.status_code, r.json["code"]) == (422, "bad_last_event_id")


@pytest.mark.parametrize(
    "value", ['"18446744073709551617"', '"-3"', "twelve", 'W/"3"', '" 3"', '"3', "03", "-3", ""]
)
def test_an_if_match_out_of_range_or_weak_is_422_and_changes_nothing(client, value):
    """A weak tag never matches If-Match (RFC 9110 13.1.1); the version is a strong tag
    or a bare number."""
    game_id, players = open_game(client, ["blue", "red"])
    legal = client.get(f"/api/v1/games/{game_id}/legal").json
    mover = next(p for p in players if p.id == legal["player_id"])
    r = mover.post(f"/games/{game_id}/commands", legal["commands"][0], **{"If-Match": value})
    assert (r.status_code, r.json["code"]) == (422, "bad_if_match")
    assert head(client, game_id) == legal["version"]


def test_a_stale_if_match_is_409_stale_version_whoever_plays_now(client):
    game_id, players = open_game(client, ["blue", "red"])
    legal = client.get(f"/api/v1/games/{game_id}/legal").json
    mover = next(p for p in players if p.id == legal["player_id"])
    idle = next(p for p in players if p.id != legal["player_id"])
    match = {"If-Match": f'"{legal["version"]}"'}
    assert (
        mover.post(f"/games/{game_id}/commands", legal["commands"][0], **match).status_code == 200
    )
    for who in (mover, idle):  # a race loser, whether or not it is now their turn
        r = who.post(f"/games/{game_id}/commands", legal["commands"][0], **match)
        assert (r.status_code, r.json["code"]) == (409, "stale_version"), r.json


def test_journal_and_audit_come_a_page_at_a_time(client):
    game_id, players = open_game(client, ["blue", "red"])
    whole = journal(players[0], game_id)
    assert len(whole) >= 3
    got, after = [], 0
    while True:
        page = players[0].get(f"/games/{game_id}/journal?after={after}&limit=2").json
        assert len(page["commands"]) <= 2
        got += page["commands"]
        after = page["next_after"]
        if not page["has_more"]:  # the last page says so; no empty page to ask for
            break
    assert got == whole
    end = players[0].get(f"/games/{game_id}/journal?after={after}&limit=2").json
    assert end["commands"] == [] and not end["has_more"] and end["next_after"] == after
    head = players[0].get(f"/games/{game_id}").json["version"]
    for path in ("events", "timeline"):
        page = players[0].get(f"/games/{game_id}/{path}?after={head - 1}&limit=1").json
        assert page["has_more"] is False and page["next_after"] == head, path
        page = players[0].get(f"/games/{game_id}/{path}?after={head - 2}&limit=1").json
        assert page["has_more"] is True and page["next_after"] == head - 1, path
        beyond = players[0].get(f"/games/{game_id}/{path}?after=9999").json
        assert beyond["has_more"] is False, path
    first = players[0].get(f"/games/{game_id}/audit?limit=1").json
    assert sum(len(t["commands"]) for t in first["turns"]) == 1
    rest = players[0].get(f"/games/{game_id}/audit?after={first['next_after']}&limit=1000").json
    seqs = [c["seq"] for p in (first, rest) for t in p["turns"] for c in t["commands"]]
    assert seqs == [c["seq"] for c in whole]


def test_405_names_the_allowed_methods_and_401_the_scheme(client):
    r = client.delete("/api/v1/games")
    assert (r.status_code, r.content_type) == (405, PROBLEM)
    assert set(r.headers["Allow"].replace(" ", "").split(",")) >= {"GET", "POST"}
    r = client.post("/api/v1/games", json={})
    assert (r.status_code, r.content_type) == (401, PROBLEM)
    assert r.headers["WWW-Authenticate"].startswith("Bearer")
    r = client.post("/api/v1/games", json={}, headers={"Authorization": "Bearer nope"})
    assert 'error="invalid_token"' in r.headers["WWW-Authenticate"]


def test_a_dropped_database_connection_is_503_with_retry_after(request, tmp_path):
    """PostgreSQL ends every connection of the service (a restart, a failover)."""
    from service.app import create_app
    from service.runtime.settings import Settings
    from service.store import postgres
    from service.store.postgres import PostgresEventStore

    _, url = request.getfixturevalue("pg_schema")
    store = PostgresEventStore(url, max_size=2)
    client = create_app(Settings(data_dir=tmp_path, rate_limits={}), store=store).test_client()
    game_id, _ = open_game(client, ["blue", "red"])
    with psycopg.connect(url, autocommit=True) as admin:
        mine = admin.execute("SELECT pg_backend_pid()").fetchone()[0]
        admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE datname = current_database() AND pid <> %s AND application_name = ''",
            (mine,),
        )
    statuses = []
    for _ in range(4):
        r = client.get(f"/api/v1/games/{game_id}/events")
        statuses.append(r.status_code)
        if r.status_code == 503:
            assert r.content_type == PROBLEM and r.headers["Retry-After"].isdigit()
            assert r.json["code"] == "database_unavailable"
    assert 500 not in statuses and statuses[-1] == 200, statuses
    # connections that idled while the server dropped them are found out before use
    time.sleep(postgres.IDLE_CHECK + 0.1)
    with psycopg.connect(url, autocommit=True) as admin:
        admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE datname = current_database() AND pid <> pg_backend_pid()"
            " AND application_name = ''"
        )
    time.sleep(postgres.IDLE_CHECK + 0.1)
    assert [client.get(f"/api/v1/games/{game_id}/events").status_code for _ in range(4)] == [
        200
    ] * 4
    store.close()


@pytest.mark.parametrize("value", [1, 0, "yes", "true", None])
def test_game_options_take_json_booleans_only(client, value):
    ann = Player(client, "ann")
    r = ann.post("/games", {"max_players": 2, "two_colours_each": value})
    assert (r.status_code, r.json["code"]) == (422, "invalid_fields"), r.json


def test_a_name_needs_a_visible_character(client):
    for name in ("\u200b", " \u200b ", "\u2060"):
        r = client.post("/api/v1/accounts", json={"name": name})
        assert r.status_code == 422, name


@pytest.mark.parametrize("entropy", ["a\u202eb", "line\u2028break", "zero\u200bwidth"])
def test_entropy_is_text_that_shows_what_it_says(client, entropy):
    ann = Player(client, "ann")
    gid = ann.post("/games", {"max_players": 2}).json["game_id"]
    r = ann.post(f"/games/{gid}/seats", {"colour": "blue", "entropy": entropy})
    assert (r.status_code, r.json["code"]) == (422, "invalid_fields")


def test_names_with_joiners_and_marks_that_show_are_welcome(client):
    for name in ("Zoë", "👩\u200d🚀 astro", "می\u200cخواهم", "Ana"):
        assert client.post("/api/v1/accounts", json={"name": name}).status_code == 201, name


def test_a_listing_argument_given_twice_is_refused_whichever_it_is(client):
    for path in ("/lobby?status=open&status=ended", "/games?status=open&status=open"):
        r = client.get(f"/api/v1{path}")
        assert (r.status_code, r.json["code"]) == (422, "bad_query"), path


def test_games_lobby_and_my_games_come_a_page_at_a_time(client):
    ann = Player(client, "ann")
    made = [ann.post("/games", {"max_players": 2}).json["game_id"] for _ in range(3)]
    for gid in made:
        assert ann.post(f"/games/{gid}/seats", {"colour": "blue"}).status_code == 201
    for path, key in (("/games", "games"), ("/lobby", "games"), ("/me/games", "games")):
        first = ann.get(f"{path}?limit=2").json
        rest = ann.get(f"{path}?limit=2&offset=2").json
        assert (len(first[key]), first["has_more"]) == (2, True), path
        assert (len(rest[key]), rest["has_more"]) == (1, False), path
        ids = {g["game_id"] for g in first[key] + rest[key]}
        assert ids == set(made), path


def test_a_bare_version_in_if_match_is_read_as_the_quoted_one(client):
    game_id, players = open_game(client, ["blue", "red"])
    legal = client.get(f"/api/v1/games/{game_id}/legal").json
    mover = next(p for p in players if p.id == legal["player_id"])
    stale = mover.post(
        f"/games/{game_id}/commands",
        legal["commands"][0],
        **{"If-Match": str(legal["version"] - 1)},
    )
    assert (stale.status_code, stale.json["code"]) == (409, "stale_version")
    r = mover.post(
        f"/games/{game_id}/commands", legal["commands"][0], **{"If-Match": str(legal["version"])}
    )
    assert r.status_code == 200, r.json


def test_a_bad_after_is_refused_even_beside_a_good_last_event_id(client):
    """Each is checked when given (the fuzzer found ``after=-1`` passed unread when a
    Last-Event-ID came with it); the header wins when both are good."""
    game_id, _ = open_game(client, ["blue", "red"])
    r = client.get(
        f"/api/v1/games/{game_id}/stream?timeout=1&after=-1", headers={"Last-Event-ID": "0"}
    )
    assert (r.status_code, r.json["code"]) == (422, "bad_last_event_id")


@pytest.mark.parametrize(
    "content_type",
    [
        "text/plain",
        "application/x-www-form-urlencoded",
        "application/xml",
        "application/json; charset=utf-16",
        "+json",
        "application/+json",
        None,
    ],
)
def test_a_body_not_sent_as_json_is_415_and_changes_nothing(client, content_type):
    """Found by a probe: any Content-Type, or none, was read as JSON."""
    headers = {"Content-Type": content_type} if content_type else {}
    r = client.post("/api/v1/accounts", data=b'{"name": "ann"}', headers=headers)
    assert r.status_code == 415 and r.content_type == "application/problem+json"
    assert r.json["code"] == "unsupported_media_type"
    ok = client.post(
        "/api/v1/accounts",
        data=b'{"name": "ann"}',
        headers={"Content-Type": "application/json; charset=UTF-8"},
    )
    assert ok.status_code == 201
    empty = client.post("/api/v1/accounts", data=b"", headers={"Content-Type": "text/plain"})
    assert empty.status_code == 422  # no body: {} (no name), whatever the type says


@pytest.mark.parametrize(
    "address", ["a..b@example.com", ".a@example.com", "a.@example.com", "a@-x-.com", "a@1.2.3.4"]
)
def test_an_email_address_of_another_shape_is_refused(client, address):
    from tests.service.api import Player

    ann = Player(client, "ann")
    r = client.put(
        "/api/v1/me/notifications/settings", json={"email": address}, headers=ann.headers
    )
    assert (r.status_code, r.json["code"]) == (422, "bad_email")


def test_the_openapi_document_is_made_once_and_revalidated_by_its_etag(client):
    first = client.get("/api/v1/openapi.json")
    tag = first.headers["ETag"]
    again = client.get("/api/v1/openapi.json", headers={"If-None-Match": tag})
    assert first.status_code == 200 and again.status_code == 304
    page = client.get("/api/v1/docs")
    assert page.headers["ETag"] != tag  # each by its own bytes
    assert (
        client.get("/api/v1/docs", headers={"If-None-Match": page.headers["ETag"]}).status_code
        == 304
    )
    assert len(again.headers.getlist("Date")) <= 1


def test_a_compressed_body_is_415_and_bad_text_is_said_in_our_words(client):
    r = client.post(
        "/api/v1/accounts",
        data=b'{"name": "ann"}',
        headers={"Content-Type": "application/json", "Content-Encoding": "gzip"},
    )
    assert (r.status_code, r.json["code"]) == (415, "unsupported_media_type")
    for raw, words in (
        (b"\xff\xfe{}", "not UTF-8"),
        (b"\xef\xbb\xbf{}", "byte order mark"),
        (b'{"a":', "line 1, column"),
    ):
        r = client.post("/api/v1/accounts", data=raw, headers={"Content-Type": "application/json"})
        assert r.status_code == 400 and words in r.json["detail"], r.json
        assert "str is not" not in r.json["detail"]
