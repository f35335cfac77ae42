"""Sign-in by e-mail link (docs/accounts.md): one-time, short, bound to the browser that
asked, the same answer whether or not the address has an account; adding an address to
a token-only account; rate limits per address and per client."""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta

from freezegun import freeze_time

from service.runtime.settings import Settings
from service.store.sqlite import SQLiteEventStore
from tests.identity.conftest import Inbox, catch_mail
from tests.identity.test_sessions import session_of
from tests.service.api import Player

ADDRESS = "ana@example.org"


def with_address(app, inbox, address: str = ADDRESS) -> Player:
    """A player whose account signs in with ``address``."""
    home = app.test_client()
    ana = Player(home, "Ana")
    csrf = session_of(home, ana)
    r = home.post("/api/v1/me/email", json={"email": address}, headers={"X-CSRF-Token": csrf})
    assert r.status_code == 202, r.json
    assert inbox.flush()
    r = home.post("/api/v1/sign-in/link", json={"token": inbox.link(address)})
    assert r.status_code == 200, r.json
    assert r.json["purpose"] == "add_email" and r.json["email"] == address
    ana.browser = home  # type: ignore[attr-defined]
    return ana


def ask(client, address: str):
    return client.post("/api/v1/sign-in/email", json={"email": address})


def test_a_mailed_link_signs_in_the_browser_that_asked(app, inbox):
    ana = with_address(app, inbox)
    away = app.test_client()
    r = ask(away, "  Ana@Example.org ")
    assert r.status_code == 202
    assert inbox.flush()
    r = away.post("/api/v1/sign-in/link", json={"token": inbox.link(ADDRESS)})
    assert r.status_code == 200, r.json
    assert r.json["account_id"] == ana.id and r.json["purpose"] == "sign_in"
    assert away.get("/api/v1/me").json["account_id"] == ana.id


def test_the_answer_is_the_same_whether_or_not_an_account_has_the_address(app, inbox):
    with_address(app, inbox)
    known = ask(app.test_client(), ADDRESS)
    unknown = ask(app.test_client(), "nobody@example.org")
    assert known.status_code == unknown.status_code == 202
    assert known.json == unknown.json
    same = {"Content-Type", "Cache-Control", "Content-Length"}
    assert {h: known.headers.get(h) for h in same} == {h: unknown.headers.get(h) for h in same}
    assert inbox.flush()
    told = inbox.last("nobody@example.org")
    assert "no account" in told and "/sign-in/link#" not in told


def test_a_link_works_once(app, inbox):
    with_address(app, inbox)
    away = app.test_client()
    ask(away, ADDRESS)
    assert inbox.flush()
    token = inbox.link(ADDRESS)
    assert away.post("/api/v1/sign-in/link", json={"token": token}).status_code == 200
    again = away.post("/api/v1/sign-in/link", json={"token": token})
    assert again.status_code == 410 and again.json["code"] == "link_used"


def test_a_link_opened_in_another_browser_is_refused_and_stays_usable(app, inbox):
    with_address(app, inbox)
    asker, other = app.test_client(), app.test_client()
    ask(asker, ADDRESS)
    assert inbox.flush()
    token = inbox.link(ADDRESS)
    r = other.post("/api/v1/sign-in/link", json={"token": token})
    assert r.status_code == 403 and r.json["code"] == "link_other_browser"
    assert other.get("/api/v1/me").status_code == 401
    assert asker.post("/api/v1/sign-in/link", json={"token": token}).status_code == 200


def test_a_link_ends_after_fifteen_minutes(app, inbox):
    with_address(app, inbox)
    away = app.test_client()
    ask(away, ADDRESS)
    assert inbox.flush()
    token = inbox.link(ADDRESS)
    with freeze_time(datetime.now(UTC) + timedelta(minutes=16)):
        r = away.post("/api/v1/sign-in/link", json={"token": token})
    assert r.status_code == 410 and r.json["code"] == "link_expired"


def test_an_unknown_link_is_a_clear_problem(client):
    r = client.post("/api/v1/sign-in/link", json={"token": "x" * 43})
    assert r.status_code == 404 and r.json["code"] == "link_unknown"
    r = client.post("/api/v1/sign-in/link", json={"token": "short"})
    assert r.status_code == 422


def test_an_address_of_another_account_is_not_taken_and_not_revealed(app, inbox):
    with_address(app, inbox)
    home = app.test_client()
    ben = Player(home, "Ben")
    csrf = session_of(home, ben)
    r = home.post("/api/v1/me/email", json={"email": ADDRESS}, headers={"X-CSRF-Token": csrf})
    assert r.status_code == 202  # as for a free address
    assert inbox.flush()
    assert "/sign-in/link#" not in inbox.last(ADDRESS)
    assert home.get("/api/v1/me/credentials").json["email"] is None


def test_a_token_only_account_is_told_what_it_risks_until_it_adds_an_address(app, inbox):
    home = app.test_client()
    ana = Player(home, "Ana")
    session_of(home, ana)
    assert home.get("/api/v1/me").json["recoverable"] is False
    listed = home.get("/api/v1/me/credentials").json
    assert listed["recoverable"] is False and listed["email"] is None
    home2 = with_address(app, inbox, "ana2@example.org")
    r = app.test_client().get("/api/v1/me/credentials", headers=home2.headers)
    assert r.json["recoverable"] is True and r.json["email"] == "ana2@example.org"


def test_bad_addresses_are_refused_and_mail_nothing(client, inbox):
    for bad in ["", "no-at-sign", "a@b", "x" * 300 + "@example.org", "a b@example.org"]:
        r = ask(client, bad)
        assert r.status_code == 422, (bad, r.json)
    assert inbox.flush()
    assert inbox.mails == []


def test_links_are_rate_limited_per_address_and_per_client(tmp_path):
    """Per address and client (one client cannot block another's links), and per client."""
    limits = {"sign_in": "6/minute", "sign_in_address": "2/minute"}
    settings = Settings(data_dir=tmp_path, testing=True, rate_limits=limits)
    from service.app import create_app

    store = SQLiteEventStore(tmp_path / "t.db")
    app = create_app(settings, store=store, sweep=False)
    inbox = catch_mail(app)
    try:
        pest, owner = app.test_client(), app.test_client()
        pest.environ_base["REMOTE_ADDR"] = "10.0.0.1"
        owner.environ_base["REMOTE_ADDR"] = "10.0.0.2"
        assert [ask(pest, ADDRESS).status_code for _ in range(3)] == [202, 202, 429]
        assert ask(owner, ADDRESS).status_code == 202  # not locked out by someone else
        one = app.test_client()
        one.environ_base["REMOTE_ADDR"] = "10.0.1.1"
        codes = [ask(one, f"p{n}@example.org").status_code for n in range(7)]
        assert codes == [202] * 6 + [429]
        assert inbox.flush()
        assert len(inbox.mails) == 3 + 6
    finally:
        store.close()


def test_a_mailed_link_points_at_the_public_url_never_at_a_host_header(tmp_path):
    """Host-header poisoning: a link mailed for real points at TONGIAKI_PUBLIC_URL; without
    it, e-mail sign-in is off (the console of the embedded default is the operator's)."""
    from service.app import create_app

    for public in ("", "https://tongiaki.example.org"):
        settings = Settings(
            data_dir=tmp_path / ((public and "p") or "n"),
            testing=True,
            rate_limits={},
            smtp_url="smtp://mail.example.org",
            public_url=public,
        )
        store = SQLiteEventStore(tmp_path / f"{bool(public)}.db")
        app = create_app(settings, store=store, sweep=False)
        inbox = Inbox()
        app.extensions["tongiaki.identity"].mailer._send = inbox.send
        try:
            client = app.test_client()
            r = client.post(
                "/api/v1/sign-in/email", json={"email": ADDRESS}, headers={"Host": "evil.example"}
            )
            if not public:
                assert r.status_code == 403 and r.json["code"] == "email_unavailable"
                continue
            assert r.status_code == 202
            assert app.extensions["tongiaki.identity"].mailer.flush()
            assert "evil.example" not in inbox.last(ADDRESS)
            assert "https://tongiaki.example.org/account" in inbox.last(ADDRESS)
        finally:
            store.close()


def test_a_link_asked_before_the_address_was_removed_signs_nobody_in(app, inbox):
    ana = with_address(app, inbox)
    away = app.test_client()
    ask(away, ADDRESS)
    assert inbox.flush()
    token = inbox.link(ADDRESS)
    csrf = ana.browser.get("/api/v1/me").json["csrf_token"]
    assert ana.browser.delete("/api/v1/me/email", headers={"X-CSRF-Token": csrf}).status_code == 204
    r = away.post("/api/v1/sign-in/link", json={"token": token})
    assert r.status_code == 410 and r.json["code"] == "link_expired"
    assert away.get("/api/v1/me").status_code == 401


def test_no_secret_reaches_the_log(app, inbox, caplog):
    caplog.set_level(logging.DEBUG)
    ana = with_address(app, inbox)
    away = app.test_client()
    ask(away, ADDRESS)
    assert inbox.flush()
    token = inbox.link(ADDRESS)
    away.post("/api/v1/sign-in/link", json={"token": token})
    away.post("/api/v1/sign-in/link", json={"token": token})  # refused: logged
    cookie = away.get_cookie("tongiaki_session").value
    text = "\n".join(
        f"{r.getMessage()} {sorted(r.__dict__.items(), key=lambda kv: kv[0])}"
        for r in caplog.records
    )
    for secret in (ana.token, token, cookie):
        assert secret not in text
    assert ADDRESS not in text
    events = [getattr(r, "security", None) for r in caplog.records if r.name == "tongiaki.security"]
    assert {"sign_in", "sign_in_link_asked", "email_link", "email_added"} <= set(events)


def test_confirming_an_address_keeps_one_session_in_the_browser(app, inbox):
    ana = with_address(app, inbox)  # signed in by a token, then the link, in one browser
    r = ana.browser.get("/api/v1/me/credentials").json
    assert [c["kind"] for c in r["credentials"]].count("session") == 1


def test_without_mail_e_mail_sign_in_is_refused_plainly_and_binds_nothing(app):
    mailer = app.extensions["tongiaki.identity"].mailer
    mailer.console, mailer.smtp_url = False, ""
    client = app.test_client()
    assert client.get("/api/v1/sign-in").json == {"email": False, "passkey": True, "token": True}
    r = ask(client, ADDRESS)
    assert r.status_code == 403 and r.json["code"] == "email_unavailable"
    assert "Retry-After" not in r.headers and "Set-Cookie" not in r.headers
