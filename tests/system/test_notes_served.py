"""Private notes on real server processes (docs/notes.md): a note written through one
process is read through another, a page's write carries its CSRF token, and another
account gets nothing — on the embedded default and on two gunicorn web processes over
PostgreSQL and Redis."""

from __future__ import annotations

from tests.servers import Http, embedded, production, seated_game


def check_notes_across(here: Http, other: Http) -> None:
    gid, tokens = seated_game(here)
    (author, mine), (opponent, theirs) = tokens.items()
    # a page's session: its write needs the CSRF token (docs/accounts.md)
    opened = here.call("POST", "/sessions", token=mine)
    assert opened.status == 201, opened.raw
    cookie = opened.headers["set-cookie"].split(";")[0]
    csrf = opened.json["csrf_token"]
    path = f"/games/{gid}/notes/game"
    refused = here.call("PUT", path, {"text": "no token"}, headers={"Cookie": cookie})
    assert refused.status == 403 and refused.json["code"] == "csrf_failed"
    written = here.call(
        "PUT", path, {"text": "written here"}, headers={"Cookie": cookie, "X-CSRF-Token": csrf}
    )
    assert written.status == 200, written.raw
    on_move = here.call("PUT", f"/games/{gid}/notes/1", {"text": "on the first"}, mine)
    assert on_move.status == 200, on_move.raw
    # read through the other process, by token and by the same session
    assert other.call("GET", path, token=mine).json["text"] == "written here"
    assert other.call("GET", path, headers={"Cookie": cookie}).json["text"] == "written here"
    listed = other.call("GET", f"/games/{gid}/notes", token=mine).json["notes"]
    assert [n["version"] for n in listed] == [None, 1]
    exported = other.call("GET", "/me/export", token=mine).json
    assert exported["account_id"] == author and len(exported["notes"]) == 2
    # the opponent, and an account not at the game, get nothing of it
    for http in (here, other):
        r = http.call("GET", path, token=theirs)
        assert r.status == 404 and r.json["code"] == "no_note"
        assert http.call("GET", f"/games/{gid}/notes", token=theirs).json["notes"] == []
        assert http.call("GET", "/me/export", token=theirs).json["notes"] == []
    stranger = here.call("POST", "/accounts", {"name": "cai"}).json["token"]
    r = other.call("GET", path, token=stranger)
    assert r.status == 403 and r.json["rule"] == "N1"
    assert r.headers["content-type"] == "application/problem+json"
    # deleted through one process: gone on the other
    assert other.call("DELETE", path, token=mine).status == 204
    assert here.call("GET", path, token=mine).status == 404
    assert opponent != author


def test_on_the_embedded_default(tmp_path):
    with embedded(tmp_path) as server:
        check_notes_across(server.http(), server.http())


def test_on_two_web_processes_with_postgres_and_redis(tmp_path, pg_schema, redis_url):
    _, url = pg_schema
    with production(tmp_path, url, redis_url, f"notes-{pg_schema[0]}") as servers:
        check_notes_across(servers[0].http(), servers[1].http())
