"""Rate limits on real processes: one count per account across web processes (Redis),
in memory on the embedded default; and the security headers the pages carry."""

from __future__ import annotations

from tests.servers import Http, embedded, production

LIMITS = "accounts=4/minute; games=3/hour"


def test_two_web_processes_share_one_count_per_account(tmp_path, pg_schema, redis_url):
    _, url = pg_schema
    queue = f"lim-{pg_schema[0]}"
    with production(tmp_path, url, redis_url, queue, TONGIAKI_RATE_LIMITS=LIMITS) as servers:
        web = [s.http() for s in servers[:2]]
        token = web[0].call("POST", "/accounts", {"name": "ann"}).json["token"]
        statuses = [
            web[n % 2].call("POST", "/games", {"max_players": 2}, token).status for n in range(5)
        ]
        refused = web[1].call("POST", "/games", {"max_players": 2}, token)
    assert statuses == [201, 201, 201, 429, 429]
    assert refused.content_type == "application/problem+json"
    assert refused.json["code"] == "rate_limited" and int(refused.headers["retry-after"]) > 0


def test_the_embedded_default_limits_sign_ups_per_address(tmp_path):
    with embedded(tmp_path, TONGIAKI_RATE_LIMITS=LIMITS) as server:
        http = server.http()
        statuses = [http.call("POST", "/accounts", {"name": f"n{n}"}).status for n in range(6)]
    assert statuses == [201] * 4 + [429] * 2


def test_the_pages_carry_their_security_headers(tmp_path):
    with embedded(tmp_path) as server:
        page = Http(server.port, prefix="").call("GET", "/")
    csp = page.headers["content-security-policy"]
    assert page.status == 200 and "frame-ancestors 'none'" in csp and "script-src 'self'" in csp
    assert page.headers["x-content-type-options"] == "nosniff"
    assert page.headers["referrer-policy"] == "same-origin"
