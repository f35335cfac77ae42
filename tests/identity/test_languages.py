"""An account's language (docs/i18n.md): chosen with ``PUT /me/language``, kept, used for
its sign-in mails and set as the cookie of a browser that signs in to it; an unknown
language is refused and changes nothing; an address without an account is answered in
the asking browser's language; a deleted account's choice goes with it (P8)."""

from __future__ import annotations

from tests.identity.test_email_links import ADDRESS, ask, with_address
from tests.identity.test_sessions import cookie_header, session_of
from tests.service.api import Player


def test_a_choice_is_kept_and_refused_when_unknown(app, client):
    ana = Player(client, "Ana")
    assert client.get("/api/v1/me/language", headers=ana.headers).json == {
        "language": None,
        "languages": ["en", "fr", "it"],
    }
    r = client.put("/api/v1/me/language", json={"language": "fr"}, headers=ana.headers)
    assert r.status_code == 200 and r.json["language"] == "fr"
    assert "lang=fr" in cookie_header(r)
    for bad in ({"language": "de"}, {"language": 3}, {}, {"language": "fr", "x": 1}):
        r = client.put("/api/v1/me/language", json=bad, headers=ana.headers)
        assert r.status_code == 422, (bad, r.json)
    assert client.get("/api/v1/me/language", headers=ana.headers).json["language"] == "fr"
    r = client.put("/api/v1/me/language", json={"language": None}, headers=ana.headers)
    assert r.status_code == 200 and r.json["language"] is None
    assert client.get("/api/v1/me/language").status_code == 401


def test_a_browser_signing_in_gets_the_accounts_language(app, client):
    ana = Player(client, "Ana")
    client.put("/api/v1/me/language", json={"language": "it"}, headers=ana.headers)
    browser = app.test_client()
    session_of(browser, ana)
    page = browser.get("/")
    assert '<html lang="it"' in page.get_data(as_text=True)


def test_sign_in_mails_speak_the_accounts_language_or_the_browsers(app, inbox):
    ana = with_address(app, inbox)
    ana.client.put("/api/v1/me/language", json={"language": "it"}, headers=ana.headers)
    away = app.test_client()
    away.set_cookie("lang", "fr")  # the asking browser's is French: the account's wins
    assert ask(away, ADDRESS).status_code == 202
    assert inbox.flush()
    assert "Per accedere a Tongiaki" in inbox.last(ADDRESS)
    assert inbox.mails[-1]["Subject"] == "Accedi a Tongiaki"
    stranger = "nobody@example.org"
    r = away.post(
        "/api/v1/sign-in/email", json={"email": stranger}, headers={"Accept-Language": "fr"}
    )
    assert r.status_code == 202
    assert inbox.flush()
    assert inbox.last(stranger).startswith("Quelqu'un a demandé")


def test_a_deleted_account_leaves_no_language_behind(app, client):
    ana = Player(client, "Ana")
    client.put("/api/v1/me/language", json={"language": "fr"}, headers=ana.headers)
    r = client.post("/api/v1/me/deletion", json={"confirm": "Ana"}, headers=ana.headers)
    assert r.status_code == 200, r.json
    languages = app.extensions["tongiaki.languages"]
    assert languages.of(ana.id) is None
