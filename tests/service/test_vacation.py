"""Vacation (docs/vacation.md, V1–V8) through the API on SQLite, PostgreSQL and the
in-memory store, with the service's clock frozen (freezegun): given a timed game with
vacation, when its decisions' own time runs out or the player announced a spell, then
the clocks, the timeouts, the days left and the record say what the rules say."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta

import pytest
from freezegun import freeze_time

from service.app import create_app
from service.runtime.settings import Settings
from service.store.in_memory import InMemoryStore
from service.store.postgres import PostgresEventStore
from service.store.sqlite import SQLiteEventStore
from tests.service.api import Player, all_events, open_game

T0 = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)
HOUR = timedelta(hours=1)
DAY_MS = 86_400_000
MOVE = {"time_control": "move", "move_seconds": 3600}


@pytest.fixture(params=["sqlite", "postgres", "memory"])
def make_app(request, tmp_path):
    """An app on each store, with ``days`` of vacation a year and no background thread:
    the test plays the timekeeper (``tick``) at the frozen time it chooses."""
    made = []

    def make(days: int = 2):
        settings = Settings(data_dir=tmp_path, testing=True, rate_limits={}, vacation_days=days)
        if request.param == "sqlite":
            store = SQLiteEventStore(tmp_path / f"v{len(made)}.db")
        elif request.param == "memory":
            store = InMemoryStore()
        else:
            _, url = request.getfixturevalue("pg_schema")
            store = PostgresEventStore(url, max_size=4)
        made.append(store)
        return create_app(settings, store=store, sweep=False)

    yield make
    for store in made:
        store.close()


def tick(app, game_id):
    """The timekeeper's tick now: the bot's move if one is due (None when nothing is)."""
    return app.extensions["tongiaki.games"].act_for_seat(game_id)


def view(client, game_id):
    return client.get(f"/api/v1/games/{game_id}").json


def kinds(client, game_id):
    return [e["type"] for e in all_events(client, game_id)]


def announce(player: Player, until: datetime, start: datetime | None = None):
    body = {"until": until.isoformat()}
    if start is not None:
        body["from"] = start.isoformat()
    return player.post("/me/vacation", body)


def test_v2_vacation_is_an_option_of_a_timed_game_only(make_app):
    with freeze_time(T0):
        client = make_app().test_client()
        ann = Player(client, "ann")
        r = ann.post("/games", {"max_players": 2, "vacation": True})
        assert r.status_code == 409 and r.json["code"] == "vacation_needs_clock"
        assert r.json["rule"] == "V2"
        game_id, _ = open_game(client, ["blue", "red"], vacation=True, **MOVE)
        assert view(client, game_id)["time_control"]["vacation"] is True
        plain, _ = open_game(client, ["blue", "red"], **MOVE)
        assert "vacation" not in view(client, plain)["time_control"]
        assert "vacation" not in view(client, plain)["clock"]


def test_v3_a_deadline_passing_spends_vacation_instead_of_timing_out(make_app):
    with freeze_time(T0) as frozen:
        app = make_app(days=2)
        client = app.test_client()
        game_id, (ann, _) = open_game(client, ["blue", "red"], vacation=True, **MOVE)
        frozen.tick(HOUR)  # ann's own hour is up: she is on vacation now
        assert tick(app, game_id) is None
        notice = view(client, game_id)["vacation"]
        assert [(n["seat"], n["kind"]) for n in notice] == [(1, "automatic")]
        assert notice[0]["until"] == (T0 + HOUR + timedelta(days=2)).isoformat()
        frozen.tick(timedelta(days=2) - timedelta(microseconds=1))
        assert tick(app, game_id) is None and "TurnTimedOut" not in kinds(client, game_id)
        frozen.tick(timedelta(microseconds=1))  # the days are spent: the normal timeout (C3)
        assert tick(app, game_id) is not None
        assert "TurnTimedOut" in kinds(client, game_id)
        standing = ann.get("/me/vacation").json
        assert standing["left_ms"] == 0 and standing["days_left"] == 0.0
        assert client.get(f"/api/v1/games/{game_id}/verify").json["ok"] is True


def test_v3_a_move_on_vacation_is_taken_and_spends_only_the_time_past_the_deadline(make_app):
    with freeze_time(T0) as frozen:
        app = make_app(days=2)
        client = app.test_client()
        game_id, (ann, _) = open_game(client, ["blue", "red"], vacation=True, **MOVE)
        frozen.tick(HOUR * 11)  # ten hours past her own time
        legal = client.get(f"/api/v1/games/{game_id}/legal").json
        r = ann.post(f"/games/{game_id}/commands", legal["commands"][0])
        assert r.status_code == 200, r.json
        clock = r.json["events"][-1]["metadata"]["clock"]
        assert clock["vacation_used_ms"] == 10 * 3_600_000
        standing = ann.get("/me/vacation").json
        assert standing["spent_ms"] == 10 * 3_600_000
        assert standing["left_ms"] == 2 * DAY_MS - 10 * 3_600_000
        assert view(client, game_id)["vacation"] == []


def test_v1_without_days_left_the_deadline_times_out_as_before(make_app):
    with freeze_time(T0) as frozen:
        app = make_app(days=0)
        client = app.test_client()
        game_id, _ = open_game(client, ["blue", "red"], vacation=True, **MOVE)
        frozen.tick(HOUR)
        assert tick(app, game_id) is not None
        assert "TurnTimedOut" in kinds(client, game_id)


def test_v4_an_announced_spell_stops_the_clock_of_decisions_that_start_after_it(make_app):
    with freeze_time(T0) as frozen:
        app = make_app(days=3)
        client = app.test_client()
        game_id, (ann, bob) = open_game(client, ["blue", "red"], vacation=True, **MOVE)
        away = (T0 + 2 * HOUR, T0 + 2 * HOUR + timedelta(days=1))
        r = announce(bob, away[1], away[0])
        assert r.status_code == 201, r.json
        assert r.json["announced"] == [{"from": away[0].isoformat(), "until": away[1].isoformat()}]
        assert r.json["left_ms"] == 2 * DAY_MS  # spent whole when announced (V4)
        frozen.tick(HOUR * 1.5)  # bob's decision starts half an hour before his spell
        legal = client.get(f"/api/v1/games/{game_id}/legal").json
        assert ann.post(f"/games/{game_id}/commands", legal["commands"][0]).status_code == 200
        clock = view(client, game_id)["clock"]
        assert clock["vacation"]["away"] == [[a.isoformat() for a in away]]
        # half an hour before the spell, the clock stands still a day, half an hour after
        assert clock["vacation"]["starts"] == (away[1] + HOUR / 2).isoformat()
        frozen.move_to(away[0] + HOUR)
        notice = view(client, game_id)["vacation"]
        assert [(n["seat"], n["kind"], n["until"]) for n in notice] == [
            (2, "announced", away[1].isoformat())
        ]
        frozen.move_to(away[1])
        assert tick(app, game_id) is None and "TurnTimedOut" not in kinds(client, game_id)
        assert view(client, game_id)["clock"]["time_left_ms"]["2"] == 1_800_000


def test_v4_a_spell_announced_while_the_decision_runs_stops_that_decision_too(make_app):
    with freeze_time(T0) as frozen:
        app = make_app(days=3)
        client = app.test_client()
        game_id, (ann, _) = open_game(client, ["blue", "red"], vacation=True, **MOVE)
        frozen.tick(HOUR / 2)  # half of ann's own hour used, she leaves now for a day
        away_until = T0 + HOUR / 2 + timedelta(days=1)
        r = announce(ann, away_until)
        assert r.status_code == 201, r.json
        events = all_events(client, game_id)
        assert events[-1]["type"] == "AwayAnnounced", events[-1]
        assert events[-1]["data"]["rule"] == "V4"
        clock = events[-1]["metadata"]["clock"]
        assert clock["since"] == T0.isoformat()  # the same decision, not a new one
        assert clock["vacation"]["away"] == [[(T0 + HOUR / 2).isoformat(), away_until.isoformat()]]
        deadline = away_until + HOUR / 2 + timedelta(days=3)  # the rest, then her reserve
        assert clock["deadline"] == deadline.isoformat()
        assert clock["vacation"]["starts"] == (away_until + HOUR / 2).isoformat()
        frozen.move_to(away_until - timedelta(microseconds=1))
        assert tick(app, game_id) is None and "TurnTimedOut" not in kinds(client, game_id)
        assert view(client, game_id)["clock"]["time_left_ms"]["1"] == 1_800_000
        notice = view(client, game_id)["vacation"]
        assert [(n["seat"], n["kind"]) for n in notice] == [(1, "announced")]
        frozen.move_to(away_until + HOUR / 4)  # back, a quarter of an hour used of the half
        legal = client.get(f"/api/v1/games/{game_id}/legal").json
        r = ann.post(f"/games/{game_id}/commands", legal["commands"][0])
        assert r.status_code == 200, r.json
        assert r.json["events"][-1]["metadata"]["clock"]["vacation_used_ms"] == 0
        timeline = client.get(f"/api/v1/games/{game_id}/timeline").json
        words = [s["description"] for s in timeline["steps"] if s["type"] == "AwayAnnounced"]
        assert words and "stand still" in words[0] and "V4" in words[0]
        verified = client.get(f"/api/v1/games/{game_id}/verify").json
        assert verified["ok"] is True, verified


def test_v4_a_spell_of_the_player_not_to_move_is_recorded_and_their_next_decision_keeps_it(
    make_app,
):
    with freeze_time(T0) as frozen:
        app = make_app(days=3)
        client = app.test_client()
        game_id, (ann, bob) = open_game(client, ["blue", "red"], vacation=True, **MOVE)
        before = view(client, game_id)["clock"]
        away = (T0 + HOUR, T0 + HOUR + timedelta(days=1))
        assert announce(bob, away[1], away[0]).status_code == 201
        after = all_events(client, game_id)[-1]
        assert after["type"] == "AwayAnnounced" and after["data"]["seat"] == 2
        assert after["metadata"]["clock"]["deadline"] == before["deadline"]  # ann's, unmoved
        frozen.tick(HOUR / 2)
        legal = client.get(f"/api/v1/games/{game_id}/legal").json
        assert ann.post(f"/games/{game_id}/commands", legal["commands"][0]).status_code == 200
        clock = view(client, game_id)["clock"]
        assert clock["seat"] == 2 and clock["vacation"]["away"] == [[a.isoformat() for a in away]]
        assert client.get(f"/api/v1/games/{game_id}/verify").json["ok"] is True


def test_v4_q2_an_announcement_is_no_decision_the_queue_keeps_waiting_since(make_app):
    """Given ann's move waiting since T0, when bob announces a spell (recorded in the
    game), then ann's queue still says her move has waited since T0 (Q2)."""
    with freeze_time(T0) as frozen:
        app = make_app(days=3)
        client = app.test_client()
        game_id, (ann, bob) = open_game(client, ["blue", "red"], vacation=True, **MOVE)
        frozen.tick(HOUR / 4)
        since = [g["waiting_since"] for g in ann.get("/me/queue").json["games"]]
        frozen.tick(HOUR / 4)
        assert announce(bob, T0 + timedelta(days=1), T0 + HOUR).status_code == 201
        assert all_events(client, game_id)[-1]["type"] == "AwayAnnounced"
        assert [g["waiting_since"] for g in ann.get("/me/queue").json["games"]] == since
        assert since == [T0.isoformat()]


def test_v4_a_spell_announced_after_the_deadline_passed_comes_too_late_for_it(make_app):
    with freeze_time(T0) as frozen:
        app = make_app(days=0)  # no reserve: the deadline is the hour
        client = app.test_client()
        game_id, (ann, _) = open_game(client, ["blue", "red"], vacation=True, **MOVE)
        frozen.tick(HOUR)  # the deadline passed; the timekeeper has not come yet
        app.extensions["tongiaki.vacations"].days = 2  # (so that a spell can be announced)
        assert announce(ann, T0 + HOUR + timedelta(days=1)).status_code == 201
        clock = all_events(client, game_id)[-1]["metadata"]["clock"]
        assert clock["deadline"] == (T0 + HOUR).isoformat() and clock["vacation"]["away"] == []
        assert tick(app, game_id) is not None
        assert "TurnTimedOut" in kinds(client, game_id)
        assert client.get(f"/api/v1/games/{game_id}/verify").json["ok"] is True


def test_v5_announcements_that_cannot_be_are_refused_with_their_reason(make_app):
    with freeze_time(T0):
        client = make_app(days=2).test_client()
        loner = Player(client, "loner")
        r = announce(loner, T0 + HOUR)
        assert r.status_code == 409 and r.json["code"] == "no_vacation_games"
        _, (ann, _) = open_game(client, ["blue", "red"], vacation=True, **MOVE)
        cases = [
            ((T0 + HOUR, T0 - HOUR), "vacation_in_past", "V5"),
            ((T0 + HOUR, T0 + HOUR), "vacation_ends_before_start", "V5"),
            ((T0 + timedelta(days=400), None), "vacation_too_far", "V5"),
            ((T0 + timedelta(days=3), None), "vacation_days_exhausted", "V1"),
        ]
        for (until, start), code, rule in cases:
            r = announce(ann, until, start)
            assert r.status_code == 409 and r.json["code"] == code, r.json
            assert r.json["rule"] == rule
        assert announce(ann, T0 + 2 * HOUR, T0 + HOUR).status_code == 201
        r = announce(ann, T0 + 3 * HOUR, T0 + HOUR + HOUR / 2)
        assert r.status_code == 409 and r.json["code"] == "vacation_overlaps"
        r = ann.post("/me/vacation", {"until": "tomorrow"})
        assert r.status_code == 422
        r = ann.post("/me/vacation", {"until": "2026-12-01T00:00:00"})  # no offset
        assert r.status_code == 422
        assert ann.get("/me/vacation").json["announced"] == [
            {"from": (T0 + HOUR).isoformat(), "until": (T0 + 2 * HOUR).isoformat()}
        ]
        assert client.get("/problems/vacation_overlaps").status_code == 200


def test_v5_two_announcements_at_once_leave_one(make_app):
    with freeze_time(T0):
        app = make_app(days=2)
        client = app.test_client()
        _, (ann, _) = open_game(client, ["blue", "red"], vacation=True, **MOVE)
        results = []

        def send():
            mine = Player.__new__(Player)
            mine.client, mine.headers = app.test_client(), ann.headers
            results.append(announce(mine, T0 + 5 * HOUR, T0 + HOUR).status_code)

        threads = [threading.Thread(target=send) for _ in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert sorted(results) == [201, 409]
        assert len(ann.get("/me/vacation").json["announced"]) == 1


def test_v6_vacation_spent_in_two_games_at_once_counts_once(make_app):
    with freeze_time(T0) as frozen:
        app = make_app(days=2)
        client = app.test_client()
        first, (ann, bob) = open_game(client, ["blue", "red"], vacation=True, **MOVE)
        second = ann.post("/games", {"max_players": 2, "vacation": True, **MOVE}).json["game_id"]
        ann.post(f"/games/{second}/seats", {"colour": "blue"})
        bob.post(f"/games/{second}/seats", {"colour": "red"})
        bob.post(f"/games/{second}/start")
        frozen.tick(HOUR * 6)  # five hours past her own time in both games at once
        for game_id in (first, second):
            legal = client.get(f"/api/v1/games/{game_id}/legal").json
            assert ann.post(f"/games/{game_id}/commands", legal["commands"][0]).status_code == 200
        assert ann.get("/me/vacation").json["spent_ms"] == 5 * 3_600_000


def test_v7_a_game_with_vacation_verifies_and_its_read_model_rebuilds_the_same(make_app):
    with freeze_time(T0) as frozen:
        app = make_app(days=1)
        client = app.test_client()
        game_id, (ann, bob) = open_game(client, ["blue", "red"], vacation=True, **MOVE)
        for hours, who in ((3, ann), (30, bob)):
            frozen.tick(HOUR * hours)
            tick(app, game_id)
            legal = client.get(f"/api/v1/games/{game_id}/legal").json
            if legal["player_id"] == who.id:
                who.post(f"/games/{game_id}/commands", legal["commands"][0])
        verified = client.get(f"/api/v1/games/{game_id}/verify").json
        assert verified["ok"] is True, verified
        rm = app.extensions["tongiaki.readmodels"]
        select = "SELECT game_id, since, account_id, starts_at, ends_at, running FROM rm_vacation"
        before = sorted(tuple(r) for r in rm.query(select))
        rm.rebuild(["vacation"])
        assert sorted(tuple(r) for r in rm.query(select)) == before and before


def test_v8_the_rules_are_a_page_and_refusals_link_it(make_app):
    client = make_app().test_client()
    text = client.get("/docs/vacation").get_data(as_text=True)
    for rule in ("V1", "V2", "V3", "V4", "V5", "V6", "V7", "V8", "V9"):
        assert f'id="{rule}"' in text
    assert 'href="/docs/vacation#V5"' in client.get("/problems/vacation_overlaps").get_data(
        as_text=True
    )


def test_v1_the_days_a_year_are_a_setting_from_0_to_366():
    from service.runtime.settings import ConfigError

    assert Settings.from_env({}).vacation_days == 30
    assert Settings.from_env({"TONGIAKI_VACATION_DAYS": "0"}).vacation_days == 0
    for wrong in ("367", "-1", "ten"):
        with pytest.raises(ConfigError, match="TONGIAKI_VACATION_DAYS"):
            Settings.from_env({"TONGIAKI_VACATION_DAYS": wrong})


def test_v1_a_vacation_over_new_year_is_charged_to_each_year_for_its_part(make_app):
    eve = datetime(2026, 12, 30, 12, 0, tzinfo=UTC)
    new_year = datetime(2027, 1, 1, tzinfo=UTC)
    with freeze_time(eve):
        client = make_app(days=2).test_client()
        _, (ann, _) = open_game(client, ["blue", "red"], vacation=True, **MOVE)
        r = announce(ann, new_year + 12 * HOUR)  # 1.5 days of 2026, half a day of 2027
        assert r.status_code == 201 and r.json["left_ms"] == DAY_MS // 2
        assert announce(ann, new_year + 48 * HOUR, new_year + 12 * HOUR).status_code == 201
        r = announce(ann, new_year + 49 * HOUR, new_year + 48 * HOUR)  # 2027 is all spent
        assert r.status_code == 409 and r.json["code"] == "vacation_days_exhausted"
        assert r.json["rule"] == "V1" and "of 2027" in r.json["detail"]
        # the account's standing says both years: 2026's half day left, none in 2027
        years = {y["year"]: y["days_left"] for y in ann.get("/me/vacation").json["years"]}
        assert years == {2026: 0.5, 2027: 0.0}


def test_v5_times_at_the_ends_of_the_calendar_are_refused_not_failed(make_app):
    with freeze_time(T0):
        client = make_app().test_client()
        _, (ann, _) = open_game(client, ["blue", "red"], vacation=True, **MOVE)
        first = "0001-01-01T00:00:00+01:00"  # before year 1 in UTC
        last = "9999-12-31T23:59:00-05:00"  # after year 9999 in UTC
        for body, code in (
            ({"from": first, "until": last}, "vacation_in_past"),
            ({"until": first}, "vacation_ends_before_start"),
            ({"until": last}, "vacation_too_far"),
        ):
            r = ann.post("/me/vacation", body)
            assert r.status_code == 409 and r.json["code"] == code, r.json
