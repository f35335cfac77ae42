"""Accounts people keep on real server processes (docs/accounts.md): a session opened
on one process is known to the other, revoking it on one ends its live streams on
every process, a token revoked anywhere names nobody anywhere — on the embedded
default and on two web processes over PostgreSQL and Redis; and the embedded default
prints sign-in links on its console."""

from __future__ import annotations

import asyncio
import re
import time

from tests.servers import Http, embedded, production, seated_game
from tests.sse import Viewer, watch


def session(http: Http, token: str) -> tuple[str, str, str]:
    """Sign a browser in with ``token``: its cookie header, CSRF token, credential id."""
    r = http.call("POST", "/sessions", token=token)
    assert r.status == 201, r.raw
    cookie = r.headers["set-cookie"].split(";")[0]
    mine = http.call("GET", "/me/credentials", headers={"Cookie": cookie}).json
    current = next(c for c in mine["credentials"] if c["current"])
    return cookie, r.json["csrf_token"], current["credential_id"]


async def _revoked_ends(viewer_port: int, revoke, gid: str, cookie: str) -> tuple[Viewer, float]:
    viewer = Viewer()
    task = asyncio.create_task(
        watch(viewer_port, f"/api/v1/games/{gid}/stream", viewer, headers={"Cookie": cookie})
    )
    await asyncio.wait_for(viewer.opened.wait(), 60)
    assert viewer.status == 200, viewer.problem
    await asyncio.sleep(0.3)  # the stream is parked with the writer
    assert not viewer.closed
    began = time.monotonic()
    await asyncio.get_running_loop().run_in_executor(None, revoke)
    await asyncio.wait_for(task, 30)
    return viewer, time.monotonic() - began


def check_revocation_ends_streams(here: Http, viewer_port: int, other: Http) -> None:
    gid, tokens = seated_game(here)
    token = next(iter(tokens.values()))
    cookie, csrf, credential = session(here, token)
    # the session is known on the other process too
    assert other.call("GET", "/me", headers={"Cookie": cookie}).status == 200

    def revoke() -> None:
        r = other.call(
            "DELETE",
            f"/me/credentials/{credential}",
            headers={"Cookie": cookie, "X-CSRF-Token": csrf},
        )
        assert r.status == 204, r.raw

    viewer, took = asyncio.run(_revoked_ends(viewer_port, revoke, gid, cookie))
    assert viewer.closed and not viewer.ended  # ended by the revocation, not the game
    assert took < 15, took
    for http in (here, other):
        gone = http.call("GET", "/me", headers={"Cookie": cookie})
        assert gone.status == 401 and gone.json["code"] == "session_ended"
        again = Http(viewer_port).call(
            "GET", f"/games/{gid}/stream?timeout=1", headers={"Cookie": cookie}
        )
        assert again.status == 401


def check_a_token_revoked_anywhere_names_nobody(here: Http, other: Http) -> None:
    made = here.call("POST", "/accounts", {"name": "Bot owner"}).json
    bot = here.call("POST", "/me/tokens", {"name": "bot"}, token=made["token"]).json
    assert other.call("GET", "/me", token=bot["token"]).status == 200
    r = here.call("DELETE", f"/me/credentials/{bot['credential_id']}", token=made["token"])
    assert r.status == 204
    assert other.call("GET", "/me", token=bot["token"]).json["code"] == "bad_token"
    assert other.call("GET", "/me", token=made["token"]).status == 200


def test_on_the_embedded_default(tmp_path):
    with embedded(tmp_path) as server:
        http = server.http()
        check_revocation_ends_streams(http, server.port, server.http())
        check_a_token_revoked_anywhere_names_nobody(http, server.http())


def test_on_two_web_processes_with_postgres_and_redis(tmp_path, pg_schema, redis_url):
    _, url = pg_schema
    with production(tmp_path, url, redis_url, f"accounts-{pg_schema[0]}") as servers:
        one, two = servers[0], servers[1]
        check_revocation_ends_streams(one.http(), one.port, two.http())
        check_a_token_revoked_anywhere_names_nobody(one.http(), two.http())


def test_the_embedded_default_prints_sign_in_links_on_its_console(tmp_path):
    with embedded(tmp_path) as server:
        http = server.http()
        made = http.call("POST", "/accounts", {"name": "Ana"}).json
        cookie, csrf, _ = session(http, made["token"])
        asked = http.call(
            "POST",
            "/me/email",
            {"email": "ana@example.org"},
            headers={"Cookie": cookie, "X-CSRF-Token": csrf},
        )
        assert asked.status == 202, asked.raw
        bind = asked.headers["set-cookie"].split(";")[0]
        deadline = time.monotonic() + 30
        while not (found := re.search(r"/sign-in/link#([A-Za-z0-9_-]+)", server.output())):
            assert time.monotonic() < deadline, server.output()
            time.sleep(0.1)
        used = http.call(
            "POST", "/sign-in/link", {"token": found[1]}, headers={"Cookie": f"{cookie}; {bind}"}
        )
        assert used.status == 200, used.raw
        assert used.json["email"] == "ana@example.org"
        # and now a browser signs in by e-mail, the link printed again
        asked = http.call("POST", "/sign-in/email", {"email": "ana@example.org"})
        assert asked.status == 202
        bind = asked.headers["set-cookie"].split(";")[0]
        while len(re.findall(r"/sign-in/link#", server.output())) < 2:
            assert time.monotonic() < deadline + 30, server.output()
            time.sleep(0.1)
        token = re.findall(r"/sign-in/link#([A-Za-z0-9_-]+)", server.output())[-1]
        used = http.call("POST", "/sign-in/link", {"token": token}, headers={"Cookie": bind})
        assert used.status == 200 and used.json["account_id"] == made["account_id"]
        assert token not in server.output().replace(f"#{token}", "")  # only the mail shows it


def test_asking_for_a_link_takes_as_long_with_or_without_an_account(tmp_path):
    """No account enumeration through timing: the same work either way (a link row, a
    mail queued), so the medians of interleaved requests stay within noise."""
    import statistics

    with embedded(tmp_path) as server:
        http = server.http()
        made = http.call("POST", "/accounts", {"name": "Tia"}).json
        cookie, csrf, _ = session(http, made["token"])
        headers = {"Cookie": cookie, "X-CSRF-Token": csrf}
        asked = http.call("POST", "/me/email", {"email": "tia@example.org"}, headers=headers)
        bind = asked.headers["set-cookie"].split(";")[0]
        deadline = time.monotonic() + 30
        while not (found := re.search(r"/sign-in/link#([A-Za-z0-9_-]+)", server.output())):
            assert time.monotonic() < deadline
            time.sleep(0.1)
        used = http.call(
            "POST", "/sign-in/link", {"token": found[1]}, headers={"Cookie": f"{cookie}; {bind}"}
        )
        assert used.status == 200, used.raw
        times: dict[str, list[float]] = {"known": [], "unknown": []}
        for n in range(100):  # pairs, in turn: a load that comes and goes hits both alike
            for kind, address in (("known", "tia@example.org"), ("unknown", f"no{n}@example.org")):
                began = time.perf_counter()
                r = http.call("POST", "/sign-in/email", {"email": address})
                times[kind].append(time.perf_counter() - began)
                assert r.status == 202
        known, unknown = (statistics.median(times[k]) for k in ("known", "unknown"))
        gap = statistics.median(
            u - k for k, u in zip(times["known"], times["unknown"], strict=True)
        )
        print(
            f"sign-in link asked: median {known * 1000:.2f} ms (account), {unknown * 1000:.2f} ms"
            f" (none), median gap of a pair {gap * 1000:+.2f} ms"
        )
        assert abs(gap) < max(0.002, 0.25 * max(known, unknown)), (known, unknown, gap)
