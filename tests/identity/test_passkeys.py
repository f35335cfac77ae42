"""Passkeys (docs/accounts.md): register one or more, sign in with one, remove one; an
answer for another origin, a replayed answer and a removed passkey are refused."""

from __future__ import annotations

import pytest

from tests.identity.authenticator import SoftAuthenticator, unb64url
from tests.identity.test_sessions import session_of
from tests.service.api import Player

ORIGIN = "http://localhost"  # the Flask test client's


def register(client, csrf: str, device: SoftAuthenticator, name: str = "phone") -> dict:
    h = {"X-CSRF-Token": csrf}
    options = client.post("/api/v1/me/passkeys/options", headers=h)
    assert options.status_code == 200, options.json
    answer = device.create(options.json["options"], ORIGIN)
    r = client.post("/api/v1/me/passkeys", json={"credential": answer, "name": name}, headers=h)
    assert r.status_code == 201, r.json
    return r.json


def prompt(client) -> dict:
    r = client.post("/api/v1/sign-in/passkey/options")
    assert r.status_code == 200, r.json
    return r.json["options"]


def test_a_passkey_signs_its_account_in_on_a_new_browser(app):
    home, away = app.test_client(), app.test_client()
    ana = Player(home, "Ana")
    device = SoftAuthenticator()
    added = register(home, session_of(home, ana), device)
    assert added["name"] == "phone"
    assert home.get("/api/v1/me").json["recoverable"] is True
    r = away.post("/api/v1/sign-in/passkey", json={"credential": device.get(prompt(away), ORIGIN)})
    assert r.status_code == 200, r.json
    assert r.json["account_id"] == ana.id
    assert away.get("/api/v1/me").json["account_id"] == ana.id
    listed = away.get("/api/v1/me/credentials").json
    assert [p["name"] for p in listed["passkeys"]] == ["phone"]
    assert listed["passkeys"][0]["last_used_at"] is not None
    assert "passkey" in {c["method"] for c in listed["credentials"]}


def test_an_account_registers_two_passkeys_and_either_signs_in(app):
    home = app.test_client()
    ana = Player(home, "Ana")
    csrf = session_of(home, ana)
    phone, key = SoftAuthenticator(), SoftAuthenticator()
    register(home, csrf, phone, "phone")
    register(home, csrf, key, "key")
    for device in (phone, key):
        away = app.test_client()
        r = away.post(
            "/api/v1/sign-in/passkey", json={"credential": device.get(prompt(away), ORIGIN)}
        )
        assert r.status_code == 200 and r.json["account_id"] == ana.id


def test_an_answer_for_another_origin_is_refused(app):
    home, away = app.test_client(), app.test_client()
    ana = Player(home, "Ana")
    device = SoftAuthenticator()
    register(home, session_of(home, ana), device)
    phished = device.get(prompt(away), "http://localhost:8999")  # a page on another port
    r = away.post("/api/v1/sign-in/passkey", json={"credential": phished})
    assert r.status_code == 401 and r.json["code"] == "passkey_refused"
    assert "origin" in r.json["detail"].lower()
    assert away.get("/api/v1/me").status_code == 401


def test_a_replayed_answer_is_refused(app):
    home, away, thief = app.test_client(), app.test_client(), app.test_client()
    ana = Player(home, "Ana")
    device = SoftAuthenticator()
    register(home, session_of(home, ana), device)
    answer = device.get(prompt(away), ORIGIN)
    assert away.post("/api/v1/sign-in/passkey", json={"credential": answer}).status_code == 200
    again = away.post("/api/v1/sign-in/passkey", json={"credential": answer})
    assert again.status_code == 410 and again.json["code"] == "challenge_used"
    stolen = thief.post("/api/v1/sign-in/passkey", json={"credential": answer})
    assert stolen.status_code in (403, 410)
    assert thief.get("/api/v1/me").status_code == 401


def test_an_answer_is_bound_to_the_browser_that_asked(app):
    home, asker, other = app.test_client(), app.test_client(), app.test_client()
    ana = Player(home, "Ana")
    device = SoftAuthenticator()
    register(home, session_of(home, ana), device)
    answer = device.get(prompt(asker), ORIGIN)
    r = other.post("/api/v1/sign-in/passkey", json={"credential": answer})
    assert r.status_code == 403 and r.json["code"] == "challenge_other_browser"
    # the rightful browser can still use it
    assert asker.post("/api/v1/sign-in/passkey", json={"credential": answer}).status_code == 200


def test_a_removed_passkey_signs_nobody_in(app):
    home, away = app.test_client(), app.test_client()
    ana = Player(home, "Ana")
    csrf = session_of(home, ana)
    device = SoftAuthenticator()
    added = register(home, csrf, device)
    r = home.delete(f"/api/v1/me/passkeys/{added['passkey_id']}", headers={"X-CSRF-Token": csrf})
    assert r.status_code == 204
    r = away.post("/api/v1/sign-in/passkey", json={"credential": device.get(prompt(away), ORIGIN)})
    assert r.status_code == 401 and r.json["code"] == "unknown_passkey"
    again = home.delete(
        f"/api/v1/me/passkeys/{added['passkey_id']}", headers={"X-CSRF-Token": csrf}
    )
    assert again.status_code == 404 and again.json["code"] == "no_passkey"


def test_a_registration_for_another_origin_is_refused(app):
    home = app.test_client()
    ana = Player(home, "Ana")
    csrf = session_of(home, ana)
    options = home.post("/api/v1/me/passkeys/options", headers={"X-CSRF-Token": csrf}).json
    answer = SoftAuthenticator().create(options["options"], "http://evil.example")
    r = home.post(
        "/api/v1/me/passkeys", json={"credential": answer}, headers={"X-CSRF-Token": csrf}
    )
    assert r.status_code == 401 and r.json["code"] == "passkey_refused"
    assert home.get("/api/v1/me/credentials").json["passkeys"] == []


@pytest.mark.parametrize(
    "credential",
    [
        {},
        {"response": {}},
        {"response": {"clientDataJSON": "!!!"}},
        {"response": {"clientDataJSON": "eyJ9"}},
        {"id": "x", "rawId": "x", "response": {"clientDataJSON": "eyJjaGFsbGVuZ2UiOjF9"}},
        {
            "response": {
                "clientDataJSON": "eyJjaGFsbGVuZ2UiOiJBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBIn0"
            }
        },
    ],
)
def test_a_malformed_answer_is_a_clear_problem(client, credential):
    prompt(client)
    r = client.post("/api/v1/sign-in/passkey", json={"credential": credential})
    assert 400 <= r.status_code < 500, r.json
    assert r.headers["Content-Type"] == "application/problem+json"


def test_a_well_formed_answer_with_a_broken_signature_is_refused(app):
    home, away = app.test_client(), app.test_client()
    ana = Player(home, "Ana")
    device = SoftAuthenticator()
    register(home, session_of(home, ana), device)
    answer = device.get(prompt(away), ORIGIN)
    signature = bytearray(unb64url(answer["response"]["signature"]))
    signature[-1] ^= 1
    from tests.identity.authenticator import b64url

    answer["response"]["signature"] = b64url(bytes(signature))
    r = away.post("/api/v1/sign-in/passkey", json={"credential": answer})
    assert r.status_code == 401 and r.json["code"] == "passkey_refused"


def test_a_registration_answers_its_own_accounts_challenge_and_a_passkey_is_kept_once(app):
    browser = app.test_client()
    ana, ben = Player(browser, "Ana"), Player(app.test_client(), "Ben")
    csrf = session_of(browser, ana)
    options = browser.post("/api/v1/me/passkeys/options", headers={"X-CSRF-Token": csrf}).json
    device = SoftAuthenticator()
    answer = device.create(options["options"], ORIGIN)
    csrf = session_of(browser, ben)  # the same browser, now Ben: Ana's challenge is not his
    r = browser.post(
        "/api/v1/me/passkeys", json={"credential": answer}, headers={"X-CSRF-Token": csrf}
    )
    assert r.status_code == 401 and r.json["code"] == "passkey_refused"
    register(browser, csrf, device)  # Ben's own
    again = browser.post("/api/v1/me/passkeys/options", headers={"X-CSRF-Token": csrf}).json
    kept = list(device.keys)[-1]
    twice = device.create(again["options"], ORIGIN, reuse=kept)  # the same passkey again
    r = browser.post(
        "/api/v1/me/passkeys", json={"credential": twice}, headers={"X-CSRF-Token": csrf}
    )
    assert r.status_code == 409 and r.json["code"] == "passkey_known"
    assert len(browser.get("/api/v1/me/credentials").json["passkeys"]) == 1
