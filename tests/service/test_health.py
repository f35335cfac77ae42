"""``/healthz`` and ``/readyz`` for load balancers and orchestrators."""

from __future__ import annotations

import pytest

from projections.store import PROJECTIONS
from service.app import create_app
from service.runtime.settings import Settings
from tests.service.api import open_game


def test_healthz_answers_and_readyz_checks_the_database_and_read_models(client):
    assert client.get("/healthz").json == {"status": "ok"}
    open_game(client, ["blue", "red"])
    ready = client.get("/readyz")
    assert ready.status_code == 200 and ready.json["ready"] is True
    checks = ready.json["checks"]
    assert checks["database"]["ok"] and "redis" not in checks
    assert set(checks["database"]["projections"]) == set(PROJECTIONS)


def test_readyz_names_a_halted_read_model_and_a_lag_beyond_the_limit(app, client):
    game_id, _ = open_game(client, ["blue", "red"])
    rm = app.extensions["tongiaki.readmodels"]
    with rm.db.transaction() as tx:
        tx.execute(
            "UPDATE projection_checkpoints SET error = %s WHERE projection = %s AND game_id = %s",
            ("boom", "timeline", game_id),
        )
    r = client.get("/readyz")
    assert r.status_code == 503 and r.content_type == "application/problem+json"
    assert r.json["code"] == "not_ready" and "timeline is halted" in r.json["detail"]
    assert r.headers["Retry-After"] == "5"
    assert client.get(r.json["type"]).status_code == 200  # the problem's page
    with rm.db.transaction() as tx:
        tx.execute("UPDATE projection_checkpoints SET error = NULL, version = 0", ())
    strict = Settings(data_dir=app.extensions["tongiaki.settings"].data_dir, ready_max_lag=0)
    app.extensions["tongiaki.settings"] = strict
    r = client.get("/readyz")
    assert r.status_code == 503 and "events behind (more than 0)" in r.json["detail"]


def test_readyz_says_when_redis_cannot_be_reached(tmp_path):
    settings = Settings(data_dir=tmp_path, rate_limits={}, redis_url="redis://127.0.0.1:1/0")
    app = create_app(settings, sweep=False)
    r = app.test_client().get("/readyz")
    assert r.status_code == 503 and "Redis cannot be reached" in r.json["detail"]
    assert r.json["checks"]["database"]["ok"] and not r.json["checks"]["redis"]["ok"]
    assert app.test_client().get("/healthz").status_code == 200
    app.extensions["tongiaki.games"].store.close()


@pytest.mark.parametrize("value", ["-1", "x", "1e9"])
def test_the_lag_limit_is_a_checked_setting(value):
    from service.runtime.settings import ConfigError

    with pytest.raises(ConfigError, match="TONGIAKI_READY_MAX_LAG"):
        Settings.from_env({"TONGIAKI_READY_MAX_LAG": value})


def test_readyz_says_when_the_logs_commits_wait_for_an_integrator(tmp_path):
    # no integrator runs here (sweep=False starts no background work): commits wait
    app = create_app(Settings(data_dir=tmp_path, rate_limits={}, ready_max_lag=2), sweep=False)
    client = app.test_client()
    assert client.get("/readyz").json["checks"]["log"] == {"ok": True, "pending": 0}
    open_game(client, ["blue", "red"])  # 4 commits: open, two seats, start
    r = client.get("/readyz")
    assert r.status_code == 503 and "4 commits waiting for their index" in r.json["detail"]
    assert r.json["checks"]["log"] == {"ok": False, "pending": 4}
