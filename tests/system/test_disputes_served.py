"""Disputes on real server processes (docs/disputes.md): the embedded default, and two
web processes on one PostgreSQL database with Redis and a worker, where a dispute is
opened on one process and ruled on the other while both keep the game in their caches.

A paused game refuses moves on every process (D7); a rewind (D6) is played on from
either process with the re-dealt deck, and the whole record verifies the same over
HTTP on both and from the CLI; the read models follow (timeline, scoreboard)."""

from __future__ import annotations

import json
import random
import subprocess
import sys
import time

from tests.servers import ROOT, Http, embedded, logged_head, production


def auditor(env: dict[str, str]) -> str:
    made = subprocess.run(
        [sys.executable, "-m", "service.cli", "auditor", "create", "Audrey"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    return made.stdout.split("token: ")[1].strip()


def started(http: Http) -> tuple[str, dict[str, str]]:
    tokens = {}
    for name in ("ann", "bob"):
        made = http.call("POST", "/accounts", {"name": name}).json
        tokens[made["account_id"]] = made["token"]
    first = next(iter(tokens.values()))
    gid = http.call("POST", "/games", {"max_players": 2}, first).json["game_id"]
    for token, colour in zip(tokens.values(), ("blue", "red"), strict=True):
        assert http.call("POST", f"/games/{gid}/seats", {"colour": colour}, token).status == 201
    assert http.call("POST", f"/games/{gid}/start", None, first).status == 200
    return gid, tokens


def play(
    https: list[Http], gid: str, tokens: dict[str, str], rng: random.Random, n: int
) -> list[int]:
    """Up to ``n`` moves, each from a process chosen at random; the receipts."""
    receipts = []
    for _ in range(n):
        http = rng.choice(https)
        legal = http.call("GET", f"/games/{gid}/legal").json
        if legal["decision"] is None:
            break
        reply = http.call(
            "POST",
            f"/games/{gid}/commands",
            rng.choice(legal["commands"]),
            tokens[legal["player_id"]],
            {"If-Match": f'"{legal["version"]}"'},
        )
        assert reply.status == 200, reply.json
        receipts.append(reply.json["version"])
    return receipts


def cli_verify(env: dict[str, str], gid: str) -> dict:
    done = subprocess.run(
        [sys.executable, "-m", "service.cli", "verify", "--json", gid],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode in (0, 1), done.stderr
    return json.loads(done.stdout)


def dispute_pause_rewind_and_play_out(
    https: list[Http], env: dict[str, str], seed: int
) -> tuple[str, dict[str, str], str]:
    """A game played across ``https``, disputed, paused, rewound and played to its end:
    (game id, account -> token, the auditor's token)."""
    rng = random.Random(seed)
    a, b = https[0], https[-1]
    gid, tokens = started(a)
    ann = next(iter(tokens))
    receipts = play(https, gid, tokens, rng, 30)
    for http in https:  # every process has the game folded in its cache now
        assert http.call("GET", f"/games/{gid}/legal").status == 200
    opened = a.call(
        "POST",
        f"/games/{gid}/disputes",
        {"reason": "misclick", "version": receipts[12]},
        tokens[ann],
    )
    assert opened.status == 201, opened.json
    d = opened.json["dispute_id"]
    audrey = auditor(env)
    # paused on one process: every process refuses moves (D7)
    waiting = a.call("GET", f"/games/{gid}/legal").json
    paused = b.call("POST", f"/games/{gid}/pause", {"dispute_id": d}, audrey)
    assert paused.status == 200 and paused.json["paused"] == d, paused.json
    for http in https:
        assert http.call("GET", f"/games/{gid}/legal").json["commands"] == []
        mover = tokens[waiting["player_id"]]
        refused = http.call("POST", f"/games/{gid}/commands", waiting["commands"][0], mover)
        assert (refused.status, refused.json["code"], refused.json["rule"]) == (
            409,
            "game_paused",
            "D7",
        )
    head = a.call("GET", f"/games/{gid}").json["version"]
    assert head == paused.json["version"]  # refusals moved nothing
    # ruled on the other process: rewind to the receipt before the disputed move (D6)
    ruling = {
        "decision": "rewind",
        "reasoning": "a misclick",
        "rules": ["D6"],
        "to_version": receipts[11],
    }
    ruled = b.call("POST", f"/disputes/{d}/ruling", ruling, audrey)
    assert ruled.status == 200 and ruled.json["status"] == "ruled", ruled.json
    then = a.call("GET", f"/games/{gid}/state?at={receipts[11]}").json["position"]
    for http in https:  # each process, its cache notwithstanding, is at the earlier position
        now = http.call("GET", f"/games/{gid}/state").json["position"]
        assert {k: v for k, v in now.items() if k not in ("deals", "dealt")} == then
        assert http.call("GET", f"/games/{gid}/legal").json["commands"]  # resumed
    # played on to the end from both processes, the draws from the re-deal
    for _ in range(100):
        if not play(https, gid, tokens, rng, 50):
            break
    return gid, tokens, audrey


def levelled(http: Http, path: str) -> dict:
    """A read model at ``?min_version``: a busy host may take longer than the 5 s the
    service waits (503 projection_lagging, with Retry-After): ask again."""
    for _ in range(60):
        reply = http.call("GET", path)
        if reply.status != 503:
            assert reply.status == 200, reply.json
            return reply.json
        time.sleep(1)
    raise AssertionError(f"{path}: still lagging")


def check_record(https: list[Http], env: dict[str, str], gid: str, auditor: str) -> None:
    logged_head(https[0], gid)
    reports = [h.call("GET", f"/games/{gid}/verify", None, auditor).json for h in https]
    by_cli = cli_verify(env, gid)
    assert all(r == by_cli for r in reports)
    assert by_cli["ok"] and by_cli["deck_ok"], by_cli
    end = https[0].call("GET", f"/games/{gid}").json["version"]
    for http in https:
        timeline = levelled(http, f"/games/{gid}/timeline?min_version={end}&limit=1000")
        assert len(timeline["rewinds"]) == 1 and any(s["superseded"] for s in timeline["steps"])
        board = levelled(http, f"/games/{gid}/scoreboard?min_version={end}")
        assert board["final"] is not None and board["version"] == end


def test_a_rewind_ruling_on_the_embedded_default(tmp_path):
    with embedded(tmp_path) as server:
        http = server.http()
        gid, _, audrey = dispute_pause_rewind_and_play_out([http], server.env, seed=2)
        check_record([http], server.env, gid, audrey)


def test_disputes_across_two_web_processes_on_postgresql(tmp_path, pg_schema, redis_url):
    _, url = pg_schema
    with production(tmp_path, url, redis_url, queue=f"d-{tmp_path.name[-8:]}") as servers:
        web = [s.http() for s in servers[:2]]
        gid, tokens, audrey = dispute_pause_rewind_and_play_out(web, servers[0].env, seed=5)
        check_record(web, servers[0].env, gid, audrey)
        # an amended result (D4), ruled on the other process, moves the leaderboard of both
        final = web[0].call("GET", f"/games/{gid}/scoreboard").json["final"]
        amended = [r["player_id"] for r in final["ranking"]][::-1]
        end = web[0].call("GET", f"/games/{gid}").json["version"]
        opened = web[0].call(
            "POST",
            f"/games/{gid}/disputes",
            {"reason": "unfair_draw", "version": end},
            tokens[amended[0]],
        )
        assert opened.status == 201, opened.json
        ruled = web[1].call(
            "POST",
            f"/disputes/{opened.json['dispute_id']}/ruling",
            {"decision": "result_amended", "reasoning": "x", "rules": ["D4"], "ranking": amended},
            audrey,
        )
        assert ruled.status == 200, ruled.json
        for http in web:
            board = levelled(http, f"/games/{gid}/scoreboard?min_version={end + 1}")
            assert board["final"]["winners"] == [amended[0]]
            for _ in range(100):  # cross-game: no min_version; the worker levels it
                leaders = {
                    p["account_id"]: p for p in http.call("GET", "/leaderboard").json["players"]
                }
                if leaders.get(amended[0], {}).get("wins") == 1:
                    break
                time.sleep(0.1)
            assert leaders[amended[0]]["wins"] == 1 and leaders[amended[1]]["wins"] == 0
        queue = web[1].call("GET", "/disputes?status=ruled", None, audrey).json["disputes"]
        assert [x["game_id"] for x in queue] == [gid, gid]


def racing_rulings(https: list[Http], env: dict[str, str], rounds: int, seed: int) -> None:
    """Rulings on one dispute sent at the same moment (stands, two rewinds, an amendment
    for a game not over), split across processes: one wins, the others are refused and
    change nothing; the game's record holds exactly the winner's effect."""
    import threading

    rng = random.Random(seed)
    audrey = auditor(env)
    gid, tokens = started(https[0])
    for _ in range(rounds):
        receipts = play(https, gid, tokens, rng, 12)
        if len(receipts) < 4:
            break
        opener = rng.choice(list(tokens.values()))
        d = (
            https[0]
            .call(
                "POST",
                f"/games/{gid}/disputes",
                {"reason": "misclick", "version": receipts[-1]},
                opener,
            )
            .json["dispute_id"]
        )
        bodies = [
            {"decision": "stands", "reasoning": "s", "rules": ["D4"]},
            {"decision": "rewind", "reasoning": "a", "rules": ["D6"], "to_version": receipts[-2]},
            {"decision": "rewind", "reasoning": "b", "rules": ["D6"], "to_version": receipts[-3]},
        ]
        answers: list[tuple[int, str | None]] = []
        gate = threading.Barrier(len(bodies))

        def rule(i: int, body: dict, gate=gate, d=d, answers=answers) -> None:
            gate.wait()
            reply = https[i % len(https)].call("POST", f"/disputes/{d}/ruling", body, audrey)
            answers.append((reply.status, (reply.json or {}).get("code")))

        threads = [threading.Thread(target=rule, args=(i, b)) for i, b in enumerate(bodies)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert sorted(s for s, _ in answers) == [200, 409, 409], answers
        assert all(code == "dispute_closed" for s, code in answers if s == 409), answers
        ruling = https[-1].call("GET", f"/disputes/{d}", None, audrey).json["ruling"]
        events, after = [], 0
        while True:
            page = https[0].call("GET", f"/games/{gid}/events?after={after}&limit=1000").json
            events += page["events"]
            if not page["events"]:
                break
            after = page["next_after"]
        rewinds = [e for e in events if e["type"] == "GameRewound" and e["data"]["dispute_id"] == d]
        if ruling["decision"] == "rewind":
            assert [e["data"]["to_version"] for e in rewinds] == [ruling["to_version"]]
        else:
            assert rewinds == []
    report = cli_verify(env, gid)
    assert report["ok"], report["rerun_problems"]
    assert all(x["carried_out"] for x in report["disputes"])


def test_racing_rulings_on_the_embedded_default(tmp_path):
    with embedded(tmp_path) as server:
        racing_rulings([server.http() for _ in range(3)], server.env, rounds=4, seed=1)


def test_racing_rulings_across_two_web_processes(tmp_path, pg_schema, redis_url):
    _, url = pg_schema
    with production(tmp_path, url, redis_url, queue=f"r-{tmp_path.name[-8:]}") as servers:
        web = [s.http() for s in servers[:2]]
        racing_rulings([web[0], web[1], servers[0].http()], servers[0].env, rounds=5, seed=2)


def test_a_ruling_racing_a_resume_is_recorded_and_answered_as_such(tmp_path):
    """A ruling or withdrawal that closes a paused game's dispute while an auditor
    resumes it: the closing is recorded and answered 200; the game ends up running."""
    import threading

    with embedded(tmp_path) as server:
        https = [server.http() for _ in range(2)]
        audrey = auditor(server.env)
        gid, tokens = started(https[0])
        rng = random.Random(3)
        for round_ in range(30):
            receipts = play(https, gid, tokens, rng, 2)
            opener = rng.choice(list(tokens.values()))
            version = https[0].call("GET", f"/games/{gid}").json["version"]
            d = (
                https[0]
                .call(
                    "POST",
                    f"/games/{gid}/disputes",
                    {"reason": "misclick", "version": version},
                    opener,
                )
                .json["dispute_id"]
            )
            assert (
                https[0].call("POST", f"/games/{gid}/pause", {"dispute_id": d}, audrey).status
                == 200
            )
            if round_ % 2:
                closing = ("POST", f"/disputes/{d}/withdraw", {}, opener)
            else:
                ruling = {"decision": "stands", "reasoning": "r", "rules": ["D4"]}
                closing = ("POST", f"/disputes/{d}/ruling", ruling, audrey)
            resume = ("POST", f"/games/{gid}/resume", {"dispute_id": d}, audrey)
            answers: dict[int, int] = {}
            gate = threading.Barrier(2)

            def send(i, call, gate=gate, answers=answers):
                gate.wait()
                answers[i] = https[i].call(*call).status

            threads = [
                threading.Thread(target=send, args=(i, c)) for i, c in enumerate((closing, resume))
            ]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            assert answers[0] == 200, answers  # recorded, and said so
            assert answers[1] in (200, 409), answers
            assert https[0].call("GET", f"/games/{gid}/legal").json["commands"] or not receipts
        report = cli_verify(server.env, gid)
        assert report["ok"], report
