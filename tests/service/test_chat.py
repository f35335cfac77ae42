"""A game's chat over HTTP (docs/chat.md, M1–M9), on the three stores: who posts and
reads where, bounded text and rate, mutes, reports, an auditor's hide and stop, and a
game's record untouched by any of it."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from service.app import create_app
from service.play.accounts import create_account
from service.runtime.settings import Settings
from service.store.in_memory import InMemoryStore
from service.store.postgres import PostgresEventStore
from service.store.sqlite import SQLiteEventStore
from tests.service.api import Player, open_game


class Clock:
    """The service's time, moved by the test (M4 counts in it)."""

    def __init__(self) -> None:
        self.now = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


@pytest.fixture(params=["memory", "sqlite", "postgres"])
def stack(request, tmp_path):
    """An app on each store, with a clock the test moves."""
    if request.param == "sqlite":
        store: Any = SQLiteEventStore(tmp_path / "t.db")
    elif request.param == "memory":
        store = InMemoryStore()
    else:
        _, url = request.getfixturevalue("pg_schema")
        store = PostgresEventStore(url, max_size=6)
    clock = Clock()
    settings = Settings(data_dir=tmp_path, testing=True, rate_limits={})
    app = create_app(settings, store=store, clock=clock, sweep=False)
    yield app, clock, request.param
    store.close()


class Auditor(Player):
    def __init__(self, client: Any, app: Any, name: str = "audrey") -> None:
        self.client = client
        store = app.extensions["tongiaki.services"].store
        made, token = create_account(store, name, datetime.now(UTC), "auditor")
        self.id = made.account_id
        self.headers = {"Authorization": f"Bearer {token}"}

    def delete(self, path: str) -> Any:
        return self.client.delete(f"/api/v1{path}", headers=self.headers)


@pytest.fixture
def table(stack):
    """A game under way: two players, a spectator, an auditor."""
    app, clock, _ = stack
    client = app.test_client()
    game_id, (ana, bo) = open_game(client, ["red", "blue"])
    return game_id, ana, bo, Player(client, "sam"), Auditor(client, app), clock


def say(who: Player, game_id: str, text: str, channel: str = "table") -> Any:
    return who.post(f"/games/{game_id}/chat", {"channel": channel, "text": text})


def texts(who: Player, game_id: str, query: str = "") -> list[Any]:
    r = who.get(f"/games/{game_id}/chat{query}")
    assert r.status_code == 200, r.json
    return [m["text"] for m in r.json["messages"]]


def refused(r: Any, status: int, code: str, rule: str | None) -> None:
    assert r.status_code == status, r.json
    assert r.headers["Content-Type"].startswith("application/problem+json")
    assert r.json["code"] == code and r.json.get("rule") == rule, r.json


def test_m1_players_post_at_the_table_and_everyone_else_beside_it(table, stack):
    game_id, ana, bo, sam, audrey, _ = table
    assert say(ana, game_id, "  good luck  ").status_code == 201
    assert say(sam, game_id, "go red", "spectators").status_code == 201
    assert say(audrey, game_id, "an auditor watches", "spectators").status_code == 201
    refused(say(sam, game_id, "let me in"), 403, "chat_channel_closed", "M1")
    refused(say(bo, game_id, "psst", "spectators"), 403, "chat_channel_closed", "M1")
    client = stack[0].test_client()
    r = client.post(f"/api/v1/games/{game_id}/chat", json={"channel": "table", "text": "hi"})
    assert r.status_code == 401
    refused(say(ana, "no-such-game", "hi"), 404, "unknown_game", None)
    assert texts(bo, game_id) == ["good luck"]  # trimmed


def test_m2_players_do_not_read_the_spectators_while_they_play_and_do_after(table, stack):
    game_id, ana, bo, sam, audrey, _ = table
    say(ana, game_id, "at the table")
    say(sam, game_id, "beside it", "spectators")
    assert texts(bo, game_id) == ["at the table"]
    refused(bo.get(f"/games/{game_id}/chat?channel=spectators"), 403, "chat_channel_closed", "M2")
    assert texts(sam, game_id) == ["beside it"]
    refused(sam.get(f"/games/{game_id}/chat?channel=table"), 403, "chat_channel_closed", "M2")
    assert texts(audrey, game_id) == ["at the table", "beside it"]
    chat = stack[0].extensions["tongiaki.chat"]
    players = chat.seats(game_id)[0]
    chat.seats = lambda _game: (players, True)  # the game ended
    assert texts(bo, game_id) == ["at the table", "beside it"]
    assert texts(bo, game_id, "?channel=spectators") == ["beside it"]


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("x" * 501, "invalid_fields"),
        ("", "invalid_fields"),
        ("   ", "chat_text"),
        ("two\nlines", "chat_text"),
        ("a bell \x07", "chat_text"),
        ("rtl \u202e", "chat_text"),
        ("zero\u200bwidth", "chat_text"),
    ],
)
def test_m3_a_message_is_one_line_of_1_to_500_characters(table, text, code):
    game_id, ana, bo, *_ = table
    refused(say(ana, game_id, text), 422, code, "M3" if code == "chat_text" else None)
    assert texts(bo, game_id) == []


def test_m3_500_characters_pass_once_trimmed_and_a_body_stays_bounded(table):
    game_id, ana, *_ = table
    assert say(ana, game_id, "é" * 500).status_code == 201
    refused(say(ana, game_id, " " + "x" * 500), 422, "invalid_fields", None)  # as sent
    r = ana.post(f"/games/{game_id}/chat", {"channel": "table", "text": "hi", "extra": 1})
    assert r.status_code == 422


def test_m4_five_messages_in_ten_seconds_then_429_with_retry_after(table):
    game_id, ana, bo, _, _, clock = table
    for i in range(5):
        assert say(ana, game_id, f"m{i}").status_code == 201
        clock.advance(1)
    r = say(ana, game_id, "one more")
    refused(r, 429, "chat_too_fast", "M4")
    assert r.headers["Retry-After"] == "5"  # the first of the five leaves the window then
    assert say(bo, game_id, "my own count").status_code == 201
    clock.advance(5)
    assert say(ana, game_id, "now").status_code == 201


def test_m4_sixty_messages_an_hour(table):
    game_id, ana, _, _, _, clock = table
    for i in range(60):
        assert say(ana, game_id, f"m{i}").status_code == 201, i
        clock.advance(3)
    r = say(ana, game_id, "61st")
    refused(r, 429, "chat_too_fast", "M4")
    assert int(r.headers["Retry-After"]) == 3600 - 180
    clock.advance(3600 - 180)
    assert say(ana, game_id, "61st").status_code == 201


def test_m5_a_mute_hides_an_author_from_the_muter_only_and_is_undone(table):
    game_id, ana, bo, *_ = table
    say(ana, game_id, "hello")
    say(bo, game_id, "blah")
    r = ana.post(f"/games/{game_id}/chat/mutes", {"account_id": bo.id})
    assert r.status_code == 200 and r.json["muted"] == [bo.id]
    assert texts(ana, game_id) == ["hello"]
    assert texts(bo, game_id) == ["hello", "blah"]
    assert bo.get(f"/games/{game_id}/chat").json["muted"] == []  # private to the muter
    refused(
        ana.post(f"/games/{game_id}/chat/mutes", {"account_id": ana.id}),
        409,
        "chat_mute_self",
        "M5",
    )
    refused(
        ana.post(f"/games/{game_id}/chat/mutes", {"account_id": "nobody"}),
        404,
        "unknown_account",
        None,
    )
    r = ana.client.delete(f"/api/v1/games/{game_id}/chat/mutes/{bo.id}", headers=ana.headers)
    assert r.status_code == 200 and r.json["muted"] == []
    assert texts(ana, game_id) == ["hello", "blah"]


def test_m6_a_message_is_reported_once_and_the_queue_is_the_auditors(table):
    game_id, ana, bo, sam, audrey, _ = table
    seq = say(bo, game_id, "rude words").json["seq"]
    r = ana.post(f"/games/{game_id}/chat/{seq}/report", {"reason": "rude"})
    assert r.status_code == 201, r.json
    refused(ana.post(f"/games/{game_id}/chat/{seq}/report", {}), 409, "chat_already_reported", "M6")
    refused(sam.post(f"/games/{game_id}/chat/{seq}/report", {}), 404, "unknown_message", None)
    refused(ana.post(f"/games/{game_id}/chat/999/report", {}), 404, "unknown_message", None)
    refused(ana.get("/chat/reports"), 403, "auditors_only", "M6")
    queue = audrey.get("/chat/reports").json["reports"]
    assert [(q["reporter"], q["reason"], q["message"]["text"]) for q in queue] == [
        (ana.id, "rude", "rude words")
    ]
    assert ana.get(f"/games/{game_id}/chat").json["messages"][0]["reported"] is True


def test_m7_an_auditor_hides_a_message_readers_see_the_reason_auditors_the_text(table):
    game_id, ana, bo, _, audrey, _ = table
    seq = say(bo, game_id, "spoiler").json["seq"]
    after = ana.get(f"/games/{game_id}/chat").json["next_after"]
    refused(
        ana.post(f"/games/{game_id}/chat/{seq}/hide", {"reason": "no"}), 403, "auditors_only", "M7"
    )
    r = audrey.post(f"/games/{game_id}/chat/{seq}/hide", {"reason": "spoilers"})
    assert r.status_code == 200 and r.json["hidden"]["by"] == audrey.id
    refused(
        audrey.post(f"/games/{game_id}/chat/{seq}/hide", {"reason": "again"}),
        409,
        "chat_message_hidden",
        "M7",
    )
    refused(
        audrey.post(f"/games/{game_id}/chat/{seq}/hide", {"reason": " "}), 422, "chat_text", "M3"
    )
    seen = ana.get(f"/games/{game_id}/chat").json["messages"][0]
    assert seen["text"] is None and seen["hidden"] == {
        "reason": "spoilers",
        "at": seen["hidden"]["at"],
    }
    assert audrey.get(f"/games/{game_id}/chat").json["messages"][0]["text"] == "spoiler"
    page = ana.get(f"/games/{game_id}/chat?after={after}").json  # a page shown before
    assert page["messages"] == [] and page["hidden"][0]["seq"] == seq
    refused(ana.post(f"/games/{game_id}/chat/{seq}/report", {}), 409, "chat_message_hidden", "M7")


def test_m8_an_auditor_stops_an_account_from_chatting_everywhere_and_lifts_it(table, stack):
    game_id, ana, bo, sam, audrey, _ = table
    refused(
        ana.post("/chat/stops", {"account_id": bo.id, "reason": "x"}), 403, "auditors_only", "M8"
    )
    r = audrey.post("/chat/stops", {"account_id": sam.id, "reason": "insults"})
    assert r.status_code == 201 and r.json["reason"] == "insults"
    refused(say(sam, game_id, "hey", "spectators"), 403, "chat_stopped", "M8")
    other, _ = open_game(stack[0].test_client(), ["red", "blue"])
    refused(say(sam, other, "elsewhere", "spectators"), 403, "chat_stopped", "M8")
    assert [s["account_id"] for s in audrey.get("/chat/stops").json["stops"]] == [sam.id]
    assert audrey.delete(f"/chat/stops/{sam.id}").status_code == 204
    refused(audrey.delete(f"/chat/stops/{sam.id}"), 404, "chat_not_stopped", None)
    assert say(sam, game_id, "sorry", "spectators").status_code == 201


def test_m9_the_chat_never_touches_the_games_record(table):
    game_id, ana, bo, sam, audrey, _ = table
    before = ana.get(f"/games/{game_id}/events?after=0&limit=1000").json["events"]
    verified = audrey.get(f"/games/{game_id}/verify").json
    seq = say(ana, game_id, "hi").json["seq"]
    say(sam, game_id, "hi", "spectators")
    ana.post(f"/games/{game_id}/chat/mutes", {"account_id": bo.id})
    bo.post(f"/games/{game_id}/chat/{seq}/report", {})
    audrey.post(f"/games/{game_id}/chat/{seq}/hide", {"reason": "test"})
    assert ana.get(f"/games/{game_id}/events?after=0&limit=1000").json["events"] == before
    assert audrey.get(f"/games/{game_id}/verify").json == verified
    r = audrey.get(f"/games/{game_id}/chat/verify")
    assert r.json == {"stream": game_id, "ok": True, "events": 5, "problems": []}
    refused(ana.get(f"/games/{game_id}/chat/verify"), 403, "auditors_only", "M9")


def test_m9_two_posts_at_once_are_both_kept_one_after_the_other(table):
    game_id, ana, bo, *_ = table
    answers: list[Any] = []
    gate = threading.Barrier(8)

    def post(who: Player, i: int) -> None:
        gate.wait()
        answers.append(say(who, game_id, f"{who.id} {i}"))

    threads = [threading.Thread(target=post, args=(p, i)) for p in (ana, bo) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(a.status_code for a in answers) == [201] * 8, [a.json for a in answers]
    assert sorted(a.json["seq"] for a in answers) == list(range(1, 9))
    assert len(texts(ana, game_id)) == 8


def test_m7_a_hide_racing_a_report_has_one_outcome(table):
    game_id, ana, bo, _, audrey, _ = table
    for round_ in range(4):
        seq = say(bo, game_id, f"line {round_}").json["seq"]
        gate = threading.Barrier(2)
        got: dict[str, Any] = {}

        def report(s: int = seq, gate: Any = gate, got: Any = got) -> None:
            gate.wait()
            got["report"] = ana.post(f"/games/{game_id}/chat/{s}/report", {"reason": "r"})

        def hide(s: int = seq, gate: Any = gate, got: Any = got) -> None:
            gate.wait()
            got["hide"] = audrey.post(f"/games/{game_id}/chat/{s}/hide", {"reason": "h"})

        both = [threading.Thread(target=report), threading.Thread(target=hide)]
        for t in both:
            t.start()
        for t in both:
            t.join()
        assert got["hide"].status_code == 200
        queued = [
            q for q in audrey.get("/chat/reports").json["reports"] if q["message"]["seq"] == seq
        ]
        if got["report"].status_code == 201:  # the report came first: queued, marked hidden
            assert len(queued) == 1 and queued[0]["message"]["hidden"] is not None
        else:
            refused(got["report"], 409, "chat_message_hidden", "M7")
            assert queued == []
    assert audrey.get(f"/games/{game_id}/chat/verify").json["ok"] is True


def test_a_pages_write_needs_its_csrf_token(table, stack):
    game_id, ana, *_ = table
    browser = stack[0].test_client()
    r = browser.post("/api/v1/sessions", headers=ana.headers)
    csrf = r.json["csrf_token"]
    body = {"channel": "table", "text": "from the page"}
    r = browser.post(f"/api/v1/games/{game_id}/chat", json=body)
    refused(r, 403, "csrf_failed", None)
    r = browser.post(f"/api/v1/games/{game_id}/chat", json=body, headers={"X-CSRF-Token": csrf})
    assert r.status_code == 201


def test_a_chat_is_read_a_page_at_a_time_after_a_cursor(table):
    game_id, ana, bo, _, _, clock = table
    for i in range(7):
        say(ana if i % 2 else bo, game_id, f"m{i}")
        clock.advance(3)
    seen: list[str] = []
    after = 0
    while True:
        page = ana.get(f"/games/{game_id}/chat?after={after}&limit=3").json
        seen += [m["text"] for m in page["messages"]]
        after = page["next_after"]
        if not page["has_more"]:
            break
    assert seen == [f"m{i}" for i in range(7)]
    refused(ana.get(f"/games/{game_id}/chat?limit=0"), 422, "bad_query", None)
    refused(ana.get(f"/games/{game_id}/chat?channel=all"), 422, "bad_query", None)
