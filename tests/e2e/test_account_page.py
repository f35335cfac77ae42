"""Accounts people keep, in Chromium (docs/accounts.md): sign up and be told what the
account risks; add a passkey with Chromium's virtual authenticator (DevTools protocol)
and sign in with it; a replayed assertion, an assertion made on another origin and a
removed passkey are refused; sign in by an e-mail link printed on the embedded server's
console, in the asking browser only; revoke another browser's session from the
account's page."""

from __future__ import annotations

import http.server
import json
import re
import threading
import time

import pytest

from tests.e2e.test_browser import new_page

AUTHENTICATOR = {
    "protocol": "ctap2",
    "transport": "internal",
    "hasResidentKey": True,
    "hasUserVerification": True,
    "isUserVerified": True,
    "automaticPresenceSimulation": True,
}


def local(server: str) -> str:
    """Passkeys need a host name, not an IP address: the same server as localhost."""
    return server.replace("127.0.0.1", "localhost")


def with_authenticator(page):
    cdp = page.context.new_cdp_session(page)
    cdp.send("WebAuthn.enable", {"enableUI": False})
    found = cdp.send("WebAuthn.addVirtualAuthenticator", {"options": AUTHENTICATOR})
    return cdp, found["authenticatorId"]


def sign_up(browser, base: str, name: str):
    page = new_page(browser, base)
    page.goto(f"{base}/")
    page.fill("#name", name)
    page.click("#signup button[type=submit]")
    page.wait_for_selector("#my-token")
    return page


def sign_out(page, base: str) -> None:
    page.goto(f"{base}/")
    page.click("#sign-out")
    page.wait_for_selector("#signin-passkey")


def test_a_passkey_keeps_the_account_and_a_replay_or_a_removed_one_is_refused(browser, server):
    base = local(server)
    page = sign_up(browser, base, "Pia")
    token = page.inner_text("#my-token")
    assert len(token) > 40
    assert "account and its games are lost" in page.inner_text("#account-risk")
    # the token is shown once: not kept in the browser
    assert token not in page.evaluate("JSON.stringify(localStorage)")
    page.click("#token-kept")
    page.wait_for_selector("#my-token", state="detached")

    cdp, authenticator = with_authenticator(page)
    page.goto(f"{base}/account")
    page.wait_for_selector("#account-risk")
    page.fill("#passkey-name", "virtual key")
    page.click("#passkey-add button[type=submit]")
    page.wait_for_selector("#passkey-list li")
    assert "virtual key" in page.inner_text("#passkey-list")
    assert page.locator("#account-risk").count() == 0
    assert (
        len(cdp.send("WebAuthn.getCredentials", {"authenticatorId": authenticator})["credentials"])
        == 1
    )

    sign_out(page, base)
    sent = []
    page.on(
        "request",
        lambda r: sent.append(r.post_data) if r.url.endswith("/api/v1/sign-in/passkey") else None,
    )
    page.click("#signin-passkey")
    page.wait_for_selector("#create")
    assert "Signed in as Pia" in page.inner_text("#me")
    assert len(sent) == 1

    # the very assertion sent again, from this browser: its challenge is used
    again = page.context.request.post(
        f"{base}/api/v1/sign-in/passkey", data=sent[0], headers={"Content-Type": "application/json"}
    )
    assert again.status == 410 and again.json()["code"] == "challenge_used"

    # removed from the account: the authenticator still holds it, the server refuses it
    page.goto(f"{base}/account")
    page.wait_for_selector("#passkey-list li")
    page.click("#passkey-list button[data-action=remove-passkey]")
    page.wait_for_selector("#passkey-list", state="detached")
    sign_out(page, base)
    page.click("#signin-passkey")
    page.wait_for_function("document.getElementById('toast').textContent.includes('no account')")
    assert page.locator("#create").count() == 0
    assert page.errors == []


class _Blank(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = b"<!doctype html><title>another site</title>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture
def other_origin():
    """A page on another origin of the same host name (another port): a phishing copy."""
    served = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Blank)
    threading.Thread(target=served.serve_forever, daemon=True).start()
    yield f"http://localhost:{served.server_address[1]}"
    served.shutdown()


def test_an_assertion_made_on_another_origin_is_refused(browser, server, other_origin):
    base = local(server)
    page = sign_up(browser, base, "Oscar")
    page.click("#token-kept")
    with_authenticator(page)
    page.goto(f"{base}/account")
    page.fill("#passkey-name", "key")
    page.click("#passkey-add button[type=submit]")
    page.wait_for_selector("#passkey-list li")
    sign_out(page, base)
    # the real site's challenge, answered on the other origin (same RP id: localhost)
    options = page.context.request.post(f"{base}/api/v1/sign-in/passkey/options").json()["options"]
    page.goto(other_origin)
    answer = page.evaluate(
        """async (options) => {
            const publicKey = PublicKeyCredential.parseRequestOptionsFromJSON(options);
            const credential = await navigator.credentials.get({ publicKey });
            const json = credential.toJSON();
            delete json.clientExtensionResults;
            return json;
        }""",
        options,
    )
    assert (
        json.loads(
            __import__("base64").urlsafe_b64decode(answer["response"]["clientDataJSON"] + "==")
        )["origin"]
        == other_origin
    )
    r = page.context.request.post(
        f"{base}/api/v1/sign-in/passkey",
        data=json.dumps({"credential": answer}),
        headers={"Content-Type": "application/json"},
    )
    assert r.status == 401 and r.json()["code"] == "passkey_refused"
    assert "origin" in r.json()["detail"].lower()


def _link(server, address: str, after: int) -> str:
    log = server.data / "server.log"
    deadline = time.monotonic() + 30
    while True:
        found = re.findall(r"To: (\S+)\n.*?/sign-in/link#([A-Za-z0-9_-]+)", log.read_text(), re.S)
        mine = [t for to, t in found if to == address]
        if len(mine) > after:
            return mine[-1]
        assert time.monotonic() < deadline, log.read_text()[-2000:]
        time.sleep(0.1)


def test_an_email_link_signs_in_the_browser_that_asked_and_only_it(browser, server):
    home = sign_up(browser, server, "Eli")
    home.click("#token-kept")
    home.goto(f"{server}/account")
    home.fill("#email-address", "eli@example.org")
    home.click("#email-add button[type=submit]")
    token = _link(server, "eli@example.org", 0)
    # a request sent with the session the link replaces is answered after the sign-in
    # (the header's "My move"): its 401 once signed this browser out (a CI flake)
    held = []
    home.route("**/api/v1/me/queue*", lambda route: held.append(route))
    home.goto(f"{server}/sign-in/link#{token}")
    home.wait_for_selector("#link-done")
    assert held
    ended = {"type": "about:blank", "status": 401, "code": "session_ended", "title": "x"}
    with home.expect_response(lambda r: "/me/queue" in r.url) as late:
        for route in held:  # the answer the server gives a session the link replaced
            route.fulfill(status=401, content_type="application/problem+json", json=ended)
    assert late.value.status == 401
    home.unroute("**/api/v1/me/queue*")
    assert home.url.endswith("/sign-in/link")  # the secret left the address bar
    home.goto(f"{server}/account")
    home.wait_for_selector("#email-now")
    assert home.locator("#account-risk").count() == 0

    away = new_page(browser, server)
    away.goto(f"{server}/")
    away.fill("#signin-address", "eli@example.org")
    away.click("#signin-email button[type=submit]")
    away.wait_for_selector("#signin-sent:not([hidden])")
    token = _link(server, "eli@example.org", 1)
    stranger = new_page(browser, server)
    stranger.goto(f"{server}/sign-in/link#{token}")
    stranger.wait_for_selector("#link-refused")
    assert "browser where you asked" in stranger.inner_text("#link-refused")
    away.goto(f"{server}/sign-in/link#{token}")
    away.wait_for_selector("#link-done")
    away.goto(f"{server}/")
    away.wait_for_selector("#create")
    assert "Signed in as Eli" in away.inner_text("#me")
    away.goto(f"{server}/sign-in/link#{token}")  # used once already
    away.wait_for_selector("#link-refused")
    assert "used already" in away.inner_text("#link-refused")
    assert home.errors == [] and away.errors == [] and stranger.errors == []


def test_the_account_page_revokes_another_browser(browser, server):
    phone = sign_up(browser, server, "Rae")
    token = phone.inner_text("#my-token")
    phone.click("#token-kept")
    laptop = new_page(browser, server)
    laptop.goto(f"{server}/")
    laptop.fill("#token", token)
    laptop.click("#signin button[type=submit]")
    laptop.wait_for_selector("#create")
    phone.goto(f"{server}/account")
    phone.wait_for_selector("#credentials tbody tr")
    sessions = phone.locator("#credentials tr[data-kind=session]")
    assert sessions.count() == 2
    other = sessions.filter(has_not_text="(this one)")
    other.locator("button[data-action=revoke]").click()
    phone.wait_for_function(
        "document.querySelectorAll('#credentials tr[data-kind=session]').length === 1"
    )
    laptop.reload()
    laptop.wait_for_selector("#signup")  # signed out: the session names nobody
    assert laptop.evaluate("localStorage.getItem('tongiaki.account')") is None
    assert phone.errors == [] and laptop.errors == []
