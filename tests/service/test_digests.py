""" "Your move" reminders, batched per quiet period (service.notifications.digests, issue 26): in a
fast game against an absent seat a player got 114 mails in two minutes.

Time is frozen (freezegun) and moved by hand; mail goes to a real SMTP server on
127.0.0.1 (aiosmtpd), on both stores. The deliverer's steps are run by the test
(the app has no deliverer thread of its own here).
"""

from __future__ import annotations

import email
import time
from datetime import UTC, datetime, timedelta

import pytest
from freezegun import freeze_time

from service.app import create_app
from service.runtime.settings import Settings
from service.store.postgres import PostgresEventStore
from service.store.sqlite import SQLiteEventStore
from tests.service.api import Player

T0 = datetime(2026, 11, 27, 9, 0, tzinfo=UTC)
# the SMTP server's event loop and the senders keep real time
REAL = ["asyncio", "aiosmtpd", "concurrent", "smtplib", "socket", "selectors"]


@pytest.fixture(params=["sqlite", "postgres"])
def app(request, tmp_path, sink):
    settings = Settings(
        data_dir=tmp_path,
        testing=True,
        rate_limits={},
        smtp_url=f"smtp://127.0.0.1:{sink.port}",
        mail_from="tables@tongiaki.test",
        public_url="https://tables.example.org",
    )
    if request.param == "sqlite":
        store = SQLiteEventStore(tmp_path / "d.db")
    else:
        _, url = request.getfixturevalue("pg_schema")
        store = PostgresEventStore(url, max_size=4)
    application = create_app(settings, store=store, sweep=False)
    yield application
    store.close()


@pytest.fixture
def sink():
    from tests.service.test_notify import Sink

    s = Sink()
    yield s
    s.close()


def deliver(app, sink, expected: int) -> list[email.message.Message]:
    """One round of the deliverer; the mails it sent (``expected`` of them)."""
    notifier = app.extensions["tongiaki.notify"]
    before = len(sink.messages)
    notifier.round(remind=False)
    notifier.send_due(notifier.clock())
    deadline = time.monotonic() + 10
    while len(sink.messages) < before + expected and time.monotonic() < deadline:
        time.sleep(0.02)
    time.sleep(0.05 if expected == 0 else 0)
    sent = sink.messages[before:]
    assert len(sent) == expected, [m[2][:300] for m in sent]
    return [email.message_from_bytes(content) for _, _, content in sent]


def mail_to(player: Player, **choices: object) -> None:
    r = player.client.put(
        "/api/v1/me/notifications/settings",
        json={"email": f"{player.id}@example.org", **choices},
        headers=player.headers,
    )
    assert r.status_code == 200, r.json


def new_game(client, ann: Player, bob: Player) -> str:
    """A started two-player game where ann (blue) moves first."""
    game_id = ann.post("/games", {"max_players": 2}).json["game_id"]
    assert ann.post(f"/games/{game_id}/seats", {"colour": "blue"}).status_code == 201
    assert bob.post(f"/games/{game_id}/seats", {"colour": "red"}).status_code == 201
    assert bob.post(f"/games/{game_id}/start").status_code == 200
    return game_id


def move(client, game_id: str, players: dict[str, Player]) -> str:
    """The player to move makes their first legal move; who it was."""
    legal = client.get(f"/api/v1/games/{game_id}/legal").json
    mover = players[legal["player_id"]]
    r = mover.post(f"/games/{game_id}/commands", legal["commands"][0])
    assert r.status_code == 200, r.json
    return legal["player_id"]


def to_move(client, game_id: str) -> str | None:
    return client.get(f"/api/v1/games/{game_id}/legal").json["player_id"]


def test_a_fast_game_gives_one_reminder_per_quiet_period(app, sink):
    client = app.test_client()
    with freeze_time(T0, ignore=REAL) as clock:
        ann, bob = Player(client, "ann"), Player(client, "bob")
        players = {ann.id: ann, bob.id: bob}
        mail_to(ann)  # batched, the server's 15 minutes
        game_id = new_game(client, ann, bob)
        first = deliver(app, sink, 1)  # the first goes out at once
        assert first[0]["Subject"] == "Tongiaki: It is your move."
        # two minutes of a fast game: the move comes back to ann again and again
        told = 0
        for _ in range(60):
            clock.tick(timedelta(seconds=2))
            move(client, game_id, players)
            told += to_move(client, game_id) == ann.id
            deliver(app, sink, 0)
        assert told >= 10
        # the quiet period ends: one more, if it is ann's move then
        while to_move(client, game_id) != ann.id:
            move(client, game_id, players)
        clock.move_to(T0 + timedelta(minutes=15))
        second = deliver(app, sink, 1)
        assert second[0]["Subject"] == "Tongiaki: It is your move."
        assert f"https://tables.example.org/games/{game_id}" in second[0].get_payload()
        deliver(app, sink, 0)
    # the outbox tells what became of each: delivered, or told in the digest
    shown = ann.get("/me/notifications?limit=200").json["notifications"]
    statuses = [n["deliveries"][0]["status"] for n in shown if n["kind"] == "your_move"]
    assert statuses.count("delivered") == 2
    assert statuses.count("batched") + statuses.count("skipped") == len(statuses) - 2
    batched = next(n for n in shown if n["deliveries"][0]["status"] == "batched")
    assert batched["deliveries"][0]["last_error"].startswith("told in the digest sent with")


def test_several_games_waiting_make_one_digest_and_a_game_no_longer_waiting_is_left_out(app, sink):
    client = app.test_client()
    with freeze_time(T0, ignore=REAL) as clock:
        ann, bob = Player(client, "ann"), Player(client, "bob")
        players = {ann.id: ann, bob.id: bob}
        mail_to(ann)
        new_game(client, ann, bob)
        deliver(app, sink, 1)
        clock.tick(timedelta(minutes=1))
        games = [new_game(client, ann, bob) for _ in range(3)]  # ann to move in each
        deliver(app, sink, 0)  # quiet
        move(client, games[2], players)  # ann moves in the third: it is bob's now
        assert to_move(client, games[2]) == bob.id
        clock.tick(timedelta(minutes=14))
        (digest,) = deliver(app, sink, 1)
        assert digest["Subject"] == "Tongiaki: It is your move in 2 games."
        body = digest.get_payload()
        for game_id in games[:2]:
            assert f"https://tables.example.org/games/{game_id}" in body
        assert games[2] not in body
        clock.tick(timedelta(minutes=30))
        deliver(app, sink, 0)  # nothing new: nothing sent
    shown = ann.get("/me/notifications?limit=50").json["notifications"]
    by_game = {n["game_id"]: n["deliveries"][0] for n in shown if n["kind"] == "your_move"}
    assert by_game[games[2]]["status"] == "skipped"
    sent = [d["games"] for g, d in by_game.items() if d["games"] and g in games]
    assert len(sent) == 1 and sorted(sent[0]) == sorted(games[:2]), sent


def test_every_sends_each_one_and_never_sends_none(app, sink):
    client = app.test_client()
    with freeze_time(T0, ignore=REAL) as clock:
        ann, bob = Player(client, "ann"), Player(client, "bob")
        players = {ann.id: ann, bob.id: bob}
        mail_to(ann, your_move="every")
        mail_to(bob, your_move="never")
        game_id = new_game(client, ann, bob)
        deliver(app, sink, 1)
        for _ in range(3):  # ann, then bob, back to ann: each of ann's is sent
            clock.tick(timedelta(seconds=5))
            while to_move(client, game_id) == ann.id:
                move(client, game_id, players)
            while to_move(client, game_id) == bob.id:
                move(client, game_id, players)
            deliver(app, sink, 1)
        shown = bob.get("/me/notifications").json["notifications"]
        assert shown and all(n["deliveries"] == [] for n in shown)


def test_the_choices_are_shown_checked_and_kept(app):
    client = app.test_client()
    ann = Player(client, "ann")
    shown = ann.get("/me/notifications/settings").json
    assert shown["your_move"] == "batched" and shown["quiet_minutes"] is None
    assert shown["default_quiet_minutes"] == 15
    for bad in ({"your_move": "sometimes"}, {"quiet_minutes": 0}, {"quiet_minutes": 1441}):
        r = client.put("/api/v1/me/notifications/settings", json=bad, headers=ann.headers)
        assert r.status_code == 422 and r.content_type == "application/problem+json", bad
    r = client.put(
        "/api/v1/me/notifications/settings",
        json={"your_move": "every", "quiet_minutes": 60},
        headers=ann.headers,
    )
    assert r.status_code == 200 and r.json["your_move"] == "every"
    r = client.put(
        "/api/v1/me/notifications/settings", json={"kinds": ["game_over"]}, headers=ann.headers
    )
    assert r.json["your_move"] == "every" and r.json["quiet_minutes"] == 60  # kept
