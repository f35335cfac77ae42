"""Profiles, names, deletion and the "my move" queue on real server processes
(docs/profiles.md): a name changed through one process is the name the other records
at once; two changes sent to both at once leave one; the queue follows the read models
(inline, or rq workers); a deletion through one process ends the account on the other,
and its games verify — on the embedded default and on two gunicorn web processes over
PostgreSQL and Redis."""

from __future__ import annotations

import threading
import time
from typing import Any

from tests.servers import Http, embedded, production, seated_game


def wait_for(check: Any, timeout: float = 30.0) -> Any:
    """``check()`` once it is truthy (read models may lag behind a commit in production)."""
    deadline = time.monotonic() + timeout
    while True:
        found = check()
        if found:
            return found
        if time.monotonic() > deadline:
            raise AssertionError("the condition did not hold in time")
        time.sleep(0.05)


def first_move(http: Http, gid: str, tokens: dict[str, str]) -> None:
    legal = http.call("GET", f"/games/{gid}/legal").json
    reply = http.call(
        "POST", f"/games/{gid}/commands", legal["commands"][0], tokens[legal["player_id"]]
    )
    assert reply.status == 200, reply.raw


def check_profiles_across(here: Http, other: Http) -> None:
    gid, tokens = seated_game(here)
    (ann, ann_token), (bob, bob_token) = tokens.items()
    assert here.call("POST", f"/games/{gid}/start", None, ann_token).status == 200
    # the queue (Q1): the game waits for ann, seen through the other process
    queued = wait_for(lambda: other.call("GET", "/me/queue", token=ann_token).json["games"])
    assert [g["game_id"] for g in queued] == [gid]
    # a change of name through one process is the name the other records (P3)
    renamed = here.call("PUT", "/me/name", {"name": "Ann Two"}, ann_token)
    assert renamed.status == 200, renamed.raw
    assert other.call("GET", "/me", token=ann_token).json["name"] == "Ann Two"
    first_move(other, gid, tokens)
    events = other.call("GET", f"/games/{gid}/events").json["events"]
    assert events[-1]["metadata"]["actor"]["name"] == "Ann Two"
    wait_for(lambda: other.call("GET", "/me/queue", token=bob_token).json["count"] == 1)
    # two changes at once, one to each process: exactly one wins (P3)
    answers: list[Any] = [None, None]
    gate = threading.Barrier(2)

    def change(i: int, http: Http) -> None:
        gate.wait()
        answers[i] = http.call("PUT", "/me/name", {"name": f"Bob {i}", "was": "bob"}, bob_token)

    threads = [threading.Thread(target=change, args=(i, h)) for i, h in enumerate((here, other))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(a.status for a in answers) == [200, 409], [a.raw for a in answers]
    won = next(a for a in answers if a.status == 200).json["name"]
    assert here.call("GET", f"/accounts/{bob}/profile").json["name"] == won
    # a deletion through one process: the account ends on the other (P6-P8)
    gone = here.call("POST", "/me/deletion", {"confirm": "Ann Two"}, ann_token)
    assert gone.status == 200 and gone.json["resigned"] == [gid], gone.raw
    refused = other.call("GET", "/me", token=ann_token)
    assert refused.status == 401 and refused.json["code"] == "bad_token"
    profile = wait_for(lambda: other.call("GET", f"/accounts/{ann}/profile").json)
    assert profile["deleted"] is True and profile["name"] == f"deleted player {ann[:4]}"
    # the game the account played still verifies (P9)
    report = wait_for(lambda: other.call("GET", f"/games/{gid}/verify").json)
    assert report["ok"] is True, report


def test_on_the_embedded_default(tmp_path):
    with embedded(tmp_path) as server:
        check_profiles_across(server.http(), server.http())


def test_on_two_web_processes_with_postgres_and_redis(tmp_path, pg_schema, redis_url):
    _, url = pg_schema
    with production(tmp_path, url, redis_url, f"profiles-{pg_schema[0]}") as servers:
        check_profiles_across(servers[0].http(), servers[1].http())
