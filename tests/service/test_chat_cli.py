"""``tongiaki chat`` (docs/chat.md): an operator hides a message (M7), stops an account
and lets it chat again (M8), and checks a chat's chain (M9), on the embedded default's
database, while a served app sees the effect."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from service.app import create_app
from service.cli import main
from service.runtime.settings import Settings
from service.store.sqlite import SQLiteEventStore
from tests.service.api import open_game


def run(tmp_path, *args):
    env = {"TONGIAKI_DATA_DIR": str(tmp_path), "DATABASE_URL": "", "REDIS_URL": ""}
    return CliRunner().invoke(main, list(args), env=env, catch_exceptions=False)


@pytest.fixture(autouse=True)
def no_service_settings(monkeypatch):
    for name in ("DATABASE_URL", "REDIS_URL", "TONGIAKI_PORT", "TONGIAKI_RATE_LIMITS"):
        monkeypatch.delenv(name, raising=False)


def test_an_operator_hides_stops_resumes_and_verifies_from_the_command_line(tmp_path):
    settings = Settings(data_dir=tmp_path, testing=True, rate_limits={})
    store = SQLiteEventStore(settings.sqlite_path)
    app = create_app(settings, store=store, sweep=False)
    try:
        client = app.test_client()
        game_id, (ana, bo) = open_game(client, ["red", "blue"])
        seq = ana.post(f"/games/{game_id}/chat", {"channel": "table", "text": "oops"}).json["seq"]

        done = run(tmp_path, "chat", "hide", game_id, str(seq), "--reason", "a slip")
        assert done.exit_code == 0 and f"message {seq} of game {game_id} hidden" in done.output
        again = run(tmp_path, "chat", "hide", game_id, str(seq), "--reason", "again")
        assert again.exit_code != 0 and "hidden already" in again.output
        assert run(tmp_path, "chat", "hide", "nope", "1", "--reason", "x").exit_code != 0
        assert run(tmp_path, "chat", "hide", game_id, "1", "--reason", " ").exit_code != 0
        seen = bo.get(f"/games/{game_id}/chat").json["messages"][0]
        assert seen["text"] is None and seen["hidden"]["reason"] == "a slip"

        assert run(tmp_path, "chat", "stop", bo.id, "--reason", "spam").exit_code == 0
        r = bo.post(f"/games/{game_id}/chat", {"channel": "table", "text": "hi"})
        assert r.status_code == 403 and r.json["rule"] == "M8"
        assert run(tmp_path, "chat", "stop", "nobody", "--reason", "x").exit_code != 0
        assert run(tmp_path, "chat", "resume", bo.id).exit_code == 0
        assert run(tmp_path, "chat", "resume", bo.id).exit_code != 0
        r = bo.post(f"/games/{game_id}/chat", {"channel": "table", "text": "hi"})
        assert r.status_code == 201

        checked = run(tmp_path, "chat", "verify", game_id)
        assert checked.exit_code == 0 and "3 event(s), ok" in checked.output
    finally:
        store.close()
