"""Auditors (docs/accounts.md): an operator's token signs one in, a passkey keeps it
signed in anywhere, and ``tongiaki auditor revoke`` ends every way in it had."""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner

from service.app import create_app
from service.cli import main
from service.runtime.settings import Settings
from service.store.sqlite import SQLiteEventStore
from tests.identity.authenticator import SoftAuthenticator
from tests.identity.test_passkeys import ORIGIN, prompt, register
from tests.identity.test_sessions import session_of


class Token:
    def __init__(self, token: str, account_id: str) -> None:
        self.token = token
        self.id = account_id
        self.headers = {"Authorization": f"Bearer {token}"}


def run(tmp_path, *args):
    env = {"TONGIAKI_DATA_DIR": str(tmp_path), "DATABASE_URL": "", "REDIS_URL": ""}
    return CliRunner().invoke(main, list(args), env=env, catch_exceptions=False)


@pytest.fixture(autouse=True)
def no_service_settings(monkeypatch):
    for name in ("DATABASE_URL", "REDIS_URL", "TONGIAKI_PORT", "TONGIAKI_RATE_LIMITS"):
        monkeypatch.delenv(name, raising=False)


def test_an_operator_revokes_an_auditor_everywhere(tmp_path):
    made = run(tmp_path, "auditor", "create", "Audrey")
    account_id = re.search(r"\((\w+)\)", made.output)[1]
    token = re.search(r"token: (\S+)", made.output)[1]
    settings = Settings(data_dir=tmp_path, testing=True, rate_limits={})
    store = SQLiteEventStore(settings.sqlite_path)
    app = create_app(settings, store=store, sweep=False)
    try:
        audrey = Token(token, account_id)
        desk = app.test_client()
        csrf = session_of(desk, audrey)
        assert desk.get("/api/v1/me").json["kind"] == "auditor"
        device = SoftAuthenticator()
        register(desk, csrf, device)
        assert desk.get("/api/v1/disputes").status_code == 200

        revoked = run(tmp_path, "auditor", "revoke", account_id)
        assert revoked.exit_code == 0, revoked.output
        assert "revoked" in revoked.output
        said = revoked.output + (revoked.stderr if revoked.stderr_bytes is not None else "")
        assert f"account_disabled account={account_id}" in said  # the security log's line

        assert desk.get("/api/v1/me").status_code == 401
        assert app.test_client().get("/api/v1/me", headers=audrey.headers).status_code == 401
        away = app.test_client()
        r = away.post(
            "/api/v1/sign-in/passkey", json={"credential": device.get(prompt(away), ORIGIN)}
        )
        assert r.status_code == 401 and r.json["code"] == "unknown_passkey"
        r = app.test_client().post("/api/v1/sessions", headers=audrey.headers)
        assert r.status_code == 401
    finally:
        store.close()


def test_revoking_what_is_no_auditor_is_an_error(tmp_path):
    run(tmp_path, "db", "upgrade")
    result = run(tmp_path, "auditor", "revoke", "nobody")
    assert result.exit_code != 0 and "no auditor" in result.output
