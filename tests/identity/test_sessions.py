"""Sessions for pages (docs/accounts.md): a token exchanged for an HttpOnly, SameSite
cookie with CSRF protection; listing and revoking sessions and tokens."""

from __future__ import annotations

import pytest

from tests.service.api import Player
from tests.service.conftest import app_on


@pytest.fixture(params=["sqlite", "postgres", "memory"])
def app(request, tmp_path):
    """Sessions on the three stores (the in-memory store keeps accounts apart from the
    identity tables, in its SQLite read side)."""
    application, store = app_on(request.param, request, tmp_path)
    yield application
    store.close()


def session_of(client, player: Player) -> str:
    """Sign ``client`` (a browser) in with the player's token: its CSRF token."""
    r = client.post("/api/v1/sessions", headers=player.headers)
    assert r.status_code == 201, r.json
    return r.json["csrf_token"]


def cookie_header(response) -> str:
    return "; ".join(response.headers.getlist("Set-Cookie"))


def test_a_token_signs_a_browser_in_with_an_httponly_samesite_cookie(client):
    ana = Player(client, "Ana")
    r = client.post("/api/v1/sessions", headers=ana.headers)
    assert r.status_code == 201
    set_cookie = cookie_header(r)
    assert "tongiaki_session=" in set_cookie
    assert "HttpOnly" in set_cookie and "SameSite=Lax" in set_cookie
    assert "Secure" not in set_cookie  # localhost over plain HTTP
    me = client.get("/api/v1/me")
    assert me.status_code == 200
    assert me.json["account_id"] == ana.id
    assert me.json["csrf_token"] == r.json["csrf_token"]
    assert me.json["recoverable"] is False


def test_outside_localhost_the_cookie_is_secure_and_host_prefixed(client):
    ana = Player(client, "Ana")
    r = client.post(
        "/api/v1/sessions", headers=ana.headers, base_url="https://tongiaki.example.org"
    )
    set_cookie = cookie_header(r)
    assert "__Host-tongiaki_session=" in set_cookie and "Secure" in set_cookie
    assert "Path=/" in set_cookie and "Domain" not in set_cookie


def test_a_page_write_without_its_csrf_token_is_refused_and_changes_nothing(client, caplog):
    caplog.set_level("INFO", logger="tongiaki.security")
    ana = Player(client, "Ana")
    csrf = session_of(client, ana)
    before = client.get("/api/v1/me/credentials").json
    r = client.post("/api/v1/me/tokens", json={"name": "bot"})
    assert r.status_code == 403 and r.json["code"] == "csrf_failed"
    r = client.post("/api/v1/me/tokens", json={"name": "bot"}, headers={"X-CSRF-Token": "x" * 64})
    assert r.status_code == 403 and r.json["code"] == "csrf_failed"
    assert client.get("/api/v1/me/credentials").json == before
    assert [r.security for r in caplog.records if r.name == "tongiaki.security"].count("csrf") == 2
    r = client.post("/api/v1/me/tokens", json={"name": "bot"}, headers={"X-CSRF-Token": csrf})
    assert r.status_code == 201, r.json


def test_a_session_cookie_set_before_sign_in_names_nobody_and_is_replaced(client):
    """Session fixation: a cookie planted before signing in is never adopted."""
    ana = Player(client, "Ana")
    planted = "A" * 43
    client.set_cookie("tongiaki_session", planted)
    assert client.get("/api/v1/me").status_code == 401
    r = client.post("/api/v1/sessions", headers=ana.headers)
    assert r.status_code == 201
    assert planted not in cookie_header(r)
    assert client.get_cookie("tongiaki_session").value != planted
    assert client.get("/api/v1/me").json["account_id"] == ana.id


def test_sessions_and_tokens_are_listed_and_each_can_be_revoked(app):
    phone, laptop = app.test_client(), app.test_client()
    ana = Player(phone, "Ana")
    csrf = session_of(phone, ana)
    session_of(laptop, ana)
    made = phone.post("/api/v1/me/tokens", json={"name": "my bot"}, headers={"X-CSRF-Token": csrf})
    bot_token = made.json["token"]
    listed = phone.get("/api/v1/me/credentials").json["credentials"]
    kinds = sorted((c["kind"], c["label"] if c["kind"] == "token" else "") for c in listed)
    assert kinds == [
        ("session", ""),
        ("session", ""),
        ("token", "first token"),
        ("token", "my bot"),
    ]
    assert [c["current"] for c in listed].count(True) == 1
    other = next(c for c in listed if c["kind"] == "session" and not c["current"])
    r = phone.delete(
        f"/api/v1/me/credentials/{other['credential_id']}", headers={"X-CSRF-Token": csrf}
    )
    assert r.status_code == 204
    gone = laptop.get("/api/v1/me")
    assert gone.status_code == 401 and gone.json["code"] == "session_ended"
    assert "tongiaki_session=;" in cookie_header(gone)  # the browser is told to forget it
    bot = {"Authorization": f"Bearer {bot_token}"}
    assert phone.get("/api/v1/me", headers=bot).status_code == 200
    r = phone.delete(
        f"/api/v1/me/credentials/{made.json['credential_id']}", headers={"X-CSRF-Token": csrf}
    )
    assert r.status_code == 204
    assert phone.get("/api/v1/me", headers=bot).json["code"] == "bad_token"
    again = phone.delete(
        f"/api/v1/me/credentials/{made.json['credential_id']}", headers={"X-CSRF-Token": csrf}
    )
    assert again.status_code == 404 and again.json["code"] == "no_credential"


def test_the_first_token_can_be_revoked_too(client):
    ana = Player(client, "Ana")
    first = next(
        c for c in client.get("/api/v1/me/credentials", headers=ana.headers).json["credentials"]
    )
    r = client.delete(f"/api/v1/me/credentials/{first['credential_id']}", headers=ana.headers)
    assert r.status_code == 204
    r = client.get("/api/v1/me", headers=ana.headers)
    assert r.status_code == 401 and r.json["code"] == "bad_token"


def test_signing_out_ends_the_session(client):
    ana = Player(client, "Ana")
    csrf = session_of(client, ana)
    r = client.delete("/api/v1/sessions/current", headers={"X-CSRF-Token": csrf})
    assert r.status_code == 204
    assert client.get("/api/v1/me").status_code == 401
    # the token it came from still works: a program's credential is its own
    assert client.get("/api/v1/me", headers=ana.headers).status_code == 200


@pytest.mark.parametrize("bad", ["nope", "0123456789abcdef0123", "../../x"])
def test_revoking_what_is_not_there_is_a_404_problem(client, bad):
    ana = Player(client, "Ana")
    r = client.delete(f"/api/v1/me/credentials/{bad}", headers=ana.headers)
    assert r.status_code == 404
    assert r.headers["Content-Type"] == "application/problem+json"


def test_what_one_does_in_a_game_does_not_depend_on_how_one_signed_in(client):
    ana, ben = Player(client, "Ana"), Player(client, "Ben")
    csrf = session_of(client, ana)
    r = client.post("/api/v1/games", json={"max_players": 2}, headers={"X-CSRF-Token": csrf})
    assert r.status_code == 201, r.json
    game = r.json["game_id"]
    r = client.post(
        f"/api/v1/games/{game}/seats", json={"colour": "red"}, headers={"X-CSRF-Token": csrf}
    )
    assert r.status_code == 201, r.json
    r = ben.post(f"/games/{game}/seats", {"colour": "blue"})
    assert r.status_code == 201
    seats = {p["player_id"] for p in client.get(f"/api/v1/games/{game}").json["players"]}
    assert seats == {ana.id, ben.id}


def test_signing_in_again_in_a_browser_replaces_its_session(app):
    """One browser, one session: signing in again (a token, a confirmed address) revokes
    the session the browser had, so no session is left that nobody holds."""
    browser = app.test_client()
    ana = Player(browser, "Ana")
    session_of(browser, ana)
    old = browser.get_cookie("tongiaki_session").value
    session_of(browser, ana)
    listed = browser.get("/api/v1/me/credentials").json["credentials"]
    assert [c["kind"] for c in listed].count("session") == 1
    stale = app.test_client()
    stale.set_cookie("tongiaki_session", old)
    assert stale.get("/api/v1/me").json["code"] == "session_ended"


def test_past_fifty_sessions_the_least_recently_used_ends(app):
    from service.identity.sessions import MAX_SESSIONS

    first = app.test_client()
    ana = Player(first, "Ana")
    session_of(first, ana)
    others = [app.test_client() for _ in range(MAX_SESSIONS)]
    for browser in others:
        session_of(browser, ana)  # never refused: a person can always sign in
    assert first.get("/api/v1/me").json["code"] == "session_ended"
    assert all(b.get("/api/v1/me").status_code == 200 for b in others)
    listed = others[0].get("/api/v1/me/credentials").json["credentials"]
    assert [c["kind"] for c in listed].count("session") == MAX_SESSIONS


def test_the_security_log_names_credentials_by_their_public_ids(client, caplog):
    import logging

    from service.runtime.logs import formatter

    caplog.set_level(logging.INFO, logger="tongiaki.security")
    ana = Player(client, "Ana")
    session_of(client, ana)
    current = next(
        c for c in client.get("/api/v1/me/credentials").json["credentials"] if c["current"]
    )
    lines = [formatter("text").format(r) for r in caplog.records if r.name == "tongiaki.security"]
    signed = next(line for line in lines if "sign_in " in line)
    assert f"cred={current['credential_id']}" in signed and "[redacted]" not in signed
    assert ana.token not in "\n".join(lines)


def test_over_https_a_plainly_named_cookie_is_not_the_session(app):
    """A cookie without the __Host- prefix can be planted by a sibling domain or over
    plain HTTP: where cookies are Secure, only the prefixed one names a session."""
    client = app.test_client()
    ana = Player(client, "Ana")
    https = "https://tongiaki.example.org"
    r = client.post("/api/v1/sessions", headers=ana.headers, base_url=https)
    client = app.test_client(use_cookies=False)  # only the cookies each request names
    secret = r.headers["Set-Cookie"].split(";")[0].split("=", 1)[1]
    plain = {"Cookie": f"tongiaki_session={secret}"}
    assert client.get("/api/v1/me", headers=plain, base_url=https).status_code == 401
    prefixed = {"Cookie": f"__Host-tongiaki_session={secret}"}
    assert client.get("/api/v1/me", headers=prefixed, base_url=https).status_code == 200
