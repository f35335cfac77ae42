"""``/healthz`` and ``/readyz`` on real processes: the embedded default, and two web
processes on PostgreSQL whose Redis goes away (not ready, still alive) and comes back."""

from __future__ import annotations

import time

from tests.servers import embedded, free_port, production, start_redis


def test_the_embedded_default_is_alive_and_ready(tmp_path):
    with embedded(tmp_path) as server:
        http = server.http(prefix="")
        assert http.call("GET", "/healthz").json == {"status": "ok"}
        ready = http.call("GET", "/readyz")
        assert ready.status == 200 and ready.json["ready"] is True


def test_two_web_processes_are_not_ready_while_redis_is_away(tmp_path, pg_schema, redis_server):
    _, url = pg_schema
    port = free_port()
    redis = start_redis(redis_server, port)
    try:
        with production(
            tmp_path, url, f"redis://127.0.0.1:{port}/0", queue=f"h-{tmp_path.name[-8:]}"
        ) as servers:
            web = [s.http(prefix="") for s in servers[:2]]
            for http in web:
                ready = http.call("GET", "/readyz")
                assert ready.status == 200 and ready.json["checks"]["redis"]["ok"], ready.json
            redis.terminate()
            redis.wait(timeout=10)
            for http in web:
                ready = http.call("GET", "/readyz")
                assert ready.status == 503 and ready.json["code"] == "not_ready"
                assert "Redis cannot be reached" in ready.json["detail"]
                assert ready.headers["content-type"] == "application/problem+json"
                assert http.call("GET", "/healthz").status == 200  # alive all the same
            redis = start_redis(redis_server, port)
            for http in web:
                for _ in range(50):
                    if http.call("GET", "/readyz").status == 200:
                        break
                    time.sleep(0.1)
                assert http.call("GET", "/readyz").status == 200
    finally:
        redis.kill()
