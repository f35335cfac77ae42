"""Model-based test of credentials (hypothesis stateful): random interleavings of
sign-ups, sessions opened from tokens, new tokens, revocations (by a session or by a
token, of oneself or another credential) and sign-outs, on two browsers' cookie jars
per account, keep every credential naming its account exactly while the model says it
is live, and nobody else's."""

from __future__ import annotations

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from service.app import create_app
from service.runtime.settings import Settings
from service.store.in_memory import InMemoryStore


class Credentials(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.store = InMemoryStore()
        settings = Settings(database_url="memory:", testing=True, rate_limits={})
        self.app = create_app(settings, store=self.store, sweep=False)
        # model: credential key → (account id, live); a key is ("token", secret) or
        # ("session", browser index)
        self.tokens: dict[str, tuple[str, bool, str]] = {}  # secret → account, live, id
        self.browsers: list[dict] = []  # {client, account, csrf, live, id}

    def teardown(self) -> None:
        self.store.close()

    @initialize()
    def first_account(self) -> None:
        self.sign_up(0)

    @rule(n=st.integers(0, 3))
    def sign_up(self, n: int) -> None:
        client = self.app.test_client()
        r = client.post("/api/v1/accounts", json={"name": f"p{n}"})
        assert r.status_code == 201
        h = {"Authorization": f"Bearer {r.json['token']}"}
        listed = client.get("/api/v1/me/credentials", headers=h).json["credentials"]
        first = next(c["credential_id"] for c in listed if c["current"])
        self.tokens[r.json["token"]] = (r.json["account_id"], True, first)

    def _live_tokens(self) -> list[str]:
        return [t for t, (_, live, _) in self.tokens.items() if live]

    @precondition(lambda self: any(live for _, live, _ in self.tokens.values()))
    @rule(pick=st.integers(0, 100))
    def open_session(self, pick: int) -> None:
        tokens = self._live_tokens()
        token = tokens[pick % len(tokens)]
        client = self.app.test_client()
        r = client.post("/api/v1/sessions", headers={"Authorization": f"Bearer {token}"})
        assert r.status_code == 201, r.json
        mine = client.get("/api/v1/me/credentials").json["credentials"]
        current = next(c["credential_id"] for c in mine if c["current"])
        self.browsers.append(
            {
                "client": client,
                "account": self.tokens[token][0],
                "csrf": r.json["csrf_token"],
                "live": True,
                "id": current,
            }
        )

    @precondition(lambda self: any(b["live"] for b in self.browsers))
    @rule(pick=st.integers(0, 100), name=st.sampled_from(["bot", "b2"]))
    def new_token(self, pick: int, name: str) -> None:
        live = [b for b in self.browsers if b["live"]]
        browser = live[pick % len(live)]
        r = browser["client"].post(
            "/api/v1/me/tokens", json={"name": name}, headers={"X-CSRF-Token": browser["csrf"]}
        )
        assert r.status_code == 201, r.json
        self.tokens[r.json["token"]] = (browser["account"], True, r.json["credential_id"])

    @precondition(lambda self: any(b["live"] for b in self.browsers))
    @rule(pick=st.integers(0, 100), which=st.integers(0, 100))
    def revoke_from_a_browser(self, pick: int, which: int) -> None:
        live = [b for b in self.browsers if b["live"]]
        browser = live[pick % len(live)]
        listed = browser["client"].get("/api/v1/me/credentials").json["credentials"]
        chosen = listed[which % len(listed)]
        r = browser["client"].delete(
            f"/api/v1/me/credentials/{chosen['credential_id']}",
            headers={"X-CSRF-Token": browser["csrf"]},
        )
        assert r.status_code == 204, r.json
        self._revoked(chosen["credential_id"], browser["account"])

    @precondition(lambda self: any(live for _, live, _ in self.tokens.values()))
    @rule(pick=st.integers(0, 100))
    def revoke_a_token_with_itself(self, pick: int) -> None:
        tokens = self._live_tokens()
        token = tokens[pick % len(tokens)]
        h = {"Authorization": f"Bearer {token}"}
        client = self.app.test_client()
        listed = client.get("/api/v1/me/credentials", headers=h).json["credentials"]
        me = next(c for c in listed if c["current"])
        assert (
            client.delete(f"/api/v1/me/credentials/{me['credential_id']}", headers=h).status_code
            == 204
        )
        self._revoked(me["credential_id"], self.tokens[token][0], token)

    @precondition(lambda self: any(b["live"] for b in self.browsers))
    @rule(pick=st.integers(0, 100))
    def sign_out(self, pick: int) -> None:
        live = [b for b in self.browsers if b["live"]]
        browser = live[pick % len(live)]
        r = browser["client"].delete(
            "/api/v1/sessions/current", headers={"X-CSRF-Token": browser["csrf"]}
        )
        assert r.status_code == 204
        browser["live"] = False

    def _revoked(self, credential_id: str, account: str, token: str | None = None) -> None:
        for b in self.browsers:
            if b["id"] == credential_id:
                assert b["account"] == account
                b["live"] = False
        for secret, (owner, _live, cid) in list(self.tokens.items()):
            if secret == token or cid == credential_id:
                assert owner == account
                self.tokens[secret] = (owner, False, cid)

    @invariant()
    def every_credential_names_its_account_while_live(self) -> None:
        client = self.app.test_client()
        for secret, (owner, live, _) in self.tokens.items():
            r = client.get("/api/v1/me", headers={"Authorization": f"Bearer {secret}"})
            assert (r.status_code == 200) == live, (live, r.json)
            if live:
                assert r.json["account_id"] == owner
        for b in self.browsers:
            r = b["client"].get("/api/v1/me")
            assert (r.status_code == 200) == b["live"], (b["live"], r.json)
            if b["live"]:
                assert r.json["account_id"] == b["account"]


Credentials.TestCase.settings = settings(
    max_examples=25,
    stateful_step_count=20,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
test_credentials = Credentials.TestCase
