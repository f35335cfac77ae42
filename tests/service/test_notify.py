"""Reminders (docs/clocks.md): the outbox, webhooks (signed, retried, logged) and mail
through a local SMTP sink, on both stores, with the embedded deliverer's own thread."""

from __future__ import annotations

import hashlib
import hmac
import itertools
import json
import threading
import time
from datetime import timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from aiosmtpd.controller import Controller

from projections.models import NOTICE_KINDS
from service.app import create_app
from service.runtime.settings import Settings
from service.store.postgres import PostgresEventStore
from service.store.sqlite import SQLiteEventStore
from service.timing.clocks import parse_time
from tests.servers import free_port
from tests.service.api import Player, open_game


class Receiver:
    """A webhook receiver on 127.0.0.1 that fails the first ``fail`` requests (500)."""

    def __init__(self, fail: int = 0) -> None:
        self.fail = fail
        self.received: list[tuple[dict[str, str], bytes]] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                outer.received.append((dict(self.headers), body))
                status = 500 if len(outer.received) <= outer.fail else 204
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}/hook"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class Sink:
    """An SMTP server that keeps what it is sent (aiosmtpd)."""

    def __init__(self) -> None:
        self.messages: list[tuple[str, list[str], bytes]] = []
        self.port = free_port()
        sink = self

        class Handler:
            async def handle_DATA(self, server, session, envelope):
                sink.messages.append((envelope.mail_from, envelope.rcpt_tos, envelope.content))
                return "250 OK"

        self.controller = Controller(Handler(), hostname="127.0.0.1", port=self.port)
        self.controller.start()

    def close(self) -> None:
        self.controller.stop()


@pytest.fixture
def sink():
    s = Sink()
    yield s
    s.close()


@pytest.fixture(params=["sqlite", "postgres"])
def notifying(request, tmp_path, sink):
    """An embedded app that may reach 127.0.0.1 and retries after 0.3 s."""
    settings = Settings(
        data_dir=tmp_path,
        testing=True,
        rate_limits={},
        webhooks_private=True,
        notify_backoff=(0.3, 0.3),
        smtp_url=f"smtp://127.0.0.1:{sink.port}",
        mail_from="tables@tongiaki.test",
        public_url="https://tables.example.org",
    )
    if request.param == "sqlite":
        store = SQLiteEventStore(tmp_path / "n.db")
    else:
        _, url = request.getfixturevalue("pg_schema")
        store = PostgresEventStore(url, max_size=4)
    app = create_app(settings, store=store)
    yield app.test_client()
    store.close()


def until(check, seconds: float = 20.0):  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + seconds
    while True:
        found = check()
        if found:
            return found
        assert time.monotonic() < deadline, "not within the bound"
        time.sleep(0.05)


def test_a_webhook_that_fails_once_is_retried_signed_and_logged(notifying):
    receiver = Receiver(fail=1)
    try:
        ann = Player(notifying, "ann")
        r = ann.client.put(
            "/api/v1/me/notifications/settings",
            json={"webhook_url": receiver.url, "kinds": ["your_move"]},
            headers=ann.headers,
        )
        assert r.status_code == 200, r.json
        secret = r.json["webhook_secret"]
        assert len(secret) == 64 and r.json["email_available"] is True
        game_id = _game_ann_first(notifying, ann)
        until(lambda: len(receiver.received) >= 2)
        (first, body1), (second, body2) = receiver.received[:2]
        assert body1 == body2 and first["X-Tongiaki-Delivery"] == second["X-Tongiaki-Delivery"]
        stamp = second["X-Tongiaki-Timestamp"]
        mac = hmac.new(secret.encode(), stamp.encode() + b"." + body2, hashlib.sha256)
        assert second["X-Tongiaki-Signature"] == "sha256=" + mac.hexdigest()
        notice = json.loads(body2)
        assert notice["kind"] == "your_move" and notice["game_id"] == game_id
        assert notice["account_id"] == ann.id
        assert notice["url"] == f"https://tables.example.org/games/{game_id}"

        def delivered():
            found = ann.get("/me/notifications").json["notifications"]
            return found if found and found[0]["deliveries"][0]["status"] == "delivered" else None

        shown = until(delivered)[0]
        delivery = shown["deliveries"][0]
        assert delivery["channel"] == "webhook" and delivery["attempts"] == 2
        assert [(a["ok"], a["detail"]) for a in delivery["log"]] == [
            (False, "HTTP 500"),
            (True, "HTTP 204"),
        ]
        time.sleep(1.2)  # a delivered notification is not sent again
        assert len(receiver.received) == 2
    finally:
        receiver.close()


def _game_ann_first(client, ann: Player) -> str:
    """A started two-player game in which ann (blue, seat 1) moves first."""
    bob = Player(client, "bob")
    game_id = ann.post("/games", {"max_players": 2}).json["game_id"]
    assert ann.post(f"/games/{game_id}/seats", {"colour": "blue"}).status_code == 201
    assert bob.post(f"/games/{game_id}/seats", {"colour": "red"}).status_code == 201
    assert bob.post(f"/games/{game_id}/start").status_code == 200
    return game_id


def test_a_mail_goes_to_the_smtp_sink(notifying, sink):
    ann = Player(notifying, "ann")
    r = ann.client.put(
        "/api/v1/me/notifications/settings",
        json={"email": "ann@example.org", "kinds": ["your_move", "game_over"]},
        headers=ann.headers,
    )
    assert r.status_code == 200 and r.json["webhook_secret"] is None
    _game_ann_first(notifying, ann)
    until(lambda: sink.messages)
    mail_from, to, content = sink.messages[0]
    assert mail_from == "tables@tongiaki.test" and to == ["ann@example.org"]
    assert b"Subject: Tongiaki: It is your move." in content
    assert b"\nDate: " in content and b"https://tables.example.org/games/" in content
    shown = until(
        lambda: [
            n
            for n in ann.get("/me/notifications").json["notifications"]
            if n["deliveries"] and n["deliveries"][0]["status"] == "delivered"
        ]
    )
    assert shown[0]["deliveries"][0]["channel"] == "email"


def test_only_the_kinds_chosen_are_delivered(notifying):
    receiver = Receiver()
    try:
        ann = Player(notifying, "ann")
        ann.client.put(
            "/api/v1/me/notifications/settings",
            json={"webhook_url": receiver.url, "kinds": ["game_over"]},
            headers=ann.headers,
        )
        _game_ann_first(notifying, ann)
        until(lambda: ann.get("/me/notifications").json["notifications"])
        time.sleep(1.5)  # a round or more of the deliverer
        assert receiver.received == []
        shown = ann.get("/me/notifications").json["notifications"]
        assert shown[0]["kind"] == "your_move" and shown[0]["deliveries"] == []
    finally:
        receiver.close()


def test_bad_settings_are_refused_and_change_nothing(client):
    ann = Player(client, "ann")
    for body, code in (
        ({"webhook_url": "ftp://example.org/x"}, "bad_webhook"),
        ({"webhook_url": "http://127.0.0.1:9/x"}, "bad_webhook"),  # private: refused here
        ({"webhook_url": "http://10.1.2.3/x"}, "bad_webhook"),
        ({"webhook_url": "http://user:pw@example.org/x"}, "bad_webhook"),
        ({"webhook_url": "https://example.org/" + "x" * 2000}, None),
        ({"email": "not an address"}, "bad_email"),
        ({"kinds": ["everything"]}, None),
        ({"kinds": "your_move"}, None),
        ({"rotate_secret": "yes"}, None),
    ):
        r = client.put("/api/v1/me/notifications/settings", json=body, headers=ann.headers)
        assert r.status_code == 422, (body, r.json)
        assert r.content_type == "application/problem+json"
        if code:
            assert r.json["code"] == code
    shown = ann.get("/me/notifications/settings").json
    assert shown["webhook_url"] is None and shown["email"] is None and shown["kinds"] == []
    assert client.get("/api/v1/me/notifications/settings").status_code == 401
    assert ann.get("/me/notifications?limit=0").status_code == 422


def test_a_webhook_host_must_resolve_and_the_url_be_plain_ascii_even_where_private_is_allowed(
    notifying,
):
    ann = Player(notifying, "ann")
    for url in (
        "http://nonexistent.invalid/x",  # .invalid never resolves (RFC 2606)
        "http://127.0.0.1/\u202ex",  # a right-to-left override
        "http://127.0.0.1/caf\u00e9",
        # not host names: refused before resolving (gevent's resolver logged a traceback)
        "http://" + "a" * 64 + ".com/x",
        "http://a..b/x",
        "http://.example.org/x",
        "http://" + "a." * 130 + "com/x",
    ):
        r = notifying.put(
            "/api/v1/me/notifications/settings", json={"webhook_url": url}, headers=ann.headers
        )
        assert r.status_code == 422 and r.json["code"] == "bad_webhook", (url, r.json)
    assert ann.get("/me/notifications/settings").json["webhook_url"] is None
    ok = "http://127.0.0.1:9/caf%C3%A9"
    r = notifying.put(
        "/api/v1/me/notifications/settings", json={"webhook_url": ok}, headers=ann.headers
    )
    assert r.status_code == 200 and r.json["webhook_url"] == ok


def test_the_outbox_tells_whose_move_it_is_who_timed_out_and_that_the_game_ended(client):
    game_id, players = open_game(client, ["blue", "red"])
    quitter = players[1]
    quitter.post(f"/games/{game_id}/commands", {"type": "Resign", "player_id": quitter.id})
    ann = players[0]
    mine = ann.get("/me/notifications").json["notifications"]
    assert [n["kind"] for n in mine] == ["your_move"]
    assert all(n["game_id"] == game_id for n in mine)


def test_a_deadline_soon_reminder_is_made_once_per_decision(notifying):
    ann = Player(notifying, "ann")
    bob = Player(notifying, "bob")
    game_id = ann.post(
        "/games", {"max_players": 2, "time_control": "move", "move_seconds": 3 * 3600}
    ).json["game_id"]
    ann.post(f"/games/{game_id}/seats", {"colour": "blue"})
    bob.post(f"/games/{game_id}/seats", {"colour": "red"})
    bob.post(f"/games/{game_id}/start")
    notifier = notifying.application.extensions["tongiaki.notify"]
    clock = notifying.get(f"/api/v1/games/{game_id}").json["clock"]
    since = parse_time(clock["since"])
    assert notifier.remind(since + timedelta(minutes=90)) == 0  # 90 min left: not yet
    assert notifier.remind(since + timedelta(minutes=150)) == 1
    notifier.remind(since + timedelta(minutes=170))  # the same decision: no second one
    kinds = [n["kind"] for n in ann.get("/me/notifications").json["notifications"]]
    assert kinds.count("deadline_soon") == 1


def test_a_ruling_that_stands_tells_every_player_once(client, app):
    from tests.service.test_disputes import Auditor, dispute, first_move

    game_id, players = open_game(client, ["blue", "red"])
    moved = first_move(client, game_id, players)
    d = dispute(players[1], game_id, moved["version"]).json["dispute_id"]
    auditor = Auditor(client, app)
    assert auditor.post(f"/disputes/{d}/assign", {}).status_code == 200
    r = auditor.post(
        f"/disputes/{d}/ruling", {"decision": "stands", "reasoning": "fine", "rules": ["R7"]}
    )
    assert r.status_code == 200, r.json
    for p in players:
        ruled = [
            n
            for n in p.get("/me/notifications").json["notifications"]
            if n["kind"] == "dispute_ruled"
        ]
        assert len(ruled) == 1 and d in ruled[0]["text"] and "stands" in ruled[0]["text"]


def test_settings_change_only_what_is_sent(notifying):
    ann = Player(notifying, "ann")

    def put(body):
        r = notifying.put("/api/v1/me/notifications/settings", json=body, headers=ann.headers)
        assert r.status_code == 200, r.json
        return r.json

    first = put({"webhook_url": "http://127.0.0.1:9/hook", "email": "ann@example.org"})
    assert first["kinds"] == list(NOTICE_KINDS)  # all, at the first save
    rotated = put({"rotate_secret": True})
    assert rotated["webhook_url"] == first["webhook_url"] and rotated["email"] == first["email"]
    assert rotated["webhook_secret"] != first["webhook_secret"]
    assert put({"kinds": ["game_over"]})["webhook_url"] == first["webhook_url"]
    cleared = put({"email": None})
    assert cleared["email"] is None and cleared["webhook_url"] == first["webhook_url"]
    assert cleared["kinds"] == ["game_over"]
    assert put({})["webhook_secret"] == rotated["webhook_secret"]


def test_the_outbox_pages_with_a_cursor_and_refuses_anything_else(client):
    game_id, players = open_game(client, ["blue", "red"])
    ann = players[0]
    for _ in range(6):  # each move passes the turn: a your_move each time
        legal = client.get(f"/api/v1/games/{game_id}/legal").json
        mover = next(p for p in players if p.id == legal["player_id"])
        mover.post(f"/games/{game_id}/commands", legal["commands"][0])
    everything = [n["id"] for n in ann.get("/me/notifications?limit=200").json["notifications"]]
    assert len(everything) >= 2
    seen, cursor = [], None
    while True:
        page = ann.get("/me/notifications?limit=1" + (f"&before={cursor}" if cursor else "")).json
        assert len(page["notifications"]) == 1  # never an empty last page (issue 39)
        seen += [n["id"] for n in page["notifications"]]
        cursor = page["next_before"]
        assert page["has_more"] == (cursor is not None)
        if cursor is None:
            break
    assert seen == everything
    whole = ann.get(f"/me/notifications?limit={len(everything)}").json
    assert whole["has_more"] is False and whole["next_before"] is None
    for bad in ("garbage", "3", "2026-11-25T07:58:30+02:00", "1-xyz", "9" * 16 + "-" + "a" * 24):
        r = ann.get(f"/me/notifications?before={bad}")
        assert r.status_code == 422 and r.json["code"] == "bad_before", bad


class SlowReceiver(Receiver):
    """A webhook receiver that answers each request after ``delay`` seconds."""

    def __init__(self, delay: float) -> None:
        self.delay = delay
        super().__init__()
        handler = self.server.RequestHandlerClass
        slow = self

        class Slow(handler):  # type: ignore[misc, valid-type]
            def do_POST(self) -> None:
                time.sleep(slow.delay)
                super().do_POST()

        self.server.RequestHandlerClass = Slow


def outbox(app, account_id: str, n: int, kind: str = "your_move") -> None:
    """``n`` notifications for an account, as the projection makes them."""
    from projections.phrases import say
    from service.notifications.outbox import add as _insert

    notifier = app.extensions["tongiaki.notify"]
    now = notifier.clock()
    with notifier.store.transaction() as cur:
        for i in range(n):
            _insert(cur, account_id, f"g{i:04d}", i + 1, kind, now, say("It is your move."))


def hook(player: Player, url: str) -> None:
    """A webhook for each your_move notification on its own (these tests are about
    delivery; test_digests is about batching)."""
    r = player.client.put(
        "/api/v1/me/notifications/settings",
        json={"webhook_url": url, "kinds": ["your_move"], "your_move": "every"},
        headers=player.headers,
    )
    assert r.status_code == 200, r.json


def test_a_slow_endpoint_holds_up_only_its_own_accounts_deliveries(notifying):
    """Found by a probe: one account's hook answering in 10 s delayed everybody's
    reminders by as much. Now an account has at most 2 deliveries under way, and the
    others' go out meanwhile."""
    app = notifying.application
    slow, fast = SlowReceiver(2.0), Receiver()
    try:
        ann, bob = Player(notifying, "ann"), Player(notifying, "bob")
        hook(ann, slow.url)
        hook(bob, fast.url)
        outbox(app, ann.id, 30)  # a backlog behind a slow endpoint
        time.sleep(0.3)
        began = time.monotonic()
        outbox(app, bob.id, 10)
        until(lambda: len(fast.received) == 10, seconds=10)
        assert time.monotonic() - began < 2.5  # not behind ann's 30 × 2 s
        assert len(slow.received) <= 4  # ann's go two at a time
    finally:
        slow.close()
        fast.close()


def test_retries_keep_to_the_backoff(notifying):
    """Each retry comes its delay after the attempt before (0.3 s here), not after the
    next round of a busy deliverer."""
    receiver = Receiver(fail=2)
    try:
        ann = Player(notifying, "ann")
        hook(ann, receiver.url)
        outbox(notifying.application, ann.id, 1)
        until(lambda: len(receiver.received) == 3, seconds=10)
        times = [a["at"] for a in _log(ann)]
        gaps = [
            (parse_time(b) - parse_time(a)).total_seconds() for a, b in itertools.pairwise(times)
        ]
        assert all(0.3 <= g < 0.9 for g in gaps), gaps
    finally:
        receiver.close()


def _log(player: Player) -> list[dict]:
    def delivered():
        found = player.get("/me/notifications").json["notifications"]
        d = found[0]["deliveries"] if found else []
        return d[0]["log"] if d and d[0]["status"] == "delivered" else None

    return until(delivered)


def test_a_delivery_claimed_by_a_process_that_died_is_sent_when_its_lease_ends(
    tmp_path, monkeypatch
):
    """A claim is a lease: a deliverer that dies after claiming (here: its senders
    never run) holds its deliveries only until the lease ends; then another sends them,
    once."""
    from service.notifications import deliverer, notify

    monkeypatch.setattr("service.notifications.outbox.LEASE_MS", 1500)
    settings = Settings(data_dir=tmp_path, rate_limits={}, webhooks_private=True)
    app = create_app(settings, sweep=False)  # no deliverer of its own: this test runs them
    receiver = Receiver()
    stop = None
    try:
        ann = Player(app.test_client(), "ann")
        hook(ann, receiver.url)
        live = app.extensions["tongiaki.notify"]
        dead = notify.Notifier(live.store, settings, live.clock)
        dead.deliverer.pool.shutdown()  # it claims, and never sends
        outbox(app, ann.id, 1)
        dead.plan(live.clock())
        assert dead.pump(live.clock()) == 1
        claimed = time.monotonic()
        stop = deliverer.run_deliveries(live, 0.05, lambda: False)
        until(lambda: receiver.received, seconds=10)
        assert time.monotonic() - claimed >= 1.2
        assert len(receiver.received) == 1 and [a["ok"] for a in _log(ann)] == [True]
    finally:
        if stop is not None:
            stop.set()
        receiver.close()


def test_a_migration_two_processes_start_together_runs_once(pg_schema):
    """Two gunicorn workers starting together both read version 1 before either took
    the upgrade lock; the second then ran the ALTER TABLE again and failed to boot. The
    version is read again under the lock."""
    from service.notifications import notify

    _, url = pg_schema
    first, second = PostgresEventStore(url, max_size=2), PostgresEventStore(url, max_size=2)
    try:
        for store in (first, second):
            store.upgrade()
        first.ensure_tables(notify.TABLES, "notify_schema", 1)
        # the second process read the version before the first migrated: it saw 1
        second.recorded_version = lambda table="schema_version": 1  # type: ignore[method-assign]
        notify.Notifier(first, Settings()).upgrade()
        notify.Notifier(second, Settings()).upgrade()  # raised DuplicateColumn
        assert first.recorded_version("notify_schema") == max(notify.MIGRATIONS)
    finally:
        first.close()
        second.close()
