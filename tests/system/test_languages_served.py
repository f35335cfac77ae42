"""The readers' languages on real server processes (docs/i18n.md): the embedded default,
and two gunicorn web processes on one PostgreSQL with Redis and a worker.

Whichever process answers: a page shell in the language asked for (``?lang=``, the
picker's cookie, ``Accept-Language``), with the same catalog version; a refusal's
``title`` and ``detail`` in it while its ``code``, ``type`` and ``rule`` stay as they
are; the replay's move descriptions in it (the worker's read models keep the phrases);
an account's choice kept and set as the cookie of a browser that signs in to it."""

from __future__ import annotations

import re
import time

from tests.servers import Server, embedded, production
from tests.system.test_tables_served import accounts, finished_game

FRENCH = {"Accept-Language": "fr-CA,fr;q=0.9,en;q=0.5"}


def shell(server: Server, path: str, headers: dict[str, str]) -> tuple[str, str, str]:
    """A page's language, catalog version and the cookie the answer sets."""
    answer = server.http(prefix="").call("GET", path, headers=headers)
    assert answer.status == 200, answer.status
    html = answer.raw.decode()
    lang = re.search(r'<html lang="(\w+)" data-catalog="(\w+)"', html)
    assert lang is not None, html[:300]
    assert "Accept-Language" in answer.headers.get("vary", "")
    return lang[1], lang[2], answer.headers.get("set-cookie", "")


def pages_speak_the_readers_language(a: Server, b: Server) -> None:
    versions = set()
    for server in (a, b):
        lang, version, _ = shell(server, "/", FRENCH)
        assert lang == "fr"
        versions.add(version)
        lang, _, cookie = shell(server, "/games/g1?lang=it", {})
        assert lang == "it" and cookie.startswith("lang=it"), cookie
        assert shell(server, "/", {"Cookie": "lang=it", **FRENCH})[0] == "it"  # the picker wins
        assert shell(server, "/", {"Accept-Language": "de, en;q=0.1"})[0] == "en"
        assert shell(server, "/", {"Accept-Language": "x" * 5000})[0] == "en"
        catalog = server.http(prefix="").call("GET", f"/i18n/fr.json?v={version}")
        assert catalog.status == 200 and catalog.json["messages"]["Blue"] == "Bleu"
        assert "immutable" in catalog.headers["cache-control"]
        assert server.http(prefix="").call("GET", "/i18n/de.json").status == 404
        rules = server.http(prefix="").call("GET", "/docs/rules", headers=FRENCH).raw.decode()
        assert 'id="R13"' in rules and "Les règles" in rules
    assert len(versions) == 1, versions  # the processes agree on the catalog


def refusals_speak_it_and_keep_their_codes(a: Server, b: Server) -> None:
    http = a.http()
    players = accounts(http, ("ann", "bob"))
    (_, ann), (_, bob) = players
    gid = http.call("POST", "/games", {"max_players": 2}, ann).json["game_id"]
    for token, colour in ((ann, "blue"), (bob, "red")):
        assert http.call("POST", f"/games/{gid}/seats", {"colour": colour}, token).status == 201
    assert http.call("POST", f"/games/{gid}/start", None, ann).status == 200
    legal = http.call("GET", f"/games/{gid}/legal").json
    wrong = next(token for account, token in players if account != legal["player_id"])
    english = a.http().call("POST", f"/games/{gid}/commands", legal["commands"][0], wrong)
    for server, headers in ((a, FRENCH), (b, {"Cookie": "lang=it"})):
        said = server.http().call(
            "POST", f"/games/{gid}/commands", legal["commands"][0], wrong, headers
        )
        assert said.status == english.status == 403  # not_your_turn
        assert said.json["code"] == english.json["code"]
        assert said.json["type"] == english.json["type"]
        assert said.json.get("rule") == english.json.get("rule")
        assert said.json["title"] != english.json["title"]
        assert said.json["detail"] != english.json["detail"], said.json
    missing = b.http().call("GET", "/games/nope", headers=FRENCH).json
    assert missing["code"] == "unknown_game" and missing["title"] == "Introuvable", missing
    assert "nope" in missing["detail"] and "there is no game" not in missing["detail"]


def replays_and_accounts_speak_it(a: Server, b: Server) -> None:
    http = a.http()
    players = accounts(http, ("cy", "dee"))
    gid = finished_game(http, players, seed=5)
    (_, cy), _ = players
    last = http.call("GET", f"/games/{gid}").json["version"]
    for server in (a, b):
        steps = _all_steps(server, gid, last, {"Cookie": "lang=fr"})
        english = _all_steps(server, gid, last, {})
        assert len(steps) == len(english) > 10
        assert [s["version"] for s in steps] == [s["version"] for s in english]
        said = [s["description"] for s in steps]
        assert any("Partie terminée" in d for d in said), said[-3:]
        assert (
            sum(d != e["description"] for d, e in zip(said, english, strict=True)) > len(said) // 2
        )
        assert not any("{" in d for d in said)
    told = []
    deadline = time.monotonic() + 60  # the notifications' projection may be behind
    while not any(n["kind"] == "game_over" for n in told) and time.monotonic() < deadline:
        told = (
            b.http()
            .call("GET", "/me/notifications", None, cy, {"Cookie": "lang=it"})
            .json["notifications"]
        )
    over = [n["text"] for n in told if n["kind"] == "game_over"]
    assert over and over[0].startswith("La partita è finita"), told[:3]
    chosen = b.http().call("PUT", "/me/language", {"language": "it"}, cy)
    assert chosen.status == 200 and chosen.json["language"] == "it"
    assert chosen.headers["set-cookie"].startswith("lang=it")
    assert a.http().call("GET", "/me/language", None, cy).json["language"] == "it"
    bad = a.http().call("PUT", "/me/language", {"language": "klingon"}, cy)
    assert (
        bad.status == 422
        and a.http().call("GET", "/me/language", None, cy).json["language"] == "it"
    )
    session = a.http().call("POST", "/sessions", None, cy)
    assert session.status in (200, 201), session.json
    assert "lang=it" in session.headers.get("set-cookie", "")


def _all_steps(server: Server, gid: str, last: int, headers: dict[str, str]) -> list[dict]:
    """Every step of the timeline up to version ``last``, page by page (``min_version``:
    waiting for the worker to project them)."""
    found, after = [], 0
    while True:
        page = server.http().call(
            "GET",
            f"/games/{gid}/timeline?after={after}&limit=100&min_version={last}",
            headers=headers,
        )
        assert page.status == 200, page.json
        found += page.json["steps"]
        if not page.json["has_more"]:
            return found
        after = page.json["next_after"]


def test_languages_on_the_embedded_default(tmp_path):
    with embedded(tmp_path) as server:
        pages_speak_the_readers_language(server, server)
        refusals_speak_it_and_keep_their_codes(server, server)
        replays_and_accounts_speak_it(server, server)


def test_languages_across_two_web_processes(tmp_path, pg_schema, redis_url):
    _, url = pg_schema
    queue = f"t-{tmp_path.name[-8:]}"
    with production(tmp_path, url, redis_url, queue=queue) as servers:
        a, b = servers[:2]
        pages_speak_the_readers_language(a, b)
        refusals_speak_it_and_keep_their_codes(a, b)
        replays_and_accounts_speak_it(a, b)
