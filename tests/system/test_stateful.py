"""A model-based test of the whole service: random interleavings against real processes.

Hypothesis drives the HTTP API of running servers — the embedded default, and
two web processes on one PostgreSQL database with Redis and a worker — with
random sequences of what users do: accounts, games, seats, refused and accepted
starts, legal and illegal commands from the right and wrong accounts, retries
with reused and foreign Idempotency-Keys, two processes racing on one version,
stream reads, malformed and oversized bodies, whole games played to the end.
Each request goes to a process drawn at random.

After every step: no 5xx; every error is problem+json; a refused request changed
no version; the versions of the game touched are gapless and its journal and
events agree; every finished game passes verification, and the HTTP answer of
each process equals the CLI's.

Runs are derandomised in the suite (reproducible) and not shrunk (a shrink
replays against live servers for minutes); ``TONGIAKI_STATEFUL_RANDOM=1``
explores new ones, ``TONGIAKI_STATEFUL_EXAMPLES`` sets how many and
``TONGIAKI_STATEFUL_SHRINK=1`` shrinks a failure to its shortest sequence.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import threading
import time
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    Bundle,
    RuleBasedStateMachine,
    initialize,
    invariant,
    multiple,
    precondition,
    rule,
    run_state_machine_as_test,
)

from bench.client import Reply
from service.transparency.entries import HeadEntry
from service.transparency.notes import Verifier
from service.transparency.promises import check_promise
from tests.servers import ROOT, Http, Server, embedded, logged_head, production

PROBLEM = "application/problem+json"
# what a takeback request may be refused with in a game under way (docs/table.md)
TAKEBACK_REFUSALS = {"nothing_to_take_back", "tile_drawn_since", "table_changed_since"}
COLOURS = ("blue", "red", "green", "yellow")
EXAMPLES = int(os.environ.get("TONGIAKI_STATEFUL_EXAMPLES", "8"))
RANDOM = os.environ.get("TONGIAKI_STATEFUL_RANDOM") == "1"
# shrinking replays against live servers take minutes: by hand only (the whole
# failing sequence is printed either way)
SHRINK = os.environ.get("TONGIAKI_STATEFUL_SHRINK") == "1"
RUNS: dict[str, int] = {}  # steps run per setting (printed at the end of the session)


@dataclass
class Cluster:
    """The processes under test and what the test needs to talk to them."""

    name: str
    servers: list[Server]
    env: dict[str, str]
    auditor: str = ""
    https: list[Http] = field(default_factory=list)
    log_key: Verifier | None = None  # the transparency log's, from GET /log/key

    def cli(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "service.cli", *args],
            cwd=ROOT,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=120,
        )


def make_auditor(cluster: Cluster) -> None:
    done = cluster.cli("auditor", "create", "stateful auditor")
    assert done.returncode == 0, done.stderr
    cluster.auditor = done.stdout.split("token: ")[1].strip()
    cluster.https = [s.http() for s in cluster.servers if s.port]
    key = cluster.servers[0].http("/log").call("GET", "/key").raw.decode().strip()
    cluster.log_key = Verifier.parse(key)


@pytest.fixture(scope="module")
def embedded_cluster(tmp_path_factory) -> Iterator[Cluster]:
    tmp = tmp_path_factory.mktemp("stateful-embedded")
    with embedded(tmp) as server:
        cluster = Cluster("embedded", [server], server.env)
        make_auditor(cluster)
        yield cluster


@pytest.fixture(scope="module")
def production_cluster(tmp_path_factory, postgres_url, redis_url) -> Iterator[Cluster]:
    import uuid

    import psycopg

    tmp = tmp_path_factory.mktemp("stateful-production")
    schema = f"t_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
    url = f"{postgres_url}{'&' if '?' in postgres_url else '?'}options=-csearch_path%3D{schema}"
    try:
        with production(tmp, url, redis_url, queue=f"stateful-{schema}") as servers:
            cluster = Cluster("production", servers, servers[0].env)
            make_auditor(cluster)
            yield cluster
    finally:
        with psycopg.connect(postgres_url, autocommit=True) as conn:
            conn.execute(f"DROP SCHEMA {schema} CASCADE")


@dataclass
class Account:
    account_id: str
    token: str


@dataclass
class Game:
    game_id: str
    max_players: int
    seats: dict[str, str] = field(default_factory=dict)  # account id -> colour
    started: bool = False
    ended: bool = False
    # Idempotency-Key -> (account, command, If-Match, receipt) of its accepted use
    keys: dict[str, tuple[str, object, str, dict]] = field(default_factory=dict)
    commits: list[tuple[int, str]] = field(default_factory=list)  # last version, its hash


class Service(RuleBasedStateMachine):
    """The service as its users see it."""

    cluster: Cluster  # set before each run

    accounts = Bundle("accounts")

    def __init__(self) -> None:
        super().__init__()
        self.games: dict[str, Game] = {}
        self.known: dict[str, str] = {}  # every account made: id -> token
        self.rng = random.Random(0)
        self.steps = 0

    # --- talking to the service --------------------------------------------------

    def http(self, which: int) -> Http:
        https = self.cluster.https
        return https[which % len(https)]

    def call(
        self, which: int, method: str, path: str, body=None, token=None, headers=None, raw=None
    ) -> Reply:
        reply = self.http(which).call(method, path, body, token, headers, raw)
        assert reply.status < 500, (method, path, body, reply.status, reply.raw[:500])
        if reply.status >= 400:
            assert reply.content_type == PROBLEM, (method, path, reply.status, reply.headers)
            assert reply.json["status"] == reply.status and reply.json["code"]
        return reply

    def head(self, game_id: str) -> int:
        reply = self.call(0, "GET", f"/games/{game_id}")
        assert reply.status == 200
        return reply.json["version"]

    def legal(self, game_id: str, which: int = 0) -> dict:
        reply = self.call(which, "GET", f"/games/{game_id}/legal")
        assert reply.status == 200
        return reply.json

    def open_games(self, *, started: bool | None = None, ended: bool = False) -> list[Game]:
        return [
            g
            for g in self.games.values()
            if g.ended == ended and (started is None or g.started == started)
        ]

    # --- invariants of one game ------------------------------------------------------

    def check_game(self, game: Game) -> None:
        """Versions gapless; journal and events agree; a finished game verifies."""
        events, after = [], 0
        while True:
            page = self.call(0, "GET", f"/games/{game.game_id}/events?after={after}&limit=1000")
            events += page.json["events"]
            if not page.json["events"]:
                break
            after = page.json["next_after"]
        versions = [e["version"] for e in events]
        assert versions == list(range(1, len(events) + 1)), versions
        journal, after = [], 0
        while True:
            page = self.call(
                0,
                "GET",
                f"/games/{game.game_id}/journal?after={after}&limit=1000",
                None,
                self.cluster.auditor,
            )
            assert page.status == 200, page.json
            journal += page.json["commands"]
            if not page.json["commands"]:
                break
            after = page.json["next_after"]
        accepted = sorted(
            (c for c in journal if c["outcome"] == "accepted"), key=lambda c: c["first_version"]
        )
        covered = []
        for c in accepted:
            span = range(c["first_version"], c["last_version"] + 1)
            covered += list(span)
            assert {events[v - 1]["metadata"]["command_id"] for v in span} == {c["command_id"]}
        assert covered == versions, "the accepted commands' events are exactly the stream"
        game.commits = [
            (c["last_version"], events[c["last_version"] - 1]["hash"]) for c in accepted
        ]
        ended = bool(events) and events[-1]["type"] == "DeckRevealed"
        if ended and not game.ended:
            game.ended = True
            self.verify(game)

    def verify(self, game: Game) -> None:
        logged_head(self.http(0), game.game_id)
        reports = [
            self.call(i, "GET", f"/games/{game.game_id}/verify").json
            for i in range(len(self.cluster.https))
        ]
        done = self.cluster.cli("verify", "--json", game.game_id)
        by_cli = json.loads(done.stdout)
        assert all(r == by_cli for r in reports), (reports, by_cli)
        assert by_cli["ok"] and by_cli["deck_revealed"], by_cli

    # --- rules -------------------------------------------------------------------------

    @initialize(target=accounts, n=st.integers(2, 4))
    def some_accounts(self, n):
        made = []
        for i in range(n):
            reply = self.call(i, "POST", "/accounts", {"name": f"user {i}"})
            assert reply.status == 201
            made.append(Account(reply.json["account_id"], reply.json["token"]))
            self.known[made[-1].account_id] = made[-1].token
        return multiple(*made)

    @rule(target=accounts, which=st.integers(0, 3), name=st.text(min_size=0, max_size=70))
    def create_account(self, which, name):
        self.steps += 1
        reply = self.call(which, "POST", "/accounts", {"name": name})
        fine = (
            1 <= len(name) <= 64
            and name.strip()
            and not any(unicodedata.category(c) == "Cc" for c in name)
        )
        assert reply.status == (201 if fine else 422), (name, reply.json)
        if reply.status == 201:
            self.known[reply.json["account_id"]] = reply.json["token"]
            return Account(reply.json["account_id"], reply.json["token"])
        return multiple()

    @rule(owner=accounts, which=st.integers(0, 3), players=st.integers(2, 4))
    def create_game(self, owner, which, players):
        self.steps += 1
        reply = self.call(which, "POST", "/games", {"max_players": players}, owner.token)
        assert reply.status == 201, reply.json
        game = Game(reply.json["game_id"], players)
        self.games[game.game_id] = game
        self.check_game(game)

    @precondition(lambda self: self.open_games(started=False))
    @rule(data=st.data(), who=accounts, which=st.integers(0, 3))
    def join(self, data, who, which):
        self.steps += 1
        game = data.draw(st.sampled_from(self.open_games(started=False)))
        colour = data.draw(st.sampled_from(COLOURS))
        version = self.head(game.game_id)
        reply = self.call(
            which, "POST", f"/games/{game.game_id}/seats", {"colour": colour}, who.token
        )
        if who.account_id in game.seats:
            expected = (409, "already_seated")
        elif len(game.seats) >= game.max_players:
            expected = (409, "table_full")
        elif colour in game.seats.values():
            expected = (409, "colour_taken")
        else:
            expected = (201, None)
        assert (reply.status, reply.json.get("code")) == expected, reply.json
        if reply.status == 201:
            game.seats[who.account_id] = colour
        else:
            assert self.head(game.game_id) == version
        self.check_game(game)

    @precondition(lambda self: self.open_games())
    @rule(data=st.data(), who=accounts, which=st.integers(0, 3))
    def start(self, data, who, which):
        self.steps += 1
        game = data.draw(st.sampled_from(self.open_games()))
        version = self.head(game.game_id)
        reply = self.call(which, "POST", f"/games/{game.game_id}/start", None, who.token)
        if who.account_id not in game.seats:
            expected = (403, "not_seated")
        elif game.started:
            expected = (409, "unexpected_command")
        elif len(game.seats) < 2:
            expected = (409, "not_enough_players")
        else:
            expected = (200, None)
        assert (reply.status, reply.json.get("code")) == expected, (reply.json, game)
        if reply.status == 200:
            game.started = True
        else:
            assert self.head(game.game_id) == version
        self.check_game(game)

    @precondition(lambda self: self.open_games(started=True))
    @rule(data=st.data(), which=st.integers(0, 3), moves=st.integers(1, 6), keyed=st.booleans())
    def play_legal(self, data, which, moves, keyed):
        """The active player posts legal moves; keyed moves are retried and must replay."""
        self.steps += 1
        game = data.draw(st.sampled_from(self.open_games(started=True)))
        tokens = self.tokens()
        for n in range(moves):
            legal = self.legal(game.game_id, which + n)
            if legal["decision"] is None:
                break
            choice = data.draw(st.sampled_from(legal["commands"]))
            headers = {"If-Match": f'"{legal["version"]}"'}
            if keyed:
                headers["Idempotency-Key"] = f"k{self.steps}-{n}"
            token = tokens[legal["player_id"]]
            reply = self.call(
                which + n, "POST", f"/games/{game.game_id}/commands", choice, token, headers
            )
            assert reply.status == 200, reply.json
            if keyed:
                game.keys[headers["Idempotency-Key"]] = (
                    legal["player_id"],
                    choice,
                    headers["If-Match"],
                    reply.json["receipt"],
                )
                again = self.call(
                    which + n + 1, "POST", f"/games/{game.game_id}/commands", choice, token, headers
                )
                assert again.status == 200 and again.json["replayed"], again.json
                assert again.json["receipt"] == reply.json["receipt"]
        self.check_game(game)

    @precondition(lambda self: any(g.keys for g in self.games.values()))
    @rule(data=st.data(), which=st.integers(0, 3), foreign=st.booleans())
    def reuse_a_key(self, data, which, foreign):
        """The same key with another body is 422; another account's same key is its own."""
        self.steps += 1
        game = data.draw(st.sampled_from([g for g in self.games.values() if g.keys]))
        key = data.draw(st.sampled_from(sorted(game.keys)))
        owner, choice, if_match, receipt = game.keys[key]
        tokens = self.tokens()
        version = self.head(game.game_id)
        path = f"/games/{game.game_id}/commands"
        if foreign:
            other = next((a for a in tokens if a != owner), None)
            if other is None:
                return
            reply = self.call(which, "POST", path, choice, tokens[other], {"Idempotency-Key": key})
            assert not reply.json.get("replayed"), reply.json
            if reply.status != 200:
                assert self.head(game.game_id) == version
        elif data.draw(st.booleans()):  # the owner retries, later: the original answer
            headers = {"Idempotency-Key": key, "If-Match": if_match}
            reply = self.call(which, "POST", path, choice, tokens[owner], headers)
            assert reply.status == 200 and reply.json["replayed"], reply.json
            assert reply.json["receipt"] == receipt
            assert self.head(game.game_id) == version
        else:
            body = {"type": "PlaceBoats", "other": key}
            reply = self.call(which, "POST", path, body, tokens[owner], {"Idempotency-Key": key})
            assert (reply.status, reply.json["code"]) == (422, "idempotency_key_reused"), reply.json
            assert self.head(game.game_id) == version
        self.check_game(game)

    @precondition(lambda self: self.open_games(started=True))
    @rule(data=st.data(), which=st.integers(0, 3), seated=st.booleans(), stranger=accounts)
    def wrong_account(self, data, which, seated, stranger):
        """A legal command from someone whose move it is not: refused, nothing changes."""
        self.steps += 1
        game = data.draw(st.sampled_from(self.open_games(started=True)))
        legal = self.legal(game.game_id)
        if legal["decision"] is None:
            return
        tokens = self.tokens()
        if seated:
            who = next((a for a in game.seats if a != legal["player_id"]), None)
            token, expected = (tokens[who], (403, "not_your_turn")) if who else (None, None)
        else:
            token = stranger.token
            expected = (403, "not_seated") if stranger.account_id not in game.seats else None
        if token is None or expected is None:
            return
        choice = data.draw(st.sampled_from(legal["commands"]))
        reply = self.call(which, "POST", f"/games/{game.game_id}/commands", choice, token)
        assert (reply.status, reply.json["code"]) == expected, reply.json
        assert self.head(game.game_id) == legal["version"]
        self.check_game(game)

    @precondition(lambda self: self.open_games(started=True))
    @rule(
        data=st.data(),
        which=st.integers(0, 3),
        payload=st.one_of(
            st.fixed_dictionaries(
                {"type": st.sampled_from(["Expand", "Land", "PlaceTile", "Emigrate", "Nope"])}
            ),
            st.dictionaries(
                st.text(max_size=5), st.integers(-(2**40), 2**40) | st.text(max_size=5), max_size=3
            ),
            st.fixed_dictionaries(
                {"type": st.just("PlaceStartingBoat"), "beach": st.integers(-5, 2**31 - 1)}
            ),
        ),
    )
    def illegal_command(self, data, which, payload):
        """The active player sends something malformed or against the rules."""
        self.steps += 1
        game = data.draw(st.sampled_from(self.open_games(started=True)))
        legal = self.legal(game.game_id)
        if legal["decision"] is None:
            return
        if any(c == payload for c in legal["commands"]):
            return
        token = self.tokens()[legal["player_id"]]
        reply = self.call(which, "POST", f"/games/{game.game_id}/commands", payload, token)
        assert reply.status in (400, 409, 422), reply.json
        assert self.head(game.game_id) == legal["version"]
        self.check_game(game)

    @precondition(lambda self: self.open_games(started=True))
    @rule(data=st.data(), first=st.integers(0, 3))
    def race(self, data, first):
        """Two processes get two moves for one version at once: one wins, one is stale."""
        self.steps += 1
        game = data.draw(st.sampled_from(self.open_games(started=True)))
        legal = self.legal(game.game_id)
        if legal["decision"] is None or len(legal["commands"]) < 2:
            return
        a, b = data.draw(
            st.lists(
                st.sampled_from(legal["commands"]), min_size=2, max_size=2, unique_by=json.dumps
            )
        )
        token = self.tokens()[legal["player_id"]]
        headers = {"If-Match": f'"{legal["version"]}"'}
        replies: list[Reply] = []

        def post(which, body):
            own = Http(self.http(which).port)
            replies.append(
                own.call("POST", f"/games/{game.game_id}/commands", body, token, headers)
            )
            own.close()

        threads = [
            threading.Thread(target=post, args=(first + i, body)) for i, body in enumerate((a, b))
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        statuses = sorted(r.status for r in replies)
        assert statuses == [200, 409], [(r.status, r.json) for r in replies]
        loser = next(r for r in replies if r.status == 409)
        assert loser.json["code"] == "stale_version" and loser.content_type == PROBLEM
        self.check_game(game)

    @precondition(lambda self: self.games)
    @rule(data=st.data(), which=st.integers(0, 3), back=st.integers(0, 50))
    def read_stream(self, data, which, back):
        """A spectator resumes the stream after some version: the events come in order."""
        self.steps += 1
        game = data.draw(st.sampled_from(list(self.games.values())))
        head = self.head(game.game_id)
        after = max(0, head - back)
        reply = self.call(
            which,
            "GET",
            f"/games/{game.game_id}/stream?timeout=1",
            headers={"Last-Event-ID": str(after)},
        )
        assert reply.status == 200 and reply.content_type == "text/event-stream"
        ids = [int(line[4:]) for line in reply.raw.decode().splitlines() if line.startswith("id: ")]
        assert ids[: head - after] == list(range(after + 1, head + 1)), (after, head, ids[:5])

    @precondition(lambda self: self.games)
    @rule(
        data=st.data(),
        which=st.integers(0, 3),
        who=accounts,
        raw=st.sampled_from(
            [
                b"{" * 3000,
                b"[" * 20 + b"]" * 20,
                b'{"type": "Expand", "island": "' + b"x" * 20_000 + b'"}',
                b'{"type": "Expand", "island": "\\ud800"}',
                b'{"type": "Expand", "n": 1e999}',
                b"\x00\x01\x02",
                b"",
            ]
        ),
        path=st.sampled_from(["commands", "seats", "start"]),
    )
    def malformed_body(self, data, which, who, raw, path):
        self.steps += 1
        game = data.draw(st.sampled_from(list(self.games.values())))
        version = self.head(game.game_id)
        reply = self.call(which, "POST", f"/games/{game.game_id}/{path}", None, who.token, raw=raw)
        if reply.status in (200, 201):  # an empty body is a fine start, nothing else
            assert raw == b"" and path == "start", reply.json
            game.started = True
        else:
            assert 400 <= reply.status < 500
            assert self.head(game.game_id) == version
        self.check_game(game)

    @precondition(lambda self: self.open_games(started=True))
    @rule(data=st.data(), which=st.integers(0, 3))
    def play_to_the_end(self, data, which):
        """Bots finish a game (the command's answer carries the next legal moves)."""
        self.steps += 1
        game = data.draw(st.sampled_from(self.open_games(started=True)))
        tokens = self.tokens()
        rng = random.Random(data.draw(st.integers(0, 2**16)))
        legal = self.legal(game.game_id, which)
        for n in range(5000):
            if legal["decision"] is None:
                break
            reply = self.call(
                which + n,
                "POST",
                f"/games/{game.game_id}/commands?include=legal",
                rng.choice(legal["commands"]),
                tokens[legal["player_id"]],
                {"If-Match": f'"{legal["version"]}"'},
            )
            assert reply.status == 200, reply.json
            legal = reply.json["legal"]
        self.check_game(game)
        assert game.ended

    # --- offers at the table (docs/table.md, T1–T8) -----------------------------------

    def send_offer(self, which, game, account_id, kind, **fields) -> Reply:
        body = {"type": kind, "player_id": account_id, **fields}
        token = self.tokens()[account_id]
        return self.call(which, "POST", f"/games/{game.game_id}/commands", body, token)

    def offers(self, game: Game) -> dict:
        return self.call(0, "GET", f"/games/{game.game_id}").json["offers"]

    @precondition(lambda self: self.open_games(started=True))
    @rule(data=st.data(), which=st.integers(0, 3), race_a_move=st.booleans())
    def takeback(self, data, which, race_a_move):
        """A seated player asks to take back their last decision; the others answer (two
        at once, on two processes), or the last answer races the next move: exactly one
        outcome, and the game still verifies (T1–T4)."""
        self.steps += 1
        game = data.draw(st.sampled_from(self.open_games(started=True)))
        asker = data.draw(st.sampled_from(sorted(game.seats)))
        asked = self.send_offer(which, game, asker, "RequestTakeback")
        if asked.status == 409:
            assert asked.json["code"] in TAKEBACK_REFUSALS, asked.json
            self.check_game(game)
            return
        assert asked.status == 200, asked.json
        waiting = self.offers(game)["takeback"]
        if waiting is not None:  # (with nobody to ask it happened at once)
            answers = {a: data.draw(st.booleans()) for a in waiting["waiting_for"]}
            if race_a_move and all(answers.values()):
                self.answer_racing_a_move(game, which, answers)
            else:
                self.answer_at_once(game, which, answers)
        assert self.offers(game)["takeback"] is None
        self.check_game(game)

    def answer_at_once(self, game, which, answers) -> None:
        replies: list[Reply] = []

        def answer(i, account_id, accept):
            replies.append(
                self.send_offer(which + i, game, account_id, "AnswerTakeback", accept=accept)
            )

        threads = [
            threading.Thread(target=answer, args=(i, a, ok))
            for i, (a, ok) in enumerate(answers.items())
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        for r in replies:  # an answer after a refusal finds no takeback left
            assert r.status == 200 or r.json["code"] == "no_takeback", r.json
        names = [e["type"] for e in self.events_of(game)]
        assert names.count("TakebackRequested") == (
            names.count("MovesTakenBack")
            + names.count("TakebackRefused")
            + names.count("TakebackExpired")
            + names.count("TakebackWithdrawn")
        )

    def answer_racing_a_move(self, game, which, answers) -> None:
        *first, last = answers
        for i, a in enumerate(first):
            assert self.send_offer(which + i, game, a, "AnswerTakeback", accept=True).status == 200
        legal = self.legal(game.game_id)
        if legal["decision"] is None:
            return
        replies: dict[str, Reply] = {}
        token = self.tokens()[legal["player_id"]]
        headers = {"If-Match": f'"{legal["version"]}"'}

        def accept():
            replies["answer"] = self.send_offer(which, game, last, "AnswerTakeback", accept=True)

        def move():
            replies["move"] = self.call(
                which + 1,
                "POST",
                f"/games/{game.game_id}/commands",
                legal["commands"][0],
                token,
                headers,
            )

        threads = [threading.Thread(target=accept), threading.Thread(target=move)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        answer, moved = replies["answer"], replies["move"]
        if answer.status == 200:  # the takeback first: the move was judged on a stale version
            assert moved.status == 409 and moved.json["code"] == "stale_version", moved.json
        else:  # the move first: it ended the request (T4)
            assert answer.json["code"] == "no_takeback" and moved.status == 200, answer.json
            assert moved.json["events"][0]["type"] == "TakebackExpired", moved.json

    def events_of(self, game: Game) -> list[dict]:
        events, after = [], 0
        while True:
            page = self.call(0, "GET", f"/games/{game.game_id}/events?after={after}&limit=1000")
            events += page.json["events"]
            if not page.json["events"]:
                return events
            after = page.json["next_after"]

    @precondition(lambda self: self.open_games(started=True))
    @rule(data=st.data(), which=st.integers(0, 3))
    def end_by_agreement(self, data, which):
        """A player proposes to end the game; the others answer: it ends only when all
        accept, scored and verified like any finished game (T6)."""
        self.steps += 1
        game = data.draw(st.sampled_from(self.open_games(started=True)))
        proposer = data.draw(st.sampled_from(sorted(game.seats)))
        proposed = self.send_offer(which, game, proposer, "ProposeEnd")
        assert proposed.status == 200, proposed.json
        others = [a for a in sorted(game.seats) if a != proposer]
        accepts = [data.draw(st.booleans()) for _ in others]
        for i, (a, ok) in enumerate(zip(others, accepts, strict=True)):
            answered = self.send_offer(which + i + 1, game, a, "AnswerEnd", accept=ok)
            assert answered.status == 200, answered.json
            if not ok:
                break
        view = self.call(0, "GET", f"/games/{game.game_id}").json
        assert (view["status"] == "ended") == all(accepts), view["status"]
        self.check_game(game)

    # --- the chat and private notes: beside the game's record, never in it -------------

    @precondition(lambda self: self.games)
    @rule(data=st.data(), which=st.integers(0, 3), who=accounts, text=st.text(max_size=520))
    def chat(self, data, which, who, text):
        """Anyone signed in speaks in a channel: only their own is open (M1); bad text or
        too fast is a problem naming its rule (M3, M4); a message said is read back on
        another process; the game's own record does not move (M9)."""
        game = data.draw(st.sampled_from(sorted(self.games.values(), key=lambda g: g.game_id)))
        channel = data.draw(st.sampled_from(["table", "spectators"]))
        mine = "table" if who.account_id in game.seats else "spectators"
        before = self.head(game.game_id)
        body = {"channel": channel, "text": text}
        said = self.call(which, "POST", f"/games/{game.game_id}/chat", body, who.token)
        assert self.head(game.game_id) == before, "the chat moved the game's record"
        if said.status != 201:
            assert said.status in (403, 422, 429), said.json
            assert said.json.get("rule", "M")[0] == "M" or said.json["code"] == "invalid_fields"
            return
        assert channel == mine, said.json
        seq = said.json["seq"]
        page = self.call(
            which + 1,
            "GET",
            f"/games/{game.game_id}/chat?channel={channel}&after={seq - 1}",
            None,
            who.token,
        )
        assert page.status == 200 and any(m["seq"] == seq for m in page.json["messages"])

    @precondition(lambda self: self.games)
    @rule(data=st.data(), which=st.integers(0, 3), who=accounts, text=st.text(max_size=80))
    def note(self, data, which, who, text):
        """A private note on the game or a move: a seated player's only (N1), read back
        as written on another process, never seen by anyone else, never in the record."""
        game = data.draw(st.sampled_from(sorted(self.games.values(), key=lambda g: g.game_id)))
        head = self.head(game.game_id)
        where = data.draw(st.sampled_from(["game", str(data.draw(st.integers(1, head)))]))
        path = f"/games/{game.game_id}/notes/{where}"
        wrote = self.call(which, "PUT", path, {"text": text}, who.token)
        assert self.head(game.game_id) == head, "a note moved the game's record"
        if who.account_id not in game.seats:
            assert wrote.status == 403 and wrote.json["rule"] == "N1", wrote.json
            return
        if wrote.status != 200:
            assert wrote.status == 422, wrote.json
            return
        again = self.call(which + 1, "GET", path, None, who.token)
        assert again.status == 200 and again.json["text"] == wrote.json["text"], again.json
        stranger = next((t for a, t in self.known.items() if a not in game.seats), None)
        if stranger is not None:
            assert self.call(which + 2, "GET", path, None, stranger).status == 403

    def tokens(self) -> dict[str, str]:
        return dict(self.known)

    @invariant()
    def counted(self):
        RUNS[self.cluster.name] = RUNS.get(self.cluster.name, 0) + 1

    def check_logged(self, game: Game) -> None:
        """Every commit of the game in the public log once, with the head it has (issue
        28), within the merge delay; each receipt's promise matches its entry."""
        deadline = time.monotonic() + 60
        for version, head in game.commits:
            while (
                found := self.call(0, "GET", f"/games/{game.game_id}/proof?version={version}")
            ).status != 200:
                assert found.json["code"] == "not_logged" and time.monotonic() < deadline, (
                    found.json
                )
                time.sleep(0.05)
            entry = HeadEntry.parse(found.json["entry"].encode())
            assert (entry.stream, entry.version, entry.head) == (
                f"game/{game.game_id}",
                version,
                head,
            )
        logged = dict(game.commits)
        for _, _, _, receipt in game.keys.values():
            assert self.cluster.log_key is not None
            promise = check_promise(receipt["promise"], self.cluster.log_key)
            assert logged.get(promise.version) == promise.head, promise

    def teardown(self):
        for game in self.games.values():
            self.check_game(game)
            self.check_logged(game)


def run(cluster: Cluster) -> None:
    Service.cluster = cluster
    run_state_machine_as_test(
        Service,
        settings=settings(
            max_examples=EXAMPLES,
            stateful_step_count=25,
            deadline=None,
            derandomize=not RANDOM,
            database=None,
            phases=[Phase.explicit, Phase.generate, *([Phase.shrink] if SHRINK else [])],
            suppress_health_check=list(HealthCheck),
        ),
    )


def test_the_embedded_default_keeps_every_promise(embedded_cluster):
    run(embedded_cluster)


def test_two_web_processes_on_postgresql_keep_every_promise(production_cluster):
    run(production_cluster)


def pytest_terminal_summary_lines() -> list[str]:
    return [f"stateful: {n} steps on {name}" for name, n in RUNS.items()]


@pytest.fixture(scope="module", autouse=True)
def report_runs(request):
    yield
    if RUNS:
        Path(ROOT / "test-output").mkdir(exist_ok=True)
        (ROOT / "test-output" / "stateful-runs.json").write_text(json.dumps(RUNS))
        print("\n" + "; ".join(pytest_terminal_summary_lines()))
